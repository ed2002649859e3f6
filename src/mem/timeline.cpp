#include "mem/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "splitprove/error.hpp"
#include "util/limits.hpp"
#include "util/output.hpp"

namespace splitprove::mem {

// ---- Timeline helpers -------------------------------------------------------------------------

std::optional<std::string> Timeline::meta_value(std::string_view key) const {
  for (auto& [k, v] : meta)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<std::uint64_t> Timeline::meta_bytes(std::string_view key) const {
  auto v = meta_value(key);
  if (!v) return std::nullopt;
  std::uint64_t x = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc{} || p != v->data() + v->size())
    throw Error(fmt::format("timeline meta '{}': '{}' is not a byte count", key, *v));
  return x;
}

void Timeline::set_meta(std::string key, std::string value) {
  for (auto& [k, v] : meta)
    if (k == key) {
      v = std::move(value);
      return;
    }
  meta.emplace_back(std::move(key), std::move(value));
}

std::optional<double> Timeline::first_event(std::string_view label) const {
  for (auto& e : events)
    if (e.label == label) return e.t;
  return std::nullopt;
}

std::optional<double> Timeline::last_event(std::string_view label) const {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->label == label) return it->t;
  return std::nullopt;
}

namespace {

// Fixed leading columns of the CSV; the device columns follow.
const std::vector<std::string>& fixed_columns() {
  static const std::vector<std::string> cols = [] {
    std::vector<std::string> c = {"kind",          "t_s",  "label",           "rss",
                                  "anon",          "file", "budget_capacity", "budget_used",
                                  "budget_waiting"};
    for (Tag t : kAllTags) c.push_back("book_" + std::string(tag_name(t)));
    return c;
  }();
  return cols;
}
constexpr std::size_t kFirstNumeric = 3;  // rss

std::string csv_quote(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// Splits one CSV line (RFC 4180 quoting, no embedded newlines).
std::vector<std::string> csv_split(const std::string& line, std::string_view where) {
  std::vector<std::string> f;
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == ',') {
      f.push_back(std::move(cur));
      cur.clear();
      was_quoted = false;
    } else if (c == '"' && cur.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else {
      cur += c;
    }
  }
  if (quoted) throw Error(fmt::format("{}: unterminated quoted field", where));
  f.push_back(std::move(cur));
  return f;
}

double parse_time(const std::string& s, std::string_view where, std::string_view col) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || !std::isfinite(v) || v < 0)
    throw Error(fmt::format("{}: column '{}': '{}' is not a time in seconds (a number >= 0)", where,
                            col, s));
  return v;
}

std::uint64_t parse_u64(const std::string& s, std::string_view where, std::string_view col) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
    throw Error(
        fmt::format("{}: column '{}': '{}' is not an unsigned integer (bytes)", where, col, s));
  return v;
}

void check_time_order(double t, double& last, std::string_view where, std::string_view what) {
  if (t < last)
    throw Error(fmt::format("{}: {} time {} goes backwards (after {})", where, what, t, last));
  last = t;
}

}  // namespace

// ---- CSV --------------------------------------------------------------------------------------

void write_csv(const Timeline& tl, std::ostream& out) {
  const auto& cols = fixed_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
  for (auto& d : tl.device_names) out << ',' << csv_quote("dev:" + d);
  out << '\n';
  for (auto& [k, v] : tl.meta) out << "meta,," << csv_quote(fmt::format("{}={}", k, v)) << '\n';
  // Samples and events interleaved in time order (events first on ties).
  std::size_t si = 0, ei = 0;
  while (si < tl.samples.size() || ei < tl.events.size()) {
    bool take_event =
        ei < tl.events.size() && (si == tl.samples.size() || tl.events[ei].t <= tl.samples[si].t);
    if (take_event) {
      const Event& e = tl.events[ei++];
      out << "event," << fmt::format("{}", e.t) << ',' << csv_quote(e.label) << '\n';
      continue;
    }
    const Sample& s = tl.samples[si++];
    out << "sample," << fmt::format("{}", s.t) << ",," << s.rss << ',' << s.anon << ',' << s.file
        << ',' << s.budget_capacity << ',' << s.budget_used << ',' << s.budget_waiting;
    for (auto b : s.books) out << ',' << b;
    for (std::size_t d = 0; d < tl.device_names.size(); ++d)
      out << ',' << (d < s.device.size() ? s.device[d] : 0);
    out << '\n';
  }
}

