// splitprove command line: parses, dispatches to the registered subcommands, and turns every
// error into one line on stderr and a non-zero exit code.
#include <cstdio>
#include <exception>

#include "cli/command.hpp"
#include "mem/process_memory.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cli {
std::vector<Setup>& registry() {
  static std::vector<Setup> r;
  return r;
}
}  // namespace splitprove::cli

int main(int argc, char** argv) {
  // From the start, so that what setting up a circuit and key frees (large MSM and NTT scratch on
  // the pool threads) is not kept by the allocator into the runs measured after it.
  splitprove::mem::return_freed_heap_promptly();
  CLI::App app{"splitprove: a Groth16 proving engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "splitprove 0.1.0");
  for (auto& setup : splitprove::cli::registry()) setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error; usage errors exit with 2.
    std::fprintf(stderr, "splitprove: error: %s (see splitprove --help)\n", e.what());
    return 2;
  } catch (const splitprove::Error& e) {
    std::fprintf(stderr, "splitprove: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "splitprove: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
