#pragma once
// One partition through the four stages, with the split start/finish API (DESIGN §1, §3):
//
//   Synthesized  = synthesize(source, index, admission)   z, a, b in budgeted buffers (no c:
//                                                          the GPU stage forms c = a∘b itself)
//   PendingProof = start(Synthesized&&)                    the GPU stage; a, b, z are freed
//                                                          before it returns
//   run_g2(PendingProof&)                                  the G2 stage over the compact input
//   Proof        = finish(PendingProof&&)                  (G2 if not run yet,) assemble, verify
//
// Memory (who owns what, when it dies):
//   * The admission reservation pays for the partition's whole life (PartitionCost::life) before
//     anything is allocated. synthesize() cuts it into shares: one per buffer (Buffer::carve; each
//     goes back to the budget when its buffer is unmapped) and the rest, which pays for the
//     compact G2 input and the small results later. The stages' heap scratch is paid by the
//     workers that run them (one reservation per worker, engine.hpp), not by the partition.
//   * synthesize() makes the compact G2 input (its own buffer, carved from the admission); start()
//     hands z, a, b *by value* to the GPU stage, which frees each as soon as it is dead; when
//     start() returns they are gone.
//   * A PendingProof owns only: the compact G2 input and the small results (G1 sums, public
//     inputs) with their share. Never a pointer into z, a, b, and never the randomizers r, s:
//     finish() draws them, uses them and wipes them.
//   * run_g2 frees the compact input; finish() frees the rest.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "circuit/source.hpp"
#include "mem/budget.hpp"
#include "mem/buffer.hpp"
#include "mem/model.hpp"
#include "poly/domain.hpp"
#include "zk/groth16.hpp"
#include "zk/setup.hpp"
#include "zk/stages.hpp"

namespace splitprove::pipeline {

// A proving key prepared once for every partition proved with it: the domain (twiddles), the
// compact B2 bases and the prepared verifying key. Shared (read-only) by all stages and jobs.
template <class E>
struct Key {
  using Fr = typename E::Fr;
  std::shared_ptr<const zk::ProvingKey<E>> pk;
  poly::Domain<Fr> domain;
  zk::G2Bases<E> g2;
  zk::PreparedVerifyingKey<E> pvk;
  // A development key whose point vectors a device makes (zk::dev_setup_scalars): pk holds no a,
  // b1, b2, c or h, and g2 no bases, only their wires; a device backend makes the points from
  // these scalars the first time it proves with the key (B2's: b at g2.wires, g2_scalars()), and
  // the host stages refuse the key. Null for a key whose points are on the host.
  std::shared_ptr<const zk::KeyScalars<E>> points;

  bool points_on_device() const { return points != nullptr; }
  // B2's scalars in g2.wires order: the G2 MSM's bases are these times G2.
  std::vector<Fr> g2_scalars() const;

  static std::shared_ptr<const Key> prepare(std::shared_ptr<const zk::ProvingKey<E>> pk);
  static std::shared_ptr<const Key> prepare_on_device(zk::ScalarKey<E> key);
};

// Throws unless `key`'s points are on the host (what the host stages need).
template <class E>
void require_host_points(const Key<E>& key, const char* stage);

// What one partition costs the host budget, from the source's real shape and the key (DESIGN
// §1.5: real vector lengths, page-rounded as the buffers are mapped; the stages' heap scratch).
struct PartitionCost {
  std::uint64_t z = 0;              // assignment buffer
  std::uint64_t ab = 0;             // a and b buffers together (the host holds no c)
  std::uint64_t g2_input = 0;       // compact copy of the B-dense scalars
  std::uint64_t result = 0;         // G1/G2 sums, public inputs, the proof
  std::uint64_t synth_scratch = 0;  // what the source's synthesize() allocates
  std::uint64_t g1_scratch = 0;     // a GPU worker's host scratch beyond the partition's buffers
  std::uint64_t g2_scratch = 0;     // a G2 worker's host scratch
  std::size_t n_dense = 0;          // B-dense wires: the length of the G2 input
  // At most this many of the G2 input's scalars are neither 0 nor 1 (the G2 MSM's tail): the
  // B-dense wires the source does not know to be binary (circuit::Shape::binary_wires); n_dense
  // when it knows none. Prover::synthesize checks every partition against it.
  std::size_t g2_tail = 0;
  // The GPU stage may give z, a, b back to the budget before it returns (GpuStage).
  bool gpu_frees_inputs_early = true;
  // The GPU and G2 stages run their host MSMs one at a time (both hold host_msm_lock() while
  // they do: the CPU stages, which share the library's one thread pool anyway). The G2 worker
  // then needs only what its MSM takes beyond a GPU worker's idle scratch (EngineConfig).
  bool host_msms_exclusive = false;

