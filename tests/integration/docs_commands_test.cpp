// The documentation runs: every ```console block of README.md and
// docs/*.md is a test of its own (DocsConsoleBlock/<page>_line<N>, N the
// line of its first command). Its commands run in order, each with
// /bin/bash -c in one fresh directory (the block's), with a build/kvmbench
// link to this build's binary (and build/guests to its guest workloads),
// $KVMBENCH_SOURCE the source tree and a state directory (run lock, knob
// journal) of the block's own; each must exit as the page says and print
// the lines the page shows under it. Also: README.md is read in ten minutes
// (250 lines at most), and every command `kvmbench --help` lists has its
// man page, which names every option the command's --help has.
//
// A console block, as the pages write it:
//   ```console
//   $ build/kvmbench COMMAND ...       a command (one line), run with bash -c
//   a line it prints                   found in its stdout+stderr, trimmed
//   # exit 2                           its exit status (0 when not given)
//   ```
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

namespace fs = std::filesystem;
using kvmbench::test_support::lines_of;
using kvmbench::test_support::subcommands_in;
using kvmbench::test_support::read_text;
using kvmbench::test_support::run_command;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;

namespace {

const fs::path kSource = KVMBENCH_SOURCE_DIR;
constexpr double kCommandTimeoutS = 120;
constexpr std::size_t kReadmeMaxLines = 250;

std::string trimmed(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

struct DocCommand {
  int line = 0;             // of its `$ ` line in the page
  std::string command;      // without the `$ `
  int exit_code = 0;        // `# exit N`, else 0
  std::vector<std::string> expected;  // trimmed lines its output must hold
};

struct DocBlock {
  std::string page;   // relative to the source tree
  int line = 0;       // of its first command
  std::string name;   // <page stem>_line<N>, a test name
  std::vector<DocCommand> commands;
  std::string error;  // a block the parser could not read, said why
};

// gtest prints a parameter that has no printer byte by byte: say its name.
void PrintTo(const DocBlock& b, std::ostream* os) { *os << b.page << ":" << b.line; }

// README.md, then docs/*.md in name order.
std::vector<fs::path> doc_pages() {
  std::vector<fs::path> pages = {kSource / "README.md"};
  std::vector<fs::path> docs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kSource / "docs", ec))
    if (e.is_regular_file() && e.path().extension() == ".md") docs.push_back(e.path());
  std::sort(docs.begin(), docs.end());
  pages.insert(pages.end(), docs.begin(), docs.end());
  return pages;
}

// A test name from a page and a line: letters, digits and '_' only.
std::string block_name(const fs::path& page, int line) {
  std::string stem = page.stem().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return stem + "_line" + std::to_string(line);
}

std::vector<DocBlock> console_blocks_of(const fs::path& page) {
  static const std::regex exit_line(R"(^# exit (\d+)$)");
  std::vector<DocBlock> blocks;
  const std::string rel = fs::relative(page, kSource).string();
  const std::vector<std::string> lines = lines_of(read_text(page));
  DocBlock* open = nullptr;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string t = trimmed(lines[i]);
    if (!open) {
      if (t == "```console") {
        blocks.push_back(DocBlock{rel, n, block_name(page, n), {}, ""});
        open = &blocks.back();
      }
      continue;
    }
    if (t.rfind("```", 0) == 0) {
      if (open->commands.empty() && open->error.empty()) open->error = rel + ":" + std::to_string(open->line) + ": a console block without a `$ ` command";
      open = nullptr;
      continue;
    }
    if (t.empty()) continue;
    const std::string raw = lines[i].substr(0, lines[i].find_last_not_of(" \t\r") + 1);
    std::smatch m;
    if (raw.rfind("$ ", 0) == 0) {
      if (open->commands.empty()) {
        open->line = n;
        open->name = block_name(page, n);
      }
      open->commands.push_back(DocCommand{n, raw.substr(2), 0, {}});
    } else if (open->commands.empty()) {
      if (open->error.empty()) open->error = rel + ":" + std::to_string(n) + ": output before the block's first `$ ` command";
    } else if (std::regex_match(t, m, exit_line)) {
      open->commands.back().exit_code = std::stoi(m[1].str());
    } else {
      open->commands.back().expected.push_back(t);
    }
  }
  if (open && open->error.empty()) open->error = rel + ":" + std::to_string(open->line) + ": a console block never closed";
  return blocks;
}

