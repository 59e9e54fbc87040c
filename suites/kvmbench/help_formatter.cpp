#include "suites/kvmbench/help_formatter.h"

#include <sstream>
#include <vector>

#include "analysis/model/text_wrap.h"

namespace kvmbench::cli {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Each paragraph of `text` wrapped to `width`, continuation lines starting
// with `indent`; the result ends in a newline.
std::string wrap_paragraphs(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out;
  for (const std::string& paragraph : lines_of(text)) {
    if (paragraph.empty()) {
      out += "\n";
      continue;
    }
    // Keep a paragraph's own leading blanks (an indented example line).
    const std::size_t lead = paragraph.find_first_not_of(' ');
    if (lead == std::string::npos) {
      out += "\n";
      continue;
    }
    out += paragraph.substr(0, lead) + wrap_text(paragraph.substr(lead), width - lead, indent);
  }
  return out;
}

}  // namespace

std::string help_entry(const std::string& name, const std::string& description, std::size_t column,
                       std::size_t width) {
  // wrap_text() drops leading blanks: indent after wrapping.
  std::vector<std::string> name_lines;
  for (const std::string& line : lines_of(wrap_text(name, width - 2, "    "))) name_lines.push_back("  " + line);
  if (name_lines.empty()) name_lines.push_back("  ");
  const std::vector<std::string> desc_lines = lines_of(wrap_paragraphs(description, width - column, ""));

  std::string out;
  for (std::size_t i = 0; i + 1 < name_lines.size(); ++i) out += name_lines[i] + "\n";
  const std::string& last = name_lines.back();
  const std::string pad(column, ' ');
  std::size_t next = 0;
  if (desc_lines.empty()) {
    out += last + "\n";
  } else if (last.size() < column) {
    out += last + std::string(column - last.size(), ' ') + desc_lines[0] + "\n";
    next = 1;
  } else {
    out += last + "\n";
  }
  for (std::size_t i = next; i < desc_lines.size(); ++i)
    out += desc_lines[i].empty() ? "\n" : pad + desc_lines[i] + "\n";
  return out;
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  std::string opts = make_option_opts(opt);
  // A flag whose value comes only after '=' (option_text "[=SECONDS]")
  // shows it glued to its name, as it is typed: --wait-lock[=SECONDS].
  if (opts.rfind(" [=", 0) == 0) opts.erase(0, 1);
  return help_entry(make_option_name(opt, is_positional) + opts, make_option_desc(opt), get_column_width());
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  return help_entry(sub->get_display_name(true), sub->get_description(), get_column_width());
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return wrap_paragraphs(CLI::Formatter::make_description(app), kHelpWidth, "");
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
  return wrap_paragraphs(CLI::Formatter::make_usage(app, std::move(name)), kHelpWidth, "         ");
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  return wrap_paragraphs(CLI::Formatter::make_footer(app), kHelpWidth, "");
}

}  // namespace kvmbench::cli
