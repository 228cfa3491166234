#include "aten/jit/ZipArchive.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "aten/core/Exception.h"

namespace tl::jit {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kMax32 = 0xffffffffu, kMax16 = 0xffffu;
constexpr size_t kAlign = 64;
std::atomic<uint64_t> zip64_threshold{kMax32};

// Slicing by 8: table[k][b] is the CRC of byte b followed by k zero bytes, so eight bytes are folded
// per step with eight lookups (about 5x the byte-at-a-time loop; a 400 MB model's CRC is ~0.3 s).
const std::array<std::array<uint32_t, 256>, 8>& crc_tables() {
  static const auto tables = [] {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
    return t;
  }();
  return tables;
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

namespace {

uint32_t crc32_tables(const unsigned char* p, size_t n, uint32_t crc) {  // crc: the inverted register
  const auto& t = crc_tables();
  for (; n >= 8; n -= 8, p += 8) {  // little-endian hosts only (the archive's readers refuse others)
    uint64_t v;
    std::memcpy(&v, p, 8);
    v ^= crc;
    crc = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^ t[5][(v >> 16) & 0xff] ^ t[4][(v >> 24) & 0xff] ^
          t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^ t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
  }
  for (; n > 0; --n, ++p) crc = t[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// Carry-less multiplication folding (Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ",
// the constants of the bit-reflected zip polynomial): four 128-bit lanes folded 64 bytes at a time, then into
// one lane, then a Barrett reduction to 32 bits. About 10x the table loop: the CRC of a 400 MB model's data
// costs less than reading it. n >= 64 and a multiple of 16; crc is the inverted register.
__attribute__((target("pclmul,sse4.1"))) uint32_t crc32_clmul(const unsigned char* buf, size_t len, uint32_t crc) {
  alignas(16) static const uint64_t k1k2[] = {0x0154442bd4, 0x01c6e41596};
  alignas(16) static const uint64_t k3k4[] = {0x01751997d0, 0x00ccaa009e};
  alignas(16) static const uint64_t k5k0[] = {0x0163cd6124, 0x0000000000};
  alignas(16) static const uint64_t poly[] = {0x01db710641, 0x01f7011641};
  __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8, y5, y6, y7, y8;
  x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x00));
  x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x10));
  x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x20));
  x4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x30));
  x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128(static_cast<int>(crc)));
  x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k1k2));
  buf += 64;
  len -= 64;
  while (len >= 64) {
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
    x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
    x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
    x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
    y5 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x00));
    y6 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x10));
    y7 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x20));
    y8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 0x30));
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), y5);
    x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), y6);
    x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), y7);
    x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), y8);
    buf += 64;
    len -= 64;
  }
  x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k3k4));  // fold the four lanes into one
  for (__m128i next : {x2, x3, x4}) {
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, next), x5);
  }
  while (len >= 16) {
    x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf));
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    buf += 16;
    len -= 16;
  }
  x2 = _mm_clmulepi64_si128(x1, x0, 0x10);  // 128 bits to 64
  x3 = _mm_setr_epi32(~0, 0, ~0, 0);
  x1 = _mm_srli_si128(x1, 8);
  x1 = _mm_xor_si128(x1, x2);
  x0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(k5k0));
  x2 = _mm_srli_si128(x1, 4);
  x1 = _mm_and_si128(x1, x3);
  x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(poly));  // Barrett reduction to 32 bits
  x2 = _mm_and_si128(x1, x3);
  x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
  x2 = _mm_and_si128(x2, x3);
  x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  return static_cast<uint32_t>(_mm_extract_epi32(x1, 1));
}

const bool have_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#endif

}  // namespace

uint32_t crc32(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (n >= 64 && have_clmul) {
    const size_t bulk = n & ~size_t(15);
    crc = crc32_clmul(p, bulk, crc);
    p += bulk;
    n -= bulk;
  }
#endif
  return ~crc32_tables(p, n, crc);
}

// ---- sinks and sources ----------------------------------------------------------------------

