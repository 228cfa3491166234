// The zip container of torchlite.jit archives (aten/jit/Serialization.h): stored (uncompressed)
// records under one top directory, each record's data aligned to 64 bytes in the file (padding in
// the local header's extra field, as PyTorch's and torchlite.save's archives), so a later reader
// can map tensor data in place. Zip64 (PKWARE APPNOTE 4.5): a record whose size or offset does not
// fit 32 bits carries them in a zip64 extra field, and an archive of 65,535 records or more, or
// whose directory lies past 4 GiB, ends with the zip64 end record and its locator. The reader takes
// untrusted bytes: every offset and size is checked against the buffer and every record's CRC-32
// is verified; anything else raises tl::RuntimeError.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tl::jit {

// Bytes from a file, fit for an error message: printable ASCII kept, anything else as \xHH.
std::string printable(std::string_view s);

uint32_t crc32(const void* data, size_t n, uint32_t crc = 0);

class ZipWriter {
 public:
  // Sizes and offsets at or above this are written in zip64 fields (2^32 - 1, the format's limit;
  // tests lower it to write zip64 headers for small archives). Returns the previous value.
  static uint64_t set_zip64_threshold(uint64_t bytes);

  // Records are named `<root>/<name>`.
  explicit ZipWriter(std::string root) : root_(std::move(root)) {}
  void add(const std::string& name, std::string_view data);
  // The finished archive (central directory and end record appended).
  std::string finish();

 private:
  struct Entry {
    std::string name;
    uint32_t crc;
    uint64_t size, offset;
  };
  std::string root_;
  std::string out_;
  std::vector<Entry> entries_;
};

class ZipReader {
 public:
  // Parses the archive's directory; `what` names the archive in error messages. The bytes must
  // outlive the reader (records are views into them).
  ZipReader(std::string_view bytes, std::string what);
  // Record names without the top directory (which every record must share).
  const std::string& root() const { return root_; }
  bool has(const std::string& name) const { return records_.count(name) > 0; }
  // The record's bytes; raises when absent.
  std::string_view get(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::string what_;
  std::string root_;
  struct Record {
    std::string_view data;
    bool compressed;  // refused by get(), listed by names() (to tell what a foreign archive is)
  };
  std::map<std::string, Record> records_;
};

}  // namespace tl::jit
