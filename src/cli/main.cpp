// splitprove command line: parses, dispatches to the registered subcommands, and turns every
// error into one line on stderr and a non-zero exit code.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>

#include "cli/command.hpp"
#include "mem/process_memory.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"

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
  // Ctrl-C or a kill leaves no temporary output file behind (SIGKILL: the next writer's sweep).
  splitprove::util::remove_temporaries_on_signal();
  CLI::App app{"splitprove: a Groth16 proving engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "splitprove 0.1.0");
  for (auto& setup : splitprove::cli::registry()) setup(app);
  // A first word that is not an option names a command: say which one is unknown (CLI11 would
  // only say that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "splitprove: error: unknown command '%s' (commands: %s; see splitprove --help)\n",
                   argv[1], names.c_str());
      return 2;
    }
  }
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
  } catch (const splitprove::VerdictFailed& e) {
    std::fprintf(stderr, "splitprove: check failed: %s\n", e.what());
    return 3;
  } catch (const splitprove::Error& e) {
    std::fprintf(stderr, "splitprove: error: %s\n", e.what());
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the file system refused (names the path and the reason).
    std::fprintf(stderr, "splitprove: error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "splitprove: error: out of memory (lower the sizes, the workers or the "
                         "budget)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "splitprove: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
