// `splitprove mem report|plot` (read a memory timeline) and `splitprove plan` (the memory model's
// prediction for a configuration). Thin: parsing and printing; the work is in src/mem.
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.hpp"
#include "harness/plan.hpp"
#include "mem/plot.hpp"
#include "mem/timeline.hpp"
#include "mem/units.hpp"
#include "mem/verdict.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"

namespace splitprove::cli {
namespace {

using namespace splitprove::mem;
using namespace splitprove::harness;

struct VerdictArgs {
  std::string tolerance, model_bytes;
  double slack = 0.10;

  void add(CLI::App* cmd) {
    cmd->add_option("--tolerance", tolerance,
                    "leak / accumulation tolerance (e.g. 64MiB; default max(16 MiB, 2% of peak))");
    cmd->add_option("--model-bytes", model_bytes,
                    "the model's work bytes (default: the timeline's model_work_bytes meta)");
    cmd->add_option("--slack", slack, "relative room above the model before accumulation")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
  }
  VerdictOptions options() const {
    VerdictOptions o;
    if (!tolerance.empty()) o.tolerance = parse_size(tolerance, "--tolerance");
    if (!model_bytes.empty()) o.model_work_bytes = parse_size(model_bytes, "--model-bytes");
    o.slack = slack;
    o.no_model_hint = " (give --model-bytes)";
    return o;
  }
};

struct ReportArgs {
  std::string file;
  bool json = false;
  VerdictArgs v;
} report_args;

struct PlotArgs {
  std::string file, out, title;
  VerdictArgs v;
} plot_args;

struct PlanArgs {
  std::string partition = "15.5GiB", g2_bytes, result_bytes, baseline = "0", budget,
              policy = "splitprove";
  PipelineConfig c;
  bool json = false;
} plan_args;

void run_report() {
  const auto& a = report_args;
  Timeline tl = load_timeline(a.file);
  Verdict v = analyze(tl, a.v.options());
  if (a.json)
    std::printf("%s\n", to_json(v).dump(2).c_str());
  else
    std::printf("timeline:    %s\n%s", a.file.c_str(), format_report(v).c_str());
  // The verdict is the exit status: 0 bounded, 3 accumulation or leak (or too little to judge).
  if (v.verdict != VerdictClass::bounded)
    throw VerdictFailed(fmt::format("{}: verdict {}", a.file, verdict_name(v.verdict)));
}

void run_plot() {
  const auto& a = plot_args;
  util::OutputCheck("mem plot").input(a.file).output(a.out).check();
  Timeline tl = load_timeline(a.file);
  Verdict v = analyze(tl, a.v.options());
  PlotOptions po;
  po.title = !a.title.empty() ? a.title : tl.meta_value("title").value_or(a.file);
  save_svg(tl, v, a.out, po);
  std::printf("%s: %s (peak %s, %s)\n", a.out.c_str(), a.file.c_str(), format_bytes(v.peak).c_str(),
              std::string(verdict_name(v.verdict)).c_str());
}

void run_plan() {
  auto& a = plan_args;
  auto policy = parse_policy(a.policy);
  if (!policy) throw Error(fmt::format("--policy: '{}': expected held or splitprove", a.policy));
  PipelineConfig c = a.c;
  c.partition = PartitionBytes::scaled(parse_size(a.partition, "--partition-bytes"));
  if (!a.g2_bytes.empty()) c.partition.g2_input = parse_size(a.g2_bytes, "--g2-bytes");
  if (!a.result_bytes.empty()) c.partition.result = parse_size(a.result_bytes, "--result-bytes");
  c.baseline = parse_size(a.baseline, "--baseline");
  c.budget = a.budget.empty() ? 0 : parse_size(a.budget, "--budget");
  if (c.partition.abc + c.partition.z == 0)
    throw Error("--partition-bytes: a partition of 0 bytes has nothing to plan");
  Plan p = make_plan(c, *policy);
  if (a.json)
    std::printf("%s\n", to_json(p).dump(2).c_str());
  else
    std::printf("%s", format_plan(p).c_str());
}

Register reg([](CLI::App& app) {
  auto* mem = app.add_subcommand("mem", "Memory timelines: verdict and plot");
  mem->require_subcommand(1);

  auto* report = mem->add_subcommand(
      "report", "Verdict on a memory timeline (leak, accumulation or bounded) with its numbers");
  report->add_option("timeline", report_args.file, "timeline.csv or timeline.jsonl")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_flag("--json", report_args.json, "print the verdict as JSON");
  report_args.v.add(report);
  report->callback(run_report);

  auto* plot = mem->add_subcommand(
      "plot", "Plot a memory timeline as SVG: RSS over the budget's books stacked by stage");
  plot->add_option("timeline", plot_args.file, "timeline.csv or timeline.jsonl")
      ->required()
      ->check(CLI::ExistingFile);
  plot->add_option("-o,--output", plot_args.out, "the SVG to write")->required();
  plot->add_option("--title", plot_args.title,
                   "plot title (default: the timeline's title, else the file name)");
  plot_args.v.add(plot);
  plot->callback(run_plot);

  auto& a = plan_args;
  auto* plan = app.add_subcommand(
      "plan",
      "Predict the memory peak of a pipeline configuration, and the largest concurrency that fits "
      "a budget");
  plan->add_option("--partition-bytes", a.partition,
                   "synthesis output per partition: a, b, c (3/4) + z (1/4)")
      ->capture_default_str();
  plan->add_option("--g2-bytes", a.g2_bytes, "compact G2 input per partition (default: z / 4)");
  plan->add_option("--result-bytes", a.result_bytes, "results per partition (default 64 KiB)");
  auto pos = CLI::PositiveNumber;
  plan->add_option("--pw", a.c.synthesis_workers, "synthesis workers")
      ->capture_default_str()
      ->check(pos);
  plan->add_option("--gw", a.c.gpu_workers, "GPU workers")->capture_default_str()->check(pos);
  plan->add_option("--g2-workers", a.c.g2_workers, "G2 workers")->capture_default_str()->check(pos);
  plan->add_option("--finalizers", a.c.finalizers, "finalizers")->capture_default_str()->check(pos);
  plan->add_option("--gpu-queue", a.c.gpu_queue, "bound of the queue in front of the GPU")
      ->capture_default_str();
  plan->add_option("--g2-queue", a.c.g2_queue, "bound of the G2 backlog (policy splitprove)")
      ->capture_default_str();
  plan->add_option("--final-queue", a.c.final_queue, "bound of the finalize backlog")
      ->capture_default_str();
  plan->add_option("-j,--jobs", a.c.jobs, "jobs in flight")->capture_default_str()->check(pos);
  plan->add_option("--partitions", a.c.partitions_per_job, "partitions per job")
      ->capture_default_str()
      ->check(pos);
  plan->add_option("--baseline", a.baseline, "resident before any work (SRS, binary...)")
      ->capture_default_str();
  plan->add_option("--budget", a.budget, "host memory budget for the work");
  plan->add_option("--policy", a.policy, "held (reference design) or splitprove")
      ->capture_default_str();
  plan->add_flag("--json", a.json, "print the plan as JSON");
  plan->callback(run_plan);
});

}  // namespace
}  // namespace splitprove::cli
