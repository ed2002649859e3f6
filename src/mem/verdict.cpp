#include "mem/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "mem/units.hpp"
#include "splitprove/error.hpp"

namespace splitprove::mem {

std::string_view verdict_name(VerdictClass v) {
  switch (v) {
    case VerdictClass::bounded:
      return "bounded";
    case VerdictClass::accumulation:
      return "accumulation";
    case VerdictClass::leak:
      return "leak";
    case VerdictClass::unknown:
      return "unknown";
  }
  return "unknown";
}

std::uint64_t held_on_purpose(const Sample& s) {
  return s.books[std::size_t(Tag::srs)] + s.books[std::size_t(Tag::pinned)] +
         s.books[std::size_t(Tag::scratch)];
}

std::uint64_t median(std::vector<std::uint64_t> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

namespace {

std::int64_t diff(std::uint64_t a, std::uint64_t b) { return std::int64_t(a) - std::int64_t(b); }

}  // namespace

Verdict analyze(const Timeline& tl, const VerdictOptions& opts) {
  if (tl.samples.empty()) throw Error("memory timeline has no samples: nothing to judge");
  Verdict v;
  v.samples = tl.samples.size();
  auto ws = tl.first_event(kWorkStart);
  auto we = tl.last_event(kWorkEnd);
  v.marked = ws.has_value() && we.has_value();
  v.work_start = ws.value_or(tl.samples.front().t);
  v.work_end = we.value_or(tl.samples.back().t);

  std::vector<std::uint64_t> before, during, after, held_before, held_after;
  for (const Sample& s : tl.samples) {
    if (s.t < v.work_start) {
      before.push_back(s.rss);
      held_before.push_back(held_on_purpose(s));
    } else if (s.t <= v.work_end) {
      during.push_back(s.rss);
    } else {
      after.push_back(s.rss);
      held_after.push_back(held_on_purpose(s));
    }
    if (s.rss > v.peak) {
      v.peak = s.rss;
      v.peak_t = s.t;
      v.books_at_peak = s.budget_used;
    }
    v.books_peak = std::max(v.books_peak, s.budget_used);
  }
  v.baseline = before.empty() ? tl.samples.front().rss : median(before);
  v.after_drain = after.empty() ? tl.samples.back().rss : median(after);
  v.plateau = during.empty() ? v.peak : median(during);
  v.drain_delta = diff(v.after_drain, v.baseline);
  v.held_baseline =
      held_before.empty() ? held_on_purpose(tl.samples.front()) : median(held_before);
  v.held_after = held_after.empty() ? held_on_purpose(tl.samples.back()) : median(held_after);
  // Only growth of what is held counts for it: books given back while their pages were never
  // resident (scratch reserved up front, say) must not count as memory that came back.
  v.unheld_drain_delta =
      v.drain_delta - std::max<std::int64_t>(0, diff(v.held_after, v.held_baseline));
  v.tolerance = opts.tolerance.value_or(std::max<std::uint64_t>(16 * MiB, v.peak / 50));
  v.unaccounted_at_peak = diff(v.peak, v.baseline) - std::int64_t(v.books_at_peak);
  v.unaccounted_max = v.unaccounted_at_peak;
  for (const Sample& s : tl.samples)
    if (s.t >= v.work_start && s.t <= v.work_end)
      v.unaccounted_max =
          std::max(v.unaccounted_max, diff(s.rss, v.baseline) - std::int64_t(s.budget_used));

  std::optional<std::uint64_t> model = opts.model_work_bytes;
  if (!model) model = tl.meta_bytes(kMetaModelWorkBytes);
  const bool books_model = !model && opts.books_as_model && v.books_peak > 0;
  if (books_model) model = v.books_peak;
  if (model) {
    if (auto budget = tl.meta_bytes(kMetaBudgetBytes); budget && *budget > 0)
      model = std::min(*model, *budget);
    if (!books_model) *model += tl.meta_bytes(kMetaRuntimeBytes).value_or(0);
    v.model_work_bytes = model;
    v.expected_peak = v.baseline + *model;
  }

  const std::int64_t tol = std::int64_t(v.tolerance);
  const std::int64_t held_growth = v.drain_delta - v.unheld_drain_delta;
  // "came back": what the reason says of the drain, the held part named when there is one.
  const std::string came_back =
      held_growth > 0
          ? fmt::format("{} vs baseline, {} of it held on purpose in the books",
                        format_signed_bytes(v.drain_delta), format_bytes(std::uint64_t(held_growth)))
          : fmt::format("{} vs baseline", format_signed_bytes(v.drain_delta));
  if (v.unheld_drain_delta > tol) {
    v.verdict = VerdictClass::leak;
    v.reason =
        held_growth > 0
            ? fmt::format(
                  "after work drained RSS stayed {} above the baseline, {} of it beyond what the "
                  "books hold on purpose (tolerance {}): memory did not come back",
                  format_signed_bytes(v.drain_delta), format_signed_bytes(v.unheld_drain_delta),
                  format_bytes(v.tolerance))
            : fmt::format(
                  "after work drained RSS stayed {} above the baseline (tolerance {}): memory did "
                  "not come back",
                  format_signed_bytes(v.drain_delta), format_bytes(v.tolerance));
  } else if (!model) {
    v.verdict = VerdictClass::unknown;
    v.reason = fmt::format(
        "memory came back after work ({}), but there is no model or budget to judge the peak of "
        "{} against{}",
        came_back, format_bytes(v.peak), opts.no_model_hint);
  } else {
    const double allowed = double(*model) * (1.0 + opts.slack) + double(v.tolerance);
    v.accumulation_above = v.baseline + std::uint64_t(allowed);
    const double above = double(v.peak) - double(v.baseline);
    if (above > allowed) {
      v.verdict = VerdictClass::accumulation;
      v.reason = fmt::format(
          "peak {} above baseline is {:.2f}x {} ({}), but memory came back after work ({}): "
          "buffers outlive the work that needs them",
          format_bytes(std::uint64_t(above)), *model ? above / double(*model) : 0.0,
          books_model ? "the most the books held" : "what the configuration needs",
          format_bytes(*model), came_back);
    } else {
      v.verdict = VerdictClass::bounded;
      v.reason = fmt::format(
          "peak {} above baseline is within {} {} (+{:.0f}% + {}) and memory came back ({})",
          format_bytes(above > 0 ? std::uint64_t(above) : 0),
          books_model ? "the most the books held," : "the model's", format_bytes(*model),
          opts.slack * 100, format_bytes(v.tolerance), came_back);
    }
  }
  return v;
}

std::string format_report(const Verdict& v) {
  std::string s;
  s += fmt::format("verdict:     {} — {}\n", verdict_name(v.verdict), v.reason);
  s += fmt::format("work:        {:.2f} s .. {:.2f} s ({}), {} samples\n", v.work_start, v.work_end,
                   v.marked ? "marked" : "unmarked: whole timeline", v.samples);
  s += fmt::format("baseline:    {}\n", format_bytes(v.baseline));
  s += fmt::format("peak:        {} at {:.2f} s ({} above baseline)\n", format_bytes(v.peak),
                   v.peak_t, format_signed_bytes(diff(v.peak, v.baseline)));
  s += fmt::format("plateau:     {} (median during work)\n", format_bytes(v.plateau));
  s += fmt::format("after drain: {} ({} vs baseline, tolerance {})\n", format_bytes(v.after_drain),
                   format_signed_bytes(v.drain_delta), format_bytes(v.tolerance));
  if (v.held_baseline || v.held_after)
    s += fmt::format("held:        {} before work, {} after drain (books: keys, pools, scratch); "
                     "{} beyond them vs baseline\n",
                     format_bytes(v.held_baseline), format_bytes(v.held_after),
                     format_signed_bytes(v.unheld_drain_delta));
  if (v.model_work_bytes)
    s += fmt::format("model:       {} = baseline + {}\n", format_bytes(*v.expected_peak),
                     format_bytes(*v.model_work_bytes));
  else
    s += "model:       none\n";
  s += fmt::format("books:       peak {}, {} at the RSS peak; unaccounted at peak {}, max {}\n",
                   format_bytes(v.books_peak), format_bytes(v.books_at_peak),
                   format_signed_bytes(v.unaccounted_at_peak),
                   format_signed_bytes(v.unaccounted_max));
  return s;
}

nlohmann::json to_json(const Verdict& v) {
  nlohmann::json j = {{"verdict", verdict_name(v.verdict)},
                      {"reason", v.reason},
                      {"samples", v.samples},
                      {"work_marked", v.marked},
                      {"work_start_s", v.work_start},
                      {"work_end_s", v.work_end},
                      {"baseline_bytes", v.baseline},
                      {"peak_bytes", v.peak},
                      {"peak_t_s", v.peak_t},
                      {"plateau_bytes", v.plateau},
                      {"after_drain_bytes", v.after_drain},
                      {"drain_delta_bytes", v.drain_delta},
                      {"held_baseline_bytes", v.held_baseline},
                      {"held_after_bytes", v.held_after},
                      {"unheld_drain_delta_bytes", v.unheld_drain_delta},
                      {"tolerance_bytes", v.tolerance},
                      {"books_peak_bytes", v.books_peak},
                      {"books_at_peak_bytes", v.books_at_peak},
                      {"unaccounted_at_peak_bytes", v.unaccounted_at_peak},
                      {"unaccounted_max_bytes", v.unaccounted_max}};
  j["model_work_bytes"] = v.model_work_bytes ? nlohmann::json(*v.model_work_bytes) : nullptr;
  j["expected_peak_bytes"] = v.expected_peak ? nlohmann::json(*v.expected_peak) : nullptr;
  j["accumulation_above_bytes"] =
      v.accumulation_above ? nlohmann::json(*v.accumulation_above) : nullptr;
  return j;
}

}  // namespace splitprove::mem
