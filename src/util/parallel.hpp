#pragma once
// The library's one thread pool. Long work (NTT, MSM, synthesis) splits into chunks with
// parallel_for; the pool is created on first use with one worker per core (SPLITPROVE_THREADS
// overrides), and nested calls from inside a worker run inline so they cannot deadlock.
#include <cstddef>
#include <functional>

namespace splitprove::util {

// Number of worker threads the pool uses (>= 1).
size_t num_threads();

// Calls f(begin, end) over [0, n) split into about `chunks` contiguous ranges (default: one per
// thread, at least `min_chunk` items each), and returns when all are done. The first exception
// thrown by any chunk is rethrown here after every chunk has finished.
void parallel_for(size_t n, const std::function<void(size_t begin, size_t end)>& f,
                  size_t min_chunk = 1, size_t chunks = 0);

}  // namespace splitprove::util
