#pragma once
// The library's one thread pool. Long work (NTT, MSM, synthesis) splits into chunks with
// parallel_for; the pool is created on first use with one worker per core (SPLITPROVE_THREADS
// overrides), and nested calls from inside a worker run inline so they cannot deadlock.
//
// Ranked work. Chunks wait in the pool ordered by the rank of the thread that submitted them
// (lower first), then by submission. The pipeline engine ranks each stage call by its partition's
// age (job, then partition index), so when several partitions' stages share the cores the oldest
// partition's chunks run first: it leaves its stage as soon as it would alone, instead of every
// partition in flight finishing late together. Work outside any PoolRank has rank 0.
// SPLITPROVE_POOL_FIFO=1 in the environment ignores the ranks (submission order), for A/B runs.
#include <cstddef>
#include <cstdint>
#include <functional>

namespace splitprove::util {

// Sets the calling thread's rank for the work it submits while the scope lives (restoring the
// previous rank after).
class PoolRank {
 public:
  explicit PoolRank(std::uint64_t rank);
  ~PoolRank();
  PoolRank(const PoolRank&) = delete;
  PoolRank& operator=(const PoolRank&) = delete;

 private:
  std::uint64_t prev_;
};
std::uint64_t current_pool_rank();

// Number of worker threads the pool uses (>= 1).
size_t num_threads();

// Calls f(begin, end) over [0, n) split into about `chunks` contiguous ranges (default: one per
// thread, at least `min_chunk` items each), and returns when all are done. The first exception
// thrown by any chunk is rethrown here after every chunk has finished.
void parallel_for(size_t n, const std::function<void(size_t begin, size_t end)>& f,
                  size_t min_chunk = 1, size_t chunks = 0);

namespace detail {
// Chunks waiting in the pool (not yet taken by a worker): for tests.
size_t queued_chunks();
}  // namespace detail

}  // namespace splitprove::util
