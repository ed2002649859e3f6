#include "mem/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>

#include "mem/units.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"
#include "util/xml.hpp"

namespace splitprove::mem {
namespace {

constexpr const char* kTagColors[kTagCount] = {
    "#4e79a7",  // synthesis
    "#f28e2b",  // gpu
    "#59a14f",  // g2
    "#b07aa1",  // finalize
    "#9c755f",  // srs
    "#edc948",  // pinned
    "#76b7b2",  // scratch
    "#bab0ac",  // other
};

using util::xml_escape;

// A "nice" step (1, 2 or 5 × 10^k) giving about `target` ticks over `range`.
double nice_step(double range, int target) {
  if (range <= 0) return 1;
  double raw = range / target;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / mag;
  double n = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
  return n * mag;
}

// A wall-clock step (seconds) giving about `target` ticks over `range` seconds.
double clock_step(double range, int target) {
  static constexpr double kSteps[] = {1,    2,    5,     10,    15,    30,    60,     120,
                                      300,  600,  900,   1800,  3600,  7200,  10800,  21600,
                                      43200, 86400, 172800, 604800, 1209600, 2592000};
  for (double s : kSteps)
    if (range / s <= target) return s;
  return kSteps[std::size(kSteps) - 1];
}

// A tick's label at Unix time `unix_s` (UTC): the date where the axis spans days, seconds where
// it spans minutes.
std::string clock_label(double unix_s, double range_s) {
  const std::time_t tt = std::time_t(std::floor(unix_s));
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, range_s > 2 * 86400.0 ? "%m-%d %H:%M" : range_s > 600 ? "%H:%M" : "%H:%M:%S",
                &tm);
  return buf;
}

}  // namespace

