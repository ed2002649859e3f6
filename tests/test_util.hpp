#pragma once
// Shared helpers for the test suites: a seeded RNG (the seed is printed so a failure can be
// replayed with SPLITPROVE_TEST_SEED) and access to the committed known-answer vectors.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace splitprove::testing {

inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    if (const char* s = std::getenv("SPLITPROVE_TEST_SEED")) return uint64_t(std::strtoull(s, nullptr, 0));
    return uint64_t(std::random_device{}()) << 32 | std::random_device{}();
  }();
  return seed;
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 r = [] {
    std::printf("[ seed     ] SPLITPROVE_TEST_SEED=%llu\n", (unsigned long long)test_seed());
    return std::mt19937_64(test_seed());
  }();
  return r;
}

inline std::string source_dir() {
  if (const char* s = std::getenv("SPLITPROVE_SOURCE_DIR")) return s;
#ifdef SPLITPROVE_SOURCE_DIR
  return SPLITPROVE_SOURCE_DIR;
#else
  return ".";
#endif
}

// The committed known-answer vectors of one curve (tests/vectors/<curve>.json), parsed once.
inline const nlohmann::json& vectors_for(const std::string& curve) {
  static std::map<std::string, nlohmann::json> cache;
  auto it = cache.find(curve);
  if (it != cache.end()) return it->second;
  const std::string path = source_dir() + "/tests/vectors/" + curve + ".json";
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  return cache.emplace(curve, nlohmann::json::parse(f)).first->second;
}

inline const nlohmann::json& vectors() { return vectors_for("bls12_381"); }

inline std::vector<uint8_t> from_hex_bytes(const std::string& s) {
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

inline std::string to_hex_bytes(const std::vector<uint8_t>& v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto b : v) {
    s.push_back(d[b >> 4]);
    s.push_back(d[b & 15]);
  }
  return s;
}

}  // namespace splitprove::testing