void StringSink::patch(uint64_t offset, const char* data, size_t n) {
  TL_CHECK(offset <= out.size() && n <= out.size() - offset, "jit.save: patch outside the archive");
  if (n) std::memcpy(&out[offset], data, n);
}

FileSink::FileSink(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  TL_CHECK(fd_ >= 0, "jit.save: cannot open ", path, " for writing: ", std::strerror(errno));
}

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSink::write(const char* data, size_t n) {
  while (n > 0) {
    ssize_t k = ::write(fd_, data, n);
    if (k < 0 && errno == EINTR) continue;
    TL_CHECK(k > 0, "jit.save: writing ", path_, " failed: ", std::strerror(errno));
    data += k;
    n -= static_cast<size_t>(k);
  }
}

void FileSink::patch(uint64_t offset, const char* data, size_t n) {
  while (n > 0) {
    ssize_t k = ::pwrite(fd_, data, n, static_cast<off_t>(offset));
    if (k < 0 && errno == EINTR) continue;
    TL_CHECK(k > 0, "jit.save: writing ", path_, " failed: ", std::strerror(errno));
    data += k;
    n -= static_cast<size_t>(k);
    offset += static_cast<uint64_t>(k);
  }
}

void FileSink::close() {
  int fd = fd_;
  fd_ = -1;
  TL_CHECK(fd < 0 || ::close(fd) == 0, "jit.save: writing ", path_, " failed: ", std::strerror(errno));
}

void MemorySource::read(uint64_t offset, void* dst, size_t n) const {
  TL_CHECK(offset <= b_.size() && n <= b_.size() - offset, "jit.load: read outside the archive");
  std::memcpy(dst, b_.data() + offset, n);
}

FileSource::FileSource(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  TL_CHECK(fd_ >= 0, "jit.load: cannot open ", path, ": ", std::strerror(errno));
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    TL_CHECK(false, "jit.load: ", path, " is not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSource::read(uint64_t offset, void* dst, size_t n) const {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t k = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (k < 0 && errno == EINTR) continue;
    TL_CHECK(k >= 0, "jit.load: reading ", path_, " failed: ", std::strerror(errno));
    TL_CHECK(k > 0, "jit.load: ", path_, " was truncated while it was read");
    p += k;
    n -= static_cast<size_t>(k);
    offset += static_cast<uint64_t>(k);
  }
}

// ---- writer ------------------------------------------------------------------------------

uint64_t ZipWriter::set_zip64_threshold(uint64_t bytes) { return zip64_threshold.exchange(bytes); }

void ZipWriter::put(const std::string& bytes) {
  sink_->write(bytes.data(), bytes.size());
  offset_ += bytes.size();
}