std::string render_svg(const Timeline& tl, const Verdict& v, const PlotOptions& opts) {
  const double W = opts.width, H = opts.height;
  const double ml = 80, mr = 200, mt = 56, mb = 56;
  const double pw = W - ml - mr, ph = H - mt - mb;

  // ---- extents
  double t0 = tl.samples.empty() ? 0 : tl.samples.front().t;
  double t1 = tl.samples.empty() ? 1 : tl.samples.back().t;
  if (t1 <= t0) t1 = t0 + 1;
  double ymax = 0;
  bool tag_used[kTagCount] = {};
  for (const Sample& s : tl.samples) {
    double stack = double(v.baseline);
    for (std::size_t i = 0; i < kTagCount; ++i) {
      stack += double(s.books[i]);
      if (s.books[i]) tag_used[i] = true;
    }
    ymax = std::max({ymax, double(s.rss), stack});
    for (auto d : s.device) ymax = std::max(ymax, double(d));
  }
  if (v.expected_peak) ymax = std::max(ymax, double(*v.expected_peak));
  if (v.accumulation_above) ymax = std::max(ymax, double(*v.accumulation_above));
  // The budget line only when it is on the same scale (an "unlimited" budget would flatten all).
  std::uint64_t capacity = 0;
  for (const Sample& s : tl.samples) capacity = std::max(capacity, s.budget_capacity);
  const bool show_budget = capacity > 0 && double(capacity + v.baseline) <= 2.0 * ymax;
  if (show_budget) ymax = std::max(ymax, double(capacity + v.baseline));
  ymax = std::max(ymax * 1.08, 1.0);

  const bool gib = ymax >= 2.0 * double(GiB);
  const double unit = gib ? double(GiB) : double(MiB);
  const char* uname = gib ? "GiB" : "MiB";
  auto X = [&](double t) { return ml + (t - t0) / (t1 - t0) * pw; };
  auto Y = [&](double bytes) { return mt + ph - bytes / ymax * ph; };

  std::string o;
  o += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      W, H);
  o += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", W, H);
  std::string title = !opts.title.empty()      ? opts.title
                      : tl.meta_value("title") ? *tl.meta_value("title")
                                               : std::string("memory timeline");
  o += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", ml,
                   xml_escape(title));
  o += fmt::format(
      "<text x=\"{}\" y=\"42\" fill=\"#333\">verdict: {} — peak {} at {:.1f} s, "
      "baseline {}, after drain {}</text>\n",
      ml, verdict_name(v.verdict), format_bytes(v.peak), v.peak_t, format_bytes(v.baseline),
      format_bytes(v.after_drain));

  // ---- work window
  if (v.marked)
    o += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#f4f4f4\"/>\n",
        X(v.work_start), mt, std::max(0.0, X(v.work_end) - X(v.work_start)), ph);

  // ---- grid and axes
  double ystep = nice_step(ymax / unit, 6);
  for (double y = 0; y <= ymax / unit + 1e-9; y += ystep) {
    double py = Y(y * unit);
    o += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n",
                     ml, py, ml + pw, py);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", ml - 6,
                     py + 4, y);
  }
  // Ticks at round values of the axis's own clock: seconds since start, or wall-clock (UTC).
  const bool wall = opts.epoch_ms > 0;
  const double origin = wall ? opts.epoch_ms / 1000.0 : 0;
  double xstep = wall ? clock_step(t1 - t0, 8) : nice_step(t1 - t0, 8);
  for (double t = std::ceil((origin + t0) / xstep) * xstep - origin; t <= t1 + 1e-9; t += xstep) {
    double px = X(t);
    o += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#eee\"/>\n",
                     px, mt, px, mt + ph);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px,
                     mt + ph + 16,
                     wall ? clock_label(origin + t, t1 - t0) : fmt::format("{:g}", t));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", ml + pw / 2,
                   H - 14, wall ? "time (UTC)" : "time (s)");
  o += fmt::format(
      "<text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">memory "
      "({})</text>\n",
      mt + ph / 2, mt + ph / 2, uname);

  // ---- baseline band, then the books stacked on top of it
  if (!tl.samples.empty()) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"#e6e6e6\"/>\n", ml,
        Y(double(v.baseline)), pw, mt + ph - Y(double(v.baseline)));
    std::vector<double> lower(tl.samples.size(), double(v.baseline));
    for (std::size_t tag = 0; tag < kTagCount; ++tag) {
      if (!tag_used[tag]) continue;
      std::string pts;
      std::vector<double> upper(lower);
      for (std::size_t i = 0; i < tl.samples.size(); ++i)
        upper[i] += double(tl.samples[i].books[tag]);
      for (std::size_t i = 0; i < tl.samples.size(); ++i)
        pts += fmt::format("{:.1f},{:.1f} ", X(tl.samples[i].t), Y(upper[i]));
      for (std::size_t i = tl.samples.size(); i-- > 0;)
        pts += fmt::format("{:.1f},{:.1f} ", X(tl.samples[i].t), Y(lower[i]));
      o += fmt::format(
          "<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"0.75\" stroke=\"none\"/>\n", pts,
          kTagColors[tag]);
      lower = std::move(upper);
    }
  }

  // ---- reference lines; their labels on the right are pushed apart so that they never overlap
  struct RightLabel {
    double y;
    std::string color, text;
  };
  std::vector<RightLabel> labels;
  auto hline = [&](double bytes, const char* color, const char* dash, const std::string& label) {
    double py = Y(bytes);
    o += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"{}\"/>\n",
        ml, py, ml + pw, py, color, dash);
    labels.push_back({py + 4, color, label});
  };
  hline(double(v.baseline), "#555", "4 3", "baseline " + format_bytes(v.baseline));
  if (v.expected_peak)
    hline(double(*v.expected_peak), "#c0392b", "8 3 2 3",
          "model " + format_bytes(*v.expected_peak));
  // The verdict's tolerances: a drain above the first line (with what the books hold on purpose
  // added) is a leak, a peak above the second is accumulation.
  hline(double(v.baseline + v.tolerance) + double(v.drain_delta - v.unheld_drain_delta),
        "#e67e22", "1 3", "leak: drain above baseline + " + format_bytes(v.tolerance));
  if (v.accumulation_above)
    hline(double(*v.accumulation_above), "#c0392b", "1 3",
          "accumulation above " + format_bytes(*v.accumulation_above));
  if (show_budget)
    hline(double(capacity + v.baseline), "#8e44ad", "2 2",
          "baseline+budget " + format_bytes(capacity + v.baseline));
  std::sort(labels.begin(), labels.end(),
            [](const RightLabel& a, const RightLabel& b) { return a.y > b.y; });
  for (std::size_t i = 1; i < labels.size(); ++i)  // bottom-up: each at least 14 px above
    labels[i].y = std::min(labels[i].y, labels[i - 1].y - 14);
  for (const RightLabel& l : labels)
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" fill=\"{}\">{}</text>\n", ml + pw + 6, l.y,
                     l.color, xml_escape(l.text));

  // ---- device memory and RSS lines
  for (std::size_t d = 0; d < tl.device_names.size(); ++d) {
    std::string pts;
    for (const Sample& s : tl.samples)
      if (d < s.device.size()) pts += fmt::format("{:.1f},{:.1f} ", X(s.t), Y(double(s.device[d])));
    o += fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#16a085\" stroke-width=\"1.2\" "
        "stroke-dasharray=\"6 2\"/>\n",
        pts);
  }
  {
    std::string pts;
    for (const Sample& s : tl.samples)
      pts += fmt::format("{:.1f},{:.1f} ", X(s.t), Y(double(s.rss)));
    o += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#111\" stroke-width=\"2\"/>\n",
                     pts);
  }

  // ---- events: work window edges labelled, other events as ticks on the time axis
  std::size_t ticks = 0;
  for (const Event& e : tl.events) {
    double px = X(std::clamp(e.t, t0, t1));
    if (e.label == kWorkStart || e.label == kWorkEnd) {
      o += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#777\" "
          "stroke-dasharray=\"3 3\"/>\n",
          px, mt, mt + ph);
      o += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" fill=\"#555\" text-anchor=\"middle\">{}</text>\n", px,
          mt - 4, xml_escape(e.label));
    } else if (ticks++ < 400) {
      o += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#999\"/>\n", px,
          mt + ph, mt + ph + 5);
    }
  }

  // ---- peak marker
  if (!tl.samples.empty()) {
    double px = X(v.peak_t), py = Y(double(v.peak));
    o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"#c0392b\"/>\n", px, py);
    bool left = px > ml + pw * 0.7;
    o += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#c0392b\" text-anchor=\"{}\">peak {} @ {:.1f} "
        "s</text>\n",
        left ? px - 8 : px + 8, std::max(mt + 12, py - 8), left ? "end" : "start",
        format_bytes(v.peak), v.peak_t);
  }

  // ---- legend
  double ly = mt + ph * 0.45;
  auto legend = [&](const char* color, const std::string& label, bool line) {
    if (line)
      o += fmt::format(
          "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
          "stroke-width=\"2\"/>\n",
          ml + pw + 8, ly - 4, ml + pw + 26, color);
    else
      o += fmt::format(
          "<rect x=\"{}\" y=\"{:.1f}\" width=\"18\" height=\"10\" fill=\"{}\" "
          "fill-opacity=\"0.75\"/>\n",
          ml + pw + 8, ly - 9, color);
    o +=
        fmt::format("<text x=\"{}\" y=\"{:.1f}\">{}</text>\n", ml + pw + 32, ly, xml_escape(label));
    ly += 17;
  };
  legend("#111", "RSS", true);
  for (std::size_t d = 0; d < tl.device_names.size(); ++d)
    legend("#16a085", "device " + tl.device_names[d], true);
  legend("#e6e6e6", "baseline", false);
  for (std::size_t tag = 0; tag < kTagCount; ++tag)
    if (tag_used[tag])
      legend(kTagColors[tag], "books: " + std::string(tag_name(kAllTags[tag])), false);
  o += "</svg>\n";
  return o;
}

void save_svg(const Timeline& tl, const Verdict& v, const std::string& path,
              const PlotOptions& opts) {
  util::write_file_atomic(path, render_svg(tl, v, opts));
}

}  // namespace splitprove::mem
