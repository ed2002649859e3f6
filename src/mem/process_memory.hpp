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

// RSS split into anonymous and file-backed, from the kernel's counters in /proc/self/status
// (RssAnon/RssFile/RssShmem: one short read, whatever the size of the process), falling back to
// /proc/self/smaps_rollup only where status lacks them (kernels before 4.5). Not smaps_rollup
// first: it walks every page table entry under the process's mmap lock, ~20 ms a GiB resident,
// so a 20 ms sampler of a 30 GiB process held that lock nearly all the time, and every mmap,
// munmap and cudaHostRegister of the provers waited behind it (a 2^26 partition's first
// synthesis took 53 s instead of 3.4 s).
ProcessMemory read_process_memory();

// Has the C heap give large freed blocks back to the OS when they are freed, so that RSS follows
// what is allocated (the budget's books) rather than what the allocator keeps cached. glibc raises
// its mmap threshold to the size of each large block freed (up to 32 MiB) and its trim threshold
// to twice that, after which the MSMs' scratch is carved from per-thread arenas that keep their
// freed tops (tens of MiB on the pool threads, which malloc_trim does not release): RSS above a
// baseline then misses the scratch a run reuses, and the baseline creeps from run to run. Fixing
// both thresholds (blocks of >= 128 KiB mapped on their own; arena tops above 1 MiB trimmed) stops
// that. Process-wide and idempotent; the pipeline's engine calls it. No-op without glibc.
void return_freed_heap_promptly();

// Gives the heap's free pages back to the OS now (glibc malloc_trim; under AddressSanitizer its
// allocator's quarantine and free lists too; no-op elsewhere).
void trim_heap();

// Parses the text of smaps_rollup / status; exposed for tests. nullopt if fields are missing.
std::optional<ProcessMemory> parse_smaps_rollup(const char* text);
std::optional<ProcessMemory> parse_proc_status(const char* text);

}  // namespace splitprove::mem
