// What every guest workload shares: option parsing, sizes with suffixes, a
// monotonic clock, and the result line format
//   KVMBENCH-RESULT {"case":...,"variant":...,"metric":...,"unit":...,
//                    "value":...,"iteration":...}
// which analysis/parse/guest_output.h reads back. The workloads are
// statically linked and run as-is in the busybox initramfs or natively on
// the host (the baseline), so this header uses only libc and libstdc++.
#pragma once

#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace kvmbench::guest {

inline constexpr const char* kResultPrefix = "KVMBENCH-RESULT ";

[[noreturn]] inline void fail(const char* workload, const std::string& msg) {
  // On the guest console this is a marker line the host parser reports.
  std::string line = std::string("KVMBENCH-ERROR ") + workload + ": " + msg + "\n";
  ssize_t ignored = ::write(1, line.data(), line.size());
  (void)ignored;
  std::exit(2);
}

// "--key=value" or "--key value"; "--flag" alone is "1".
class Options {
 public:
  Options(const char* workload, int argc, char** argv, std::vector<std::string> known)
      : workload_(workload), known_(std::move(known)) {
    known_.insert(known_.end(), {"case", "variant", "iteration"});
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0) fail(workload_, "unexpected argument '" + a + "'");
      a = a.substr(2);
      std::string value = "1";
      if (auto eq = a.find('='); eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
      } else if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
        value = argv[++i];
      }
      bool ok = false;
      for (auto& k : known_) ok = ok || k == a;
      if (!ok) fail(workload_, "unknown option --" + a);
      values_[a] = value;
    }
  }

  std::string str(const char* key, const std::string& dflt) const {
    auto it = values_.find(key);
    return it == values_.end() ? dflt : it->second;
  }

  // Integer with optional K/M/G/T (binary) suffix: "100M" = 100 MiB.
  std::uint64_t size(const char* key, std::uint64_t dflt) const {
    auto it = values_.find(key);
    if (it == values_.end()) return dflt;
    const std::string& s = it->second;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (end == s.c_str()) fail(workload_, "--" + std::string(key) + " needs a number, got '" + s + "'");
    std::uint64_t mult = 1;
    std::string suffix = end;
    if (suffix == "K" || suffix == "k") mult = 1ull << 10;
    else if (suffix == "M" || suffix == "m") mult = 1ull << 20;
    else if (suffix == "G" || suffix == "g") mult = 1ull << 30;
    else if (suffix == "T" || suffix == "t") mult = 1ull << 40;
    else if (!suffix.empty()) fail(workload_, "bad size suffix in --" + std::string(key) + "=" + s);
    return v * mult;
  }

  double real(const char* key, double dflt) const {
    auto it = values_.find(key);
    if (it == values_.end()) return dflt;
    char* end = nullptr;
    double v = std::strtod(it->second.c_str(), &end);
    if (*end || end == it->second.c_str() || !std::isfinite(v))
      fail(workload_, "--" + std::string(key) + " needs a number, got '" + it->second + "'");
    return v;
  }

  const char* workload() const { return workload_; }
  std::string case_name(const std::string& dflt) const { return str("case", dflt); }
  std::string variant() const { return str("variant", ""); }
  int iteration() const { return static_cast<int>(size("iteration", 0)); }

 private:
  const char* workload_;
  std::vector<std::string> known_;
  std::map<std::string, std::string> values_;
};

inline double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A value for the optional "extra" fields of a result (already JSON).
inline std::string json_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

struct Result {
  std::string case_name, variant, metric, unit;
  double value = 0;
  int iteration = 0;
  std::vector<std::pair<std::string, std::string>> extra;  // key -> JSON text
};

// One line, one write(2): on a serial console shared with the kernel's own
// messages a single write keeps the line together as far as possible.
inline void emit(const Result& r) {
  std::string line = kResultPrefix;
  line += "{\"case\":" + json_string(r.case_name) + ",\"variant\":" + json_string(r.variant) +
          ",\"metric\":" + json_string(r.metric) + ",\"unit\":" + json_string(r.unit) +
          ",\"value\":" + json_number(r.value) + ",\"iteration\":" + std::to_string(r.iteration);
  for (auto& [k, v] : r.extra) line += "," + json_string(k) + ":" + v;
  line += "}\n";
  std::fflush(stdout);
  ssize_t ignored = ::write(1, line.data(), line.size());
  (void)ignored;
}

}  // namespace kvmbench::guest
