#pragma once
// A memory timeline: samples of process RSS and of the budget's books over time, plus event markers
// (work start/end, stage start/end), plus free-form metadata (the model's prediction, the config).
//
// Files: CSV (one row per sample, event or meta item; a `kind` column says which) and JSON lines
// (one object per line). Both round-trip exactly. Readers check every field and name the file,
// the line and the column in their errors.
//
// CSV layout (header first; `#` lines are comments):
//   kind,t_s,label,rss,anon,file,budget_capacity,budget_used,budget_waiting,
//     book_synthesis,book_gpu,book_g2,book_finalize,book_srs,book_pinned,book_scratch,book_other,
//     dev:<name>...                       (one column per device-memory source)
//   meta,,<key>=<value>                   (value may contain anything but a newline)
//   sample,<t>,,<rss>,...                 (every numeric column filled; bytes)
//   event,<t>,<label>                     (trailing columns may be omitted)
#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mem/budget.hpp"

namespace splitprove::mem {

// Event labels with a meaning to the verdict: the work window is [work_start, work_end].
inline constexpr std::string_view kWorkStart = "work_start";
inline constexpr std::string_view kWorkEnd = "work_end";
// Metadata keys the verdict and plot understand.
inline constexpr std::string_view kMetaModelWorkBytes =
    "model_work_bytes";  // model's Σ (no baseline)
inline constexpr std::string_view kMetaBudgetBytes = "budget_bytes";
// Measured memory of the runtime itself that no book stands for (allocator arenas and their free
// chunks, thread stacks, lazily made caches): added to the model after the budget's cap, since
// the budget bounds the books, not the runtime.
inline constexpr std::string_view kMetaRuntimeBytes = "runtime_bytes";

struct Sample {
  double t = 0;  // seconds since the sampler started
  std::uint64_t rss = 0;
  std::uint64_t anon = 0;
  std::uint64_t file = 0;
  std::uint64_t budget_capacity = 0;  // 0: no budget attached
  std::uint64_t budget_used = 0;
  std::uint64_t budget_waiting = 0;              // requests blocked in reserve()
  std::array<std::uint64_t, kTagCount> books{};  // bytes held per tag
  std::vector<std::uint64_t> device;             // one per Timeline::device_names

  bool operator==(const Sample&) const = default;
};

struct Event {
  double t = 0;
  std::string label;
  bool operator==(const Event&) const = default;
};

struct Timeline {
  std::vector<std::string> device_names;
  std::vector<Sample> samples;  // in time order
  std::vector<Event> events;    // in time order
  std::vector<std::pair<std::string, std::string>> meta;

  std::optional<std::string> meta_value(std::string_view key) const;
  // Parses a meta value as bytes (an unsigned integer); nullopt if absent.
  std::optional<std::uint64_t> meta_bytes(std::string_view key) const;
  void set_meta(std::string key, std::string value);
  // First / last event with this label.
  std::optional<double> first_event(std::string_view label) const;
  std::optional<double> last_event(std::string_view label) const;

  bool operator==(const Timeline&) const = default;
};

void write_csv(const Timeline& tl, std::ostream& out);
void write_jsonl(const Timeline& tl, std::ostream& out);
// `name` is used in error messages ("run/timeline.csv:12: ...").
Timeline read_csv(std::istream& in, std::string_view name);
Timeline read_jsonl(std::istream& in, std::string_view name);

void save_csv(const Timeline& tl, const std::string& path);
void save_jsonl(const Timeline& tl, const std::string& path);
// Reads a .csv, or a .jsonl / .json file (by extension). Throws splitprove::Error naming the file.
Timeline load_timeline(const std::string& path);

// The part of a service's timeline that can be judged now: everything before the start of a work
// window still open (its samples are neither work that ended nor idle after it), that start's
// event dropped. nullopt when no work window has ended yet.
std::optional<Timeline> drained_part(const Timeline& tl);

// At most `max_samples` samples: the samples are cut into equal runs and each run keeps its sample
// with the highest RSS, so the peak survives. Events and metadata are kept whole.
Timeline downsample(const Timeline& tl, std::size_t max_samples);

}  // namespace splitprove::mem
