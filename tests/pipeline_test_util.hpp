#pragma once
// Helpers of the pipeline engine's tests (tests/test_pipeline*.cpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "circuit/porep.hpp"
#include "mem/budget.hpp"
#include "pipeline/engine.hpp"
#include "zk/groth16.hpp"

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

// A small PoRep-shaped circuit (973 constraints: a domain of 2^10) with data seed `seed`.
inline circuit::PorepParams small_porep_params(std::uint64_t seed) {
  circuit::PorepParams p;
  p.name = "porep-small";
  p.challenges = 1;
  p.depth = 2;
  p.layers = 2;
  p.parents = 2;
  p.label_bits = 32;
  p.tail_constraints = 40;
  p.seed = seed;
  return p;
}

// A finished job of `n` partitions: every proof verifies for its own public inputs, and not for
// the next partition's (where those differ).
template <class E>
void expect_valid_proofs(const pipeline::JobResult<E>& r, const pipeline::Key<E>& key, std::size_t n) {
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.proofs.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(zk::verify<E>(key.pvk, r.publics[i], r.proofs[i]));
    const auto& other = r.publics[(i + 1) % n];
    if (other != r.publics[i]) EXPECT_FALSE(zk::verify<E>(key.pvk, other, r.proofs[i]));
  }
}

// A job whose key's points are made on the device, given to the CPU stages: it fails, saying
// why, and the books come back to zero.
template <class E>
void expect_host_stages_refuse(const pipeline::JobSpec<E>& job) {
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, pipeline::cpu_gpu_stage<E>(),
                             pipeline::cpu_g2_stage<E>());
  const auto r = engine.wait(engine.submit(job));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("made on the device"), std::string::npos) << r.error;
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

}  // namespace splitprove::testing
