#include "mem/process_memory.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define SPLITPROVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPLITPROVE_ASAN 1
#endif
#endif
#ifndef SPLITPROVE_ASAN
#define SPLITPROVE_ASAN 0
#endif
#if SPLITPROVE_ASAN
#include <sanitizer/allocator_interface.h>
#endif

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "splitprove/error.hpp"

namespace splitprove::mem {

void return_freed_heap_promptly() {
#ifdef __GLIBC__
  static const bool once = [] {
    // Setting either threshold also stops glibc from moving them (its "dynamic" thresholds).
    ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    ::mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
    return true;
  }();
  (void)once;
#endif
}

void trim_heap() {
#ifdef __GLIBC__
  ::malloc_trim(0);
#endif
#if SPLITPROVE_ASAN
  // Under AddressSanitizer the allocator is the sanitizer's: its quarantine and free lists are
  // what it keeps.
  __sanitizer_purge_allocator();
#endif
}

namespace {

// Reads a small /proc file with one read() into `buf` (NUL-terminated). Returns false if absent.
bool read_proc(const char* path, char* buf, std::size_t cap) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::size_t n = 0;
  while (n + 1 < cap) {
    ssize_t r = ::read(fd, buf + n, cap - 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += std::size_t(r);
  }
  ::close(fd);
  buf[n] = '\0';
  return n > 0;
}

// Value in kB of the line starting with `key` (e.g. "Rss:"), or nullopt.
std::optional<std::uint64_t> field_kb(const char* text, const char* key) {
  std::size_t klen = std::strlen(key);
  for (const char* p = text; p && *p;) {
    if (std::strncmp(p, key, klen) == 0) {
      unsigned long long v = 0;
      if (std::sscanf(p + klen, "%llu", &v) == 1) return std::uint64_t(v) * 1024;
      return std::nullopt;
    }
    p = std::strchr(p, '\n');
    if (p) ++p;
  }
  return std::nullopt;
}

}  // namespace

std::uint64_t read_rss() {
  char buf[256];
  if (!read_proc("/proc/self/statm", buf, sizeof buf))
    throw Error(fmt::format("/proc/self/statm: cannot read: {}", std::strerror(errno)));
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2)
    throw Error("/proc/self/statm: unexpected format");
  static const long page = ::sysconf(_SC_PAGESIZE);
  return std::uint64_t(resident) * std::uint64_t(page);
}

std::optional<ProcessMemory> parse_smaps_rollup(const char* text) {
  auto rss = field_kb(text, "Rss:");
  auto anon = field_kb(text, "Anonymous:");
  if (!rss || !anon) return std::nullopt;
  ProcessMemory m;
  m.rss = *rss;
  m.anon = *anon;
  m.file = *rss > *anon ? *rss - *anon : 0;
  return m;
}

std::optional<ProcessMemory> parse_proc_status(const char* text) {
  auto rss = field_kb(text, "VmRSS:");
  auto anon = field_kb(text, "RssAnon:");
  auto file = field_kb(text, "RssFile:");
  auto shmem = field_kb(text, "RssShmem:");
  if (!rss || !anon || !file) return std::nullopt;
  return ProcessMemory{*rss, *anon, *file + shmem.value_or(0)};
}

ProcessMemory read_process_memory() {
  // status ~1.5 KiB; smaps_rollup ~1 KiB. Counters first, the page-table walk only as a fallback.
  char buf[8192];
  if (read_proc("/proc/self/status", buf, sizeof buf))
    if (auto m = parse_proc_status(buf)) return *m;
  if (read_proc("/proc/self/smaps_rollup", buf, sizeof buf))
    if (auto m = parse_smaps_rollup(buf)) return *m;
  return ProcessMemory{read_rss(), 0, 0};
}

}  // namespace splitprove::mem
