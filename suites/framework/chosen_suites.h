// The suites a `run` or a dry run names, checked before anything starts:
// a mistyped suite, preset or parameter is a usage error that offers the
// closest valid name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "suites/framework/suite.h"

namespace kvmbench::suites {

// The suites `target` names (every one for "all"), once the names on the
// command line are known to be good: `preset` ("": any) is a preset of
// one of them and each override a parameter of such a preset. Otherwise a
// usage error that offers the closest valid name where one is close.
std::vector<const Suite*> chosen_suites(const std::string& target, const std::string& preset,
                                        const std::map<std::string, std::string>& overrides);

}  // namespace kvmbench::suites
