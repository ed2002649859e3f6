#include "util/parallel.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace splitprove::util {
namespace {

thread_local bool t_in_worker = false;

class Pool {
 public:
  explicit Pool(size_t n) {
    for (size_t i = 0; i < n; ++i)
      workers_.emplace_back([this] {
        t_in_worker = true;
        for (;;) {
          std::function<void()> job;
          {
            std::unique_lock lk(mu_);
            cv_.wait(lk, [this] { return stop_ || !jobs_.empty(); });
            if (stop_ && jobs_.empty()) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
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
  void submit(std::function<void()> job) {
    {
      std::lock_guard lk(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  size_t size() const { return workers_.size(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
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

Pool& pool() {
  static Pool p(configured_threads());
  return p;
}

}  // namespace

size_t num_threads() { return pool().size(); }

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
  for (size_t c = 0; c < chunks; ++c) {
    const size_t end = begin + step + (c < extra ? 1 : 0);
    pool().submit([&, begin, end] {
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