std::vector<DocBlock> all_console_blocks() {
  std::vector<DocBlock> all;
  for (const fs::path& page : doc_pages()) {
    std::vector<DocBlock> b = console_blocks_of(page);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

// Single-quoted for the shell (a temporary directory's path).
std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The last `n` bytes of `s`, for a failure's message.
std::string tail(const std::string& s, std::size_t n = 4000) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

// The long options (--name) in the option column of a help text's
// "Options:" list.
std::set<std::string> long_options_in(const std::string& help) {
  static const std::regex head(R"(^  (?:-\w,)?(--[a-z0-9][a-z0-9-]*))");
  std::set<std::string> opts;
  bool in_list = false;
  for (const std::string& line : lines_of(help)) {
    if (line == "Options:") {
      in_list = true;
      continue;
    }
    if (in_list && !line.empty() && line[0] != ' ') in_list = false;
    std::smatch m;
    if (in_list && std::regex_search(line, m, head)) opts.insert(m[1].str());
  }
  return opts;
}

// A man page's text with roff's escaped hyphens (\-) as plain ones.
std::string man_text(const fs::path& page) {
  std::string t = read_text(page), out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\\' && i + 1 < t.size() && t[i + 1] == '-') {
      out += '-';
      ++i;
    } else {
      out += t[i];
    }
  }
  return out;
}

class DocsConsoleBlock : public ::testing::TestWithParam<DocBlock> {};

}  // namespace

TEST_P(DocsConsoleBlock, RunsAsThePageSays) {
  const DocBlock& block = GetParam();
  ASSERT_TRUE(block.error.empty()) << block.error;
  const fs::path guests = fs::path(KVMBENCH_BINARY_DIR) / "guests";
  const bool wants_guests = std::any_of(block.commands.begin(), block.commands.end(), [](const DocCommand& c) {
    return c.command.find("build/guests/") != std::string::npos;
  });
  if (wants_guests && !fs::is_directory(guests / "bin"))
    GTEST_SKIP() << "this build has no guest workloads (" << (guests / "bin").string() << ")";

  TempDir dir, state;
  fs::create_directories(dir.path / "build");
  fs::create_symlink(KVMBENCH_BINARY, dir.path / "build" / "kvmbench");
  if (fs::is_directory(guests)) fs::create_directory_symlink(guests, dir.path / "build" / "guests");
  const std::vector<std::string> env = {"KVMBENCH_SOURCE=" + kSource.string(),
                                        "KVMBENCH_STATE_DIR=" + state.path.string()};
  // In the block's directory, without what the test's own environment may
  // point elsewhere (a results database, an ab state, a bisection's output).
  const std::string prologue = "cd " + shell_quoted(dir.path.string()) +
                               " || exit 99\nunset KVMBENCH_DB KVMBENCH_AB_STATE KVMBENCH_BISECT_OUT\n";

  for (const DocCommand& c : block.commands) {
    const std::string where = block.page + ":" + std::to_string(c.line) + ": $ " + c.command;
    const auto r = run_command({"/bin/bash", "-c", prologue + c.command}, kCommandTimeoutS, "", env);
    const std::string output = r.out + r.err;
    ASSERT_FALSE(r.timed_out) << where << "\nstill running after " << kCommandTimeoutS << " s; output:\n"
                              << tail(output);
    bool ok = true;
    if (r.exit_code != c.exit_code) {
      ok = false;
      ADD_FAILURE() << where << "\nexit " << r.exit_code << (r.signal ? " (signal " + std::to_string(r.signal) + ")" : "")
                    << ", the page says " << c.exit_code;
    }
    for (const std::string& want : c.expected) {
      if (output.find(want) == std::string::npos) {
        ok = false;
        ADD_FAILURE() << where << "\ndoes not print the page's line:\n  " << want;
      }
    }
    // The next commands build on this one: stop at the first that differs.
    ASSERT_TRUE(ok) << where << "\nits output:\n" << tail(output);
  }
}

