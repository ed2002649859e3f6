#include "util/output.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "splitprove/error.hpp"

namespace splitprove::util {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int e) { return std::strerror(e); }

// Temporary files that exist now, for remove_temporaries_on_signal(): fixed slots, so that the
// signal handler touches only memory that is never freed. A slot is 0 (free), 1 (holds a path)
// or 2 (being written).
constexpr std::size_t kSlots = 64;
constexpr std::size_t kPathMax = 4096;
std::atomic<int> g_slot_state[kSlots];
char g_slot_path[kSlots][kPathMax];

int register_temporary(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (std::size_t i = 0; i < kSlots; ++i) {
    int expect = 0;
    if (g_slot_state[i].compare_exchange_strong(expect, 2)) {
      std::memcpy(g_slot_path[i], path.c_str(), path.size() + 1);
      g_slot_state[i].store(1);
      return int(i);
    }
  }
  return -1;  // more than kSlots at once: a signal leaves this one for the stale-file sweep
}
void unregister_temporary(int slot) {
  if (slot >= 0) g_slot_state[slot].store(0);
}

void on_fatal_signal(int sig) {
  for (std::size_t i = 0; i < kSlots; ++i)
    if (g_slot_state[i].load() == 1) ::unlink(g_slot_path[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::atomic<std::uint64_t> g_counter{0};
constexpr std::string_view kTmpTag = ".splitprove-";

std::string parent_dir(const fs::path& p) {
  const auto d = p.parent_path();
  return d.empty() ? std::string(".") : d.string();
}

// The final path a (possibly symbolic-link) output names.
std::string resolve_output(const std::string& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    auto r = fs::weakly_canonical(target, ec);
    if (!ec) return r.string();
  }
  return target;
}

// Removes ".<name>.splitprove-<pid>-<n>.tmp" files in `dir` whose process no longer exists.
void remove_stale_temporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n = e->d_name;
    if (n.size() < 2 || n[0] != '.' || !n.ends_with(".tmp")) continue;
    const auto at = n.rfind(kTmpTag);
    if (at == std::string_view::npos) continue;
    const auto rest = n.substr(at + kTmpTag.size());
    const auto dash = rest.find('-');
    if (dash == std::string_view::npos || dash == 0) continue;
    long pid = 0;
    bool digits = true;
    for (char c : rest.substr(0, dash)) {
      if (c < '0' || c > '9' || pid > 1'000'000'000) {
        digits = false;
        break;
      }
      pid = pid * 10 + (c - '0');
    }
    if (!digits || pid <= 0 || pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
      ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
}

}  // namespace

void fsync_dir(const std::string& dir, const std::string& target) {
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0) throw Error(target + ": cannot open its directory " + dir + ": " + errno_text(errno));
  const int r = ::fsync(d);
  const int e = errno;
  ::close(d);
  // Some file systems cannot sync a directory (EINVAL); the rename is still done.
  if (r != 0 && e != EINVAL && e != EROFS)
    throw Error(target + ": cannot sync its directory " + dir + ": " + errno_text(e));
}

// ---- AtomicFile -----------------------------------------------------------------------------

AtomicFile::AtomicFile(const std::string& target, mode_t mode)
    : target_(target), real_(resolve_output(target)) {
  if (target.empty()) throw Error("output path is empty");
  struct stat st {};
  if (::stat(real_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(target_ + ": is a directory, not an output file");
    if (!S_ISREG(st.st_mode))
      throw Error(target_ + ": is not a regular file (outputs are written by renaming a new file "
                            "over the target)");
  }
  const fs::path rp(real_);
  dir_ = parent_dir(rp);
  tmp_ = (fs::path(dir_) / ("." + rp.filename().string() + std::string(kTmpTag) +
                            std::to_string(::getpid()) + "-" + std::to_string(g_counter++) + ".tmp"))
             .string();
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd_ < 0)
    throw Error(target_ + ": cannot create a file in " + dir_ + ": " + errno_text(errno));
  slot_ = register_temporary(tmp_);
}

AtomicFile::~AtomicFile() { abandon(); }

