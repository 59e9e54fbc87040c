// Help text that fits 80 columns. CLI11 2.1 pads the option column but
// never wraps a description, and ours ran to 222 columns: this formatter
// wraps descriptions under their column, and usage lines under "Usage:".
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace kvmbench::cli {

inline constexpr std::size_t kHelpWidth = 80;
inline constexpr std::size_t kHelpColumn = 30;  // where descriptions start

// One entry of a help list: "  NAME" padded to `column`, the description
// wrapped in the columns after it (on the next line when NAME is too long);
// an '\n' in the description starts a new paragraph.
std::string help_entry(const std::string& name, const std::string& description,
                       std::size_t column = kHelpColumn, std::size_t width = kHelpWidth);

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(kHelpColumn); }
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_footer(const CLI::App* app) const override;
};

}  // namespace kvmbench::cli