void ZipWriter::add(const std::string& name, std::string_view data) {
  std::string full = root_ + "/" + name;
  TL_CHECK(full.size() <= kMax16, "jit.save: record name too long (", full.size(), " bytes)");
  const uint64_t limit = zip64_threshold.load();
  const uint64_t offset = offset_, size = data.size();
  // The local header has no room for one size alone: zip64 gives both sizes whenever either field
  // overflows, and the offset lives only in the central directory.
  const bool z64 = size >= limit || offset >= limit;
  const size_t extra64 = z64 ? 4 + 16 : 0;
  // Data starts after the 30-byte header, the name and the extra fields; pad with an extra field
  // (id "FB", as PyTorch's writer) so that it starts at a multiple of 64.
  size_t start = offset + 30 + full.size() + extra64;
  size_t pad = (kAlign - start % kAlign) % kAlign;
  if (pad != 0 && pad < 4) pad += kAlign;  // an extra field needs its 4-byte header
  // A large record's CRC is computed chunk by chunk as the chunks are written (each is still in
  // cache) and patched into the header afterwards; a small one's, or one going to a sink that cannot
  // seek back, first.
  constexpr size_t kChunk = size_t(1) << 20;
  const bool stream_crc = size > kChunk && sink_->can_patch();
  uint32_t crc = stream_crc ? 0 : crc32(data.data(), data.size());
  std::string h;
  put32(h, kLocalSig);
  put16(h, z64 ? 45 : 20);  // version needed (4.5: zip64)
  put16(h, 0);   // flags
  put16(h, 0);   // method: stored
  put16(h, 0);   // time
  put16(h, 0x21);  // date (1980-01-01)
  put32(h, crc);
  put32(h, z64 ? kMax32 : static_cast<uint32_t>(size));
  put32(h, z64 ? kMax32 : static_cast<uint32_t>(size));
  put16(h, static_cast<uint32_t>(full.size()));
  put16(h, static_cast<uint32_t>(extra64 + pad));
  h += full;
  if (z64) {
    put16(h, kZip64ExtraId);
    put16(h, 16);
    put64(h, size);  // uncompressed
    put64(h, size);  // compressed
  }
  if (pad) {
    put16(h, 0x4246);
    put16(h, static_cast<uint32_t>(pad - 4));
    h.append(pad - 4, 'Z');
  }
  put(h);
  if (stream_crc) {
    for (size_t p = 0; p < data.size(); p += kChunk) {
      size_t n = std::min(kChunk, data.size() - p);
      crc = crc32(data.data() + p, n, crc);
      sink_->write(data.data() + p, n);
    }
    std::string c;
    put32(c, crc);
    sink_->patch(offset + 14, c.data(), c.size());
  } else {
    sink_->write(data.data(), data.size());
  }
  offset_ += size;
  entries_.push_back(Entry{full, crc, size, offset});
}

void ZipWriter::finish() {
  const uint64_t limit = zip64_threshold.load();
  const uint64_t dir_offset = offset_;
  std::string out;
  for (const Entry& e : entries_) {
    const bool big = e.size >= limit, far = e.offset >= limit;
    const uint32_t extra = (big || far) ? 4 + 16 * big + 8 * far : 0;
    put32(out, kCentralSig);
    put16(out, extra ? 45 : 20);  // made by
    put16(out, extra ? 45 : 20);  // needed
    put16(out, 0);
    put16(out, 0);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, e.crc);
    put32(out, big ? kMax32 : static_cast<uint32_t>(e.size));
    put32(out, big ? kMax32 : static_cast<uint32_t>(e.size));
    put16(out, static_cast<uint32_t>(e.name.size()));
    put16(out, extra);
    put16(out, 0);  // comment
    put16(out, 0);  // disk
    put16(out, 0);  // internal attributes
    put32(out, 0);  // external attributes
    put32(out, far ? kMax32 : static_cast<uint32_t>(e.offset));
    out += e.name;
    if (extra) {  // the fields set to 0xffffffff above, in the order APPNOTE 4.5.3 gives
      put16(out, kZip64ExtraId);
      put16(out, extra - 4);
      if (big) {
        put64(out, e.size);
        put64(out, e.size);
      }
      if (far) put64(out, e.offset);
    }
  }
  const uint64_t dir_size = out.size(), count = entries_.size();
  const bool z64 = count >= kMax16 || dir_size >= limit || dir_offset >= limit;
  if (z64) {
    const uint64_t end64 = dir_offset + out.size();
    put32(out, kEnd64Sig);
    put64(out, 44);  // the size of the rest of this record
    put16(out, 45);  // made by
    put16(out, 45);  // needed
    put32(out, 0);   // this disk
    put32(out, 0);   // the directory's disk
    put64(out, count);
    put64(out, count);
    put64(out, dir_size);
    put64(out, dir_offset);
    put32(out, kLocator64Sig);
    put32(out, 0);  // the disk of the zip64 end record
    put64(out, end64);
    put32(out, 1);  // disks
  }
  put32(out, kEndSig);
  put16(out, 0);
  put16(out, 0);
  put16(out, z64 ? kMax16 : static_cast<uint32_t>(count));
  put16(out, z64 ? kMax16 : static_cast<uint32_t>(count));
  put32(out, z64 ? kMax32 : static_cast<uint32_t>(dir_size));
  put32(out, z64 ? kMax32 : static_cast<uint32_t>(dir_offset));
  put16(out, 0);
  put(out);
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

