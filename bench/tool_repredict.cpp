// Recomputes the memory model's prediction for runs of `splitprove bench pipeline` already made,
// from what each run recorded (summary.json: the configuration, the partition's life cost and
// bytes, the workers' scratch, the measured baseline and peak), with the model of this build.
// For runs recorded before summary.json carried `partition_bytes`, give the split of the life cost
// with --abc / --g2 / --result (z is the rest). Queue bounds are taken as 1 (the bench default).
//
//   tool_repredict [--abc BYTES --g2 BYTES --result BYTES] RUN_DIR...
//
// Prints one markdown row per run: recorded prediction, this model's, and measured/predicted.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mem/model.hpp"
#include "mem/units.hpp"

namespace {

using splitprove::mem::MiB;

std::uint64_t config_value(const std::string& config, const std::string& key) {
  const auto p = config.find(key + "=");
  if (p == std::string::npos) return 0;
  return std::stoull(config.substr(p + key.size() + 1));
}

double mib(std::uint64_t b) { return double(b) / double(MiB); }

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::uint64_t> split;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--abc" || a == "--g2" || a == "--result") && i + 1 < argc) {
      split[a.substr(2)] = std::stoull(argv[++i]);
    } else {
      dirs.push_back(a);
    }
  }
  if (dirs.empty()) {
    std::fprintf(stderr, "usage: tool_repredict [--abc B --g2 B --result B] RUN_DIR...\n");
    return 2;
  }
  std::printf(
      "| run | baseline MiB | peak RSS − baseline MiB | books peak MiB | recorded prediction MiB "
      "(work held) | this model: work held MiB | predicted peak MiB | measured / predicted |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& d : dirs) {
    std::ifstream f(d + "/summary.json");
    if (!f) {
      std::fprintf(stderr, "%s/summary.json: cannot open\n", d.c_str());
      return 1;
    }
    const auto j = nlohmann::json::parse(f);
    const std::string config = j.at("config");
    splitprove::mem::PipelineConfig c;
    const std::uint64_t life = j.at("life_cost_bytes");
    auto& pb = c.partition;
    if (j.contains("partition_bytes")) {
      pb.z = j["partition_bytes"]["z"];
      // "ab" (a and b, the host holds no c), "abc" in runs made before c left the host.
      const auto& parts = j["partition_bytes"];
      pb.abc = parts.contains("ab") ? parts["ab"] : parts["abc"];
      pb.g2_input = j["partition_bytes"]["g2_input"];
      pb.result = j["partition_bytes"]["result"];
    } else {
      if (split.size() != 3) {
        std::fprintf(stderr, "%s: no partition_bytes recorded: give --abc, --g2 and --result\n",
                     d.c_str());
        return 1;
      }
      pb.abc = split["abc"];
      pb.g2_input = split["g2"];
      pb.result = split["result"];
      pb.z = life - pb.abc - pb.g2_input - pb.result;
    }
    c.gpu_frees_inputs_early = j.value("gpu_frees_inputs_early", true);
    c.synthesis_workers = std::uint32_t(config_value(config, "pw"));
    c.gpu_workers = std::uint32_t(config_value(config, "gw"));
    c.g2_workers = std::uint32_t(config_value(config, "g2w"));
    c.finalizers = std::uint32_t(config_value(config, "fw"));
    c.jobs = std::uint32_t(config_value(config, "jobs"));
    c.partitions_per_job = std::uint32_t(config_value(config, "partitions"));
    c.scratch_per_synthesis_worker = j["scratch_per_worker_bytes"]["synthesis"];
    c.scratch_per_gpu_worker = j["scratch_per_worker_bytes"]["gpu"];
    c.scratch_per_g2_worker = j["scratch_per_worker_bytes"]["g2"];
    // The budget is printed rounded in the config string; the sweeps here used whole MiB.
    const auto bp = config.find("budget=");
    if (bp != std::string::npos && config.compare(bp + 7, 4, "none") != 0)
      c.budget = std::uint64_t(std::stod(config.substr(bp + 7)) *
                               (config.find("GiB", bp) != std::string::npos ? 1024.0 : 1.0)) *
                 MiB;
    const auto p = splitprove::mem::predict(
        splitprove::mem::pipeline_model(c, splitprove::mem::Policy::splitprove));
    const std::uint64_t baseline = j.at("baseline_bytes"), peak = j.at("peak_rss_bytes");
    const std::uint64_t recorded = j.value("model_held_bytes", std::uint64_t(0));
    const std::uint64_t predicted = baseline + p.held_bytes;
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.3f |\n", d.c_str(),
                mib(baseline), mib(peak - baseline),
                mib(j.at("books_peak_bytes").get<std::uint64_t>()), mib(recorded),
                mib(p.held_bytes), mib(predicted), double(peak) / double(predicted));
  }
  return 0;
}
