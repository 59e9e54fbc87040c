// A LAVA server through its REST API (v0.2, as LAVA 2023.01 serves it): the
// devices and their tags, submitting a job, a job's state, its log. The
// token goes in the Authorization header only: never into a URL, a message
// or a file.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvmbench {

struct LavaDevice {
  std::string hostname, device_type, health, state, worker;
  std::vector<std::string> tags;
};

struct LavaJob {
  long id = 0;
  std::string state;   // Submitted, Scheduling, Scheduled, Running, Canceling, Finished
  std::string health;  // Unknown, Complete, Incomplete, Canceled
  std::string device;  // the device that ran it, "" until scheduled
  std::string failure_comment;
  bool finished() const { return state == "Finished"; }
};

// The server answered, but not as asked: a refused token (401/403), a job
// the server's schema refused (400, with its message), a page that is not
// the API's JSON. The message says which and quotes the server's reason.
struct LavaRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LavaServer {
 public:
  // `url`: the server's root (http://lava.example.org/); the API lives at
  // url + "api/v0.2/". `token`: an API token, "" for anonymous reads.
  LavaServer(std::string url, std::string token);

  std::vector<LavaDevice> devices() const;
  // Submits a job definition (YAML text); its ids (one, or one per role
  // of a multinode job).
  std::vector<long> submit(const std::string& definition) const;
  LavaJob job(long id) const;
  // The job's log as the server keeps it: YAML, one record a line.
  std::string job_log(long id) const;
  void cancel(long id) const;
  // Who the token belongs to, for checking it before anything is submitted
  // (a refused token is LavaRefused); the server's version too.
  std::string version() const;

  const std::string& url() const { return url_; }

 private:
  std::string get(const std::string& path) const;
  std::vector<nlohmann::json> all_pages(std::string page) const;
  std::string url_, token_;
};

}  // namespace kvmbench
