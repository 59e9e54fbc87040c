// kvmbench-mkinitramfs: writes an uncompressed newc cpio archive (the format
// the kernel unpacks as an initramfs) from entries given on the command line.
//
// Reproducible by construction: entries are sorted by path, every entry gets
// mtime 0 (or $SOURCE_DATE_EPOCH), uid/gid 0, sequential inode numbers, and
// nothing of the build host (owner, timestamps, umask) leaks in. Device nodes
// are written as headers, so no root is needed to build the image.
//
// Usage: kvmbench-mkinitramfs -o OUT ENTRY... (or @FILE: entries one a line)
//   dir:PATH[:MODE]                 a directory
//   file:PATH:SOURCE[:MODE]         a regular file copied from SOURCE
//   link:PATH:TARGET                a symbolic link
//   node:PATH:c|b:MAJOR:MINOR[:MODE] a device node
//   tree:PATH:SOURCEDIR             every regular file below SOURCEDIR (0644)
// Parent directories are created implicitly (mode 0755). Uncompressed on
// purpose: under TCG the kernel's gunzip would cost more than copying.
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Entry {
  std::uint32_t mode = 0;  // including the file type bits
  std::string data;        // file contents or link target
  std::uint32_t rdev_major = 0, rdev_minor = 0;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "kvmbench-mkinitramfs: %s\n", msg.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string normalize(const std::string& p) {
  std::string s = p;
  while (!s.empty() && s.front() == '/') s.erase(s.begin());
  while (!s.empty() && s.back() == '/') s.pop_back();
  if (s.empty() || s.find("..") != std::string::npos) die("bad archive path '" + p + "'");
  return s;
}

std::uint32_t parse_mode(const std::string& s) {
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 8);
  if (s.empty() || *end || v > 07777) die("bad mode '" + s + "'");
  return static_cast<std::uint32_t>(v);
}

std::uint32_t parse_u32(const std::string& s) {
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 10);
  if (s.empty() || *end || v > 0xffffffffUL) die("bad number '" + s + "'");
  return static_cast<std::uint32_t>(v);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) die("cannot read " + p.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class Archive {
 public:
  void add(const std::string& path_in, Entry e) {
    std::string path = normalize(path_in);
    add_parents(path);
    auto it = entries_.find(path);
    if (it != entries_.end()) {
      // The same directory twice is harmless; anything else is a mistake.
      if (S_ISDIR(it->second.mode) && S_ISDIR(e.mode)) return;
      die("duplicate entry '" + path + "'");
    }
    entries_.emplace(path, std::move(e));
  }

  std::string write() const {
    std::string out;
    std::uint32_t ino = 1;
    // std::map iterates in byte order of the path: parents before children.
    for (const auto& [path, e] : entries_) {
      std::uint32_t nlink = S_ISDIR(e.mode) ? 2 : 1;
      std::uint32_t size = (S_ISREG(e.mode) || S_ISLNK(e.mode)) ? e.data.size() : 0;
      header(out, path, ino++, e.mode, nlink, size, e.rdev_major, e.rdev_minor);
      if (size) {
        out += e.data;
        pad(out);
      }
    }
    header(out, "TRAILER!!!", 0, 0, 1, 0, 0, 0);
    return out;
  }

  std::uint32_t mtime = 0;

 private:
  void add_parents(const std::string& path) {
    for (std::size_t pos = path.find('/'); pos != std::string::npos; pos = path.find('/', pos + 1)) {
      std::string parent = path.substr(0, pos);
      if (!entries_.count(parent)) entries_.emplace(parent, Entry{S_IFDIR | 0755, {}, 0, 0});
    }
  }

  static void pad(std::string& out) {
    while (out.size() % 4) out += '\0';
  }

  void header(std::string& out, const std::string& name, std::uint32_t ino, std::uint32_t mode,
              std::uint32_t nlink, std::uint32_t size, std::uint32_t rmaj, std::uint32_t rmin) const {
    char buf[111];
    std::snprintf(buf, sizeof buf, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
                  ino, mode, 0u, 0u, nlink, mtime, size, 0u, 0u, rmaj, rmin,
                  static_cast<std::uint32_t>(name.size() + 1), 0u);
    out.append(buf, 110);
    out += name;
    out += '\0';
    pad(out);
  }

  std::map<std::string, Entry> entries_;
};

void add_spec(Archive& ar, const std::string& spec) {
  auto f = split(spec, ':');
  const std::string& kind = f[0];
  if (kind == "dir" && (f.size() == 2 || f.size() == 3)) {
    ar.add(f[1], Entry{S_IFDIR | (f.size() == 3 ? parse_mode(f[2]) : 0755), {}, 0, 0});
  } else if (kind == "file" && (f.size() == 3 || f.size() == 4)) {
    ar.add(f[1], Entry{S_IFREG | (f.size() == 4 ? parse_mode(f[3]) : 0644), slurp(f[2]), 0, 0});
  } else if (kind == "link" && f.size() == 3) {
    ar.add(f[1], Entry{S_IFLNK | 0777, f[2], 0, 0});
  } else if (kind == "node" && (f.size() == 5 || f.size() == 6)) {
    std::uint32_t type = f[2] == "c" ? S_IFCHR : f[2] == "b" ? S_IFBLK : 0;
    if (!type) die("node type must be c or b in '" + spec + "'");
    ar.add(f[1], Entry{type | (f.size() == 6 ? parse_mode(f[5]) : 0600), {}, parse_u32(f[3]),
                       parse_u32(f[4])});
  } else if (kind == "tree" && f.size() == 3) {
    fs::path root = f[2];
    std::error_code ec;
    if (!fs::is_directory(root, ec)) die("not a directory: " + root.string());
    std::vector<fs::path> files;
    for (auto& de : fs::recursive_directory_iterator(root))
      if (de.is_regular_file()) files.push_back(de.path());
    std::sort(files.begin(), files.end());
    for (auto& p : files)
      ar.add(f[1] + "/" + fs::relative(p, root).generic_string(), Entry{S_IFREG | 0644, slurp(p), 0, 0});
  } else {
    die("bad entry '" + spec + "'");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string output;
  Archive ar;
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) ar.mtime = parse_u32(epoch);
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else {
      specs.push_back(a);
    }
  }
  if (output.empty() || specs.empty()) die("usage: kvmbench-mkinitramfs -o OUT ENTRY...");
  for (auto& s : specs) {
    // @FILE: entries one per line (how the build passes its list).
    if (!s.empty() && s[0] == '@') {
      std::istringstream lines(slurp(s.substr(1)));
      for (std::string line; std::getline(lines, line);)
        if (!line.empty()) add_spec(ar, line);
    } else {
      add_spec(ar, s);
    }
  }
  std::string bytes = ar.write();
  // Write to a temporary and rename, so a failed build leaves no half image.
  std::string tmp = output + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) die("cannot write " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, output, ec);
  if (ec) die("cannot rename " + tmp + " to " + output + ": " + ec.message());
  return 0;
}