Timeline read_csv(std::istream& in, std::string_view name) {
  Timeline tl;
  const auto& cols = fixed_columns();
  std::string line;
  std::size_t lineno = 0;
  bool have_header = false;
  std::size_t ncols = 0;
  double last_sample_t = 0, last_event_t = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::string where = fmt::format("{}:{}", name, lineno);
    auto f = csv_split(line, where);
    if (!have_header) {
      for (std::size_t i = 0; i < cols.size(); ++i)
        if (i >= f.size() || f[i] != cols[i])
          throw Error(fmt::format(
              "{}: header: expected column '{}' at position {}, found '{}' (not a splitprove "
              "memory timeline?)",
              where, cols[i], i + 1, i < f.size() ? f[i] : std::string("<end of line>")));
      for (std::size_t i = cols.size(); i < f.size(); ++i) {
        if (f[i].rfind("dev:", 0) != 0 || f[i].size() == 4)
          throw Error(
              fmt::format("{}: header: column {} '{}': expected 'dev:<name>'", where, i + 1, f[i]));
        tl.device_names.push_back(f[i].substr(4));
      }
      ncols = f.size();
      have_header = true;
      continue;
    }
    const std::string& kind = f[0];
    if (kind == "meta") {
      if (f.size() < 3 || f[2].find('=') == std::string::npos)
        throw Error(fmt::format("{}: meta row: expected 'meta,,<key>=<value>'", where));
      auto eq = f[2].find('=');
      tl.meta.emplace_back(f[2].substr(0, eq), f[2].substr(eq + 1));
    } else if (kind == "event") {
      if (f.size() < 3 || f.size() > ncols)
        throw Error(fmt::format("{}: event row: expected 'event,<t>,<label>'", where));
      double t = parse_time(f[1], where, "t_s");
      check_time_order(t, last_event_t, where, "event");
      tl.events.push_back({t, f[2]});
    } else if (kind == "sample") {
      if (f.size() != ncols)
        throw Error(
            fmt::format("{}: sample row has {} fields, the header has {}", where, f.size(), ncols));
      Sample s;
      s.t = parse_time(f[1], where, "t_s");
      check_time_order(s.t, last_sample_t, where, "sample");
      std::uint64_t* fixed[] = {&s.rss,         &s.anon,          &s.file, &s.budget_capacity,
                                &s.budget_used, &s.budget_waiting};
      std::size_t c = kFirstNumeric;
      for (auto* p : fixed) {
        *p = parse_u64(f[c], where, cols[c]);
        ++c;
      }
      for (std::size_t t = 0; t < kTagCount; ++t, ++c) s.books[t] = parse_u64(f[c], where, cols[c]);
      for (std::size_t d = 0; d < tl.device_names.size(); ++d, ++c)
        s.device.push_back(parse_u64(f[c], where, "dev:" + tl.device_names[d]));
      tl.samples.push_back(std::move(s));
    } else {
      throw Error(
          fmt::format("{}: unknown row kind '{}' (expected sample, event or meta)", where, kind));
    }
  }
  if (!have_header) throw Error(fmt::format("{}: empty file: no header line", name));
  return tl;
}

// ---- JSON lines -------------------------------------------------------------------------------

void write_jsonl(const Timeline& tl, std::ostream& out) {
  using nlohmann::json;
  json head = {{"kind", "timeline"}, {"version", 1}, {"devices", tl.device_names}};
  out << head.dump() << '\n';
  for (auto& [k, v] : tl.meta)
    out << json{{"kind", "meta"}, {"key", k}, {"value", v}}.dump() << '\n';
  for (auto& e : tl.events)
    out << json{{"kind", "event"}, {"t", e.t}, {"label", e.label}}.dump() << '\n';
  for (auto& s : tl.samples) {
    json books = json::object();
    for (Tag t : kAllTags) books[std::string(tag_name(t))] = s.books[std::size_t(t)];
    json dev = json::object();
    for (std::size_t d = 0; d < tl.device_names.size(); ++d)
      dev[tl.device_names[d]] = d < s.device.size() ? s.device[d] : 0;
    json j = {
        {"kind", "sample"},
        {"t", s.t},
        {"rss", s.rss},
        {"anon", s.anon},
        {"file", s.file},
        {"budget",
         {{"capacity", s.budget_capacity}, {"used", s.budget_used}, {"waiting", s.budget_waiting}}},
        {"books", books},
        {"device", dev}};
    out << j.dump() << '\n';
  }
}

