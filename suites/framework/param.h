// A preset's parameter: its name, default text, help, and the check that
// says whether a --set value can be used on this host (param_check.h has
// the checks, param_text.h the values as given).
#pragma once

#include <functional>
#include <string>

#include "suites/framework/host_caps.h"

namespace kvmbench::suites {

// Whether a value given with --set can be used on `host`, checked before
// anything runs (suites/framework/param_check.h): throws std::invalid_argument with
// what is valid, a phrase that follows "<name> is" ("a comma-separated list
// of ...; 'x' is not one").
using ParamCheck = std::function<void(const std::string& value, const HostCaps& host)>;

struct Param {
  std::string name;           // "guest-mem", "vcpus", ...
  std::string default_value;  // as text; parsed by the preset's `parse`
  std::string help;
  ParamCheck check = {};      // unset: the preset reads any text
};

}  // namespace kvmbench::suites
