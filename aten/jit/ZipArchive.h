// The zip container of torchlite.jit archives (aten/jit/Serialization.h): stored (uncompressed)
// records under one top directory, each record's data aligned to 64 bytes in the file (padding in
// the local header's extra field, as PyTorch's and torchlite.save's archives). Zip64 (PKWARE APPNOTE
// 4.5): a record whose size or offset does not fit 32 bits carries them in a zip64 extra field, and
// an archive of 65,535 records or more, or whose directory lies past 4 GiB, ends with the zip64 end
// record and its locator.
//
// Neither side holds the archive in memory. The writer streams each record to a ZipSink as it is
// added (a tensor's bytes straight from its storage, the CRC-32 computed chunk by chunk as they go
// out; the local header's CRC is patched afterwards when the sink can seek, else computed first).
// The reader takes the directory from a ZipSource (a file read with pread, a buffer, a Python file
// object) and reads each record when asked: small records into a cache, tensor data straight into
// the caller's memory. The reader takes untrusted bytes: every offset and size is checked against
// the source's size and every record read is CRC-checked; anything else raises tl::RuntimeError.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tl::jit {

// Bytes from a file, fit for an error message: printable ASCII kept, anything else as \xHH.
std::string printable(std::string_view s);

// CRC-32 (zip's polynomial), slicing by 8 bytes.
uint32_t crc32(const void* data, size_t n, uint32_t crc = 0);

// Where a ZipWriter's bytes go.
class ZipSink {
 public:
  virtual ~ZipSink() = default;
  virtual void write(const char* data, size_t n) = 0;
  // Whether patch() works: a sink that cannot seek back gets each record's CRC before its bytes.
  virtual bool can_patch() const { return false; }
  // Overwrites bytes already written (a local header's CRC).
  virtual void patch(uint64_t offset, const char* data, size_t n) {}
};

// Appends to a string (save_to_buffer).
class StringSink : public ZipSink {
 public:
  void write(const char* data, size_t n) override { out.append(data, n); }
  bool can_patch() const override { return true; }
  void patch(uint64_t offset, const char* data, size_t n) override;
  std::string out;
};

// Writes a file (created or truncated); the destructor closes it.
class FileSink : public ZipSink {
 public:
  explicit FileSink(const std::string& path);
  ~FileSink() override;
  void write(const char* data, size_t n) override;
  bool can_patch() const override { return true; }
  void patch(uint64_t offset, const char* data, size_t n) override;
  void close();  // raises when the data cannot be flushed

 private:
  std::string path_;
  int fd_ = -1;
};

class ZipWriter {
 public:
  // Sizes and offsets at or above this are written in zip64 fields (2^32 - 1, the format's limit;
  // tests lower it to write zip64 headers for small archives). Returns the previous value.
  static uint64_t set_zip64_threshold(uint64_t bytes);

  // Records are named `<root>/<name>` and written to `sink`, which must outlive the writer.
  ZipWriter(std::string root, ZipSink& sink) : root_(std::move(root)), sink_(&sink) {}
  // Writes one record at once (its data is not kept).
  void add(const std::string& name, std::string_view data);
  // Writes the central directory and the end record.
  void finish();

 private:
  void put(const std::string& bytes);
  struct Entry {
    std::string name;
    uint32_t crc;
    uint64_t size, offset;
  };
  std::string root_;
  ZipSink* sink_;
  uint64_t offset_ = 0;  // bytes written so far
  std::vector<Entry> entries_;
};

// Where a ZipReader's bytes come from. read() is called with ranges inside size() only.
class ZipSource {
 public:
  virtual ~ZipSource() = default;
  virtual uint64_t size() const = 0;
  virtual void read(uint64_t offset, void* dst, size_t n) const = 0;
  // The bytes in place when the source is memory (no copy is made), else nullptr.
  virtual const char* memory() const { return nullptr; }
};

// Bytes in memory that outlive the reader.
class MemorySource : public ZipSource {
 public:
  explicit MemorySource(std::string_view bytes) : b_(bytes) {}
  uint64_t size() const override { return b_.size(); }
  void read(uint64_t offset, void* dst, size_t n) const override;
  const char* memory() const override { return b_.data(); }

 private:
  std::string_view b_;
};

// A file, read with pread (never mapped: a file truncated by another process while mapped would
// kill this one with SIGBUS when a page is touched).
class FileSource : public ZipSource {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, size_t n) const override;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

class ZipReader {
 public:
  // Reads and checks the archive's directory (not the records); `what` names the archive in error
  // messages.
  ZipReader(std::shared_ptr<const ZipSource> source, std::string what);
  // Over bytes that outlive the reader.
  ZipReader(std::string_view bytes, std::string what);
  // Record names without the top directory (which every record must share).
  const std::string& root() const { return root_; }
  bool has(const std::string& name) const { return records_.count(name) > 0; }
  // The record's bytes, CRC-checked; raises when absent or compressed. Valid while the reader lives
  // (read once from a file and kept; a view of memory sources).
  std::string_view get(const std::string& name) const;
  uint64_t size_of(const std::string& name) const;
  // Reads the record's bytes into `dst` (size_of(name) bytes), checking its CRC on the way: the
  // memory tensors are loaded into, with no buffer in between.
  void read_into(const std::string& name, void* dst) const;
  std::vector<std::string> names() const;

 private:
  struct Record {
    uint64_t offset, size;
    uint32_t crc;
    bool compressed;  // refused by get(), listed by names() (to tell what a foreign archive is)
  };
  const Record& record(const std::string& name) const;
  void bad_crc(const std::string& name) const;
  std::shared_ptr<const ZipSource> src_;
  std::string what_;
  std::string root_;
  std::map<std::string, Record> records_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::string> cache_;  // records read by get() from a non-memory source
  mutable std::set<std::string> checked_;             // records of a memory source whose CRC get() checked
};

}  // namespace tl::jit
