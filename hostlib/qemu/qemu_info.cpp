#include "hostlib/qemu/qemu_info.h"

#include <cctype>

#include "hostlib/qemu/qemu_paths.h"
#include "hostlib/os/child_process.h"

namespace kvmbench::host {

std::string parse_qemu_version(std::string_view text) {
  // "QEMU emulator version 8.2.2 (Debian 1:8.2.2+ds-0ubuntu1)"
  auto pos = text.find("version ");
  if (pos == std::string_view::npos) return "";
  pos += 8;
  auto end = pos;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  return std::string(text.substr(pos, end - pos));
}

std::vector<std::string> parse_qemu_accels(std::string_view text) {
  // "Accelerators supported in QEMU binary:\nkvm\ntcg\n"
  std::vector<std::string> out;
  auto head = text.find("Accelerators supported");
  if (head == std::string_view::npos) return out;
  auto pos = text.find('\n', head);
  while (pos != std::string_view::npos && pos + 1 < text.size()) {
    auto start = pos + 1;
    pos = text.find('\n', start);
    auto line = text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    if (line.empty()) continue;
    bool word = true;
    for (char c : line)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) word = false;
    if (word) out.emplace_back(line);
  }
  return out;
}

QemuInfo probe_qemu(double timeout_s) {
  QemuInfo q;
  auto found = find_qemu();
  if (!found) {
    q.error = found.reason;
    return q;
  }
  q.found = true;
  q.path = found.path.string();
  auto v = run_program({q.path, "--version"}, timeout_s);
  q.version_line = v.output.substr(0, v.output.find('\n'));
  q.version = parse_qemu_version(v.output);
  if (!v.ok()) q.error = "--version: " + v.failure();
  auto a = run_program({q.path, "-accel", "help"}, timeout_s);
  q.accels = parse_qemu_accels(a.output);
  if (!a.ok()) q.error += (q.error.empty() ? "" : "; ") + std::string("-accel help: ") + a.failure();
  return q;
}

nlohmann::json to_json(const QemuInfo& q) {
  nlohmann::json j = {{"found", q.found},
                      {"path", q.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(q.path)},
                      {"version", q.version.empty() ? nlohmann::json(nullptr) : nlohmann::json(q.version)},
                      {"version_line", q.version_line},
                      {"accels", q.accels}};
  if (!q.error.empty()) j["error"] = q.error;
  return j;
}

}  // namespace kvmbench::host
