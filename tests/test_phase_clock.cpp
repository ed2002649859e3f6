// util::PhaseTotals / PhaseClock: each lap goes to the phase named, calls that end normally are
// summed, the report gives each phase's mean in order, reset starts afresh.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "util/phase_clock.hpp"

namespace {

using namespace std::chrono_literals;
enum class Phase : unsigned { copy, compute, count };

TEST(PhaseClock, LapsGoToTheirPhasesAndTheReportGivesMeans) {
  splitprove::util::PhaseTotals<Phase> totals({"copy", "compute"});
  EXPECT_EQ(totals.report(), "");
  for (int call = 0; call < 2; ++call) {
    splitprove::util::PhaseClock clock(totals);
    std::this_thread::sleep_for(20ms);
    clock.lap(Phase::copy);
    clock.lap(Phase::compute);  // next to nothing
    clock.done();
  }
  {
    splitprove::util::PhaseClock abandoned(totals);  // a call that threw: never done()
    std::this_thread::sleep_for(5ms);
    abandoned.lap(Phase::compute);
  }
  const std::string r = totals.report();
  ASSERT_EQ(r.rfind("mean of 2 partitions: copy ", 0), 0u) << r;
  const auto copy_ms = std::stod(r.substr(r.find("copy ") + 5));
  const auto compute_ms = std::stod(r.substr(r.find("compute ") + 8));
  EXPECT_GE(copy_ms, 19.0) << r;
  EXPECT_LT(compute_ms, copy_ms) << r;
  EXPECT_NE(r.find(" ms, compute "), std::string::npos) << r;
  totals.reset();
  EXPECT_EQ(totals.report(), "");
}

}  // namespace
