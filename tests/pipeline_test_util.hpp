#pragma once
// Helpers of the pipeline engine's tests (tests/test_pipeline*.cpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "mem/budget.hpp"
#include "pipeline/engine.hpp"

namespace splitprove::testing {

// What the work items hold in the engine's books: everything but the workers' scratch and the
// idle recycled pages of the engine's pool (tag pinned), which belong to no item. Checks that
// those two are what the engine says they are.
template <class E>
std::uint64_t items_held(pipeline::Engine<E>& engine) {
  const auto books = engine.budget().books();
  EXPECT_EQ(books[mem::Tag::scratch].bytes, engine.worker_scratch_bytes());
  EXPECT_EQ(books[mem::Tag::pinned].bytes, engine.pool_stats().idle_bytes);
  return books.used - books[mem::Tag::scratch].bytes - books[mem::Tag::pinned].bytes;
}

}  // namespace splitprove::testing