  // Everything the partition will ever hold (its buffers and results); reserved at admission.
  // The stages' scratch is not in it: the workers hold that (EngineConfig::fit_scratch).
  std::uint64_t life() const;
  // Held from the end of the GPU stage until the G2 stage ends / until finalize ends.
  std::uint64_t after_gpu() const { return g2_input + result; }
  // The memory model's view (mem/model.hpp): life_cost(model_bytes()) == life().
  mem::PartitionBytes model_bytes() const;
};

template <class E>
PartitionCost partition_cost(const circuit::Shape& shape, const Key<E>& key,
                             const mem::BufferOptions& opts = {});

// Throws Error naming the source when its shape does not fit the key.
template <class E>
void check_shape(const circuit::Shape& shape, const Key<E>& key, const std::string& source);

template <class E>
struct Synthesized {
  using Fr = typename E::Fr;
  std::size_t index = 0;
  mem::Reservation rest;  // the admission share not yet carved (the results)
  mem::Buffer<Fr> z, a, b;
  // The compact G2 input, copied from z when synthesis ends (so that what the books hold for a
  // synthesized partition is resident: a partition waiting for a GPU worker holds it already).
  mem::Buffer<Fr> g2_input;
};

template <class E>
struct PendingProof {
  using Fr = typename E::Fr;
  PendingProof() = default;
  PendingProof(PendingProof&&) noexcept = default;
  PendingProof& operator=(PendingProof&&) noexcept = default;

  std::size_t index = 0;
  mem::Reservation result;   // pays for the small results below
  mem::Buffer<Fr> g2_input;  // compact B-dense scalars (until run_g2 ends)
  std::vector<Fr> publics;   // z[1..n_public]
  zk::G1Results<E> g1;
  std::optional<typename E::G2Jacobian> b2;
  // Only under the reference design's policy (Prover::hold_until_finish): z, a, b, kept mapped
  // and booked until this pending proof dies.
  std::shared_ptr<mem::Keeper> held;

