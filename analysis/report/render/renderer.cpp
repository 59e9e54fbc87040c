#include "analysis/report/render/renderer.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analysis/model/text_wrap.h"
#include "analysis/report/render/csv_table.h"
#include "analysis/report/render/html_page.h"
#include "analysis/report/render/json_table.h"
#include "analysis/report/render/junit_xml.h"
#include "analysis/report/render/markdown_table.h"
#include "analysis/report/render/text_table.h"

namespace kvmbench {

namespace {

// Lines as text: each as it is, one longer than 80 columns broken at its
// spaces (its indent kept, the continuation two further in).
std::string text_lines_of(const std::vector<std::string>& ls) {
  std::string out;
  for (const auto& l : ls) out += display_width(l) > 80 ? wrap_text(l) : l + "\n";
  return out;
}

class TextRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    std::string out = text_lines_of(d.alerts) + text_lines_of(d.lead);
    for (std::size_t i = 0; i < d.tables.size(); ++i) out += (i ? "\n" : "") + render_text(d.tables[i]);
    return out + text_lines_of(d.closing);
  }
};

// Mail is the text layout: every table and line within 80 columns.
class MailRenderer : public TextRenderer {};

class MarkdownRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    std::vector<std::string> lead = d.alerts;
    lead.insert(lead.end(), d.lead.begin(), d.lead.end());
    std::string out = markdown_lines(lead);
    if (!lead.empty() && !lead.back().empty() && !d.tables.empty()) out += "\n";
    for (std::size_t i = 0; i < d.tables.size(); ++i) out += (i ? "\n" : "") + render_markdown(d.tables[i]);
    if (!d.closing.empty()) out += "\n" + markdown_lines(d.closing);
    return out;
  }
};

class CsvRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    std::string out;
    for (std::size_t i = 0; i < d.tables.size(); ++i) {
      const Table& t = d.tables[i];
      if (i) out += "\n";
      if (!data_title(t).empty()) out += fmt::format("# {}\n", data_title(t));
      if (!t.source.empty()) out += fmt::format("# source: {}\n", t.source);
      out += render_csv(t);
    }
    return out;
  }
};

std::string dumped(const nlohmann::json& j) {
  // Text from logs can hold bytes that are not UTF-8: replaced, not thrown.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

class JsonRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    nlohmann::json tables = nlohmann::json::array();
    for (const auto& t : d.tables) tables.push_back(render_json(t));
    if (!d.data) return dumped(tables);
    nlohmann::json j = *d.data;
    if (d.tables_in_data) j["tables"] = std::move(tables);
    return dumped(j);
  }
};

class HtmlRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override { return render_document_html(d); }
};

class JunitRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    if (!d.junit) throw std::invalid_argument("junit is written by gate and export (test cases); this output has none");
    return render_junit(d.junit_name, *d.junit);
  }
};

}  // namespace

const Renderer& renderer_for(Format f) {
  static const TextRenderer text;
  static const MailRenderer mail;
  static const MarkdownRenderer md;
  static const CsvRenderer csv;
  static const JsonRenderer json;
  static const HtmlRenderer html;
  static const JunitRenderer junit;
  switch (f) {
    case Format::text: return text;
    case Format::mail: return mail;
    case Format::md: return md;
    case Format::csv: return csv;
    case Format::json: return json;
    case Format::html: return html;
    case Format::junit: return junit;
  }
  throw std::invalid_argument("unknown format");
}

std::string render(const Table& t, Format f) {
  switch (f) {
    case Format::text:
    case Format::mail: return render_text(t);
    case Format::md: return render_markdown(t);
    case Format::csv: return render_csv(t);
    case Format::json: return dumped(render_json(t));
    case Format::html:
    case Format::junit: break;
  }
  throw std::invalid_argument(fmt::format("{} is a document's format, not a table's", to_string(f)));
}

}  // namespace kvmbench
