#pragma once
// Where a stage's time goes, phase by phase: PhaseClock times the phases of one call (each lap()
// gives the time since the previous one to the phase named) and adds them to a PhaseTotals when
// the call ends normally; PhaseTotals sums over the calls and reports each phase's mean.
//
//   enum class Phase : unsigned { upload, compute, count };   // `count` last
//   util::PhaseTotals<Phase> totals({"upload", "compute"});
//   util::PhaseClock clock(totals); ...; clock.lap(Phase::upload); ...; clock.done();
//
// PhaseTotals is thread-safe; a PhaseClock belongs to one call.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

namespace splitprove::util {

template <class Phase>  // an enum whose last enumerator is `count`
class PhaseTotals {
 public:
  static constexpr std::size_t kPhases = std::size_t(Phase::count);
  explicit PhaseTotals(const std::array<const char*, kPhases>& names) : names_(names) {}

  void add(const std::array<double, kPhases>& s) {
    std::lock_guard lk(mu_);
    for (std::size_t i = 0; i < s.size(); ++i) sum_[i] += s[i];
    ++calls_;
  }
  // "mean of N partitions: a 1.0 ms, b 2.0 ms" (empty before the first call).
  std::string report() const {
    std::lock_guard lk(mu_);
    if (calls_ == 0) return {};
    std::string out = "mean of " + std::to_string(calls_) + " partitions:";
    for (std::size_t i = 0; i < sum_.size(); ++i) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.1f", 1e3 * sum_[i] / double(calls_));
      out += std::string(i ? ", " : " ") + names_[i] + " " + ms + " ms";
    }
    return out;
  }
  void reset() {
    std::lock_guard lk(mu_);
    sum_ = {};
    calls_ = 0;
  }

 private:
  const std::array<const char*, kPhases> names_;
  mutable std::mutex mu_;
  std::array<double, kPhases> sum_{};
  std::size_t calls_ = 0;
};

template <class Phase>
class PhaseClock {
 public:
  explicit PhaseClock(PhaseTotals<Phase>& t) : totals_(t), last_(std::chrono::steady_clock::now()) {}
  void lap(Phase p) {
    const auto now = std::chrono::steady_clock::now();
    s_[std::size_t(p)] += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }
  void done() { totals_.add(s_); }

 private:
  PhaseTotals<Phase>& totals_;
  std::chrono::steady_clock::time_point last_;
  std::array<double, PhaseTotals<Phase>::kPhases> s_{};
};

}  // namespace splitprove::util
