#pragma once
// The options that choose the devices of the pipeline's GPU and G2 stages (pipeline/backend.hpp),
// the same on every command that runs the engine.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "pipeline/backend.hpp"

namespace splitprove::cli {

inline void add_device_options(CLI::App* c, std::vector<int>& devices, unsigned& logical,
                               const std::string& prefix = "") {
  c->add_option_function<std::string>(
      "--devices",
      [&devices](const std::string& v) { devices = pipeline::parse_device_list(v, "--devices"); },
      prefix + "GPUs to run on: all (default: every visible one) or indices, e.g. 0,1");
  c->add_option("--logical-devices", logical,
                prefix +
                    "split each device (or the CPU backend) into N logical devices, each with its "
                    "own GPU-stage workers, an equal share of the device budget and its own "
                    "resident keys")
      ->capture_default_str()
      ->check(CLI::Range(1u, pipeline::BackendRequest::kMaxLogical));
}

}  // namespace splitprove::cli