  // Bytes this pending proof holds in the books now.
  std::uint64_t held_bytes() const {
    return result.bytes() + g2_input.reservation().bytes() + (held ? held->bytes() : 0);
  }
};

// The GPU stage seam. The CPU implementation runs zk's g1 stage; a CUDA backend plugs in here.
template <class E>
class GpuStage {
 public:
  using Fr = typename E::Fr;
  virtual ~GpuStage() = default;
  virtual std::string name() const = 0;
  // Consumes the partition: z, a, b are taken by value and are freed (unmapped, budget given
  // back) by the time this returns, each as soon as it is dead. The stage forms c = a∘b itself
  // (zk::h_scalars), in its own scratch.
  virtual zk::G1Results<E> run(const Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                               mem::Buffer<Fr> b) = 0;
  // Host heap bytes one worker running this stage needs *beyond* the partition's own buffers
  // (which are paid for by the partition: a stage that keeps a dead buffer's reservation until
  // run() returns may reuse its bytes for scratch, and reports only what exceeds them). The
  // backend knows what it holds on the host: the engine reserves this per GPU worker and the
  // memory model counts it. The default is the CPU MSMs' bound (safe for any stage that runs
  // them on the host).
  virtual std::uint64_t host_scratch_bytes(const Key<E>& key, const PartitionCost& cost) const;
  // Whether z, a, b may go back to the budget before run() returns (each as it dies; true
  // for a device stage that frees the host copies once they are uploaded). false: all of them
  // are paid for until run() returns. The memory model's budget fill depends on it.
  virtual bool frees_inputs_early() const { return true; }
  // Whether its host MSMs run under host_msm_lock() (see PartitionCost::host_msms_exclusive).
  virtual bool locks_host_msms() const { return false; }
  // Where the stage's time went, summed over the partitions it ran (one line, for reports; empty
  // when the stage does not break its time down).
  virtual std::string phase_report() const { return {}; }
  // Starts phase_report() afresh (after a warm-up, say).
  virtual void reset_phase_report() {}
  // Makes ready what the stage keeps per key, before the key's first partition (a device stage:
  // the key's points resident on the device, the domain's twiddles), so that the first
  // partitions' times are the steady state's. Optional: run() does it the first time otherwise.
  virtual void prepare(const Key<E>&) {}
};

// Held by a CPU stage while its MSM runs. The CPU stages' MSMs all run on the library's one
// thread pool, so running two at once gains nothing but the second one's scratch; one at a time,
// the GPU and G2 workers' scratch need not be reserved twice.
inline std::mutex& host_msm_lock() {
  static std::mutex m;
  return m;
}

// The G2 stage seam: Σ z_i·B2_i over the compact input (host threads, or a device's).
template <class E>
class G2Stage {
 public:
  using Fr = typename E::Fr;
  virtual ~G2Stage() = default;
  virtual std::string name() const = 0;
  virtual typename E::G2Jacobian run(const Key<E>& key, std::span<const Fr> compact) = 0;
  // Host heap bytes one worker running this stage needs beside the compact input (see
  // GpuStage::host_scratch_bytes). Default: the CPU G2 MSM's bound.
  virtual std::uint64_t host_scratch_bytes(const Key<E>& key, const PartitionCost& cost) const;
  // Whether its host MSM runs under host_msm_lock() (see PartitionCost::host_msms_exclusive).
  virtual bool locks_host_msms() const { return false; }
  // Makes ready what the stage keeps per key (a device stage: B2's points on the device); see
  // GpuStage::prepare.
  virtual void prepare(const Key<E>&) {}
};

// A stage around another one: every question goes to `inner`; a subclass changes what it must
// (the fault injection of pipeline/backend.cpp, the harness's delayed stages, test stages).
template <class E>
class GpuStageAround : public GpuStage<E> {
 public:
  using Fr = typename E::Fr;
  explicit GpuStageAround(std::shared_ptr<GpuStage<E>> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  zk::G1Results<E> run(const Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    return inner_->run(key, std::move(z), std::move(a), std::move(b));
  }
  std::uint64_t host_scratch_bytes(const Key<E>& key, const PartitionCost& cost) const override {
    return inner_->host_scratch_bytes(key, cost);
  }
  bool frees_inputs_early() const override { return inner_->frees_inputs_early(); }
  bool locks_host_msms() const override { return inner_->locks_host_msms(); }
  std::string phase_report() const override { return inner_->phase_report(); }
  void reset_phase_report() override { inner_->reset_phase_report(); }
  void prepare(const Key<E>& key) override { inner_->prepare(key); }

 protected:
  std::shared_ptr<GpuStage<E>> inner_;
};

template <class E>
class G2StageAround : public G2Stage<E> {
 public:
  using Fr = typename E::Fr;
  explicit G2StageAround(std::shared_ptr<G2Stage<E>> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  typename E::G2Jacobian run(const Key<E>& key, std::span<const Fr> compact) override {
    return inner_->run(key, compact);
  }
  std::uint64_t host_scratch_bytes(const Key<E>& key, const PartitionCost& cost) const override {
    return inner_->host_scratch_bytes(key, cost);
  }
  bool locks_host_msms() const override { return inner_->locks_host_msms(); }
  void prepare(const Key<E>& key) override { inner_->prepare(key); }

 protected:
  std::shared_ptr<G2Stage<E>> inner_;
};

// partition_cost with the stages' own report of their per-worker host scratch (what the engine
// reserves per GPU / G2 worker for this backend). Defined here with the stages' defaults, so that
// a backend's stages (src/cuda) need no explicit instantiation of their base classes.
template <class E>
PartitionCost partition_cost(const circuit::Shape& shape, const Key<E>& key,
                             const mem::BufferOptions& opts, const GpuStage<E>& gpu,
                             const G2Stage<E>& g2) {
  PartitionCost c = partition_cost<E>(shape, key, opts);
  c.g1_scratch = gpu.host_scratch_bytes(key, c);
  c.gpu_frees_inputs_early = gpu.frees_inputs_early();
  c.g2_scratch = g2.host_scratch_bytes(key, c);
  c.host_msms_exclusive = gpu.locks_host_msms() && g2.locks_host_msms();
  return c;
}

template <class E>
std::uint64_t GpuStage<E>::host_scratch_bytes(const Key<E>& key, const PartitionCost&) const {
  return zk::g1_stage_scratch_bytes<E>(*key.pk);
}

template <class E>
std::uint64_t G2Stage<E>::host_scratch_bytes(const Key<E>& key, const PartitionCost& cost) const {
  return zk::g2_stage_scratch_bytes<E>(key.g2, cost.g2_tail);
}

template <class E>
std::shared_ptr<GpuStage<E>> cpu_gpu_stage();
template <class E>
std::shared_ptr<G2Stage<E>> cpu_g2_stage();

template <class E>
class Prover {
 public:
  using Fr = typename E::Fr;
  // `pool`: the partition buffers are made through it (mem/pool.hpp); null: mapped fresh.
  Prover(std::shared_ptr<const Key<E>> key, std::shared_ptr<GpuStage<E>> gpu,
         std::shared_ptr<G2Stage<E>> g2, mem::BufferOptions opts = {},
         std::shared_ptr<mem::BufferPool> pool = nullptr);

