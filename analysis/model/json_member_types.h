// The members of a JSON document that kvmbench's readers use, checked for
// the type kvmbench writes them with, so that a document someone edited or
// made is refused naming the member ("\"hugepages\"[0].\"page_kb\" is string
// where a number belongs") instead of failing deep in a reader with the
// JSON library's message, which names neither file nor member. The tables
// are run_meta_types.cpp's (meta.json) and host_meta_types.cpp's (a host
// description).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kvmbench {

enum class JsonKind { string, number, integer, boolean, object, array };

// A member by its path: names separated by '.', "*" for every member of an
// object, "[]" after a name for every element of its array ("hugepages[].
// page_kb", "kvm_modules.*.parameters"). `nullable`: null reads as absent;
// not for a member a reader takes with value() and a typed default
// (value("status", "") throws on a null one) nor for a container a reader
// walks into.
struct MemberType {
  std::string_view path;
  JsonKind kind;
  bool nullable = true;
};

// The first member of `doc` (of those `members` name that are there) of
// another type, as "NAME is TYPE where KIND belongs"; nullopt when none is.
// A member below one of the wrong type is not looked at (that one's own
// entry names it).
std::optional<std::string> member_type_problem(const nlohmann::json& doc, std::span<const MemberType> members);

}  // namespace kvmbench
