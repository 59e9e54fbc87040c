// One line of samples.jsonl: a sample as one JSON object (its scalars
// written by hand, anything else by nlohmann; read with nlohmann). The
// members are in a fixed order: the core fields (case,
// variant, metric, unit, value, iteration, warmup when set), then
// s.extra's members that do not collide with them (in extra's order), then
// the caller's `more` members (provenance, in their order), so that a run
// written today reads like one written before.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/model/result_model.h"

namespace kvmbench {

// Appends `s` as one JSON object and '\n' to `out`. `more`: members that go
// after s.extra's, as JSON text, each ',"key":value' (json_members and
// append_json_member write them; the caller keeps their keys distinct from
// the others). Strings that are not valid UTF-8 have their bad bytes
// replaced by U+FFFD.
void append_sample_line(std::string& out, const Sample& s, std::string_view more = {});

// The members of `object` as append_sample_line's `more`.
std::string json_members(const nlohmann::ordered_json& object);
// Appends one member ',"key":value' to `out`, written as json_members
// writes it: ingest writes a kernel record's provenance, the same for each
// of its samples, once, without building a JSON object per record.
void append_json_member(std::string& out, std::string_view key, std::string_view value);
void append_json_member(std::string& out, std::string_view key, double value);
void append_json_member(std::string& out, std::string_view key, std::int64_t value);

// Offset of the first byte of `text` that is not part of valid UTF-8, or
// npos when all of it is.
std::size_t first_invalid_utf8(std::string_view text);

// Where a sample came from, as ingest and kernel-log captures write it
// (raw file, its line, print group, lines spanned, timestamps): no table
// reads them.
inline constexpr std::string_view kProvenanceMembers[] = {"file", "line", "group", "lines", "uptime_s", "wallclock"};

// One samples.jsonl line as a sample; with keep_provenance false, less the
// provenance members above. Throws (nlohmann::json::exception or
// std::runtime_error) with the reason for a line that is not a sample.
Sample parse_sample_line(std::string_view line, bool keep_provenance = true);

}  // namespace kvmbench
