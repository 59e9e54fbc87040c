#include "analysis/store/db/connection_string.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <memory>

#include "analysis/model/closest_names.h"
#include "analysis/model/printable.h"

namespace kvmbench::db {

namespace {

using Options = std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)>;

// libpq's option names, in its order (its table, as PQconninfoParse of
// an empty string gives it: no environment or service file read).
const std::vector<std::string>& option_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    char* error = nullptr;
    const Options all(PQconninfoParse("", &error), PQconninfoFree);
    PQfreemem(error);
    for (const PQconninfoOption* o = all.get(); o && o->keyword; ++o) out.emplace_back(o->keyword);
    return out;
  }();
  return names;
}

bool is_option_name(std::string_view word) {
  const auto& names = option_names();
  return std::find(names.begin(), names.end(), word) != names.end();
}

// A value as libpq's key=value syntax reads it back: quoted where it is
// empty or holds a space, a quote or a backslash.
std::string quoted_value(std::string_view v) {
  if (!v.empty() && v.find_first_of(" \t\n\r\f\v'\\") == std::string_view::npos) return printable(v);
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return printable(out + "'");
}

// libpq's complaint about a string it cannot read, its first line with
// every quoted part of that string left out ("invalid percent-encoded
// token: "…""), bar single characters and option names, which are no one's
// secret. `unknown` gets the word of an "invalid connection option".
std::string problem_without_quotes(std::string_view msg, std::string& unknown) {
  msg = msg.substr(0, msg.find('\n'));
  std::string out;
  for (std::size_t i = 0; i < msg.size(); ++i) {
    if (msg[i] != '"') {
      out += msg[i];
      continue;
    }
    const std::size_t close = msg.find('"', i + 1);
    if (close == std::string_view::npos) break;  // the rest is the string's
    const std::string_view inside = msg.substr(i + 1, close - i - 1);
    out += inside.size() == 1 || is_option_name(inside) ? fmt::format("\"{}\"", inside) : "\"…\"";
    if (msg.substr(0, i).ends_with("invalid connection option ") ||
        msg.substr(0, i).ends_with("invalid URI query parameter: "))
      unknown = inside.substr(0, inside.find('='));
    i = close;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ':')) out.pop_back();
  return out;
}

ConnectionString unreadable(std::string_view text, const std::string& why) {
  ConnectionString c;
  c.shown = fmt::format("a PostgreSQL connection {} (not shown: {})",
                        text.find("://") != std::string_view::npos ? "URL" : "string", why);
  return c;
}

}  // namespace

bool looks_like_keyword_string(std::string_view text) {
  std::size_t i = text.find_first_not_of(" \t\n\r\f\v");
  if (i == std::string_view::npos) return false;
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(text[i])) return false;
  while (i < text.size() && (letter(text[i]) || (text[i] >= '0' && text[i] <= '9'))) ++i;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return i < text.size() && text[i] == '=';
}

ConnectionString read_connection_string(std::string_view text) {
  const std::string owned(text);
  if (owned.find('\0') != std::string::npos) return unreadable(text, "it holds a NUL byte");
  char* error = nullptr;
  const Options options(PQconninfoParse(owned.c_str(), &error), PQconninfoFree);
  const std::string why = error ? error : "out of memory";
  PQfreemem(error);
  if (!options) {
    std::string unknown;
    std::string problem = problem_without_quotes(why, unknown);
    if (!unknown.empty())
      if (const std::string hint = did_you_mean(unknown, option_names()); !hint.empty()) problem += "; " + hint;
    return unreadable(text, "libpq cannot read it: " + problem);
  }
  // Where first, then who, then the rest in libpq's order.
  std::vector<const PQconninfoOption*> given;
  for (const PQconninfoOption* o = options.get(); o->keyword; ++o)
    if (o->val) given.push_back(o);
  static constexpr std::string_view kFirst[] = {"host", "hostaddr", "port", "dbname", "user"};
  const auto rank = [](const PQconninfoOption* o) {
    return std::find(std::begin(kFirst), std::end(kFirst), std::string_view(o->keyword)) - std::begin(kFirst);
  };
  std::stable_sort(given.begin(), given.end(), [&](auto* a, auto* b) { return rank(a) < rank(b); });
  ConnectionString c;
  c.readable = true;
  for (const PQconninfoOption* o : given) {
    const std::string_view key = o->keyword, value = o->val;
    // An '@' in a host name is an '@' of the user name or password that a
    // URL did not encode: libpq split at it, and the rest of the secret
    // would be shown as the host. A port that is not a number is a
    // password put where the port goes; libpq's message would quote it.
    if (key == "host" && value.find('@') != std::string_view::npos)
      return unreadable(text, "an '@' in its host name: an '@' in a URL's user name or password is written %40");
    if (key == "port" && value.find_first_not_of("0123456789,") != std::string_view::npos)
      return unreadable(text, "a port that is not a number");
    const bool secret = o->dispchar && std::string_view(o->dispchar).find('*') != std::string_view::npos;
    if (secret && !value.empty()) c.secrets.emplace_back(value);
    c.shown += fmt::format("{}{}={}", c.shown.empty() ? "" : " ", key,
                           secret && !value.empty() ? std::string("***") : quoted_value(value));
  }
  return c;
}

std::string shown_connection_string(std::string_view text) { return read_connection_string(text).shown; }

std::string without_secrets(std::string message, const ConnectionString& text) {
  for (const auto& secret : text.secrets)
    for (std::size_t at = message.find(secret); at != std::string::npos; at = message.find(secret, at + 3))
      message.replace(at, secret.size(), "***");
  return message;
}

}  // namespace kvmbench::db
