#pragma once
// Switches read from the environment, for A/B runs (SPLITPROVE_POOL_FIFO, SPLITPROVE_POOL_NEAR_FIT,
// SPLITPROVE_STREAM_PRIORITY, SPLITPROVE_ZERO_RECYCLED, ...).
#include <cstdlib>

namespace splitprove::util {

// True when `name` is set, non-empty and does not start with '0'.
inline bool env_flag(const char* name) {
  const char* s = std::getenv(name);
  return s && *s && *s != '0';
}

}  // namespace splitprove::util
