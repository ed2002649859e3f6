// `splitprove selftest`: runs the arithmetic's known-answer and algebraic checks and prints a
// short report; exits non-zero if any check fails.
#include <cstdio>

#include "cli/command.hpp"
#include "splitprove/error.hpp"
#include "splitprove/selftest.hpp"

namespace splitprove::cli {
namespace {

void run() {
  auto checks = run_selftest();
  size_t failed = 0;
  double total = 0;
  std::printf("splitprove selftest: BLS12-381 arithmetic\n");
  for (const auto& c : checks) {
    std::printf("  [%s] %-72s %8.2f ms\n         %s\n", c.ok ? " ok " : "FAIL", c.name.c_str(), c.ms,
                c.detail.c_str());
    failed += !c.ok;
    total += c.ms;
  }
  std::printf("%zu checks, %zu failed, %.1f ms\n", checks.size(), failed, total);
  if (failed) throw Error("selftest: " + std::to_string(failed) + " check(s) failed");
}

Register reg([](CLI::App& app) {
  app.add_subcommand("selftest", "Run known-answer and pairing checks of the arithmetic")
      ->callback(run);
});

}  // namespace
}  // namespace splitprove::cli
