#include "hostlib/lava/lava_server.h"

#include <fmt/format.h>

#include <map>

#include <nlohmann/json.hpp>

#include "hostlib/lava/http_client.h"

namespace kvmbench {

namespace {

std::string with_slash(std::string url) {
  if (url.empty() || url.back() != '/') url += '/';
  return url;
}

// The server's own words for a refusal: DRF answers {"detail": "..."}, a
// refused submission {"message": "..."}; otherwise the start of the body.
std::string server_reason(const HttpResponse& r) {
  try {
    const auto j = nlohmann::json::parse(r.body);
    if (j.is_object()) {
      for (const char* key : {"detail", "message", "error"})
        if (j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
    }
  } catch (const nlohmann::json::exception&) {
  }
  std::string text = r.body.substr(0, 200);
  for (auto& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return text.empty() ? "an empty answer" : text;
}

nlohmann::json parse_api_json(const std::string& url, const std::string& body) {
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception&) {
    throw LavaRefused(fmt::format("{}: the answer is not the LAVA API's JSON (is this a LAVA server's root URL?)", url));
  }
}

std::string string_at(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return "";
  if (j[key].is_string()) return j[key].get<std::string>();
  if (j[key].is_object() && j[key].contains("hostname")) return j[key]["hostname"].get<std::string>();
  return j[key].dump();
}

}  // namespace

LavaServer::LavaServer(std::string url, std::string token) : url_(with_slash(std::move(url))), token_(std::move(token)) {}

std::string LavaServer::get(const std::string& path) const {
  HttpRequest request;
  request.url = path.rfind("http", 0) == 0 ? path : url_ + "api/v0.2/" + path;
  if (!token_.empty()) request.headers.push_back("Authorization: Token " + token_);
  request.headers.push_back("Accept: application/json");
  const HttpResponse r = send_http(request);
  if (r.status == 401 || r.status == 403)
    throw LavaRefused(fmt::format("{}: the server refused the token (HTTP {}: {})", url_, r.status, server_reason(r)));
  if (r.status != 200)
    throw LavaRefused(fmt::format("{}: HTTP {} ({})", request.url, r.status, server_reason(r)));
  return r.body;
}

// Every item of a paginated list (DRF's {count, next, previous, results}),
// following "next" until it is null; a plain list is one page.
std::vector<nlohmann::json> LavaServer::all_pages(std::string page) const {
  std::vector<nlohmann::json> out;
  for (int pages = 0; !page.empty() && pages < 1000; ++pages) {
    const auto j = parse_api_json(url_, get(page));
    const auto& results = j.is_object() && j.contains("results") ? j["results"] : j;
    if (!results.is_array()) throw LavaRefused(fmt::format("{}: {} is not a list", url_, page));
    for (const auto& item : results) out.push_back(item);
    page = j.is_object() && j.contains("next") && j["next"].is_string() ? j["next"].get<std::string>() : "";
  }
  return out;
}

std::vector<LavaDevice> LavaServer::devices() const {
  std::vector<LavaDevice> out;
  // LAVA 2023.01 lists a device's tags by id; their names are under tags/
  // (which, unlike devices/, needs a valid token).
  std::map<long, std::string> tag_names;
  bool tags_by_id = false;
  const auto listed = all_pages("devices/?format=json&limit=100");
  for (const auto& d : listed)
    if (d.contains("tags") && d["tags"].is_array())
      for (const auto& t : d["tags"]) tags_by_id = tags_by_id || t.is_number_integer();
  if (tags_by_id)
    for (const auto& t : all_pages("tags/?format=json&limit=1000"))
      if (t.contains("id") && t["id"].is_number_integer()) tag_names[t["id"].get<long>()] = string_at(t, "name");
  {
    for (const auto& d : listed) {
      LavaDevice device;
      device.hostname = string_at(d, "hostname");
      device.device_type = string_at(d, "device_type");
      device.health = string_at(d, "health");
      device.state = string_at(d, "state");
      device.worker = string_at(d, "worker_host");
      if (d.contains("tags") && d["tags"].is_array())
        for (const auto& t : d["tags"]) {
          if (t.is_number_integer()) {
            const auto name = tag_names.find(t.get<long>());
            device.tags.push_back(name != tag_names.end() ? name->second : "#" + std::to_string(t.get<long>()));
          } else {
            device.tags.push_back(t.is_string() ? t.get<std::string>() : string_at(t, "name"));
          }
        }
      out.push_back(std::move(device));
    }
  }
  return out;
}

std::vector<long> LavaServer::submit(const std::string& definition) const {
  HttpRequest request;
  request.method = "POST";
  request.url = url_ + "api/v0.2/jobs/";
  request.headers = {"Authorization: Token " + token_, "Content-Type: application/json", "Accept: application/json"};
  request.body = nlohmann::json{{"definition", definition}}.dump();
  const HttpResponse r = send_http(request);
  if (r.status == 401 || r.status == 403)
    throw LavaRefused(fmt::format("{}: the server refused the token (HTTP {}: {})", url_, r.status, server_reason(r)));
  if (r.status != 201 && r.status != 200)
    throw LavaRefused(fmt::format("{}: the job was refused (HTTP {}: {})", url_, r.status, server_reason(r)));
  const auto j = parse_api_json(url_, r.body);
  std::vector<long> ids;
  if (j.contains("job_ids") && j["job_ids"].is_array())
    for (const auto& id : j["job_ids"])
      if (id.is_number_integer()) ids.push_back(id.get<long>());
  if (ids.empty()) throw LavaRefused(fmt::format("{}: the server accepted the job but named no job id", url_));
  return ids;
}

LavaJob LavaServer::job(long id) const {
  const auto j = parse_api_json(url_, get(fmt::format("jobs/{}/?format=json", id)));
  LavaJob job;
  job.id = id;
  job.state = string_at(j, "state");
  job.health = string_at(j, "health");
  job.device = string_at(j, "actual_device");
  job.failure_comment = string_at(j, "failure_comment");
  return job;
}

std::string LavaServer::job_log(long id) const { return get(fmt::format("jobs/{}/logs/", id)); }

void LavaServer::cancel(long id) const {
  HttpRequest request;
  request.url = url_ + fmt::format("api/v0.2/jobs/{}/cancel/", id);
  request.headers = {"Authorization: Token " + token_};
  send_http(request);  // best effort: the job may have ended meanwhile
}

std::string LavaServer::version() const {
  const auto j = parse_api_json(url_, get("system/version/?format=json"));
  return string_at(j, "version");
}

}  // namespace kvmbench
