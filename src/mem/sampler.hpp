#pragma once
// MemorySampler: a background thread that records process memory (RSS, anonymous vs file-backed)
// and the budget's books at a fixed interval, device memory from pluggable sources, and event
// markers (work start/end, stage start/end). The result is a Timeline (timeline.hpp).
//
// Ownership: the sampler owns its thread and its Timeline. The budget it reads (if any) and every
// device source must outlive the sampler's `stop()` (the destructor stops it). Sources are added
// before `start()`; events may be marked from any thread at any time.
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "mem/budget.hpp"
#include "mem/timeline.hpp"

namespace splitprove::mem {

// A device-memory source: returns the bytes in use on one device now (nullopt if unknown this
// time; recorded as 0). A CUDA backend adds one per GPU (cudaMemGetInfo / its own budget).
using DeviceMemorySource = std::function<std::optional<std::uint64_t>()>;

// A source of budget books: what one or several budgets hold now (the daemon sums the books of its
// engines' budgets, which exist only once an engine is made). Called from the sampler's thread.
using BooksSource = std::function<BudgetBooks()>;

struct SamplerOptions {
  std::chrono::milliseconds interval{100};
  // The anon/file split from /proc/self/status (read_process_memory). Off: RSS only (statm).
  bool split_anon_file = true;
  // Bounds for a sampler that runs for days (the daemon). 0: unbounded. At max_samples the
  // timeline is thinned to every other sample (so it still spans the whole run at half the
  // resolution), keeping the first sample (the baseline) and the highest-RSS one (the peak); at
  // max_events the oldest half of the events is dropped.
  std::size_t max_samples = 0;
  std::size_t max_events = 0;
};

// Unbounded samplers still make room for this many samples and events, resident, at start().
inline constexpr std::size_t kPresizedSamples = 8192, kPresizedEvents = 2048;

class MemorySampler {
 public:
  // `budget` may be null (no books recorded).
  explicit MemorySampler(const MemoryBudget* budget = nullptr, SamplerOptions opts = {});
  // The books from a function instead of one budget (it must stay callable until stop()).
  MemorySampler(BooksSource books, SamplerOptions opts);
  ~MemorySampler();
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;

  // Adds a device source (before start()); its values become column `dev:<name>`.
  void add_device_source(std::string name, DeviceMemorySource source);

  // Starts the thread; the first sample is taken at once. Throws if already started.
  void start();
  // Takes a last sample and joins the thread. Idempotent.
  void stop();

  // Records an event at the current time (thread-safe).
  void mark(std::string_view label);
  void stage_start(std::string_view stage) { mark("start:" + std::string(stage)); }
  void stage_end(std::string_view stage) { mark("end:" + std::string(stage)); }
  // Takes one sample now, in the caller's thread (thread-safe).
  void sample_now();

  // Seconds since construction (the timeline's clock).
  double now() const;
  // A copy of everything recorded so far.
  Timeline timeline() const;

 private:
  void run(const std::stop_token& st);
  void thin();  // with mu_ held: every other sample, the first, the peak and the last kept

  BooksSource books_;  // empty: no books recorded
  SamplerOptions opts_;
  std::chrono::steady_clock::time_point t0_;
  std::vector<DeviceMemorySource> sources_;
  mutable std::mutex mu_;  // guards tl_
  Timeline tl_;
  std::jthread thread_;
};

}  // namespace splitprove::mem
