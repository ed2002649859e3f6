#include "mem/units.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "splitprove/error.hpp"

namespace splitprove::mem {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "1.5GiB" into 1.5 and "GiB"; throws naming `what` when there is no number.
std::pair<double, std::string> split_number(std::string_view text, std::string_view what) {
  std::string_view t = trim(text);
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  std::string num(t.substr(0, i));
  if (num.empty() || num == ".")
    throw Error(
        fmt::format("{}: '{}': expected a number followed by an optional unit", what, text));
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(v))
    throw Error(fmt::format("{}: '{}': '{}' is not a number", what, text, num));
  return {v, std::string(trim(t.substr(i)))};
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = double(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  if (v >= 100.0) return fmt::format("{:.0f} {}", v, kUnits[u]);
  if (v >= 10.0) return fmt::format("{:.1f} {}", v, kUnits[u]);
  return fmt::format("{:.2f} {}", v, kUnits[u]);
}

std::string format_signed_bytes(std::int64_t bytes) {
  std::uint64_t mag = bytes < 0 ? std::uint64_t(0) - std::uint64_t(bytes) : std::uint64_t(bytes);
  return fmt::format("{}{}", bytes < 0 ? '-' : '+', format_bytes(mag));
}

std::uint64_t parse_size(std::string_view text, std::string_view what) {
  auto [v, unit] = split_number(text, what);
  std::string u;
  for (char c : unit) u.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  double mult = 0;
  if (u.empty() || u == "b")
    mult = 1;
  else if (u == "k" || u == "kib" || u == "kb")
    mult = double(KiB);
  else if (u == "m" || u == "mib" || u == "mb")
    mult = double(MiB);
  else if (u == "g" || u == "gib" || u == "gb")
    mult = double(GiB);
  else if (u == "t" || u == "tib" || u == "tb")
    mult = double(TiB);
  else
    throw Error(
        fmt::format("{}: '{}': unknown unit '{}' (use B, KiB, MiB, GiB or TiB)", what, text, unit));
  double bytes = std::round(v * mult);
  if (bytes >= 18446744073709551615.0) throw Error(fmt::format("{}: '{}': too large", what, text));
  return std::uint64_t(bytes);
}

std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what) {
  auto [v, unit] = split_number(text, what);
  double ns_per = 0;
  if (unit.empty() || unit == "ms")
    ns_per = 1e6;
  else if (unit == "s")
    ns_per = 1e9;
  else if (unit == "us")
    ns_per = 1e3;
  else if (unit == "ns")
    ns_per = 1;
  else
    throw Error(fmt::format("{}: '{}': unknown unit '{}' (use s, ms, us or ns)", what, text, unit));
  double ns = v * ns_per;
  if (ns > 1e18) throw Error(fmt::format("{}: '{}': too long", what, text));
  return std::chrono::nanoseconds(std::int64_t(ns));
}

}  // namespace splitprove::mem
