// One line of samples.jsonl, written without building a JSON document per
// sample: ingest of months of kernel logs writes hundreds of thousands of
// lines, and nlohmann's object-per-sample cost several times the parse.
// The line holds the same members as to_json(s) (core fields, then s.extra's
// members that do not collide with them), so load_run reads both alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/result_model.h"

namespace kvmbench {

// Appends `s` as one JSON object and '\n' to `out`. `more_members` is
// optional pre-formatted JSON object members (`"line":12,"group":3`, no
// braces, no leading comma) appended after s.extra's; the caller keeps their
// keys distinct from the others. Strings that are not valid UTF-8 have each
// bad byte replaced by U+FFFD (nlohmann would refuse to dump them).
void append_sample_line(std::string& out, const Sample& s, std::string_view more_members = {});

// Offset of the first byte of `text` that is not part of valid UTF-8, or
// npos when all of it is.
std::size_t first_invalid_utf8(std::string_view text);

// Appends `text` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view text);

// Reads one samples.jsonl line of the plain shape the writer produces (an
// object of string, number, true/false/null members; string escapes but no
// \u) without building a JSON document: `report` of a run of a long log
// reads hundreds of thousands of lines. nullopt for anything else (nested
// values, \u escapes, a repeated key, a missing or mistyped core field,
// malformed text): the caller then reads the line with nlohmann, which also
// words the error. The sample is the one sample_from_json would give; with
// keep_provenance false, less the provenance members below.
std::optional<Sample> read_sample_line(std::string_view line, bool keep_provenance = true);

// Any samples.jsonl line: the plain shape above without a JSON document,
// anything else through nlohmann. Throws (nlohmann::json::exception or
// std::runtime_error) with the reason for a line that is not a sample.
Sample parse_sample_line(std::string_view line, bool keep_provenance = true);

// Where a sample came from, as ingest and kernel-log captures write it
// (raw file, its line, print group, lines spanned, timestamps): no table
// reads them, and a long log's run has them on every line, so reading a run
// for its tables leaves them out (a JSON object per sample was most of
// `report`'s time).
inline constexpr std::string_view kProvenanceMembers[] = {"file", "line", "group", "lines", "uptime_s", "wallclock"};
// Index of `key` in kProvenanceMembers, or its size when it is none.
std::size_t provenance_member_index(std::string_view key);

// Appends a number as JSON: shortest text that reads back to the same
// double, with ".0" on integral values (as nlohmann writes them), and null
// for NaN and infinities, which JSON cannot hold.
void append_json_number(std::string& out, double v);
// The same text written at p, which has room for kJsonNumberRoom bytes
// ("-2.2250738585072014e-308" is the longest); returns its end.
inline constexpr std::size_t kJsonNumberRoom = 32;
char* write_json_number(char* p, double v);

}  // namespace kvmbench
