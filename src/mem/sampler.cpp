#include "mem/sampler.hpp"

#include <condition_variable>

#include "mem/process_memory.hpp"
#include "splitprove/error.hpp"

namespace splitprove::mem {

MemorySampler::MemorySampler(const MemoryBudget* budget, SamplerOptions opts)
    : MemorySampler(budget ? BooksSource([budget] { return budget->books(); }) : BooksSource(),
                    opts) {}

MemorySampler::MemorySampler(BooksSource books, SamplerOptions opts)
    : books_(std::move(books)), opts_(opts), t0_(std::chrono::steady_clock::now()) {
  if (opts_.interval.count() <= 0) throw Error("memory sampler: interval must be > 0 ms");
}

MemorySampler::~MemorySampler() { stop(); }

void MemorySampler::add_device_source(std::string name, DeviceMemorySource source) {
  if (thread_.joinable()) throw Error("memory sampler: add device sources before start()");
  std::lock_guard lk(mu_);
  tl_.device_names.push_back(std::move(name));
  sources_.push_back(std::move(source));
}

void MemorySampler::start() {
  if (thread_.joinable()) throw Error("memory sampler: already started");
  {
    // The timeline's own storage made resident before the first sample, so that it is part of
    // the baseline rather than growth during the work (up to this many samples and events).
    std::lock_guard lk(mu_);
    const std::size_t samples = opts_.max_samples ? opts_.max_samples : kPresizedSamples;
    const std::size_t events = opts_.max_events ? opts_.max_events : kPresizedEvents;
    tl_.samples.resize(samples);
    tl_.samples.clear();
    tl_.events.resize(events);
    tl_.events.clear();
  }
  thread_ = std::jthread([this](const std::stop_token& st) { run(st); });
}

void MemorySampler::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
  sample_now();  // the state at stop time, whatever the phase of the interval
}

double MemorySampler::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void MemorySampler::mark(std::string_view label) {
  double t = now();
  std::lock_guard lk(mu_);
  // Keep events in time order even if two threads race between now() and the lock.
  if (!tl_.events.empty() && t < tl_.events.back().t) t = tl_.events.back().t;
  tl_.events.push_back({t, std::string(label)});
  if (opts_.max_events && tl_.events.size() >= opts_.max_events) {
    // The oldest half goes, but a first work_start stays: the verdict's baseline ends there.
    const auto from = tl_.events.begin() + (tl_.events.front().label == kWorkStart ? 1 : 0);
    tl_.events.erase(from, from + std::ptrdiff_t(tl_.events.size() / 2));
  }
}

void MemorySampler::sample_now() {
  Sample s;
  // Read the books and /proc back to back so that they describe the same moment as closely as
  // possible; the books first (a reservation precedes its allocation, so RSS lags the books).
  if (books_) {
    const BudgetBooks b = books_();
    s.budget_capacity = b.capacity;
    s.budget_used = b.used;
    s.budget_waiting = b.waiting;
    for (std::size_t i = 0; i < kTagCount; ++i) s.books[i] = b.tags[i].bytes;
  }
  if (opts_.split_anon_file) {
    ProcessMemory m = read_process_memory();
    s.rss = m.rss;
    s.anon = m.anon;
    s.file = m.file;
  } else {
    s.rss = read_rss();
  }
  for (auto& src : sources_) s.device.push_back(src().value_or(0));
  s.t = now();
  std::lock_guard lk(mu_);
  if (!tl_.samples.empty() && s.t < tl_.samples.back().t) s.t = tl_.samples.back().t;
  tl_.samples.push_back(std::move(s));
  if (opts_.max_samples && tl_.samples.size() >= std::max<std::size_t>(opts_.max_samples, 4)) thin();
}

void MemorySampler::thin() {
  auto& v = tl_.samples;
  std::size_t peak = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i].rss > v[peak].rss) peak = i;
  std::size_t out = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (i % 2 == 0 || i == peak || i + 1 == v.size()) v[out++] = std::move(v[i]);
  v.resize(out);
}

void MemorySampler::run(const std::stop_token& st) {
  // A fixed schedule (t0 + k * interval), not "sleep interval after each sample", so the
  // interval does not drift by the sampling cost.
  std::mutex m;
  std::condition_variable_any cv;
  auto next = std::chrono::steady_clock::now();
  while (!st.stop_requested()) {
    sample_now();
    next += opts_.interval;
    auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // fell behind (overloaded machine): do not burst
    std::unique_lock lk(m);
    cv.wait_until(lk, st, next, [] { return false; });
  }
}

Timeline MemorySampler::timeline() const {
  std::lock_guard lk(mu_);
  return tl_;
}

}  // namespace splitprove::mem
