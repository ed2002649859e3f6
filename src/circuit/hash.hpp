#pragma once
// A benchmark hash: a 2-to-1 compression over Fr built from an x^5 permutation of width 3.
//
// THIS IS A BENCHMARK HASH, NOT A STANDARDISED ONE. It has the shape of the algebraic hashes
// proof systems use (Poseidon-like: add round constants, x^5 S-boxes, an MDS mix), so its circuit
// costs what such a hash costs, but its parameters were not chosen by any security analysis. Do
// not use it to protect anything.
//
//   state = (l, r, 2)                      (2 = the arity, as a domain tag)
//   27 rounds: state_i += rc[round][i]; state_i = state_i^5; state = M·state
//   H(l, r) = state_0
// Every round is a full round (all three S-boxes): 81 S-boxes, about the 80 of Poseidon with
// width 3 (8 full + 56 partial rounds), and the state stays a 3-term linear combination in the
// circuit, so no combination grows from round to round. x^5 is a permutation of Fr when
// gcd(5, r - 1) = 1 (checked at start-up). M is the Cauchy matrix M_ij = 1/(x_i + y_j) with
// x = (0, 1, 2), y = (3, 4, 5): distinct x's, distinct y's and no x_i + y_j = 0, so M is MDS.
// Round constants: one word per limb from std::mt19937_64 seeded with kBenchHashSeed (the ASCII of
// "splitpro"), low limb first, masked to BITS - 1 bits (254 for BLS12-381: < 2^254 < r), in
// round-major order.
// In the circuit each S-box is three constraints (x^2 = in·in, x^4 = x^2·x^2, x^5 = x^4·in): 243
// constraints per hash.
#include <array>
#include <cstdint>
#include <random>

#include "circuit/gadgets.hpp"

namespace splitprove::circuit {

inline constexpr uint64_t kBenchHashSeed = 0x73706c697470726full;  // "splitpro"
inline constexpr size_t kBenchHashRounds = 27;
inline constexpr size_t kBenchHashWidth = 3;
inline constexpr size_t kBenchHashConstraints = kBenchHashRounds * kBenchHashWidth * 3;

template <class Fr>
struct BenchHashParams {
  std::array<std::array<Fr, kBenchHashWidth>, kBenchHashRounds> rc;
  std::array<std::array<Fr, kBenchHashWidth>, kBenchHashWidth> mds;
  Fr tag;

  static const BenchHashParams& get() {
    static const BenchHashParams p = [] {
      BenchHashParams q;
      std::mt19937_64 g(kBenchHashSeed);
      for (auto& round : q.rc)
        for (auto& k : round) {
          typename Fr::Repr x{};
          for (auto& w : x) w = g();
          // Keep the low BITS - 1 bits: below 2^(BITS-1) <= p, so canonical without reduction.
          for (size_t b = Fr::BITS - 1; b < 64 * x.size(); ++b) x[b / 64] &= ~(uint64_t(1) << (b % 64));
          k = Fr::from_canonical(x);
        }
      for (size_t i = 0; i < kBenchHashWidth; ++i)
        for (size_t j = 0; j < kBenchHashWidth; ++j)
          q.mds[i][j] = Fr::from_u64(i + kBenchHashWidth + j).inverse();
      q.tag = Fr::from_u64(2);
      // x^5 is a bijection of Fr iff gcd(5, r - 1) = 1, i.e. r mod 5 != 1.
      uint64_t rem = 0;  // r mod 5, from the limbs: 2^64 = 1 mod 5
      for (uint64_t w : Fr::MOD) rem = (rem + w % 5) % 5;
      if (rem == 1) throw Error("bench hash: x^5 is not a permutation of this field");
      return q;
    }();
    return p;
  }
};

template <class Fr>
Fr bench_hash(const Fr& l, const Fr& r) {
  const auto& p = BenchHashParams<Fr>::get();
  std::array<Fr, kBenchHashWidth> s{l, r, p.tag};
  for (size_t round = 0; round < kBenchHashRounds; ++round) {
    for (size_t i = 0; i < kBenchHashWidth; ++i) {
      Fr x = s[i] + p.rc[round][i];
      Fr x2 = x.square();
      s[i] = x2.square() * x;
    }
    std::array<Fr, kBenchHashWidth> t{};
    for (size_t i = 0; i < kBenchHashWidth; ++i) {
      t[i] = Fr::zero();
      for (size_t j = 0; j < kBenchHashWidth; ++j) t[i] += p.mds[i][j] * s[j];
    }
    s = t;
  }
  return s[0];
}

// The same in a circuit; returns H(l, r) as a linear combination of the last round's S-boxes.
template <class CS>
typename CS::Lc bench_hash_gadget(CS& cs, const typename CS::Lc& l, const typename CS::Lc& r) {
  using Fr = typename CS::Field;
  using Lc = typename CS::Lc;
  const auto& p = BenchHashParams<Fr>::get();
  auto ns = cs.scope("hash");
  std::array<Lc, kBenchHashWidth> s{l, r, cs.constant(p.tag)};
  for (size_t round = 0; round < kBenchHashRounds; ++round) {
    auto rs = cs.scope("round", int64_t(round));
    std::array<Variable, kBenchHashWidth> x5;
    for (size_t i = 0; i < kBenchHashWidth; ++i) {
      Lc in = s[i] + cs.constant(p.rc[round][i]);
      Variable x2 = mul(cs, in, in, "x^2");
      Variable x4 = mul(cs, cs.lc(x2), cs.lc(x2), "x^4");
      x5[i] = mul(cs, cs.lc(x4), in, "x^5");
    }
    for (size_t i = 0; i < kBenchHashWidth; ++i) {
      s[i] = cs.zero();
      for (size_t j = 0; j < kBenchHashWidth; ++j) s[i] += cs.lc(x5[j]) * p.mds[i][j];
    }
  }
  return s[0];
}

}  // namespace splitprove::circuit
