#pragma once
// A PoRep-shaped benchmark circuit: the structure of a Filecoin PoRep partition (per challenge: a
// Merkle inclusion proof of a column of labels, each label derived bitwise from parent data), at
// any size, with a witness that is mostly 0s and 1s the way a real PoRep witness is.
//
// Per challenge c (namespace "challenge c"):
//   - the challenged leaf index is a public input, decomposed into `depth` bits (the Merkle path);
//   - for each of `layers` layers, `parents` private parent values of `label_bits` bits are each
//     bit-decomposed (booleans + one packing constraint), the label's bits are the XOR of the
//     parents' bits (one constraint per bit and parent after the first; Filecoin derives labels
//     with SHA-256 over its parents, which is where its 0/1 witness values come from), and the
//     label is packed into one variable;
//   - the column hash chains the layers' labels: h = label_0, h = H(h, label_l);
//   - a Merkle path of `depth` levels from h must reach the public root (one per partition).
// Then a "data tail" of bit decompositions of further private data values fills the circuit to
// exactly the requested number of constraints. Public inputs: the root, then the challenges'
// indices.
//
// Data: partition p's parent values, challenge indices and tail values are derived from
// (seed, p) with splitmix64; a leaf's data depends only on (seed, p, index), so a repeated
// challenge sees the same leaf. The tree has 2^depth leaves, all zero except the challenged ones
// (SparseMerkleTree), so a partition's witness costs O(challenges · depth) hashes.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/gadgets.hpp"
#include "circuit/hash.hpp"
#include "circuit/merkle.hpp"
#include "circuit/native_source.hpp"
#include "util/parallel.hpp"

namespace splitprove::circuit {

struct PorepParams {
  uint32_t challenges = 1;
  uint32_t depth = 4;          // Merkle tree depth: 2^depth leaves
  uint32_t layers = 2;         // labels per column
  uint32_t parents = 14;       // parent values per label (Filecoin: 6 base + 8 expander parents)
  uint32_t label_bits = 254;   // bits per parent value and label (Fr32: 254)
  uint64_t tail_constraints = 0;
  uint64_t seed = 1;
  std::string name = "porep";

