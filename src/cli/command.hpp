#pragma once
// Subcommands register themselves: each src/cli/*.cpp holds one family of subcommands and a
// static `Register` object, so adding a command touches no shared file.
#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace splitprove::cli {

using Setup = std::function<void(CLI::App& app)>;

std::vector<Setup>& registry();

struct Register {
  explicit Register(Setup s) { registry().push_back(std::move(s)); }
};

}  // namespace splitprove::cli
