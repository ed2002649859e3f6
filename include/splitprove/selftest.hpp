#pragma once
// Known-answer and algebraic checks of the arithmetic this build runs on: field constants, curve
// generators, encodings, NTT roots and the pairing. Used by `splitprove selftest` and by the tests.
#include <string>
#include <vector>

namespace splitprove {

struct SelftestCheck {
  std::string name;
  bool ok = false;
  std::string detail;  // what was computed (or what differed)
  double ms = 0;       // time taken by this check
};

std::vector<SelftestCheck> run_selftest();

}  // namespace splitprove
