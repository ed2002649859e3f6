#include "util/parallel.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "util/env.hpp"

namespace splitprove::util {
namespace {

thread_local bool t_in_worker = false;
thread_local std::uint64_t t_rank = 0;

// SPLITPROVE_POOL_NICE=n (1..19): the pool's workers run at nice n, so that threads outside the
// pool (the pipeline's GPU and G2 workers driving a device: copies, launches) take a core when
// they need one while the pool keeps every core busy with synthesis. Unset or 0: no change.
int pool_nice() {
  static const int n = [] {
    const char* s = std::getenv("SPLITPROVE_POOL_NICE");
    const long v = s ? std::strtol(s, nullptr, 10) : 0;
    return int(std::clamp(v, 0L, 19L));
  }();
  return n;
}

class Pool {
 public:
  explicit Pool(size_t n) {
    for (size_t i = 0; i < n; ++i)
      workers_.emplace_back([this] {
        t_in_worker = true;
#ifdef __linux__
        if (const int n = pool_nice(); n > 0)  // this thread only (Linux: nice is per thread)
          (void)setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), n);
#endif
        for (;;) {
          std::function<void()> job;
          {
            std::unique_lock lk(mu_);
            cv_.wait(lk, [this] { return stop_ || !jobs_.empty(); });
            if (stop_ && jobs_.empty()) return;
            auto first = jobs_.begin();  // the lowest rank, then the earliest submitted
            job = std::move(first->second);
            jobs_.erase(first);
          }
          job();
        }
      });
  }
  ~Pool() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  void submit(std::uint64_t rank, std::function<void()> job) {
    {
      std::lock_guard lk(mu_);
      jobs_.emplace(std::pair(rank, seq_++), std::move(job));
    }
    cv_.notify_one();
  }
  size_t size() const { return workers_.size(); }
  size_t queued() {
    std::lock_guard lk(mu_);
    return jobs_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::function<void()>> jobs_;  // (rank, seq)
  std::uint64_t seq_ = 0;
  std::vector<std::thread> workers_;
  bool stop_ = false;
};

size_t configured_threads() {
  if (const char* s = std::getenv("SPLITPROVE_THREADS")) {
    long v = std::strtol(s, nullptr, 10);
    if (v > 0) return size_t(v);
  }
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

// SPLITPROVE_POOL_FIFO=1: every chunk at rank 0, i.e. submission order (for A/B measurements).
bool ranks_ignored() {
  static const bool fifo = env_flag("SPLITPROVE_POOL_FIFO");
  return fifo;
}

Pool& pool() {
  static Pool p(configured_threads());
  return p;
}

}  // namespace

size_t num_threads() { return pool().size(); }

PoolRank::PoolRank(std::uint64_t rank) : prev_(t_rank) { t_rank = rank; }
PoolRank::~PoolRank() { t_rank = prev_; }
std::uint64_t current_pool_rank() { return t_rank; }

size_t detail::queued_chunks() { return pool().queued(); }

void parallel_for(size_t n, const std::function<void(size_t, size_t)>& f, size_t min_chunk,
                  size_t chunks) {
  if (n == 0) return;
  if (chunks == 0) chunks = num_threads();
  chunks = std::max<size_t>(1, std::min(chunks, (n + std::max<size_t>(min_chunk, 1) - 1) /
                                                    std::max<size_t>(min_chunk, 1)));
  if (chunks == 1 || t_in_worker) {
    f(0, n);
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  size_t left = chunks;
  std::exception_ptr err;
  const size_t step = n / chunks, extra = n % chunks;
  size_t begin = 0;
  const std::uint64_t rank = ranks_ignored() ? 0 : t_rank;
  for (size_t c = 0; c < chunks; ++c) {
    const size_t end = begin + step + (c < extra ? 1 : 0);
    pool().submit(rank, [&, begin, end] {
      try {
        f(begin, end);
      } catch (...) {
        std::lock_guard lk(mu);
        if (!err) err = std::current_exception();
      }
      std::lock_guard lk(mu);
      if (--left == 0) cv.notify_all();
    });
    begin = end;
  }
  std::unique_lock lk(mu);
  cv.wait(lk, [&] { return left == 0; });
  if (err) std::rethrow_exception(err);
}

}  // namespace splitprove::util
