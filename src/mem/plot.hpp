#pragma once
// A memory timeline as a stand-alone SVG: RSS over time, with the budget's books stacked by stage
// on top of the baseline underneath it (the gap between the stack and the RSS line is memory no
// reservation accounts for), baseline, peak, the model's prediction and the budget marked, and the
// work window shaded, the verdict's tolerances drawn (where a drain would count as a leak, where a
// peak would count as accumulation). Hand-written SVG 1.1: opens in any browser, no scripts.
#include <string>

#include "mem/timeline.hpp"
#include "mem/verdict.hpp"

namespace splitprove::mem {

struct PlotOptions {
  std::string title;  // default: the timeline's "title" meta, else "memory timeline"
  int width = 1000;
  int height = 560;
  // Wall-clock time (Unix ms) of the timeline's t = 0: the time axis is then labelled in UTC
  // (a service's timeline spans hours to weeks), not in seconds. 0: seconds.
  double epoch_ms = 0;
};

std::string render_svg(const Timeline& tl, const Verdict& v, const PlotOptions& opts = {});
void save_svg(const Timeline& tl, const Verdict& v, const std::string& path,
              const PlotOptions& opts = {});

}  // namespace splitprove::mem
