#pragma once
// The container shared by circom/snarkjs binary files (.r1cs, .wtns, .zkey, .ptau):
//
//   magic[4] ("r1cs", "wtns", "zkey")  u32 version  u32 n_sections
//   n_sections × { u32 id, u64 size, size bytes }         (all integers little-endian)
//
// Sections are found by id wherever they are in the file (circom writes r1cs section 2 before 1;
// snarkjs's setup writes zkey sections 1, 2, 4, 3, 9, 8, 5, 6, 7, 10). A section a reader needs
// must occur exactly once; sections it does not read may repeat (as snarkjs allows). Every
// failure is a splitprove::Error that names the file, the section and the problem.
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ff/bigint.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"

namespace splitprove::io {

// A whole file mapped read-only (MAP_PRIVATE; pages come in on demand and are shared with the page
// cache, so a 1 GB .zkey is not copied into anonymous memory). Move-only; unmaps on destruction.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Reads a whole file into memory (small files, JSON; at most util::kMaxTextFileBytes, a regular
// file or a pipe); the error names the path.
std::string read_text_file(const std::string& path);
// Writes bytes to `path` atomically (util::AtomicFile: a temporary file renamed over the target)
// or throws an Error naming the path.
void write_file(const std::string& path, std::span<const uint8_t> bytes);
void write_file(const std::string& path, std::string_view text);

struct SectionRef {
  uint32_t id;
  uint64_t offset;  // of the payload, from the start of the file
  uint64_t size;
};

class BinFile {
 public:
  // Checks the magic, the version (must equal `version`) and that the section table fits the file
  // exactly (no section runs past the end, no bytes follow the last one).
  BinFile(std::span<const uint8_t> data, std::string name, std::string_view magic,
          uint32_t version);

  const std::string& name() const { return name_; }
  const std::vector<SectionRef>& sections() const { return sections_; }
  size_t count(uint32_t id) const;
  // The payload of section `id`, which must occur exactly once. `what` names it in messages
  // ("header", "coefficients").
  std::span<const uint8_t> section(uint32_t id, std::string_view what) const;

  // "name: section 5 (A): " — the prefix of every message about that section.
  std::string where(uint32_t id, std::string_view what) const;

 private:
  std::span<const uint8_t> data_;
  std::string name_;
  std::vector<SectionRef> sections_;
};

// A bounds-checked little-endian reader over one section's payload. `where` prefixes messages.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> data, std::string where)
      : data_(data), where_(std::move(where)) {}

  uint32_t u32(std::string_view field) {
    uint32_t v;
    std::memcpy(&v, take(4, field).data(), 4);
    return v;
  }
  uint64_t u64(std::string_view field) {
    uint64_t v;
    std::memcpy(&v, take(8, field).data(), 8);
    return v;
  }
  std::span<const uint8_t> take(uint64_t n, std::string_view field) {
    if (n > data_.size() - pos_) {
      fail(std::string("truncated: ") + std::string(field) + " needs " + std::to_string(n) +
           " bytes at offset " + std::to_string(pos_) + ", " + std::to_string(data_.size() - pos_) +
           " left");
    }
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  // The section must be consumed exactly.
  void expect_end() const {
    if (remaining())
      fail("section is " + std::to_string(data_.size()) + " bytes, its content ends at " +
           std::to_string(pos_));
  }
  [[noreturn]] void fail(const std::string& msg) const { throw Error(where_ + msg); }
  const std::string& where() const { return where_; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  std::string where_;
};

// The formats are little-endian and so are our limbs: integers and field elements are copied, not
// byte-swapped.
static_assert(std::endian::native == std::endian::little,
              "the io layer assumes a little-endian host");

// Little-endian bytes -> limbs (8·N bytes at p).
template <size_t N>
ff::Limbs<N> load_le(const uint8_t* p) {
  ff::Limbs<N> r;
  std::memcpy(r.data(), p, 8 * N);
  return r;
}
template <size_t N>
void store_le(const ff::Limbs<N>& x, uint8_t* p) {
  std::memcpy(p, x.data(), 8 * N);
}

// Where writers put bytes, in file order: a file (FileSink) or memory (VectorSink). Section sizes
// are computed before the payload is written, so no seeking back is needed and a 1 GB key streams
// out in chunks instead of being held twice.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const void* p, size_t n) = 0;
  void u32(uint32_t v) { write(&v, 4); }
  void u64(uint64_t v) { write(&v, 8); }
};

class VectorSink : public ByteSink {
 public:
  void write(const void* p, size_t n) override {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  std::vector<uint8_t> out;
};

// Buffered atomic file output (util::AtomicFile): the target appears, whole, at close(), which
// reports errors naming the path. Destroyed without close() (unwinding after another error), it
// leaves the target as it was.
class FileSink : public ByteSink {
 public:
  explicit FileSink(const std::string& path);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;
  void write(const void* p, size_t n) override;
  void close();  // writes the rest and commits; throws on a write error

 private:
  void flush_buffer();
  std::unique_ptr<util::AtomicFile> file_;
  std::vector<uint8_t> buf_;
};

inline void write_container_header(ByteSink& s, std::string_view magic, uint32_t version,
                                   uint32_t n_sections) {
  s.write(magic.data(), 4);
  s.u32(version);
  s.u32(n_sections);
}
inline void write_section_header(ByteSink& s, uint32_t id, uint64_t size) {
  s.u32(id);
  s.u64(size);
}

}  // namespace splitprove::io
