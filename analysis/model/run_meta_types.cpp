#include "analysis/model/run_meta_types.h"

#include <fmt/format.h>

#include <initializer_list>
#include <string_view>

namespace kvmbench {

namespace {

using Type = nlohmann::json::value_t;

bool is(const nlohmann::json& v, Type t) {
  if (t == Type::number_float) return v.is_number();
  if (t == Type::number_integer) return v.is_number_integer();
  return v.type() == t;
}

std::string_view name_of(Type t) {
  switch (t) {
    case Type::string: return "a string";
    case Type::boolean: return "true or false";
    case Type::number_integer: return "a whole number";
    case Type::number_float: return "a number";
    case Type::array: return "an array";
    case Type::object: return "an object";
    default: return "something else";
  }
}

struct Member {
  const char* name;
  Type type;
};

// The members of `object` named in `members` that are there, each of its type.
std::optional<std::string> check(const nlohmann::json& object, std::initializer_list<Member> members,
                                 const std::string& where) {
  for (const Member& m : members) {
    const auto it = object.find(m.name);
    if (it == object.end() || it->is_null() || is(*it, m.type)) continue;
    return fmt::format("{}\"{}\" is {} where {} belongs", where, m.name, it->type_name(), name_of(m.type));
  }
  return std::nullopt;
}

// An array member whose elements are objects with `members` (or, with no
// members, strings).
std::optional<std::string> check_list(const nlohmann::json& meta, const char* name,
                                      std::initializer_list<Member> members) {
  const auto it = meta.find(name);
  if (it == meta.end() || it->is_null()) return std::nullopt;
  if (!it->is_array()) return fmt::format("\"{}\" is {} where an array belongs", name, it->type_name());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& e = (*it)[i];
    const Type want = members.size() ? Type::object : Type::string;
    if (!is(e, want))
      return fmt::format("\"{}\"[{}] is {} where {} belongs", name, i, e.type_name(), name_of(want));
    if (auto p = check(e, members, fmt::format("\"{}\"[{}].", name, i))) return p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> run_meta_type_problem(const nlohmann::json& meta) {
  if (!meta.is_object()) return fmt::format("meta.json is {} where an object belongs", meta.type_name());
  if (auto p = check(meta,
                     {{"suite", Type::string},
                      {"preset", Type::string},
                      {"source", Type::string},
                      {"status", Type::string},
                      {"hostname", Type::string},
                      {"start_time", Type::string},
                      {"end_time", Type::string},
                      {"tool_version", Type::string},
                      {"error", Type::string},
                      {"adaptive_stop", Type::string},
                      {"measured_repetitions", Type::number_integer},
                      {"invocation_seconds", Type::number_float},
                      {"parameters", Type::object},
                      {"host", Type::object},
                      {"metric_roles", Type::object}},
                     ""))
    return p;
  if (auto p = check_list(meta, "skipped_parts", {{"part", Type::string}, {"reason", Type::string},
                                                  {"not_offered", Type::boolean}}))
    return p;
  if (auto p = check_list(meta, "not_measured", {{"case", Type::string}, {"message", Type::string},
                                                 {"file", Type::string}}))
    return p;
  if (auto p = check_list(meta, "gbench_aggregates", {{"case", Type::string}, {"metric", Type::string},
                                                      {"aggregate", Type::string}, {"file", Type::string}}))
    return p;
  if (auto p = check_list(meta, "host_changes", {{"kind", Type::string}, {"path", Type::string},
                                                 {"old", Type::string}, {"new", Type::string},
                                                 {"set_at", Type::string}, {"restored_at", Type::string}}))
    return p;
  if (auto p = check_list(meta, "stability_warnings", {})) return p;
  if (auto p = check_list(meta, "inputs", {{"file", Type::string}, {"raw", Type::string}, {"format", Type::string}}))
    return p;
  return std::nullopt;
}

}  // namespace kvmbench
