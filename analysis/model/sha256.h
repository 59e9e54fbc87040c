// SHA-256 (FIPS 180-4) of a text, as lower-case hex. What names a machine
// (its fingerprint) and what tells a re-import of a run from a changed
// copy (its content hash) must be the same number on every build and
// machine, which std::hash is not; nothing here is about secrecy.
#pragma once

#include <string>
#include <string_view>

namespace kvmbench {

// 64 hex digits.
std::string sha256_hex(std::string_view data);

// Fed in pieces (a run's meta.json and samples.jsonl one after the other)
// without joining them first.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  std::string hex();  // finishes; the object is spent afterwards

 private:
  void block(const unsigned char* p);
  unsigned int h_[8];
  unsigned char buf_[64];
  std::size_t used_ = 0;
  unsigned long long bytes_ = 0;
};

}  // namespace kvmbench
