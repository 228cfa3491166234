#include "aten/jit/ZipArchive.h"

#include <array>
#include <cstdio>
#include <cstring>

#include "aten/core/Exception.h"

namespace tl::jit {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr size_t kAlign = 64;

const std::array<uint32_t, 256>& crc_table() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

void put16(std::string& s, uint32_t v) {
  s.push_back(static_cast<char>(v & 0xff));
  s.push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string& s, uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

uint32_t crc32(const void* data, size_t n, uint32_t crc) {
  const auto& table = crc_table();
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

// ---- writer ------------------------------------------------------------------------------

void ZipWriter::add(const std::string& name, std::string_view data) {
  std::string full = root_ + "/" + name;
  // Zip64 is not written: every size and offset must fit 32 bits.
  TL_CHECK(data.size() < 0xffffffffull && out_.size() + data.size() + full.size() + 2 * kAlign < 0xffffffffull,
           "jit.save: archives over 4 GiB are not supported (record ", full, ")");
  uint32_t offset = static_cast<uint32_t>(out_.size());
  // Data starts after the 30-byte header, the name and the extra field; pad with an extra field
  // (id "FB", as PyTorch's writer) so that it starts at a multiple of 64.
  size_t start = out_.size() + 30 + full.size();
  size_t pad = (kAlign - start % kAlign) % kAlign;
  if (pad != 0 && pad < 4) pad += kAlign;  // an extra field needs its 4-byte header
  uint32_t crc = crc32(data.data(), data.size());
  put32(out_, kLocalSig);
  put16(out_, 20);  // version needed
  put16(out_, 0);   // flags
  put16(out_, 0);   // method: stored
  put16(out_, 0);   // time
  put16(out_, 0x21);  // date (1980-01-01)
  put32(out_, crc);
  put32(out_, static_cast<uint32_t>(data.size()));
  put32(out_, static_cast<uint32_t>(data.size()));
  put16(out_, static_cast<uint32_t>(full.size()));
  put16(out_, static_cast<uint32_t>(pad));
  out_ += full;
  if (pad) {
    put16(out_, 0x4246);
    put16(out_, static_cast<uint32_t>(pad - 4));
    out_.append(pad - 4, 'Z');
  }
  out_.append(data.data(), data.size());
  entries_.push_back(Entry{full, crc, static_cast<uint32_t>(data.size()), offset});
}

std::string ZipWriter::finish() {
  TL_CHECK(entries_.size() < 0xffff, "jit.save: too many records for a zip archive without zip64");
  uint32_t dir_offset = static_cast<uint32_t>(out_.size());
  for (const Entry& e : entries_) {
    put32(out_, kCentralSig);
    put16(out_, 20);  // made by
    put16(out_, 20);  // needed
    put16(out_, 0);
    put16(out_, 0);
    put16(out_, 0);
    put16(out_, 0x21);
    put32(out_, e.crc);
    put32(out_, e.size);
    put32(out_, e.size);
    put16(out_, static_cast<uint32_t>(e.name.size()));
    put16(out_, 0);  // extra
    put16(out_, 0);  // comment
    put16(out_, 0);  // disk
    put16(out_, 0);  // internal attributes
    put32(out_, 0);  // external attributes
    put32(out_, e.offset);
    out_ += e.name;
  }
  TL_CHECK(out_.size() < 0xffffffffull, "jit.save: archives over 4 GiB are not supported");
  uint32_t dir_size = static_cast<uint32_t>(out_.size()) - dir_offset;
  put32(out_, kEndSig);
  put16(out_, 0);
  put16(out_, 0);
  put16(out_, static_cast<uint32_t>(entries_.size()));
  put16(out_, static_cast<uint32_t>(entries_.size()));
  put32(out_, dir_size);
  put32(out_, dir_offset);
  put16(out_, 0);
  return std::move(out_);
}

// ---- reader ------------------------------------------------------------------------------

namespace {

struct Bytes {
  std::string_view b;
  const std::string& what;
  void need(size_t off, size_t n) const {
    TL_CHECK(off <= b.size() && n <= b.size() - off, "jit.load: ", what,
             " is not a valid archive: a record runs past the end of the file (truncated or corrupt)");
  }
  uint32_t u16(size_t off) const {
    need(off, 2);
    return static_cast<uint8_t>(b[off]) | (static_cast<uint32_t>(static_cast<uint8_t>(b[off + 1])) << 8);
  }
  uint32_t u32(size_t off) const { return u16(off) | (u16(off + 2) << 16); }
};

}  // namespace

ZipReader::ZipReader(std::string_view bytes, std::string what) : what_(std::move(what)) {
  Bytes in{bytes, what_};
  TL_CHECK(bytes.size() >= 22, "jit.load: ", what_, " is not a torchlite.jit archive (", bytes.size(),
           " bytes, too short for a zip file)");
  // The end record sits in the last 22 bytes plus at most a 64 KiB comment.
  size_t end = std::string_view::npos;
  size_t lowest = bytes.size() > 22 + 0xffff ? bytes.size() - 22 - 0xffff : 0;
  for (size_t off = bytes.size() - 22 + 1; off-- > lowest;)
    if (in.u32(off) == kEndSig) {
      end = off;
      break;
    }
  TL_CHECK(end != std::string_view::npos, "jit.load: ", what_,
           " is not a torchlite.jit archive (not a zip file, or truncated: no end of central directory)");
  uint32_t count = in.u16(end + 10);
  uint32_t dir_size = in.u32(end + 12), dir_offset = in.u32(end + 16);
  TL_CHECK(count != 0xffff && dir_offset != 0xffffffffu, "jit.load: ", what_,
           ": zip64 archives are not supported");
  in.need(dir_offset, dir_size);
  size_t p = dir_offset;
  for (uint32_t i = 0; i < count; ++i) {
    TL_CHECK(in.u32(p) == kCentralSig, "jit.load: ", what_, " is corrupt: bad central directory entry ", i);
    uint32_t method = in.u16(p + 10), crc = in.u32(p + 16), csize = in.u32(p + 20), size = in.u32(p + 24);
    uint32_t name_len = in.u16(p + 28), extra_len = in.u16(p + 30), comment_len = in.u16(p + 32);
    uint32_t local = in.u32(p + 42);
    in.need(p + 46, name_len);
    std::string name(bytes.substr(p + 46, name_len));
    p += 46 + static_cast<size_t>(name_len) + extra_len + comment_len;
    bool compressed = method != 0;
    TL_CHECK(compressed || csize == size, "jit.load: ", what_, " is corrupt: record ", printable(name),
             " has two sizes");
    TL_CHECK(in.u32(local) == kLocalSig, "jit.load: ", what_, " is corrupt: bad local header of record ",
             printable(name));
    size_t data = local + 30 + static_cast<size_t>(in.u16(local + 26)) + in.u16(local + 28);
    in.need(data, csize);
    std::string_view content = bytes.substr(data, csize);
    TL_CHECK(compressed || crc32(content.data(), content.size()) == crc, "jit.load: ", what_,
             " is corrupt: record ", printable(name), " fails its CRC-32 check");
    size_t slash = name.find('/');
    TL_CHECK(slash != std::string::npos && slash > 0, "jit.load: ", what_, " is not a torchlite.jit archive: record ",
             printable(name), " is not under a top directory");
    std::string top = name.substr(0, slash);
    if (i == 0) root_ = top;
    TL_CHECK(top == root_, "jit.load: ", what_, " is not a torchlite.jit archive: records under two top directories (",
             printable(root_), ", ", printable(top), ")");
    std::string rest = name.substr(slash + 1);
    TL_CHECK(records_.emplace(rest, Record{content, compressed}).second, "jit.load: ", what_, " is corrupt: duplicate record ",
             printable(name));
  }
}

std::string_view ZipReader::get(const std::string& name) const {
  auto it = records_.find(name);
  TL_CHECK(it != records_.end(), "jit.load: ", what_, " has no record '", printable(name), "'");
  TL_CHECK(!it->second.compressed, "jit.load: ", what_, ": record ", printable(name),
           " is compressed; torchlite.jit archives store records uncompressed");
  return it->second.data;
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : records_) out.push_back(k);
  return out;
}

}  // namespace tl::jit
