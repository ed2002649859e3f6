// The run's report (format_report) and its waterfall plot (render_waterfall): text and SVG made
// from a RunReport and its timeline, apart from the run itself (run.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "harness/run.hpp"
#include "mem/units.hpp"
#include "util/xml.hpp"

namespace splitprove::harness {
using namespace pipeline;
using util::xml_escape;

std::string budget_text(const RunOptions& o, const RunReport& r) {
  if (o.process_budget)
    return fmt::format("{} (the process; {} of it for the work)", mem::format_bytes(o.process_budget),
                       mem::format_bytes(r.work_budget));
  return r.work_budget ? mem::format_bytes(r.work_budget) : "none";
}

std::string format_report(const RunOptions& o, const RunReport& r) {
  using mem::format_bytes;
  auto mean = [](const StageStats& s) { return s.items ? s.busy_s / double(s.items) : 0.0; };
  std::string out;
  out += fmt::format("source:        {}\n", r.source);
  out += fmt::format("backend:       {}\n", r.backend);
  out += fmt::format(
      "config:        pw={} gw={} g2w={} fw={}{}, queues {}/{}/{}, {} job(s) x {} "
      "partitions, budget {}\n",
      o.engine.synthesis_workers, o.engine.gpu_workers, o.engine.g2_workers, o.engine.finalizers,
      o.engine.split_g2 ? "" : " (no split: G2 in the GPU worker)", o.engine.gpu_queue,
      o.engine.g2_queue, o.engine.final_queue, o.jobs, o.partitions, budget_text(o, r));
  if (r.stats.devices.size() > 1) {
    std::string devs;
    for (const auto& d : r.stats.devices)
      devs += fmt::format("{}{} {} GPU stage{}{}", devs.empty() ? "" : ", ", d.name, d.gpu_items,
                          d.g2_items ? fmt::format(" + {} G2", d.g2_items) : "",
                          d.healthy ? "" : " (out of service: " + d.error + ")");
    out += fmt::format("devices:       {}\n", devs);
  }
  out += fmt::format(
      "partition:     life {} = z {} + a,b {} + G2 input {} ({} B-dense wires, at most {} "
      "neither 0 nor 1) + results {}\n",
      format_bytes(r.cost.life()), format_bytes(r.cost.z), format_bytes(r.cost.ab),
      format_bytes(r.cost.g2_input), r.cost.n_dense, r.cost.g2_tail,
      format_bytes(r.cost.result));
  EngineConfig held = o.engine;
  held.fit_scratch(r.cost);
  out += fmt::format(
      "scratch:       {} held by the workers for the engine's life (per worker, as the "
      "backend reports it: synthesis {}, GPU stage {}, G2 stage {}{}); {} left in the books after "
      "shutdown\n",
      format_bytes(r.worker_scratch), format_bytes(r.cost.synth_scratch),
      format_bytes(r.cost.g1_scratch), format_bytes(r.cost.g2_scratch),
      r.cost.host_msms_exclusive && o.engine.split_g2
          ? fmt::format(", of which a G2 worker holds {}: the MSMs run one at a time",
                        format_bytes(held.g2_worker_scratch()))
          : std::string(),
      format_bytes(r.books_after_shutdown));
  if (o.engine.policy != mem::Policy::splitprove)
    out += fmt::format(
        "policy:        {} (comparison: z, a, b live until the proof is finalized; G2 and "
        "finalize backlogs unbounded){}\n",
        mem::policy_name(o.engine.policy),
        o.rss_cap ? fmt::format(", RSS cap {}", format_bytes(o.rss_cap)) : std::string());
  if (r.stopped_at_rss)
    out += fmt::format(
        "stopped:       RSS reached {} (cap {}): the jobs were cancelled; {} partitions had been "
        "proved and verified\n",
        format_bytes(*r.stopped_at_rss), format_bytes(o.rss_cap), r.partitions);
  if (r.warmed_partitions > 0)
    out += fmt::format("buffers warm:  the buffers of {} partition(s), {}, made in {:.2f} s before the "
                       "work (part of the cold start)\n",
                       r.warmed_partitions, format_bytes(r.warmed_partitions * r.cost.life()),
                       r.buffer_warm_s);
  if (r.key_ready_s >= 0.0005)
    out += fmt::format("key ready:     the key on the device(s) in {:.2f} s before any partition{} "
                       "(part of the cold start)\n",
                       r.key_ready_s,
                       r.key_make_s > 0 ? fmt::format(", its points made there in {:.2f} s", r.key_make_s)
                                        : std::string());
  if (o.warmup_partitions > 0)
    out += fmt::format("cold start:    a warm-up job of {} partition(s) in {:.2f} s (the first "
                       "partitions' device pools and scratch), not counted below\n",
                       o.warmup_partitions, r.warmup_s);
  out += fmt::format("proofs:        {} partitions proved and verified in {:.2f} s\n", r.partitions,
                     r.wall_s);
  out += fmt::format("throughput:    {:.2f} s/proof ({} partitions), {:.2f} partitions/s\n",
                     r.s_per_proof, o.partitions, r.partitions_per_s);
  out += fmt::format(
      "stages (mean): synthesis {:.3f} s, gpu {:.3f} s, g2 {:.3f} s, finalize "
      "{:.3f} s\n",
      mean(r.stats.synthesis), mean(r.stats.gpu), mean(r.stats.g2), mean(r.stats.finalize));
  if (const auto& sp = r.synthesis_phases; sp.partitions > 0) {
    const double n = double(sp.partitions);
    // The stage's mean beyond the source's phases: the buffers carved and the G2 input gathered.
    const double rest = mean(r.stats.synthesis) - (sp.witness_s + sp.ab_s + sp.check_s) / n;
    out += fmt::format("synth phases:  mean of {} partitions: witness {:.1f} ms, a,b {:.1f} ms, "
                       "check {:.1f} ms; the rest of the stage (buffers, G2 input) {:.1f} ms\n",
                       sp.partitions, 1e3 * sp.witness_s / n, 1e3 * sp.ab_s / n,
                       1e3 * sp.check_s / n, 1e3 * std::max(0.0, rest));
  }
  if (!r.gpu_phases.empty()) out += fmt::format("gpu phases:    {}\n", r.gpu_phases);
  if (r.device_busy)
    out += fmt::format("device busy:   {:.1f} % of the measured wall (a stage on the device running)\n",
                       100 * *r.device_busy);
  if (o.engine.recycle_buffers)
    out += fmt::format(
        "buffers:       recycled{}: {} buffers made from kept pages; {} dead buffers kept, {} "
        "unmapped at once (someone waited for memory), {} idle ones unmapped on demand\n",
        r.pinned ? " and pinned" : "", r.pool.reused, r.pool.kept, r.pool.dropped, r.pool.trimmed);
  else
    out += fmt::format("buffers:       mapped fresh for every partition{}\n",
                       r.pinned ? " (pinned)" : "");
  out += fmt::format("queues (max):  gpu {}/{}, g2 {}/{}, finalize {}/{}\n", r.stats.max_gpu_queue,
                     o.engine.gpu_queue, r.stats.max_g2_queue, o.engine.g2_queue,
                     r.stats.max_final_queue, o.engine.final_queue);
  out += fmt::format(
      "memory:        peak RSS {} (baseline {}), predicted peak {} (model {} of "
      "work, {} holdable), books peak {}, RSS beyond the books at most {}\n",
      format_bytes(r.verdict.peak), format_bytes(r.verdict.baseline),
      format_bytes(r.predicted_peak), format_bytes(r.prediction.work_bytes),
      format_bytes(r.prediction.held_bytes), format_bytes(r.books_peak),
      format_bytes(std::uint64_t(std::max<std::int64_t>(0, r.verdict.unaccounted_max))));
  out += fmt::format(
      "books by stage (peak): synthesis {}, gpu {}, g2 {}, finalize {}, scratch {}\n",
      format_bytes(r.books[mem::Tag::synthesis].peak), format_bytes(r.books[mem::Tag::gpu].peak),
      format_bytes(r.books[mem::Tag::g2].peak), format_bytes(r.books[mem::Tag::finalize].peak),
      format_bytes(r.books[mem::Tag::scratch].peak));
  out += r.warmup_s > 0
             ? fmt::format("runtime:       {} beyond the books during the warm-up job (allocator arenas, "
                           "thread stacks, caches, code first run): measured, part of the predicted "
                           "peak\n",
                           format_bytes(r.runtime_bytes))
             : std::string("runtime:       not measured (no warm-up job): the prediction has the books "
                           "only\n");
  const double ratio = r.predicted_peak ? double(r.verdict.peak) / double(r.predicted_peak) : 0;
  out += fmt::format("               measured/predicted peak = {:.3f}\n", ratio);
  if (r.warmup_gpu_max_s > 0)
    out += fmt::format(
        "               warm-up stage times: synthesis at least {:.3f} s, GPU stage at most {:.3f} s: "
        "{}\n",
        r.warmup_synthesis_min_s, r.warmup_gpu_max_s,
        r.gpu_queue_left_out ? "the GPU stage keeps up, its queue left out of the prediction"
            : "the GPU queue counted full");
  if (o.process_budget)
    out += fmt::format("               peak RSS {} the budget {} of the whole process ({} held at the start)\n",
                       r.within_process_budget ? "within" : "ABOVE", format_bytes(o.process_budget),
                       format_bytes(r.resident_at_start));
  out += fmt::format("verdict:       {} - {}\n", mem::verdict_name(r.verdict.verdict),
                     r.verdict.reason);
  for (const auto& f : r.files) out += fmt::format("wrote          {}\n", f);
  return out;
}

std::string render_waterfall(const mem::Timeline& tl, const std::string& title) {
  // Bars from matched start/end events, keyed by (partition, stage).
  struct Bar {
    double t0 = -1, t1 = -1;
  };
  std::map<std::string, std::map<std::string, Bar>> rows;  // "j1p03" -> stage -> bar
  double tmin = 1e300, tmax = 0;
  for (const auto& e : tl.events) {
    const bool start = e.label.rfind("start:", 0) == 0, end = e.label.rfind("end:", 0) == 0;
    if (!start && !end) continue;
    const std::string rest = e.label.substr(start ? 6 : 4);
    const auto colon = rest.find(':');
    if (colon == std::string::npos) continue;
    const std::string stage = rest.substr(0, colon), item = rest.substr(colon + 1);
    // Sort rows by job then partition number: pad the partition index.
    const auto p = item.find('p');
    if (p == std::string::npos) continue;
    const std::string key = fmt::format("{:>6}{:>6}", item.substr(1, p - 1), item.substr(p + 1));
    Bar& b = rows[key][stage];
    (start ? b.t0 : b.t1) = e.t;
    tmin = std::min(tmin, e.t);
    tmax = std::max(tmax, e.t);
  }
  const int row_h = 10, ml = 90, mr = 20, mt = 40, mb = 40, width = 1000;
  const int height = mt + mb + int(rows.size()) * row_h + 20;
  const double span = std::max(tmax - tmin, 1e-6);
  auto x = [&](double t) { return ml + (t - tmin) / span * (width - ml - mr); };
  const std::map<std::string, const char*> colors = {
      {"synthesis", "#4e79a7"}, {"gpu", "#f28e2b"}, {"g2", "#59a14f"}, {"finalize", "#e15759"}};
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"14\">{}</text>\n",
      width, height, ml, xml_escape(title));
  int lx = ml;
  for (const char* st : {"synthesis", "gpu", "g2", "finalize"}) {
    s += fmt::format(
        "<rect x=\"{}\" y=\"27\" width=\"10\" height=\"8\" fill=\"{}\"/><text x=\"{}\" "
        "y=\"35\">{}</text>\n",
        lx, colors.at(st), lx + 14, st);
    lx += 90;
  }
  int y = mt;
  for (const auto& [key, stages] : rows) {
    const std::string label =
        fmt::format("j{} p{}", key.substr(0, 6).substr(key.substr(0, 6).find_first_not_of(' ')),
                    key.substr(6).substr(key.substr(6).find_first_not_of(' ')));
    s += fmt::format("<text x=\"4\" y=\"{}\" font-size=\"9\">{}</text>\n", y + row_h - 2, label);
    for (const auto& [stage, b] : stages) {
      if (b.t0 < 0 || b.t1 < 0) continue;
      auto c = colors.find(stage);
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n",
                       x(b.t0), y + 1, std::max(0.5, x(b.t1) - x(b.t0)), row_h - 2,
                       c == colors.end() ? "#999" : c->second);
    }
    y += row_h;
  }
  // Time axis.
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", ml, y + 4,
                   width - mr, y + 4);
  for (int k = 0; k <= 10; ++k) {
    const double t = tmin + span * k / 10;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:.2f}s</text>\n", x(t),
                     y + 18, t);
  }
  s += "</svg>\n";
  return s;
}

}  // namespace splitprove::harness