ZipReader::ZipReader(std::string_view bytes, std::string what)
    : ZipReader(std::make_shared<MemorySource>(bytes), std::move(what)) {}

ZipReader::ZipReader(std::shared_ptr<const ZipSource> source, std::string what)
    : src_(std::move(source)), what_(std::move(what)) {
  const uint64_t total = src_->size();
  TL_CHECK(total >= 22, "jit.load: ", what_, " is not a torchlite.jit archive (", total,
           " bytes, too short for a zip file)");
  // Only the directory is read here: the tail (the end record sits in the last 22 bytes plus at
  // most a 64 KiB comment, the zip64 locator 20 bytes before it), then the central directory, then
  // each record's 30-byte local header. Offsets in a Bytes are relative to where it was read from.
  auto read_at = [&](uint64_t off, uint64_t n) {
    std::string buf(static_cast<size_t>(n), '\0');
    src_->read(off, buf.data(), buf.size());
    return buf;
  };
  const uint64_t tail_len = std::min<uint64_t>(total, 22 + 0xffff + 20);
  const uint64_t base = total - tail_len;
  const std::string tail = read_at(base, tail_len);
  Bytes in{tail, what_};
  size_t end = std::string_view::npos;
  size_t lowest = tail.size() > 22 + 0xffff ? tail.size() - 22 - 0xffff : 0;
  for (size_t off = tail.size() - 22 + 1; off-- > lowest;)
    if (in.u32(off) == kEndSig) {
      end = off;
      break;
    }
  TL_CHECK(end != std::string_view::npos, "jit.load: ", what_,
           " is not a torchlite.jit archive (not a zip file, or truncated: no end of central directory)");
  uint64_t count = in.u16(end + 10);
  uint64_t dir_size = in.u32(end + 12), dir_offset = in.u32(end + 16);
  const uint64_t end_abs = base + end;
  // A zip64 archive: the end record's fields that overflowed hold 0xffff(ffff), and the zip64 end record,
  // found through the locator just before the end record, holds the values.
  if (end >= 20 && in.u32(end - 20) == kLocator64Sig) {
    uint64_t end64 = in.u64(end - 12);
    TL_CHECK(end64 <= end_abs - 20 && end64 + 4 <= total, "jit.load: ", what_,
             " is corrupt: its zip64 locator does not point at a zip64 end record");
    const std::string rec = read_at(end64, std::min<uint64_t>(56, total - end64));
    Bytes r{rec, what_};
    TL_CHECK(r.u32(0) == kEnd64Sig, "jit.load: ", what_,
             " is corrupt: its zip64 locator does not point at a zip64 end record");
    r.need(0, 56);
    count = r.u64(32);
    dir_size = r.u64(40);
    dir_offset = r.u64(48);
  } else {
    TL_CHECK(count != kMax16 && dir_size != kMax32 && dir_offset != kMax32, "jit.load: ", what_,
             " is corrupt: its end record marks zip64 values but there is no zip64 end record");
  }
  TL_CHECK(dir_offset <= total && dir_size <= total - dir_offset, "jit.load: ", what_,
           " is not a valid archive: a record runs past the end of the file (truncated or corrupt)");
  TL_CHECK(count <= dir_size / 46, "jit.load: ", what_, " is corrupt: ", count,
           " records cannot fit its central directory of ", dir_size, " bytes");
  const std::string dir = read_at(dir_offset, dir_size);
  Bytes d{dir, what_};
  size_t p = 0;
  for (uint64_t i = 0; i < count; ++i) {
    TL_CHECK(d.u32(p) == kCentralSig, "jit.load: ", what_, " is corrupt: bad central directory entry ", i);
    uint32_t method = d.u16(p + 10), crc = d.u32(p + 16);
    uint64_t csize = d.u32(p + 20), size = d.u32(p + 24);
    uint32_t name_len = d.u16(p + 28), extra_len = d.u16(p + 30), comment_len = d.u16(p + 32);
    uint64_t local = d.u32(p + 42);
    d.need(p + 46, static_cast<size_t>(name_len) + extra_len);
    std::string name(std::string_view(dir).substr(p + 46, name_len));
    read_zip64_extra(d, p + 46 + name_len, extra_len, name, &size, &csize, &local);
    p += 46 + static_cast<size_t>(name_len) + extra_len + comment_len;
    bool compressed = method != 0;
    TL_CHECK(compressed || csize == size, "jit.load: ", what_, " is corrupt: record ", printable(name),
             " has two sizes");
    TL_CHECK(local < total, "jit.load: ", what_, " is corrupt: bad local header of record ", printable(name));
    const std::string lh = read_at(local, std::min<uint64_t>(30, total - local));
    Bytes l{lh, what_};
    TL_CHECK(l.u32(0) == kLocalSig, "jit.load: ", what_, " is corrupt: bad local header of record ",
             printable(name));
    uint64_t data = local + 30 + l.u16(26) + l.u16(28);
    TL_CHECK(csize <= total && data <= total && csize <= total - data, "jit.load: ", what_,
             " is not a valid archive: a record runs past the end of the file (truncated or corrupt)");
    size_t slash = name.find('/');
    TL_CHECK(slash != std::string::npos && slash > 0, "jit.load: ", what_, " is not a torchlite.jit archive: record ",
             printable(name), " is not under a top directory");
    std::string top = name.substr(0, slash);
    if (i == 0) root_ = top;
    TL_CHECK(top == root_, "jit.load: ", what_, " is not a torchlite.jit archive: records under two top directories (",
             printable(root_), ", ", printable(top), ")");
    std::string rest = name.substr(slash + 1);
    TL_CHECK(records_.emplace(rest, Record{data, csize, crc, compressed}).second, "jit.load: ", what_,
             " is corrupt: duplicate record ", printable(name));
  }
}

