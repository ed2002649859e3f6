#pragma once
// What the OS says this process holds, from /proc (Linux).
#include <cstdint>
#include <optional>

namespace splitprove::mem {

struct ProcessMemory {
  std::uint64_t rss = 0;   // resident set, bytes
  std::uint64_t anon = 0;  // resident anonymous memory (heap, mmap'd buffers)
  std::uint64_t file = 0;  // resident file-backed and shared memory (binary, libraries, shm)
};

// RSS only, from /proc/self/statm (cheap: one short read). Throws splitprove::Error if unreadable.
std::uint64_t read_rss();

// RSS split into anonymous and file-backed. Uses /proc/self/smaps_rollup (exact, walks the
// mappings) and falls back to /proc/self/status (RssAnon/RssFile/RssShmem) where smaps_rollup is
// missing.
ProcessMemory read_process_memory();

// Parses the text of smaps_rollup / status; exposed for tests. nullopt if fields are missing.
std::optional<ProcessMemory> parse_smaps_rollup(const char* text);
std::optional<ProcessMemory> parse_proc_status(const char* text);

}  // namespace splitprove::mem