void AtomicFile::write(const void* p, std::size_t n) {
  if (fd_ < 0) throw Error(target_ + ": write after the file was closed");
  const auto* b = static_cast<const char*>(p);
  while (n) {
    const ssize_t w = ::write(fd_, b, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      abandon();
      throw Error(target_ + ": write failed after " + std::to_string(written_) +
                  " bytes: " + errno_text(e));
    }
    b += w;
    n -= std::size_t(w);
    written_ += std::uint64_t(w);
  }
}

void AtomicFile::sync_and_close() {
  if (fd_ < 0) throw Error(target_ + ": already closed");
  if (::fsync(fd_) != 0) {
    const int e = errno;
    abandon();
    throw Error(target_ + ": cannot sync: " + errno_text(e));
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int e = errno;
    abandon();
    throw Error(target_ + ": close failed: " + errno_text(e));
  }
}

void AtomicFile::commit() {
  AtomicFile* one[] = {this};
  commit_together(one);
}

void AtomicFile::abandon() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!committed_ && !tmp_.empty()) {
    ::unlink(tmp_.c_str());
    tmp_.clear();
  }
  unregister_temporary(slot_);
  slot_ = -1;
}

void commit_together(std::span<AtomicFile* const> files) {
  if (files.empty()) return;
  for (auto* f : files) f->sync_and_close();
  // Lock every directory involved, in one order (device, inode), so that two processes
  // committing groups to the same paths do it one after the other.
  struct Dir {
    std::string path;
    int fd;
    dev_t dev;
    ino_t ino;
  };
  std::vector<Dir> dirs;
  auto unlock_all = [&] {
    for (auto& d : dirs) ::close(d.fd);  // closing releases the flock
  };
  auto fail = [&](AtomicFile* f, const std::string& msg) {
    unlock_all();
    for (auto* g : files) g->abandon();
    throw Error(f->target_ + ": " + msg);
  };
  for (auto* f : files) {
    if (std::any_of(dirs.begin(), dirs.end(), [&](const Dir& d) { return d.path == f->dir_; }))
      continue;
    const int fd = ::open(f->dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) fail(f, "cannot open its directory " + f->dir_ + ": " + errno_text(errno));
    struct stat st {};
    ::fstat(fd, &st);
    dirs.push_back({f->dir_, fd, st.st_dev, st.st_ino});
  }
  std::sort(dirs.begin(), dirs.end(), [](const Dir& a, const Dir& b) {
    return std::pair(a.dev, a.ino) < std::pair(b.dev, b.ino);
  });
  for (auto& d : dirs)
    while (::flock(d.fd, LOCK_EX) != 0)
      if (errno != EINTR) break;  // a file system without locks: still atomic per file
  auto rename_one = [&](AtomicFile* f) {
    if (::rename(f->tmp_.c_str(), f->real_.c_str()) != 0)
      fail(f, "cannot rename " + f->tmp_ + " over it: " + errno_text(errno));
    f->committed_ = true;
    unregister_temporary(f->slot_);
    f->slot_ = -1;
  };
  auto sync_dirs = [&] {
    for (auto& d : dirs)
      if (::fsync(d.fd) != 0 && errno != EINVAL && errno != EROFS)
        fail(files.back(), "cannot sync the directory " + d.path + ": " + errno_text(errno));
  };
  AtomicFile* last = files.back();
  if (files.size() > 1) {
    if (::unlink(last->real_.c_str()) != 0 && errno != ENOENT)
      fail(last, "cannot remove the old file: " + errno_text(errno));
    for (std::size_t i = 0; i + 1 < files.size(); ++i) rename_one(files[i]);
    sync_dirs();
  }
  rename_one(last);
  sync_dirs();
  unlock_all();
}

void write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes) {
  AtomicFile f(path);
  f.write(bytes.data(), bytes.size());
  f.commit();
}