Timeline read_jsonl(std::istream& in, std::string_view name) {
  using nlohmann::json;
  Timeline tl;
  std::string line;
  std::size_t lineno = 0;
  bool have_header = false;
  double last_sample_t = 0, last_event_t = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::string where = fmt::format("{}:{}", name, lineno);
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
      throw Error(fmt::format("{}: not a JSON object", where));
    auto get = [&](const json& o, const char* key, std::string_view path) -> const json& {
      auto it = o.find(key);
      if (it == o.end()) throw Error(fmt::format("{}: missing field '{}{}'", where, path, key));
      return *it;
    };
    auto u64 = [&](const json& o, const char* key, std::string_view path = "") {
      const json& v = get(o, key, path);
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
        throw Error(fmt::format("{}: field '{}{}': {} is not an unsigned integer (bytes)", where,
                                path, key, v.dump()));
      return v.get<std::uint64_t>();
    };
    auto time = [&](const json& o) {
      const json& v = get(o, "t", "");
      if (!v.is_number() || v.get<double>() < 0)
        throw Error(fmt::format("{}: field 't': {} is not a time in seconds", where, v.dump()));
      return v.get<double>();
    };
    auto str = [&](const json& o, const char* key) {
      const json& v = get(o, key, "");
      if (!v.is_string()) throw Error(fmt::format("{}: field '{}' is not a string", where, key));
      return v.get<std::string>();
    };
    std::string kind = str(j, "kind");
    if (kind == "timeline") {
      const json& d = get(j, "devices", "");
      if (!d.is_array()) throw Error(fmt::format("{}: field 'devices' is not an array", where));
      for (auto& n : d) {
        if (!n.is_string()) throw Error(fmt::format("{}: 'devices' holds a non-string", where));
        tl.device_names.push_back(n.get<std::string>());
      }
      have_header = true;
      continue;
    }
    if (!have_header)
      throw Error(
          fmt::format("{}: expected the {{\"kind\":\"timeline\"}} header line first", where));
    if (kind == "meta") {
      tl.meta.emplace_back(str(j, "key"), str(j, "value"));
    } else if (kind == "event") {
      double t = time(j);
      check_time_order(t, last_event_t, where, "event");
      tl.events.push_back({t, str(j, "label")});
    } else if (kind == "sample") {
      Sample s;
      s.t = time(j);
      check_time_order(s.t, last_sample_t, where, "sample");
      s.rss = u64(j, "rss");
      s.anon = u64(j, "anon");
      s.file = u64(j, "file");
      const json& b = get(j, "budget", "");
      s.budget_capacity = u64(b, "capacity", "budget.");
      s.budget_used = u64(b, "used", "budget.");
      s.budget_waiting = u64(b, "waiting", "budget.");
      const json& books = get(j, "books", "");
      for (Tag t : kAllTags) {
        std::string k(tag_name(t));
        s.books[std::size_t(t)] = u64(books, k.c_str(), "books.");
      }
      const json& dev = get(j, "device", "");
      for (auto& n : tl.device_names) s.device.push_back(u64(dev, n.c_str(), "device."));
      tl.samples.push_back(std::move(s));
    } else {
      throw Error(fmt::format("{}: unknown kind '{}' (expected timeline, sample, event or meta)",
                              where, kind));
    }
  }
  if (!have_header) throw Error(fmt::format("{}: empty file: no header line", name));
  return tl;
}

// ---- files ------------------------------------------------------------------------------------

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

void save_csv(const Timeline& tl, const std::string& path) {
  std::ostringstream f;
  write_csv(tl, f);
  util::write_file_atomic(path, f.view());
}

void save_jsonl(const Timeline& tl, const std::string& path) {
  std::ostringstream f;
  write_jsonl(tl, f);
  util::write_file_atomic(path, f.view());
}

Timeline load_timeline(const std::string& path) {
  // Bounded: a device or an endless pipe is an error, not a read without end.
  std::istringstream f(util::read_file_bounded(path, util::kMaxTextFileBytes));
  if (ends_with(path, ".jsonl") || ends_with(path, ".json")) return read_jsonl(f, path);
  return read_csv(f, path);
}

std::optional<Timeline> drained_part(const Timeline& tl) {
  const auto end = tl.last_event(kWorkEnd);
  if (!end) return std::nullopt;
  const auto start = tl.last_event(kWorkStart);
  if (!start || *start <= *end) return tl;
  Timeline out = tl;
  std::erase_if(out.samples, [&](const Sample& s) { return s.t >= *start; });
  std::erase_if(out.events, [&](const Event& e) { return e.t >= *start && e.label != kWorkEnd; });
  if (out.samples.empty()) return std::nullopt;
  return out;
}

Timeline downsample(const Timeline& tl, std::size_t max_samples) {
  if (max_samples == 0 || tl.samples.size() <= max_samples) return tl;
  Timeline out;
  out.device_names = tl.device_names;
  out.events = tl.events;
  out.meta = tl.meta;
  const std::size_t n = tl.samples.size();
  const std::size_t run = (n + max_samples - 1) / max_samples;
  for (std::size_t i = 0; i < n; i += run) {
    std::size_t end = std::min(n, i + run), best = i;
    for (std::size_t k = i; k < end; ++k)
      if (tl.samples[k].rss > tl.samples[best].rss) best = k;
    out.samples.push_back(tl.samples[best]);
  }
  return out;
}

}  // namespace splitprove::mem