  const Key<E>& key() const { return *key_; }
  GpuStage<E>& gpu() { return *gpu_; }
  G2Stage<E>& g2() { return *g2_; }

  // Carves the buffers out of `admission` and has the source fill them. `admission` must hold
  // cost.life() less what `lease` holds (tagged synthesis); the buffers the lease has pages for
  // take them with their reservations. Both are consumed: what they held is now held by the result.
  Synthesized<E> synthesize(const circuit::PartitionSource<Fr>& source, std::size_t index,
                            const PartitionCost& cost, mem::Reservation admission,
                            const std::stop_token& stop = {},
                            mem::BufferPool::Lease lease = {}) const;
  // Adds to `lease` recycled pages for the buffers of one partition of `shape` (z, a, b, the
  // G2 input) that it does not cover yet, from the pool (before the partition's admission, which
  // then reserves only the rest). Nothing without a pool.
  void top_up_lease(mem::BufferPool::Lease& lease, const circuit::Shape& shape) const;
  // The buffer warm-up (Engine::warm_buffers): maps one partition's buffers of `shape` paid from
  // `paid` (which must hold the life cost), every page faulted in (and pinned when the buffers
  // are), and lets them die into the pool, where partitions' buffers then find them. Nothing
  // without a pool.
  void warm_pool(const circuit::Shape& shape, mem::Reservation paid) const;
  // Partitions of `shape` whose every buffer an idle block of the pool would serve now (0 without
  // a pool).
  std::uint32_t idle_partitions(const circuit::Shape& shape) const;
  bool recycles() const { return pool_ != nullptr; }
  mem::BufferPool* pool() const { return pool_.get(); }

  // The reference design's policy, for comparison (EngineConfig::policy): z, a, b stay mapped
  // and booked after the GPU stage, until the pending proof is finished.
  void hold_until_finish(bool on) { hold_ = on; }

  // The GPU stage: z, a, b in, the G1 results out (z, a, b are freed). On `on` (another
  // device's stage) when given, else on the prover's own.
  PendingProof<E> start(Synthesized<E>&& part, const PartitionCost& cost, GpuStage<E>* on = nullptr);
  // The G2 stage (on `on` when given); frees the compact input. Idempotent.
  void run_g2(PendingProof<E>& p, G2Stage<E>* on = nullptr);
  // Joins the G2 result (running the stage if needed), draws r and s from the OS CSPRNG, assembles,
  // wipes r and s, verifies (Error if the proof does not verify, naming `what`), and frees
  // everything the pending proof held. The randomizers exist only inside this call.
  zk::Proof<E> finish(PendingProof<E>&& p, const std::string& what);

 private:
  // A partition's buffers, in the order synthesize() carves them: z, a, b, the G2 input.
  static constexpr std::size_t kBuffers = 4;
  // Their element counts for a partition of `shape` (synthesize and top_up_lease ask the same).
  std::array<std::size_t, kBuffers> buffer_counts(const circuit::Shape& shape) const;

  std::shared_ptr<const Key<E>> key_;
  std::shared_ptr<GpuStage<E>> gpu_;
  std::shared_ptr<G2Stage<E>> g2_;
  bool hold_ = false;
  mem::BufferOptions opts_;
  std::shared_ptr<mem::BufferPool> pool_;
};

}  // namespace splitprove::pipeline
