// Where an `ab` experiment writes on its later boots (--out, --junit,
// --markdown, --db), settled before it starts: every path absolute (a
// later boot's resume runs from /), every one checked writable (found on
// the first boot instead, a mistyped --junit would cost a whole
// experiment), and a database password kept out of state.json and out of
// every command line: in a file of its own, mode 0600, beside the state.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kvmbench::engine {

struct AbOutputs {
  std::string out_dir, junit, markdown;
  std::string db;         // as state.json keeps it: a file's absolute path, or the URL as shown (no secret)
  std::string db_secret;  // the whole URL where it holds a secret, else ""
};

// Throws ExitError (exit 2) naming the option and why it cannot be written.
// Writes nothing.
AbOutputs settle_ab_outputs(const std::string& out_dir, const std::string& junit, const std::string& markdown,
                            const std::string& db);

// The database's secret file in an experiment's state directory.
std::filesystem::path db_secret_file(const std::filesystem::path& state_dir);
// Writes it (0600, atomically) where there is a secret, removes it where not.
void keep_db_secret(const std::filesystem::path& state_dir, const std::string& secret);
// The database to import into: the secret file's location where there is
// one, else `db` as state.json keeps it.
std::string db_to_import_into(const std::filesystem::path& state_dir, const std::string& db);

}  // namespace kvmbench::engine