const ZipReader::Record& ZipReader::record(const std::string& name) const {
  auto it = records_.find(name);
  TL_CHECK(it != records_.end(), "jit.load: ", what_, " has no record '", printable(name), "'");
  TL_CHECK(!it->second.compressed, "jit.load: ", what_, ": record ", printable(name),
           " is compressed; torchlite.jit archives store records uncompressed");
  return it->second;
}

void ZipReader::bad_crc(const std::string& name) const {
  TL_CHECK(false, "jit.load: ", what_, " is corrupt: record ", printable(root_ + "/" + name),
           " fails its CRC-32 check");
}

std::string_view ZipReader::get(const std::string& name) const {
  const Record& r = record(name);
  std::lock_guard<std::mutex> lock(mu_);
  if (const char* mem = src_->memory()) {  // a view of the caller's bytes, checked once
    std::string_view view(mem + r.offset, static_cast<size_t>(r.size));
    if (checked_.insert(name).second && crc32(view.data(), view.size()) != r.crc) {
      checked_.erase(name);
      bad_crc(name);
    }
    return view;
  }
  auto it = cache_.find(name);
  if (it != cache_.end()) return it->second;  // checked when read
  std::string copy(static_cast<size_t>(r.size), '\0');
  src_->read(r.offset, copy.data(), copy.size());
  if (crc32(copy.data(), copy.size()) != r.crc) bad_crc(name);
  return cache_.emplace(name, std::move(copy)).first->second;
}

uint64_t ZipReader::size_of(const std::string& name) const { return record(name).size; }

void ZipReader::read_into(const std::string& name, void* dst) const {
  const Record& r = record(name);
  constexpr uint64_t kChunk = uint64_t(1) << 20;  // read, then CRC while it is still in cache
  auto* out = static_cast<char*>(dst);
  uint32_t crc = 0;
  for (uint64_t p = 0; p < r.size; p += kChunk) {
    size_t n = static_cast<size_t>(std::min(kChunk, r.size - p));
    src_->read(r.offset + p, out + p, n);
    crc = crc32(out + p, n, crc);
  }
  if (crc != r.crc) bad_crc(name);
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : records_) out.push_back(k);
  return out;
}

}  // namespace tl::jit
