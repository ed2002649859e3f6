#pragma once
// Limits derived from the machine, applied to every number from a user or a file header before it
// sizes threads or memory, and bounded reads of whole files.
#include <cstdint>
#include <string>

namespace splitprove::util {

// The most worker threads one setting may ask for: 8 per hardware thread, at least 32 (the
// engine's stages wait on each other, so a few per core keep them busy; thousands only thrash).
std::uint32_t max_threads();
// Throws Error ("`what` = N: at most M worker threads on this machine (C hardware threads)") when
// n exceeds max_threads(); 0 is left to the caller's own check.
void check_thread_count(std::uint64_t n, const std::string& what);

// Memory the machine can give now (MemAvailable of /proc/meminfo, or physical memory where that
// is missing), in bytes.
std::uint64_t available_memory();

// Reads a whole file of at most `max_bytes` (a regular file, a pipe or a FIFO); Error naming the
// path when it is larger, a directory or a device, or unreadable.
std::string read_file_bounded(const std::string& path, std::uint64_t max_bytes);
// The cap of text inputs (JSON, timelines): 256 MiB (a million public signals are ~80 MB).
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t(256) << 20;

}  // namespace splitprove::util
