#pragma once
// Template bodies of pipeline/prover.hpp; instantiated per curve in pipeline/*_bls12_381.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include "mem/units.hpp"
#include "msm/msm.hpp"
#include "pipeline/prover.hpp"
#include "splitprove/error.hpp"
#include "util/env.hpp"
#include "util/memory.hpp"
#include "util/random.hpp"
#include "zk/stages.hpp"

namespace splitprove::pipeline {

template <class E>
std::shared_ptr<const Key<E>> Key<E>::prepare(std::shared_ptr<const zk::ProvingKey<E>> pk) {
  if (!pk) throw Error("pipeline: no proving key");
  auto k = std::make_shared<Key<E>>(Key<E>{pk, poly::Domain<Fr>::of_size(pk->domain_size),
                                           zk::G2Bases<E>::of(*pk),
                                           zk::prepare<E>(zk::verifying_key(*pk)), nullptr});
  return k;
}

template <class E>
std::shared_ptr<const Key<E>> Key<E>::prepare_on_device(zk::ScalarKey<E> sk) {
  auto pk = std::make_shared<const zk::ProvingKey<E>>(std::move(sk.pk));
  auto points = std::make_shared<const zk::KeyScalars<E>>(std::move(sk.scalars));
  if (points->a.size() != pk->n_vars || points->b.size() != pk->n_vars ||
      points->l.size() != pk->n_vars - pk->n_public - 1 || points->h.size() != pk->domain_size)
    throw Error("pipeline: the key's scalars do not match its sizes");
  zk::G2Bases<E> g2;  // the wires of B2's points other than the identity: b_j != 0
  for (std::uint32_t j = 0; j < points->b.size(); ++j)
    if (!points->b[j].is_zero()) g2.wires.push_back(j);
  auto k = std::make_shared<Key<E>>(Key<E>{pk, poly::Domain<Fr>::of_size(pk->domain_size),
                                           std::move(g2), zk::prepare<E>(zk::verifying_key(*pk)),
                                           std::move(points)});
  return k;
}

template <class E>
std::vector<typename E::Fr> Key<E>::g2_scalars() const {
  std::vector<Fr> out;
  if (!points) return out;
  out.reserve(g2.wires.size());
  for (const std::uint32_t w : g2.wires) out.push_back(points->b[w]);
  return out;
}

template <class E>
void require_host_points(const Key<E>& key, const char* stage) {
  if (key.points_on_device())
    throw Error(fmt::format(
        "pipeline: the {} stage needs the proving key's points on the host, and this key's are "
        "made on the device (a development key made with --key-on device): prove it with the "
        "GPU stage and the G2 stage on the GPU",
        stage));
}

template <class E>
void check_shape(const circuit::Shape& shape, const Key<E>& key, const std::string& source) {
  const auto& pk = *key.pk;
  if (shape.n_vars != pk.n_vars || shape.n_public != pk.n_public ||
      shape.domain_size != pk.domain_size)
    throw Error(fmt::format(
        "{}: the circuit has {} variables ({} public) over a domain of {}, the proving key has {} "
        "({} public) over {}",
        source, shape.n_vars, shape.n_public, shape.domain_size, pk.n_vars, pk.n_public,
        pk.domain_size));
}

template <class E>
PartitionCost partition_cost(const circuit::Shape& shape, const Key<E>& key,
                             const mem::BufferOptions& opts) {
  using Fr = typename E::Fr;
  using Buf = mem::Buffer<Fr>;
  PartitionCost c;
  c.z = Buf::bytes_for(shape.n_vars, opts);
  c.ab = 2 * Buf::bytes_for(shape.domain_size, opts);
  c.n_dense = key.g2.size();
  c.g2_input = Buf::bytes_for(c.n_dense, opts);
  c.g2_tail = c.n_dense;
  if (shape.binary_wires && shape.binary_wires->size() == shape.n_vars) {
    const std::vector<bool>& binary = *shape.binary_wires;
    c.g2_tail = std::size_t(std::count_if(key.g2.wires.begin(), key.g2.wires.end(),
                                          [&](std::uint32_t w) { return !binary[w]; }));
  }
  // The heap-held results: the G1 sums, the G2 sum, the public inputs, the proof.
  c.result = sizeof(PendingProof<E>) + sizeof(zk::Proof<E>) + 2 * shape.n_public * sizeof(Fr);
  c.synth_scratch = shape.scratch_bytes;
  c.g1_scratch = zk::g1_stage_scratch_bytes<E>(*key.pk);
  c.g2_scratch = zk::g2_stage_scratch_bytes<E>(key.g2, c.g2_tail);
  return c;
}

namespace detail {

template <class E>
class CpuGpuStage final : public GpuStage<E> {
 public:
  using Fr = typename E::Fr;
  std::string name() const override { return "cpu"; }
  zk::G1Results<E> run(const Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    require_host_points(key, "cpu GPU");
    zk::G1Results<E> out;
    {
      // c = a∘b, formed by h_scalars in the worker's scratch (host_scratch_bytes counts it).
      util::UninitVector<Fr> c(a.size());
      zk::h_scalars<E>(key.domain, a.span(), b.span(), std::span<Fr>(c), key.pk->h_basis);
    }
    // b is dead (only p, in a, is read from here on): its pages go back to the OS now, but its
    // bytes stay paid for until this stage returns, so that the MSMs' scratch can use them
    // (host_scratch_bytes reserves only what the scratch needs beyond them).
    mem::Reservation freed = b.unmap_keep_reservation();
    // The H MSM's scratch is handed on to the z MSMs (msm::Workspace): it is within the H phase's
    // bound, and the z phase pays for a's bytes as well.
    msm::Workspace<typename E::G1> ws;
    {
      std::lock_guard lk(host_msm_lock());
      out.h = zk::msm_h<E>(*key.pk, a.span(), &ws);
    }
    freed.absorb(a.unmap_keep_reservation());
    {
      std::lock_guard lk(host_msm_lock());
      zk::msm_z<E>(*key.pk, z.span(), out, &ws);
    }
    freed.absorb(z.unmap_keep_reservation());
    freed.reset();  // every input's bytes go back together, as the stage returns
    return out;
  }
  // It keeps paying for its inputs until it returns: the budget never sees a part-freed item.
  bool frees_inputs_early() const override { return false; }
  bool locks_host_msms() const override { return true; }
  // Phase by phase, scratch beyond the bytes of the buffers already dead (each of a, b is half
  // of cost.ab): the H step holds c (the size of one), the H MSM runs after b died, the z MSMs
  // after a died too. The MSM scratch bound of n terms holds for every tail (msm::scratch_bytes).
  std::uint64_t host_scratch_bytes(const Key<E>& key, const PartitionCost& cost) const override {
    const auto& pk = *key.pk;
    const std::uint64_t one = cost.ab / 2;
    const std::uint64_t c = std::uint64_t(pk.domain_size) * sizeof(Fr);
    const std::uint64_t h = msm::scratch_bytes<typename E::G1>(pk.domain_size);
    const std::uint64_t zs = msm::scratch_bytes<typename E::G1>(pk.n_vars);
    auto over = [](std::uint64_t need, std::uint64_t have) {
      return need > have ? need - have : 0;
    };
    return std::max({c, over(h, one), over(zs, 2 * one)});
  }
};

template <class E>
class CpuG2Stage final : public G2Stage<E> {
 public:
  using Fr = typename E::Fr;
  std::string name() const override { return "cpu"; }
  typename E::G2Jacobian run(const Key<E>& key, std::span<const Fr> compact) override {
    require_host_points(key, "cpu G2");
    std::lock_guard lk(host_msm_lock());
    return zk::msm_g2<E>(key.g2, compact);
  }
  bool locks_host_msms() const override { return true; }
  // The G2 MSM's bound for the tail the partition can have (the scalars other than 0 and 1).
  std::uint64_t host_scratch_bytes(const Key<E>& key, const PartitionCost& cost) const override {
    return zk::g2_stage_scratch_bytes<E>(key.g2, cost.g2_tail);
  }
};

}  // namespace detail

template <class E>
std::shared_ptr<GpuStage<E>> cpu_gpu_stage() {
  return std::make_shared<detail::CpuGpuStage<E>>();
}

template <class E>
std::shared_ptr<G2Stage<E>> cpu_g2_stage() {
  return std::make_shared<detail::CpuG2Stage<E>>();
}

template <class E>
Prover<E>::Prover(std::shared_ptr<const Key<E>> key, std::shared_ptr<GpuStage<E>> gpu,
                  std::shared_ptr<G2Stage<E>> g2, mem::BufferOptions opts,
                  std::shared_ptr<mem::BufferPool> pool)
    : key_(std::move(key)),
      gpu_(std::move(gpu)),
      g2_(std::move(g2)),
      opts_(opts),
      pool_(std::move(pool)) {
  if (!key_ || !gpu_ || !g2_) throw Error("pipeline: a prover needs a key and both stages");
}

template <class E>
Synthesized<E> Prover<E>::synthesize(const circuit::PartitionSource<Fr>& source, std::size_t index,
                                     const PartitionCost& cost, mem::Reservation admission,
                                     const std::stop_token& stop,
                                     mem::BufferPool::Lease lease) const {
  if (admission.bytes() + lease.bytes() < cost.life())
    throw mem::BudgetError(fmt::format(
        "partition {}: admission holds {} (and recycled pages {}), its life costs {}", index,
        mem::format_bytes(admission.bytes()), mem::format_bytes(lease.bytes()),
        mem::format_bytes(cost.life())));
  const circuit::Shape shape = source.shape();
  const auto counts = buffer_counts(shape);
  Synthesized<E> s;
  s.index = index;
  mem::Buffer<Fr>* bufs[] = {&s.z, &s.a, &s.b, &s.g2_input};
  // Recycled pages keep their last partition's values: z, a, b are zeroed unless the source
  // writes every value; the G2 input never (compact_g2_scalars writes every slot).
  // SPLITPROVE_ZERO_RECYCLED=1 zeroes every recycled buffer (for A/B runs).
  static const bool zero_all = util::env_flag("SPLITPROVE_ZERO_RECYCLED");
  for (std::size_t i = 0; i < counts.size(); ++i)
    *bufs[i] = mem::Buffer<Fr>::carve(
        admission, counts[i], opts_, pool_, &lease,
        zero_all || (bufs[i] != &s.g2_input && !shape.fills_every_value));
  s.rest = std::move(admission);
  source.synthesize(index, s.z.span(), s.a.span(), s.b.span(), stop);
  if (stop.stop_requested()) return s;
  if (s.z.size() == 0 || !s.z[0].is_one())
    throw Error(fmt::format("{}: partition {}: z[0] is not 1 (the constant wire)",
                            source.describe(), index));
  // The compact G2 input now, while z is hot: a copy, later owned by the pending proof.
  const std::size_t tail = zk::compact_g2_scalars<E>(key_->g2, s.z.span(), s.g2_input.span());
  // The G2 worker's scratch was sized for cost.g2_tail scalars other than 0 and 1 (the wires the
  // circuit's rows force to be binary are 0 or 1 in every satisfying assignment): an assignment
  // with more does not satisfy the circuit, and its G2 MSM would outgrow the reservation.
  if (tail > cost.g2_tail)
    throw Error(fmt::format(
        "{}: partition {}: {} of the {} B-dense values are neither 0 nor 1, where the circuit's "
        "boolean constraints allow at most {}: the assignment does not satisfy the circuit",
        source.describe(), index, tail, s.g2_input.size(), cost.g2_tail));
  return s;
}

template <class E>
void Prover<E>::warm_pool(const circuit::Shape& shape, mem::Reservation paid) const {
  if (!pool_) return;
  mem::BufferOptions populated = opts_;
  populated.populate = true;
  for (const std::size_t n : buffer_counts(shape))
    if (n > 0) (void)mem::Buffer<Fr>::carve(paid, n, populated, pool_);  // dies into the pool
}

template <class E>
std::uint32_t Prover<E>::idle_partitions(const circuit::Shape& shape) const {
  if (!pool_) return 0;
  const bool pinned = mem::pins_pages(opts_);
  std::map<std::size_t, std::size_t> per_partition;  // mapped bytes -> buffers of that size
  for (const std::size_t n : buffer_counts(shape))
    if (n > 0) ++per_partition[mem::Buffer<Fr>::bytes_for(n, opts_)];
  std::size_t sets = std::numeric_limits<std::uint32_t>::max();
  for (const auto& [bytes, count] : per_partition)
    sets = std::min(sets, pool_->idle_count(bytes, pinned) / count);
  return per_partition.empty() ? 0 : std::uint32_t(sets);
}

template <class E>
void Prover<E>::top_up_lease(mem::BufferPool::Lease& lease, const circuit::Shape& shape) const {
  if (!pool_) return;
  const auto counts = buffer_counts(shape);
  const bool pinned = mem::pins_pages(opts_);
  std::array<std::pair<std::size_t, bool>, kBuffers> wants;
  for (std::size_t i = 0; i < kBuffers; ++i)
    wants[i] = {mem::Buffer<Fr>::bytes_for(counts[i], opts_), pinned};
  pool_->top_up(lease, wants);
}

template <class E>
std::array<std::size_t, Prover<E>::kBuffers> Prover<E>::buffer_counts(
    const circuit::Shape& shape) const {
  return {shape.n_vars, shape.domain_size, shape.domain_size, key_->g2.size()};
}

template <class E>
PendingProof<E> Prover<E>::start(Synthesized<E>&& part, const PartitionCost& /*cost*/,
                                 GpuStage<E>* on) {
  const auto& pk = *key_->pk;
  PendingProof<E> p;
  p.index = part.index;
  // The compact G2 input was made by synthesize(): the pending proof owns it from here.
  p.g2_input = std::move(part.g2_input);
  p.publics.assign(part.z.begin() + 1, part.z.begin() + 1 + pk.n_public);
  p.result = std::move(part.rest);
  if (hold_) {
    p.held = std::make_shared<mem::Keeper>();
    for (auto* b : {&part.z, &part.a, &part.b}) b->keep_until(p.held);
  }
  // The GPU stage takes z, a, b and frees them; they are gone when it returns (or, held, are the
  // keeper's until the pending proof dies).
  p.g1 = (on ? *on : *gpu_).run(*key_, std::move(part.z), std::move(part.a), std::move(part.b));
  return p;
}

template <class E>
void Prover<E>::run_g2(PendingProof<E>& p, G2Stage<E>* on) {
  if (p.b2) return;
  p.b2 = (on ? *on : *g2_).run(*key_, p.g2_input.span());
  p.g2_input.reset();
}

template <class E>
zk::Proof<E> Prover<E>::finish(PendingProof<E>&& p, const std::string& what) {
  PendingProof<E> q = std::move(p);  // whatever happens, q dies here and frees what it holds
  run_g2(q);
  // r and s are drawn where they are used and wiped before this returns or throws: no queue,
  // no other stage and no freed memory ever holds them.
  struct Randomizers {
    typename E::Fr r, s;
    Randomizers() {
      util::OsRng rng;
      r = E::Fr::random(rng);
      s = E::Fr::random(rng);
    }
    ~Randomizers() {
      auto* p = reinterpret_cast<volatile unsigned char*>(this);
      for (std::size_t i = 0; i < sizeof *this; ++i) p[i] = 0;
    }
    Randomizers(const Randomizers&) = delete;
    Randomizers& operator=(const Randomizers&) = delete;
  } rs;
  return zk::assemble_verified<E>(*key_->pk, key_->pvk, q.publics, q.g1, *q.b2, rs.r, rs.s, what);
}

}  // namespace splitprove::pipeline
