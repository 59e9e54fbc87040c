#include "analysis/report/render/format.h"

#include <fmt/format.h>

#include <stdexcept>

namespace kvmbench {

Format parse_format(std::string_view name) {
  if (name == "text") return Format::text;
  if (name == "md" || name == "markdown") return Format::md;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  if (name == "html") return Format::html;
  if (name == "mail") return Format::mail;
  if (name == "junit") return Format::junit;
  throw std::invalid_argument(fmt::format("unknown format '{}' (text, mail, md, csv, json, html, junit)", name));
}

std::string_view to_string(Format f) {
  switch (f) {
    case Format::text: return "text";
    case Format::md: return "md";
    case Format::csv: return "csv";
    case Format::json: return "json";
    case Format::html: return "html";
    case Format::mail: return "mail";
    case Format::junit: return "junit";
  }
  return "?";
}

}  // namespace kvmbench
