#pragma once
// Inputs of the arithmetic benchmarks (bench/bench_arith.cpp), shared with their test
// (tests/test_bench_arith.cpp) so that every figure in bench/RESULTS.md is the speed of an
// operation on exactly the inputs the test has checked against a closed form.
//
// Every group element is built as a known multiple of the generator (P = a·G), so a chain of
// operations on it has a closed form in the scalars: n additions of Q = c·G to P give (a + n·c)·G,
// n doublings give 2^n·a·G, n multiplications by k give k^n·a·G.
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/encoding.hpp"
#include "splitprove/error.hpp"

namespace splitprove::bench {

using bls12_381::Fp;
using bls12_381::Fp12;
using bls12_381::Fp2;
using bls12_381::Fr;
using bls12_381::G1Affine;
using bls12_381::G1Jacobian;
using bls12_381::G2Affine;
using bls12_381::G2Jacobian;
using bls12_381::Pairing;
using G1Codec = ec::ZcashCodec<bls12_381::G1>;
using G2Codec = ec::ZcashCodec<bls12_381::G2>;

// The seed of the benchmark's inputs (the test uses the same one).
inline constexpr uint64_t kArithSeed = 0x5eeda4172024ull;

struct ArithInputs {
  Fp fp_a, fp_b;
  Fr fr_a, fr_b;
  Fp2 fp2_a, fp2_b;
  Fp12 fp12_a, fp12_b;
  Fp12 cyclotomic;  // in the cyclotomic subgroup (conj(x) = x^-1): input of cyclotomic_square

  // Scalars behind the points: g1_p = s_p·G1, g1_q = s_q·G1 (likewise G2), k = the multiplier.
  Fr s_p, s_q, k;
  G1Jacobian g1_p, g1_q;  // Jacobian with Z != 1 (results of a scalar multiplication)
  G1Affine g1_q_affine;
  G2Jacobian g2_p, g2_q;
  G2Affine g2_q_affine;

  // Two points per group for the chains whose next input is picked by the previous result.
  std::array<G1Affine, 2> g1_pts;
  std::array<G2Affine, 2> g2_pts;
  std::array<std::vector<uint8_t>, 2> g1_compressed, g2_compressed;  // zcash encodings of *_pts
  std::array<Pairing::G2Prepared, 2> g2_prepared;                    // lines of g2_pts

