#include "analysis/report/render/renderer.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analysis/report/render/html_report.h"

namespace kvmbench {

namespace {

std::string lines(const std::vector<std::string>& ls) {
  std::string out;
  for (const auto& l : ls) out += l + "\n";
  return out;
}

class TextRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    std::string out = lines(d.lead);
    for (std::size_t i = 0; i < d.tables.size(); ++i) out += (i ? "\n" : "") + render_text(d.tables[i]);
    return out + lines(d.closing);
  }
};

// The text layout: a command that has a layout of its own for a reply
// (compare: LKP's) builds it as its document for Format::mail.
class MailRenderer : public TextRenderer {};

class MarkdownRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    std::string out = lines(d.lead);
    if (!d.lead.empty() && !d.lead.back().empty() && !d.tables.empty()) out += "\n";
    for (std::size_t i = 0; i < d.tables.size(); ++i) out += (i ? "\n" : "") + render_markdown(d.tables[i]);
    if (!d.closing.empty()) out += "\n" + lines(d.closing);
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

class JsonRenderer : public Renderer {
 public:
  std::string render(const Document& d) const override {
    nlohmann::json j;
    if (d.data) {
      j = *d.data;
    } else {
      j = nlohmann::json::array();
      for (const auto& t : d.tables) j.push_back(render_json(t));
    }
    // Text from logs can hold bytes that are not UTF-8: replaced, not thrown.
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
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

}  // namespace kvmbench
