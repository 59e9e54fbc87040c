// A PostgreSQL connection string (a postgresql:// URL or libpq's key=value
// words) as it may be shown: read as libpq reads it (PQconninfoParse), so
// that what is masked is what libpq takes for a secret (every option its
// table marks as one: password, sslpassword), wherever and however it was
// written (an unencoded '@', `password = X`, a query parameter). A string
// libpq cannot read shows nothing of itself: which part is the secret is
// then unknown.
//
// Every message and file that names a database names it through
// shown_connection_string (db_location.h's `display`); libpq's own
// messages about a connection go through without_secrets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::db {

struct ConnectionString {
  // libpq read it, and nothing in what it read says a secret went astray
  // (a host with an '@' in it is a password's unencoded '@').
  bool readable = false;
  // For messages: what libpq read, as key=value words in libpq's order,
  // every secret `***` ("host=db dbname=kvmbench user=lab password=***");
  // for a string it cannot read, "a PostgreSQL connection string (not
  // shown: ...)" with what is wrong in words that quote none of it.
  std::string shown;
  // The values masked, to take out of libpq's messages.
  std::vector<std::string> secrets;
};

ConnectionString read_connection_string(std::string_view text);

// read_connection_string(text).shown: the one way a connection string is
// written into a message or a file.
std::string shown_connection_string(std::string_view text);

// `message` (libpq's, about the connection `text`) with each secret of
// `text` replaced by ***.
std::string without_secrets(std::string message, const ConnectionString& text);

// Whether `text` is written as libpq's key=value words: a first word that
// is an option name followed by '=' ("host=db1 dbname=kvmbench", "passwrod
// = x"). Anything written so is a connection string, read by libpq or
// refused; a SQLite file named so is given as sqlite:NAME.
bool looks_like_keyword_string(std::string_view text);

}  // namespace kvmbench::db
