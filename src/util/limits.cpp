#include "util/limits.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "splitprove/error.hpp"

namespace splitprove::util {

std::uint32_t max_threads() {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return std::max<std::uint32_t>(32, 8 * hw);
}

void check_thread_count(std::uint64_t n, const std::string& what) {
  if (n > max_threads())
    throw Error(what + " = " + std::to_string(n) + ": at most " + std::to_string(max_threads()) +
                " worker threads on this machine (" +
                std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
                " hardware threads)");
}

std::uint64_t available_memory() {
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kb = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
        std::fclose(f);
        return std::uint64_t(kb) * 1024;
      }
    }
    std::fclose(f);
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::string read_file_bounded(const std::string& path, std::uint64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error(path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file or a pipe");
  }
  if (S_ISREG(st.st_mode) && std::uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    throw Error(path + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                std::to_string(max_bytes) + " this input may hold");
  }
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(std::size_t(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw Error(path + ": read error: " + std::strerror(e));
    }
    if (r == 0) break;
    if (out.size() + std::size_t(r) > max_bytes) {
      ::close(fd);
      throw Error(path + ": more than the " + std::to_string(max_bytes) +
                  " bytes this input may hold");
    }
    out.append(buf, std::size_t(r));
  }
  ::close(fd);
  return out;
}

}  // namespace splitprove::util
