#pragma once
// Output files that never destroy anything: the one writer every command (and the daemon's store)
// uses.
//
// AtomicFile writes to a temporary file beside the target (".<name>.splitprove-<pid>.tmp", so it
// is on the same file system and hidden from `ls`); commit() fsyncs it, renames it over the target
// and fsyncs the directory. Until commit() the target is untouched; afterwards it holds the whole
// new content. A reader that opened or mapped the old file keeps the old inode (a prover mapping
// a key that `setup` replaces does not die of SIGBUS). Destroyed without commit() (an error, an
// exception), the temporary file is removed; a temporary file left by a process killed with
// SIGKILL is removed by the next writer of the same target once that process is gone.
//
// commit_together() lands a group (a proof and its public signals) so that the group's last file
// is present only beside the rest of its group: under a lock on each directory, the last target
// is removed first, the others are renamed into place, then the last. A crash in between leaves
// the last file absent, never one group's proof beside another group's signals, and two processes
// committing groups to the same paths do it one after the other.
//
// OutputCheck refuses, before any work, an output that would destroy an input: the same file
// (same device and inode, through symbolic and hard links), a path inside an input, two outputs
// naming one file, an output that is a directory, or a directory that cannot be written.
#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace splitprove::util {

class AtomicFile {
 public:
  // Creates the temporary file (Error naming the target when its directory cannot be written).
  // A target that is a symbolic link is written through it: the link's final target is
  // replaced and the link is kept.
  explicit AtomicFile(const std::string& target, mode_t mode = 0644);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Error naming the target on a failed write (disk full, file too large, I/O error).
  void write(const void* p, std::size_t n);
  void write(std::string_view s) { write(s.data(), s.size()); }
  // fsync, close, rename over the target, fsync the directory. Error naming the target.
  void commit();
  // Removes the temporary file; the target stays as it was. Idempotent.
  void abandon() noexcept;

  const std::string& target() const { return target_; }  // as given
  const std::string& real_target() const { return real_; }
  std::uint64_t bytes_written() const { return written_; }

 private:
  friend void commit_together(std::span<AtomicFile* const> files);
  void sync_and_close();  // fsync + close the temporary file

  std::string target_, real_, dir_, tmp_;
  int fd_ = -1;
  int slot_ = -1;  // in the registry of remove_temporaries_on_signal
  std::uint64_t written_ = 0;
  bool committed_ = false;
};

// Writes `bytes` to `path` atomically (AtomicFile).
void write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes);
void write_file_atomic(const std::string& path, std::string_view text);

// Commits every file of the group (all written, none committed yet) so that the last one is
// present only with the others (see the top of this file).
void commit_together(std::span<AtomicFile* const> files);

// Refuses outputs that would destroy inputs or cannot be written, before any work is done.
// `what` prefixes messages ("prove").
class OutputCheck {
 public:
  explicit OutputCheck(std::string what) : what_(std::move(what)) {}
  // A file (or directory) that is read; missing inputs are left to their reader's error.
  OutputCheck& input(const std::string& path);
  OutputCheck& inputs(const std::vector<std::string>& paths);
  // A file that will be written (its directory must exist and be writable).
  OutputCheck& output(const std::string& path);
  // A directory that outputs go into (created when missing; it must not be an input, hold an
  // input's path as an output name, or be inside an input that is a file).
  OutputCheck& output_dir(const std::string& path);
  // Throws Error (naming both paths) for the first conflict.
  void check() const;

 private:
  std::string what_;
  std::vector<std::string> inputs_, outputs_, dirs_;
};

// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT (where they are not ignored) that
// remove the temporary files of uncommitted AtomicFiles, then die of the signal as before. For a
// program's main(), once.
void remove_temporaries_on_signal();

// Throws Error naming `dir` unless a file can be created in it (creates and removes a temporary
// file there).
void probe_writable(const std::string& dir);

// fsync of the directory `dir` (after a rename in it), Error naming `target` and the directory;
// file systems that cannot sync a directory (EINVAL, EROFS) are let pass.
void fsync_dir(const std::string& dir, const std::string& target);

}  // namespace splitprove::util