void write_file_atomic(const std::string& path, std::string_view text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

void remove_temporaries_on_signal() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction sa {};
    if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler == SIG_IGN) continue;
    sa = {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

void probe_writable(const std::string& dir) {
  const std::string probe = (fs::path(dir) / (std::string(".probe") + std::string(kTmpTag) +
                                              std::to_string(::getpid()) + "-" +
                                              std::to_string(g_counter++) + ".tmp"))
                                .string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(dir + ": cannot create a file there: " + errno_text(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

// ---- OutputCheck ----------------------------------------------------------------------------

namespace {
struct Known {
  std::string path;
  std::string canon;
  bool exists = false;
  bool dir = false;
  dev_t dev = 0;
  ino_t ino = 0;
};
Known look(const std::string& p) {
  Known k;
  k.path = p;
  std::error_code ec;
  k.canon = fs::weakly_canonical(fs::absolute(p, ec), ec).string();
  if (ec) k.canon = p;
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0) {
    k.exists = true;
    k.dir = S_ISDIR(st.st_mode);
    k.dev = st.st_dev;
    k.ino = st.st_ino;
  }
  return k;
}
}  // namespace

OutputCheck& OutputCheck::input(const std::string& path) {
  inputs_.push_back(path);
  return *this;
}
OutputCheck& OutputCheck::inputs(const std::vector<std::string>& paths) {
  for (const auto& p : paths) inputs_.push_back(p);
  return *this;
}
OutputCheck& OutputCheck::output(const std::string& path) {
  outputs_.push_back(path);
  return *this;
}
OutputCheck& OutputCheck::output_dir(const std::string& path) {
  dirs_.push_back(path);
  return *this;
}

void OutputCheck::check() const {
  // Inputs by identity and by path, so that thousands of outputs are checked in N log N.
  std::map<std::pair<dev_t, ino_t>, std::string> by_id;
  std::map<std::string, std::string> by_path;
  for (const auto& p : inputs_) {
    const Known k = look(p);
    if (k.exists) by_id.emplace(std::pair(k.dev, k.ino), p);
    by_path.emplace(k.canon, p);
  }
  auto against_inputs = [&](const Known& o, const char* kind) {
    if (o.exists)
      if (auto it = by_id.find(std::pair(o.dev, o.ino)); it != by_id.end())
        throw Error(what_ + ": the " + kind + " " + o.path + " is the same file as the input " +
                    it->second + " (it would be overwritten)");
    for (fs::path up = fs::path(o.canon).parent_path(); !up.empty() && up != up.root_path();
         up = up.parent_path())
      if (auto it = by_path.find(up.string()); it != by_path.end())
        throw Error(what_ + ": the " + kind + " " + o.path + " is inside the input " + it->second);
  };
  std::set<std::string> probe_dirs;
  for (const auto& d : dirs_) {
    const Known k = look(d);
    against_inputs(k, "output directory");
    if (k.exists && !k.dir) throw Error(what_ + ": " + d + ": exists and is not a directory");
    std::error_code ec;
    if (!k.exists && !fs::create_directories(d, ec) && ec)
      throw Error(what_ + ": " + d + ": cannot create the directory: " + ec.message());
    probe_dirs.insert(d);
  }
  std::map<std::string, std::string> seen;  // canonical path -> output as given
  std::map<std::pair<dev_t, ino_t>, std::string> seen_id;
  for (const auto& p : outputs_) {
    const Known k = look(p);
    against_inputs(k, "output");
    auto dup = seen.emplace(k.canon, p);
    if (!dup.second)
      throw Error(what_ + ": the outputs " + dup.first->second + " and " + p + " are the same file");
    if (k.exists) {
      auto di = seen_id.emplace(std::pair(k.dev, k.ino), p);
      if (!di.second)
        throw Error(what_ + ": the outputs " + di.first->second + " and " + p +
                    " are the same file");
      struct stat st {};
      ::stat(p.c_str(), &st);
      if (S_ISDIR(st.st_mode)) throw Error(what_ + ": " + p + ": is a directory, not an output file");
      if (!S_ISREG(st.st_mode))
        throw Error(what_ + ": " + p + ": is not a regular file (outputs are written by renaming a "
                                       "new file over the target)");
    }
    const std::string dir = parent_dir(fs::path(resolve_output(p)));
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
      throw Error(what_ + ": " + p + ": its directory " + dir + " does not exist");
    if (!S_ISDIR(st.st_mode)) throw Error(what_ + ": " + p + ": " + dir + " is not a directory");
    probe_dirs.insert(dir);
  }
  for (const auto& d : probe_dirs) {
    try {
      probe_writable(d);
    } catch (const Error& e) {
      throw Error(what_ + ": " + e.what());
    }
    remove_stale_temporaries(d);
  }
}

}  // namespace splitprove::util
