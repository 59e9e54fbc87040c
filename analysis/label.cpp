#include "analysis/label.h"

#include <array>
#include <mutex>
#include <unordered_set>

#include "analysis/sample_jsonl.h"

namespace kvmbench {

namespace {

struct EntryHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view t) const { return std::hash<std::string_view>()(t); }
  std::size_t operator()(const Label::Entry& e) const { return e.hash; }
};
struct EntryEqual {
  using is_transparent = void;
  bool operator()(const Label::Entry& a, const Label::Entry& b) const { return a.text == b.text; }
  bool operator()(std::string_view a, const Label::Entry& b) const { return a == b.text; }
  bool operator()(const Label::Entry& a, std::string_view b) const { return a.text == b; }
};

Label::Entry make_entry(std::string_view text, std::size_t hash) {
  Label::Entry e{std::string(text), {}, hash};
  append_json_string(e.json, text);
  return e;
}

// Every label of the process, in shards by hash so that the parse threads
// of a long log, each making a "group=N" label per group, seldom wait for
// each other; node-based, so entries never move.
struct Shard {
  std::mutex mu;
  std::unordered_set<Label::Entry, EntryHash, EntryEqual> entries;
};
constexpr std::size_t kShards = 64;
Shard& shard_of(std::size_t hash) {
  static auto* shards = new std::array<Shard, kShards>;  // never destroyed: static destructors may use labels
  return (*shards)[(hash >> 7) % kShards];
}

}  // namespace

const Label::Entry* Label::empty_entry() {
  static const Entry* e = intern("");
  return e;
}

const Label::Entry* Label::intern(std::string_view text) {
  // A thread's last few texts answer most lookups (a log's samples cycle
  // through a few labels) without hashing or the lock; the last character
  // tells numbered ones ("group=1041", "group=1042") apart before a compare.
  thread_local std::array<const Entry*, 8> recent{};
  thread_local std::size_t next = 0;
  for (const Entry* e : recent)
    if (e && e->text.size() == text.size() && (text.empty() || e->text.back() == text.back()) &&
        std::string_view(e->text) == text)
      return e;
  const std::size_t hash = EntryHash()(text);
  Shard& shard = shard_of(hash);
  const Entry* found;
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    auto it = shard.entries.find(text);
    if (it == shard.entries.end()) it = shard.entries.insert(make_entry(text, hash)).first;
    found = &*it;
  }
  recent[next] = found;
  next = (next + 1) % recent.size();
  return found;
}

}  // namespace kvmbench
