#include "io/binfile.hpp"

#include "util/limits.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace splitprove::io {

namespace {
std::string errno_text() { return std::strerror(errno); }
}  // namespace

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot open: " + errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string e = errno_text();
    ::close(fd);
    throw Error(path + ": cannot stat: " + e);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file");
  }
  size_ = size_t(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const std::string e = errno_text();
      ::close(fd);
      throw Error(path + ": cannot map " + std::to_string(size_) + " bytes: " + e);
    }
    // Readers go through the file front to back, most sections once.
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);  // the mapping keeps the file referenced
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : path_(std::move(o.path_)), data_(o.data_), size_(o.size_) {
  o.data_ = nullptr;
  o.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    path_ = std::move(o.path_);
    data_ = o.data_;
    size_ = o.size_;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

std::string read_text_file(const std::string& path) {
  return util::read_file_bounded(path, util::kMaxTextFileBytes);
}

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
  util::write_file_atomic(path, bytes);
}

void write_file(const std::string& path, std::string_view text) {
  util::write_file_atomic(path, text);
}

BinFile::BinFile(std::span<const uint8_t> data, std::string name, std::string_view magic,
                 uint32_t version)
    : data_(data), name_(std::move(name)) {
  Cursor c(data, name_ + ": ");
  if (data.size() < 4 || std::memcmp(data.data(), magic.data(), 4) != 0) {
    std::string got;
    for (size_t i = 0; i < std::min<size_t>(4, data.size()); ++i) {
      const char ch = char(data[i]);
      got += (ch >= 0x20 && ch < 0x7f) ? std::string(1, ch)
                                       : "\\x" + ff::to_hex(ff::Limbs<1>{data[i]});
    }
    throw Error(name_ + ": not a ." + std::string(magic) + " file (magic \"" + got +
                "\", expected \"" + std::string(magic) + "\")");
  }
  c.take(4, "magic");
  const uint32_t v = c.u32("version");
  if (v != version)
    c.fail("unsupported version " + std::to_string(v) + " (expected " + std::to_string(version) +
           ")");
  const uint32_t n = c.u32("number of sections");
  // Each section header is 12 bytes: a count beyond what the file can hold is corrupt, and
  // checking it first keeps a hostile count from sizing the vector below.
  if (uint64_t(n) * 12 > c.remaining())
    c.fail("section table: " + std::to_string(n) + " sections cannot fit in " +
           std::to_string(data.size()) + " bytes");
  sections_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t id = c.u32("section id");
    const uint64_t size = c.u64("section size");
    if (size > c.remaining())
      c.fail("section " + std::to_string(id) + " (entry " + std::to_string(i) +
             " of the table): " + "size " + std::to_string(size) +
             " runs past the end of the file (" + std::to_string(c.remaining()) + " bytes left)");
    sections_.push_back({id, uint64_t(c.pos()), size});
    c.take(size, "section payload");
  }
  if (c.remaining())
    c.fail(std::to_string(c.remaining()) + " stray bytes after the last of " + std::to_string(n) +
           " sections");
}

size_t BinFile::count(uint32_t id) const {
  size_t k = 0;
  for (const auto& s : sections_) k += s.id == id;
  return k;
}

std::string BinFile::where(uint32_t id, std::string_view what) const {
  return name_ + ": section " + std::to_string(id) + " (" + std::string(what) + "): ";
}

std::span<const uint8_t> BinFile::section(uint32_t id, std::string_view what) const {
  const SectionRef* found = nullptr;
  for (const auto& s : sections_) {
    if (s.id != id) continue;
    if (found) throw Error(where(id, what) + "duplicated section");
    found = &s;
  }
  if (!found) throw Error(where(id, what) + "missing section");
  return data_.subspan(found->offset, found->size);
}

FileSink::FileSink(const std::string& path) : file_(std::make_unique<util::AtomicFile>(path)) {
  buf_.reserve(size_t(1) << 22);  // 4 MiB: large sequential writes
}

FileSink::~FileSink() = default;  // an uncommitted file_ removes its temporary file

void FileSink::write(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  while (n) {
    const size_t k = std::min(n, buf_.capacity() - buf_.size());
    buf_.insert(buf_.end(), b, b + k);
    b += k;
    n -= k;
    if (buf_.size() == buf_.capacity()) flush_buffer();
  }
}

void FileSink::flush_buffer() {
  if (!file_) throw Error("write to a closed file");
  file_->write(buf_.data(), buf_.size());
  buf_.clear();
}

void FileSink::close() {
  if (!file_) return;
  flush_buffer();
  file_->commit();
  file_.reset();
}

}  // namespace splitprove::io