  // Two pairs with e(mp_g1[0], mp_g2[0])·e(mp_g1[1], mp_g2[1]) = 1:
  // (P, c·Q) and (-c·P, Q) for P, Q = g1_pts[0], g2_pts[0] and a random c.
  std::array<G1Affine, 2> mp_g1;
  std::array<G2Affine, 2> mp_g2;
};

// A uniform scalar with exactly 255 bits (bit 254 set), the length of r: the worst case of a
// scalar multiplication, which is what a random Groth16 scalar almost always is.
template <class Rng>
Fr random_255_bit_scalar(Rng& rng) {
  for (;;) {
    Fr s = Fr::random(rng);
    if (ff::num_bits(s.to_canonical()) == 255) return s;
  }
}

inline bool is_cyclotomic(const Fp12& x) { return (x.conj() * x).is_one(); }

// One Miller loop over (P, lines of Q): the form a verifier with a prepared key runs.
inline Fp12 miller_loop_prepared(const G1Affine& p, const Pairing::G2Prepared& q) {
  const std::pair<G1Affine, const Pairing::G2Prepared*> pair{p, &q};
  return Pairing::miller_loop({&pair, 1});
}

// One Miller loop including the G2 line computation (what a one-off pairing pays).
inline Fp12 miller_loop_unprepared(const G1Affine& p, const G2Affine& q) {
  const Pairing::G2Prepared lines = Pairing::prepare(q);
  return miller_loop_prepared(p, lines);
}

// prod_i e(P_i, Q_i) == 1 over two pairs, both G2 line sets computed in the call: the cost of a
// 2-pair multi-pairing check on fresh points (shared squarings, one final exponentiation).
// `swap` takes the pairs in the other order (same cost, same answer) so a chain can depend on it.
inline bool two_pair_check(const std::array<G1Affine, 2>& p, const std::array<G2Affine, 2>& q,
                           bool swap = false) {
  const size_t i = swap ? 1 : 0, j = 1 - i;
  const Pairing::G2Prepared li = Pairing::prepare(q[i]);
  const Pairing::G2Prepared lj = Pairing::prepare(q[j]);
  const std::array<std::pair<G1Affine, const Pairing::G2Prepared*>, 2> pairs{
      {{p[i], &li}, {p[j], &lj}}};
  return Pairing::product_is_one(pairs);
}

// One bit of an Fp12 value, used to pick the next input of a chain (so the next call depends on
// this call's result and the calls cannot overlap).
inline size_t low_bit(const Fp12& f) { return size_t(f.c0.c0.c0.mont()[0] & 1); }

// Deterministic for a seed. Throws splitprove::Error when an input breaks the property its
// benchmark relies on (a decode that fails, a point outside its subgroup): a benchmark of a
// failing path would measure the wrong thing.
inline ArithInputs make_arith_inputs(uint64_t seed) {
  std::mt19937_64 rng(seed);
  ArithInputs in;
  auto fp2 = [&] { return Fp2{Fp::random(rng), Fp::random(rng)}; };
  auto fp6 = [&] { return bls12_381::Fp6{fp2(), fp2(), fp2()}; };
  auto fp12 = [&] { return Fp12{fp6(), fp6()}; };
  in.fp_a = Fp::random(rng);
  in.fp_b = Fp::random(rng);
  in.fr_a = Fr::random(rng);
  in.fr_b = Fr::random(rng);
  in.fp2_a = fp2();
  in.fp2_b = fp2();
  in.fp12_a = fp12();
  in.fp12_b = fp12();
  {
    // The easy part of the final exponentiation, f^((p^6 - 1)(p^2 + 1)), lands in the cyclotomic
    // subgroup for any non-zero f.
    Fp12 f = fp12();
    Fp12 t = f.conj() * f.inverse();
    in.cyclotomic = t.frobenius(2) * t;
  }
  in.s_p = random_255_bit_scalar(rng);
  in.s_q = random_255_bit_scalar(rng);
  in.k = random_255_bit_scalar(rng);
  in.g1_p = G1Jacobian::generator().mul(in.s_p);
  in.g1_q = G1Jacobian::generator().mul(in.s_q);
  in.g1_q_affine = in.g1_q.to_affine();
  in.g2_p = G2Jacobian::generator().mul(in.s_p);
  in.g2_q = G2Jacobian::generator().mul(in.s_q);
  in.g2_q_affine = in.g2_q.to_affine();
  for (size_t i = 0; i < 2; ++i) {
    in.g1_pts[i] = G1Jacobian::generator().mul(random_255_bit_scalar(rng)).to_affine();
    in.g2_pts[i] = G2Jacobian::generator().mul(random_255_bit_scalar(rng)).to_affine();
    in.g1_compressed[i] = G1Codec::encode(in.g1_pts[i], true);
    in.g2_compressed[i] = G2Codec::encode(in.g2_pts[i], true);
    in.g2_prepared[i] = Pairing::prepare(in.g2_pts[i]);
  }
  {
    const Fr c = random_255_bit_scalar(rng);
    in.mp_g1 = {in.g1_pts[0], (-in.g1_pts[0].to_jacobian().mul(c)).to_affine()};
    in.mp_g2 = {in.g2_pts[0].to_jacobian().mul(c).to_affine(), in.g2_pts[0]};
  }

  auto fail = [](const std::string& what) { throw Error("bench arith inputs: " + what); };
  if (!is_cyclotomic(in.cyclotomic)) fail("cyclotomic input has conj(x)·x != 1");
  if (in.g1_p.Z.is_one() || in.g1_q.Z.is_one() || in.g2_p.Z.is_one() || in.g2_q.Z.is_one())
    fail("a Jacobian input has Z = 1 (the general addition would not be exercised)");
  for (size_t i = 0; i < 2; ++i) {
    if (!bls12_381::g1_in_subgroup(in.g1_pts[i].to_jacobian())) fail("G1 point not in G1");
    if (!bls12_381::g2_in_subgroup(in.g2_pts[i].to_jacobian())) fail("G2 point not in G2");
    G1Affine d1;
    G2Affine d2;
    auto e1 = G1Codec::decode(in.g1_compressed[i], d1, bls12_381::g1_in_subgroup);
    auto e2 = G2Codec::decode(in.g2_compressed[i], d2, bls12_381::g2_in_subgroup);
    if (e1 != ec::DecodeError::kNone || !(d1 == in.g1_pts[i]))
      fail(std::string("G1 compressed point ") + std::to_string(i) + ": " + ec::describe(e1));
    if (e2 != ec::DecodeError::kNone || !(d2 == in.g2_pts[i]))
      fail(std::string("G2 compressed point ") + std::to_string(i) + ": " + ec::describe(e2));
  }
  if (!two_pair_check(in.mp_g1, in.mp_g2)) fail("the 2-pair product is not 1");
  return in;
}

}  // namespace splitprove::bench
