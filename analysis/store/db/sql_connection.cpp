#include "analysis/store/db/sql_connection.h"

#include <fmt/format.h>

namespace kvmbench::db {

std::int64_t SqlRow::integer(std::size_t i) const {
  const SqlValue& v = cells.at(i);
  if (auto* x = std::get_if<std::int64_t>(&v)) return *x;
  throw DbError(fmt::format("column {} of a result row is not an integer", i));
}

double SqlRow::real(std::size_t i) const {
  const SqlValue& v = cells.at(i);
  if (auto* x = std::get_if<double>(&v)) return *x;
  if (auto* x = std::get_if<std::int64_t>(&v)) return static_cast<double>(*x);
  throw DbError(fmt::format("column {} of a result row is not a number", i));
}

std::string SqlRow::text(std::size_t i) const {
  const SqlValue& v = cells.at(i);
  if (auto* x = std::get_if<std::string>(&v)) return *x;
  if (std::holds_alternative<std::nullptr_t>(v)) return "";
  throw DbError(fmt::format("column {} of a result row is not a text", i));
}

}  // namespace kvmbench::db
