#include "aten/jit/ZipArchive.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "aten/core/Exception.h"

namespace tl::jit {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kMax32 = 0xffffffffu, kMax16 = 0xffffu;
constexpr size_t kAlign = 64;
std::atomic<uint64_t> zip64_threshold{kMax32};

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
void put64(std::string& s, uint64_t v) {
  put32(s, static_cast<uint32_t>(v));
  put32(s, static_cast<uint32_t>(v >> 32));
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

uint64_t ZipWriter::set_zip64_threshold(uint64_t bytes) { return zip64_threshold.exchange(bytes); }

void ZipWriter::add(const std::string& name, std::string_view data) {
  std::string full = root_ + "/" + name;
  TL_CHECK(full.size() <= kMax16, "jit.save: record name too long (", full.size(), " bytes)");
  const uint64_t limit = zip64_threshold.load();
  const uint64_t offset = out_.size(), size = data.size();
  // The local header has no room for one size alone: zip64 gives both sizes whenever either field
  // overflows, and the offset lives only in the central directory.
  const bool z64 = size >= limit || offset >= limit;
  const size_t extra64 = z64 ? 4 + 16 : 0;
  // Data starts after the 30-byte header, the name and the extra fields; pad with an extra field
  // (id "FB", as PyTorch's writer) so that it starts at a multiple of 64.
  size_t start = out_.size() + 30 + full.size() + extra64;
  size_t pad = (kAlign - start % kAlign) % kAlign;
  if (pad != 0 && pad < 4) pad += kAlign;  // an extra field needs its 4-byte header
  uint32_t crc = crc32(data.data(), data.size());
  put32(out_, kLocalSig);
  put16(out_, z64 ? 45 : 20);  // version needed (4.5: zip64)
  put16(out_, 0);   // flags
  put16(out_, 0);   // method: stored
  put16(out_, 0);   // time
  put16(out_, 0x21);  // date (1980-01-01)
  put32(out_, crc);
  put32(out_, z64 ? kMax32 : static_cast<uint32_t>(size));
  put32(out_, z64 ? kMax32 : static_cast<uint32_t>(size));
  put16(out_, static_cast<uint32_t>(full.size()));
  put16(out_, static_cast<uint32_t>(extra64 + pad));
  out_ += full;
  if (z64) {
    put16(out_, kZip64ExtraId);
    put16(out_, 16);
    put64(out_, size);  // uncompressed
    put64(out_, size);  // compressed
  }
  if (pad) {
    put16(out_, 0x4246);
    put16(out_, static_cast<uint32_t>(pad - 4));
    out_.append(pad - 4, 'Z');
  }
  out_.append(data.data(), data.size());
  entries_.push_back(Entry{full, crc, size, offset});
}

std::string ZipWriter::finish() {
  const uint64_t limit = zip64_threshold.load();
  const uint64_t dir_offset = out_.size();
  for (const Entry& e : entries_) {
    const bool big = e.size >= limit, far = e.offset >= limit;
    const uint32_t extra = (big || far) ? 4 + 16 * big + 8 * far : 0;
    put32(out_, kCentralSig);
    put16(out_, extra ? 45 : 20);  // made by
    put16(out_, extra ? 45 : 20);  // needed
    put16(out_, 0);
    put16(out_, 0);
    put16(out_, 0);
    put16(out_, 0x21);
    put32(out_, e.crc);
    put32(out_, big ? kMax32 : static_cast<uint32_t>(e.size));
    put32(out_, big ? kMax32 : static_cast<uint32_t>(e.size));
    put16(out_, static_cast<uint32_t>(e.name.size()));
    put16(out_, extra);
    put16(out_, 0);  // comment
    put16(out_, 0);  // disk
    put16(out_, 0);  // internal attributes
    put32(out_, 0);  // external attributes
    put32(out_, far ? kMax32 : static_cast<uint32_t>(e.offset));
    out_ += e.name;
    if (extra) {  // the fields set to 0xffffffff above, in the order APPNOTE 4.5.3 gives
      put16(out_, kZip64ExtraId);
      put16(out_, extra - 4);
      if (big) {
        put64(out_, e.size);
        put64(out_, e.size);
      }
      if (far) put64(out_, e.offset);
    }
  }
  const uint64_t dir_size = out_.size() - dir_offset, count = entries_.size();
  const bool z64 = count >= kMax16 || dir_size >= limit || dir_offset >= limit;
  if (z64) {
    const uint64_t end64 = out_.size();
    put32(out_, kEnd64Sig);
    put64(out_, 44);  // the size of the rest of this record
    put16(out_, 45);  // made by
    put16(out_, 45);  // needed
    put32(out_, 0);   // this disk
    put32(out_, 0);   // the directory's disk
    put64(out_, count);
    put64(out_, count);
    put64(out_, dir_size);
    put64(out_, dir_offset);
    put32(out_, kLocator64Sig);
    put32(out_, 0);  // the disk of the zip64 end record
    put64(out_, end64);
    put32(out_, 1);  // disks
  }
  put32(out_, kEndSig);
  put16(out_, 0);
  put16(out_, 0);
  put16(out_, z64 ? kMax16 : static_cast<uint32_t>(count));
  put16(out_, z64 ? kMax16 : static_cast<uint32_t>(count));
  put32(out_, z64 ? kMax32 : static_cast<uint32_t>(dir_size));
  put32(out_, z64 ? kMax32 : static_cast<uint32_t>(dir_offset));
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
  uint64_t u64(size_t off) const { return u32(off) | (static_cast<uint64_t>(u32(off + 4)) << 32); }
};

// The values a central directory entry left at 0xffffffff, from its zip64 extra field (id 1), in
// APPNOTE's order: uncompressed size, compressed size, local header offset.
void read_zip64_extra(const Bytes& in, size_t extra, size_t extra_len, const std::string& name, uint64_t* size,
                      uint64_t* csize, uint64_t* local) {
  uint64_t* wanted[3] = {*size == kMax32 ? size : nullptr, *csize == kMax32 ? csize : nullptr,
                         *local == kMax32 ? local : nullptr};
  if (!wanted[0] && !wanted[1] && !wanted[2]) return;
  size_t p = extra, end = extra + extra_len;
  while (p + 4 <= end) {
    uint32_t id = in.u16(p), len = in.u16(p + 2);
    TL_CHECK(len <= end - p - 4, "jit.load: ", in.what, " is corrupt: an extra field of record ", printable(name),
             " runs past its header");
    if (id == kZip64ExtraId) {
      size_t q = p + 4;
      for (uint64_t* w : wanted) {
        if (!w) continue;
        TL_CHECK(q + 8 <= p + 4 + len, "jit.load: ", in.what, " is corrupt: the zip64 field of record ",
                 printable(name), " is too short");
        *w = in.u64(q);
        q += 8;
      }
      return;
    }
    p += 4 + static_cast<size_t>(len);
  }
  TL_CHECK(false, "jit.load: ", in.what, " is corrupt: record ", printable(name),
           " has a size or offset of 0xffffffff and no zip64 field");
}

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
  uint64_t count = in.u16(end + 10);
  uint64_t dir_size = in.u32(end + 12), dir_offset = in.u32(end + 16);
  // A zip64 archive: the end record's fields that overflowed hold 0xffff(ffff), and the zip64 end record,
  // found through the locator just before the end record, holds the values.
  if (end >= 20 && in.u32(end - 20) == kLocator64Sig) {
    uint64_t end64 = in.u64(end - 12);
    TL_CHECK(end64 <= end - 20 && in.u32(static_cast<size_t>(end64)) == kEnd64Sig, "jit.load: ", what_,
             " is corrupt: its zip64 locator does not point at a zip64 end record");
    size_t e = static_cast<size_t>(end64);
    in.need(e, 56);
    count = in.u64(e + 32);
    dir_size = in.u64(e + 40);
    dir_offset = in.u64(e + 48);
  } else {
    TL_CHECK(count != kMax16 && dir_size != kMax32 && dir_offset != kMax32, "jit.load: ", what_,
             " is corrupt: its end record marks zip64 values but there is no zip64 end record");
  }
  TL_CHECK(dir_offset <= bytes.size() && dir_size <= bytes.size() - dir_offset, "jit.load: ", what_,
           " is not a valid archive: a record runs past the end of the file (truncated or corrupt)");
  TL_CHECK(count <= dir_size / 46, "jit.load: ", what_, " is corrupt: ", count,
           " records cannot fit its central directory of ", dir_size, " bytes");
  size_t p = static_cast<size_t>(dir_offset);
  for (uint64_t i = 0; i < count; ++i) {
    TL_CHECK(in.u32(p) == kCentralSig, "jit.load: ", what_, " is corrupt: bad central directory entry ", i);
    uint32_t method = in.u16(p + 10), crc = in.u32(p + 16);
    uint64_t csize = in.u32(p + 20), size = in.u32(p + 24);
    uint32_t name_len = in.u16(p + 28), extra_len = in.u16(p + 30), comment_len = in.u16(p + 32);
    uint64_t local = in.u32(p + 42);
    in.need(p + 46, static_cast<size_t>(name_len) + extra_len);
    std::string name(bytes.substr(p + 46, name_len));
    read_zip64_extra(in, p + 46 + name_len, extra_len, name, &size, &csize, &local);
    p += 46 + static_cast<size_t>(name_len) + extra_len + comment_len;
    bool compressed = method != 0;
    TL_CHECK(compressed || csize == size, "jit.load: ", what_, " is corrupt: record ", printable(name),
             " has two sizes");
    TL_CHECK(local < bytes.size() && in.u32(static_cast<size_t>(local)) == kLocalSig, "jit.load: ", what_,
             " is corrupt: bad local header of record ", printable(name));
    size_t data = static_cast<size_t>(local) + 30 + static_cast<size_t>(in.u16(local + 26)) + in.u16(local + 28);
    TL_CHECK(csize <= bytes.size(), "jit.load: ", what_,
             " is not a valid archive: a record runs past the end of the file (truncated or corrupt)");
    in.need(data, static_cast<size_t>(csize));
    std::string_view content = bytes.substr(data, static_cast<size_t>(csize));
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