INSTANTIATE_TEST_SUITE_P(Docs, DocsConsoleBlock, ::testing::ValuesIn(all_console_blocks()),
                         [](const ::testing::TestParamInfo<DocBlock>& info) { return info.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DocsConsoleBlock);

// The parser finds the blocks (a fence it no longer read would pass every
// page without running a command), each name is a test of its own, and the
// pages show at least 25 commands of kvmbench (or of its guest workloads)
// that a test runs; the others are set-up steps (printf, cp, mkdir, ...).
TEST(DocsPages, ConsoleBlocksAreFoundAndNamedOnce) {
  const std::vector<DocBlock> blocks = all_console_blocks();
  std::size_t commands = 0;
  std::set<std::string> names;
  for (const DocBlock& b : blocks) {
    EXPECT_TRUE(b.error.empty()) << b.error;
    EXPECT_TRUE(names.insert(b.name).second) << "two console blocks named " << b.name;
    for (const DocCommand& c : b.commands)
      if (c.command.find("build/kvmbench ") != std::string::npos ||
          c.command.find("build/guests/") != std::string::npos)
        ++commands;
  }
  EXPECT_GE(commands, 25u) << "runnable kvmbench commands in README.md and docs/*.md";
}

TEST(DocsPages, ReadmeIsReadInTenMinutes) {
  const std::size_t n = lines_of(read_text(kSource / "README.md")).size();
  EXPECT_GT(n, 0u) << "README.md cannot be read";
  EXPECT_LE(n, kReadmeMaxLines) << "README.md has " << n << " lines: move the detail into a page of docs/";
}

TEST(DocsPages, EveryCommandHasAManPageWithItsOptions) {
  const fs::path man = kSource / "docs" / "man";
  EXPECT_TRUE(fs::is_regular_file(man / "kvmbench.1")) << (man / "kvmbench.1").string();
  const auto top = run_kvmbench({"--help"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const std::vector<std::string> commands = subcommands_in(top.out);
  ASSERT_FALSE(commands.empty()) << top.out;
  const std::string overview = man_text(man / "kvmbench.1");
  for (const std::string& cmd : commands) {
    const fs::path page = man / ("kvmbench-" + cmd + ".1");
    EXPECT_NE(overview.find("kvmbench-" + cmd), std::string::npos) << "kvmbench.1 does not list " << cmd;
    if (!fs::is_regular_file(page)) {
      ADD_FAILURE() << "no man page for `kvmbench " << cmd << "`: " << page.string();
      continue;
    }
    const std::string text = man_text(page);
    EXPECT_NE(text.find(".SH NAME"), std::string::npos) << page.string();
    EXPECT_NE(text.find(".SH \"EXIT STATUS\""), std::string::npos) << page.string();
    // The options of the command and of its subcommands (db import, ...).
    const auto help = run_kvmbench({cmd, "--help"});
    ASSERT_EQ(help.exit_code, 0) << cmd << ": " << help.err;
    std::set<std::string> options = long_options_in(help.out);
    for (const std::string& sub : subcommands_in(help.out)) {
      const auto sub_help = run_kvmbench({cmd, sub, "--help"});
      EXPECT_EQ(sub_help.exit_code, 0) << cmd << " " << sub << ": " << sub_help.err;
      const std::set<std::string> more = long_options_in(sub_help.out);
      options.insert(more.begin(), more.end());
    }
    for (const std::string& opt : options)
      EXPECT_NE(text.find(opt), std::string::npos)
          << page.string() << " does not describe " << opt << " (`kvmbench " << cmd << " --help` has it)";
  }
}