  uint64_t layer_constraints() const {
    return uint64_t(parents) * (label_bits + 1) + uint64_t(parents - 1) * label_bits + 1;
  }
  uint64_t challenge_constraints() const {
    return (depth + 1) + layers * layer_constraints() + (layers - 1) * kBenchHashConstraints +
           depth * (1 + kBenchHashConstraints) + 1;
  }
  // Private variables one challenge allocates (index bits; per layer the parents, their bits, the
  // XOR bits and the label; the column hashes; the siblings; per level a selection and a hash).
  uint64_t challenge_privates() const {
    return depth +
           layers * (uint64_t(parents) * (1 + label_bits) + uint64_t(parents - 1) * label_bits + 1) +
           (layers - 1) * kBenchHashConstraints + depth + depth * (1 + kBenchHashConstraints);
  }
  uint64_t n_constraints() const { return challenges * challenge_constraints() + tail_constraints; }
  uint32_t n_public() const { return 1 + challenges; }
  void validate() const {
    if (challenges < 1 || depth < 1 || depth > 62 || layers < 1 || parents < 1 || label_bits < 1 ||
        label_bits > 254)
      throw Error(fmt::format("porep: bad parameters (challenges {}, depth {}, layers {}, parents {}, "
                              "label bits {}): need challenges, depth (<= 62), layers, parents >= 1 "
                              "and 1 <= label bits <= 254",
                              challenges, depth, layers, parents, label_bits));
  }
};

// Parameters for a circuit of 2^k rows: n_constraints + n_public = 2^k - 1 exactly (the domain is
// then 2^k; the public-binding rows need n_public + 1). Starting from Filecoin-like challenges
// (depth k up to 30, 2 layers, 14 parents of 254 bits), the parameters step down — parents to 8,
// 4, 2, then the depth towards 2, then one layer, one parent, narrower values — to the first
// step where at least half of a challenge's constraints are bit constraints and a challenge takes
// at most a quarter of the rows; where none does (small k), to the first such step where one
// challenge fits at all. The challenges then fill the rows and the data tail
// takes the rest (less than one challenge). 10 <= k <= 28.
inline PorepParams porep_for_log2(unsigned k, uint64_t seed = 1) {
  if (k < 10 || k > 28) throw Error(fmt::format("porep: size 2^{} outside 2^10..2^28", k));
  PorepParams p;
  p.seed = seed;
  p.name = fmt::format("porep-2^{}", k);
  p.depth = std::min(k, 30u);
  const uint64_t rows = (uint64_t(1) << k) - 1;  // n_constraints + n_public
  std::vector<PorepParams> steps{p};
  auto step = [&](auto change) {
    PorepParams q = steps.back();
    change(q);
    steps.push_back(q);
  };
  for (uint32_t parents : {8u, 4u, 2u}) step([&](PorepParams& q) { q.parents = parents; });
  while (steps.back().depth > 2) step([](PorepParams& q) { --q.depth; });
  step([](PorepParams& q) { q.layers = 1; });
  step([](PorepParams& q) { q.parents = 1; });
  while (steps.back().label_bits > 16) step([](PorepParams& q) { q.label_bits /= 2; });
  auto cost = [](const PorepParams& q) { return q.challenge_constraints() + 1; };  // + its index
  // Mostly 0/1 witnesses: at least half of a challenge's constraints are bit constraints.
  auto bitty = [](const PorepParams& q) {
    return 2 * (q.depth + 1 + q.layers * q.layer_constraints()) >= q.challenge_constraints();
  };
  auto first = [&](auto ok) { return std::find_if(steps.begin(), steps.end(), ok); };
  auto it = first([&](const PorepParams& q) { return bitty(q) && cost(q) <= rows / 4; });
  if (it == steps.end()) it = first([&](const PorepParams& q) { return bitty(q) && cost(q) + 1 <= rows; });
  if (it == steps.end()) it = first([&](const PorepParams& q) { return cost(q) + 1 <= rows; });
  if (it == steps.end()) throw Error(fmt::format("porep: no parameters fit 2^{} rows", k));
  p = *it;
  p.challenges = uint32_t((rows - 1) / cost(p));
  p.tail_constraints = rows - 1 - p.challenges * cost(p);
  return p;
}

namespace detail {

inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A splitmix64 stream keyed by (seed, partition, what, index).
struct Stream {
  uint64_t s;
  Stream(uint64_t seed, uint64_t partition, uint64_t what, uint64_t index)
      : s(mix64(seed ^ mix64(partition ^ mix64(what ^ mix64(index))))) {}
  uint64_t next() { return mix64(s++); }
  // A uniform value of `bits` bits (bits <= 254, so below r).
  template <class Fr>
  Fr value(unsigned bits) {
    typename Fr::Repr x{};
    for (size_t i = 0; i < x.size(); ++i) {
      const unsigned lo = unsigned(64 * i);
      x[i] = lo >= bits ? 0 : bits - lo >= 64 ? next() : next() & ((uint64_t(1) << (bits - lo)) - 1);
    }
    return Fr::from_canonical(x);
  }
};

enum : uint64_t { kIndex = 1, kParent = 2, kTail = 3 };

}  // namespace detail

// One partition's private data and the public values, computed natively.
template <class Fr>
struct PorepWitness {
  struct Challenge {
    uint64_t index = 0;
    std::vector<Fr> parents;   // layers × parents, layer-major
    std::vector<Fr> siblings;  // depth, leaf level first
  };
  Fr root;
  std::vector<Challenge> challenges;
};

// The parents of leaf `index` and its column hash (the leaf value in the tree).
template <class Fr>
Fr porep_leaf(const PorepParams& p, uint64_t partition, uint64_t index, std::vector<Fr>* parents) {
  detail::Stream st(p.seed, partition, detail::kParent, index);
  Fr h = Fr::zero();
  for (uint32_t l = 0; l < p.layers; ++l) {
    typename Fr::Repr label{};
    for (uint32_t k = 0; k < p.parents; ++k) {
      Fr v = st.value<Fr>(p.label_bits);
      if (parents) parents->push_back(v);
      const auto c = v.to_canonical();
      for (size_t i = 0; i < label.size(); ++i) label[i] ^= c[i];
    }
    const Fr lv = Fr::from_canonical(label);
    h = l == 0 ? lv : bench_hash(h, lv);
  }
  return h;
}

template <class Fr>
PorepWitness<Fr> porep_witness(const PorepParams& p, uint64_t partition) {
  p.validate();
  PorepWitness<Fr> w;
  w.challenges.resize(p.challenges);
  std::vector<std::pair<uint64_t, Fr>> leaves(p.challenges);
  util::parallel_for(p.challenges, [&](size_t lo, size_t hi) {
    for (size_t c = lo; c < hi; ++c) {
      auto& ch = w.challenges[c];
      ch.index = detail::Stream(p.seed, partition, detail::kIndex, c).next() &
                 ((uint64_t(1) << p.depth) - 1);
      ch.parents.reserve(size_t(p.layers) * p.parents);
      leaves[c] = {ch.index, porep_leaf<Fr>(p, partition, ch.index, &ch.parents)};
    }
  });
  SparseMerkleTree<Fr> tree(p.depth, leaves);
  w.root = tree.root();
  for (auto& ch : w.challenges) ch.siblings = tree.siblings(ch.index);
  return w;
}

// One challenge (see the top of this file); `root` is the partition's public root.
template <class CS>
void porep_challenge(CS& cs, const PorepParams& p, const typename PorepWitness<typename CS::Field>::Challenge& ch,
                     uint32_t c, Variable root) {
  using Fr = typename CS::Field;
  using Lc = typename CS::Lc;
  auto sc = cs.scope("challenge", c);
  const Variable idx = cs.alloc_public(Fr::from_u64(ch.index));
  std::vector<Variable> path;
  {
    auto s = cs.scope("index bits");
    path = to_bits(cs, cs.lc(idx), p.depth);
  }
  Lc h = cs.zero();
  for (uint32_t l = 0; l < p.layers; ++l) {
    auto sl = cs.scope("layer", l);
    std::vector<Variable> acc;
    for (uint32_t k = 0; k < p.parents; ++k) {
      auto sp = cs.scope("parent", k);
      const Variable pv = cs.alloc(ch.parents[size_t(l) * p.parents + k]);
      std::vector<Variable> bits = to_bits(cs, cs.lc(pv), p.label_bits);
      if (k == 0) {
        acc = std::move(bits);
      } else {
        auto sx = cs.scope("xor");
        for (size_t i = 0; i < acc.size(); ++i) acc[i] = xor_bits(cs, acc[i], bits[i]);
      }
    }
    Variable label = [&] {
      auto s = cs.scope("label");
      return pack(cs, std::span<const Variable>(acc));
    }();
    if (l == 0) {
      h = cs.lc(label);
    } else {
      auto s = cs.scope("column", l);
      h = bench_hash_gadget(cs, h, cs.lc(label));
    }
  }
  if (ch.siblings.size() != p.depth)
    throw Error(fmt::format("porep: challenge {} has {} siblings for depth {}", c, ch.siblings.size(), p.depth));
  std::vector<Variable> sib(p.depth);
  for (uint32_t j = 0; j < p.depth; ++j) sib[j] = cs.alloc(ch.siblings[j]);
  const Lc top = merkle_root_gadget(cs, h, std::span<const Variable>(path), std::span<const Variable>(sib));
  cs.enforce("root", top, cs.constant(Fr::one()), cs.lc(root));
}

// The circuit, for either mode. `partition` seeds the data tail. In synthesis mode the challenges
// (independent, the same number of variables each) run in parallel on forks of the synthesizer.
template <class CS>
void porep_circuit(CS& cs, const PorepParams& p, const PorepWitness<typename CS::Field>& w,
                   uint64_t partition) {
  using Fr = typename CS::Field;
  if (w.challenges.size() != p.challenges)
    throw Error(fmt::format("porep: a witness of {} challenges for {}", w.challenges.size(), p.challenges));
  const Variable root = cs.alloc_public(w.root);
  if constexpr (CS::kRecording) {
    for (uint32_t c = 0; c < p.challenges; ++c) porep_challenge(cs, p, w.challenges[c], c, root);
  } else {
    const uint64_t priv = p.challenge_privates();
    const uint32_t pub0 = cs.publics_allocated(), priv0 = cs.privates_allocated();
    if (priv0 + p.challenges * priv > std::numeric_limits<uint32_t>::max())
      throw Error(fmt::format("porep: {} challenges need more than 2^32 variables", p.challenges));
    util::parallel_for(p.challenges, [&](size_t lo, size_t hi) {
      for (size_t c = lo; c < hi; ++c) {
        CS sub = cs.fork(uint32_t(pub0 + c), uint32_t(pub0 + c + 1), uint32_t(priv0 + c * priv),
                         uint32_t(priv0 + (c + 1) * priv));
        porep_challenge(sub, p, w.challenges[c], uint32_t(c), root);
        sub.finish();
      }
    });
    cs.skip_to(pub0 + p.challenges, uint32_t(priv0 + p.challenges * priv));
  }
  // The data tail: 254-bit values (255 constraints each), then one narrower value, or a single
  // boolean, for the remainder.
  auto st = cs.scope("data tail");
  detail::Stream tail(p.seed, partition, detail::kTail, 0);
  for (uint64_t left = p.tail_constraints; left > 0;) {
    if (left == 1) {
      alloc_boolean(cs, tail.next() & 1);
      break;
    }
    const unsigned bits = unsigned(std::min<uint64_t>(254, left - 1));
    const Variable v = cs.alloc(tail.value<Fr>(bits));
    to_bits(cs, cs.lc(v), bits);
    left -= bits + 1;
  }
}

// The fraction of values in z that are 0 or 1.
template <class Fr>
double zero_one_fraction(std::span<const Fr> z) {
  size_t n = 0;
  for (const Fr& x : z) n += x.is_zero() || x.is_one();
  return z.empty() ? 0.0 : double(n) / double(z.size());
}

// Records the circuit (with partition 0's witness as the recording's assignment).
template <class Fr>
Recording<Fr> record_porep(const PorepParams& p) {
  p.validate();
  Recorder<Fr> rec(p.name);
  rec.reserve(p.n_constraints());
  porep_circuit(rec, p, porep_witness<Fr>(p, 0), 0);
  return std::move(rec).finish();
}

// Bytes a partition's witness generation holds besides z: the parents and siblings, the sparse
// tree's nodes (a std::map node is about 80 bytes with its value), and one layer's bit handles.
inline uint64_t porep_scratch_bytes(const PorepParams& p, size_t fr_bytes = 32) {
  const uint64_t per_challenge = (uint64_t(p.layers) * p.parents + p.depth) * fr_bytes + 64;
  const uint64_t tree = uint64_t(p.challenges) * (p.depth + 1) * (fr_bytes + 64);
  return p.challenges * per_challenge + tree + 4 * uint64_t(p.label_bits) * sizeof(Variable) + 4096;
}

// A PartitionSource for the PoRep circuit recorded in `cs` with parameters `p`.
template <class Fr>
std::shared_ptr<NativeSource<Fr>> porep_source(const PorepParams& p,
                                               std::shared_ptr<const ConstraintSystem<Fr>> cs,
                                               bool check = true) {
  auto gen = [p](Synthesizer<Fr>& syn, size_t partition) {
    porep_circuit(syn, p, porep_witness<Fr>(p, partition), partition);
  };
  return std::make_shared<NativeSource<Fr>>(std::move(cs), gen,
                                            typename NativeSource<Fr>::Options{check, porep_scratch_bytes(p)});
}

// The PoRep circuit of 2^k rows, recorded, as a source (for the engine, the CLI and benchmarks).
// A proving key for it: zk::dev_setup<E>(setup_rows(source->constraint_system())) (circuit/r1cs.hpp).
template <class Fr>
std::shared_ptr<NativeSource<Fr>> porep_source_for_log2(unsigned k, uint64_t seed = 1, bool check = true) {
  const PorepParams p = porep_for_log2(k, seed);
  auto cs = std::make_shared<const ConstraintSystem<Fr>>(record_porep<Fr>(p).cs);
  return porep_source<Fr>(p, std::move(cs), check);
}

}  // namespace splitprove::circuit
