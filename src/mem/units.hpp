#pragma once
// Byte sizes and durations as people type and read them ("256MiB", "1.5GiB", "100ms").
// Sizes are binary: K/KiB = 1024, M/MiB = 1024^2, G/GiB = 1024^3, T/TiB = 1024^4.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace splitprove::mem {

inline constexpr std::uint64_t KiB = 1024;
inline constexpr std::uint64_t MiB = 1024 * KiB;
inline constexpr std::uint64_t GiB = 1024 * MiB;
inline constexpr std::uint64_t TiB = 1024 * GiB;

// "1.25 GiB", "512 MiB", "17 B": three significant digits, binary units.
std::string format_bytes(std::uint64_t bytes);
// Same for a signed difference ("+12.0 MiB", "-3.00 GiB").
std::string format_signed_bytes(std::int64_t bytes);

// Parses "4096", "256MiB", "256M", "1.5 GiB", "2T". `what` names the input in the error
// ("--budget: '12X': unknown unit 'X' (use B, KiB, MiB, GiB or TiB)").
std::uint64_t parse_size(std::string_view text, std::string_view what);

// Parses "100ms", "2s", "1.5s", "250us"; a bare number is milliseconds.
std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what);

}  // namespace splitprove::mem
