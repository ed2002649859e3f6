// Groth16 end to end on the CPU: proofs for snarkjs keys and for development-setup keys verify,
// snarkjs's proofs verify with our verifier, and everything wrong is rejected — a tampered proof,
// a wrong public input, a proof for another key, and an unsatisfying witness (whose first failing
// constraint is named).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "io/json.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "splitprove/error.hpp"
#include "test_util.hpp"
#include "zk/groth16.hpp"
#include "zk/setup.hpp"
#include "zk/stages.hpp"

using namespace splitprove;
using splitprove::testing::rng;

// Every suite runs for both engines, on the fixtures snarkjs made for that curve.
template <class E>
static std::string fixture(const std::string& name) {
  const char* dir = E::kId == ec::CurveId::kBn254 ? "/tests/fixtures/bn128/" : "/tests/fixtures/";
  return splitprove::testing::source_dir() + dir + name;
}

template <class E>
class Groth16 : public ::testing::Test {};
using Engines = ::testing::Types<ec::Bls12_381, ec::Bn254>;
struct EngineNames {
  template <class E>
  static std::string GetName(int) {
    return std::string(E::kSnarkjsName);
  }
};
TYPED_TEST_SUITE(Groth16, Engines, EngineNames);
#define ENGINE_TYPES                    \
  using E [[maybe_unused]] = TypeParam; \
  using Fr [[maybe_unused]] = typename E::Fr;

// A circuit built in code: x_{i+1} = x_i^2 + x_i + 7 for `steps` steps, out = x_steps public,
// plus an extra public input y with y·1 = y; wires: 0 = 1, 1 = out, 2 = y, 3 = x_0, 4.. = x_i.
template <class E>
static io::R1cs<E> chain_r1cs(uint32_t steps) {
  using Fr = typename E::Fr;
  io::R1cs<E> cs;
  cs.source = "chain_r1cs";
  cs.n_pub_out = 1;
  cs.n_pub_in = 1;
  cs.n_prv_in = 1;
  cs.n_wires = 4 + steps;
  cs.offsets.push_back(0);
  auto push = [&](std::vector<io::Term<E>> a, std::vector<io::Term<E>> b, std::vector<io::Term<E>> c) {
    for (auto* lc : {&a, &b, &c}) {
      cs.terms.insert(cs.terms.end(), lc->begin(), lc->end());
      cs.offsets.push_back(cs.terms.size());
    }
    ++cs.n_constraints;
  };
  for (uint32_t i = 0; i < steps; ++i) {
    uint32_t xi = 3 + i, xn = 4 + i;
    // x_i · (x_i + 1) = x_{i+1} - 7
    push({{xi, Fr::one()}}, {{xi, Fr::one()}, {0, Fr::one()}}, {{xn, Fr::one()}, {0, -Fr::from_u64(7)}});
  }
  push({{3 + steps, Fr::one()}}, {{0, Fr::one()}}, {{1, Fr::one()}});  // out = x_steps
  push({{2, Fr::one()}}, {{0, Fr::one()}}, {{2, Fr::one()}});          // y·1 = y
  return cs;
}

template <class E, class Fr = typename E::Fr>
static std::vector<Fr> chain_witness(uint32_t steps, Fr x0, Fr y) {
  std::vector<Fr> w(4 + steps);
  w[0] = Fr::one();
  w[2] = y;
  w[3] = x0;
  for (uint32_t i = 0; i < steps; ++i) w[4 + i] = w[3 + i].square() + w[3 + i] + Fr::from_u64(7);
  w[1] = w[3 + steps];
  return w;
}

// pk proves the chain witness w, and w with its first step's value one more (which satisfies
// no constraint) gives a proof that does not verify.
template <class E, class Fr = typename E::Fr>
static void expect_proves_and_wrong_witness_fails(const zk::ProvingKey<E>& pk,
                                                  const std::vector<Fr>& w) {
  const auto pvk = zk::prepare<E>(zk::verifying_key(pk));
  EXPECT_TRUE(zk::verify<E>(pvk, zk::public_inputs<E>(pk, w), zk::prove<E>(pk, w)));
  auto wb = w;
  wb[4] += Fr::one();
  EXPECT_FALSE(zk::verify<E>(pvk, zk::public_inputs<E>(pk, wb), zk::prove<E>(pk, wb)));
}

TYPED_TEST(Groth16, SnarkjsFixturesProveAndVerify) {
  ENGINE_TYPES;
  for (const char* c : {"multiplier", "mixed", "chain"}) {
    SCOPED_TRACE(c);
    auto pk = io::read_zkey<E>(fixture<E>(std::string(c) + ".zkey"));
    auto w = io::read_wtns<E>(fixture<E>(std::string(c) + ".wtns"));
    auto vk_json = io::read_vkey_json<E>(fixture<E>(std::string(c) + ".vkey.json"));
    auto pvk = zk::prepare<E>(vk_json);
    auto pub = zk::public_inputs<E>(pk, w.values);
    EXPECT_EQ(pub, io::read_public_json<E>(fixture<E>(std::string(c) + ".public.json")));

    auto proof = zk::prove<E>(pk, w.values);
    EXPECT_TRUE(zk::verify<E>(pvk, pub, proof));
    // snarkjs's own proof verifies with our verifier.
    auto sj = io::read_proof_json<E>(fixture<E>(std::string(c) + ".proof.json"));
    EXPECT_TRUE(zk::verify<E>(pvk, pub, sj));
    // Two proofs of the same statement differ (fresh r, s) and both verify.
    auto proof2 = zk::prove<E>(pk, w.values);
    EXPECT_FALSE(proof2.a == proof.a);
    EXPECT_TRUE(zk::verify<E>(pvk, pub, proof2));

    // Tampering: each element of the proof, and each public input.
    auto t = proof;
    t.a = (t.a.to_jacobian() + E::G1Jacobian::generator()).to_affine();
    EXPECT_EQ(zk::verify_reason<E>(pvk, pub, t), "the pairing check failed");
    t = proof;
    t.b = (t.b.to_jacobian().dbl()).to_affine();
    EXPECT_FALSE(zk::verify<E>(pvk, pub, t));
    t = proof;
    t.c = proof.a;
    EXPECT_FALSE(zk::verify<E>(pvk, pub, t));
    t = proof;
    std::swap(t.a, t.c);
    EXPECT_FALSE(zk::verify<E>(pvk, pub, t));
    for (size_t i = 0; i < pub.size(); ++i) {
      auto bad = pub;
      bad[i] += Fr::one();
      EXPECT_FALSE(zk::verify<E>(pvk, bad, proof)) << "public input " << i;
    }
    // A point off the curve is reported as such.
    t = proof;
    t.a.y += E::Fp::one();
    EXPECT_EQ(zk::verify_reason<E>(pvk, pub, t), "pi_a is not on the curve");
    // Wrong number of public inputs is an error, not a "false".
    auto fewer = pub;
    fewer.pop_back();
    EXPECT_THROW(zk::verify<E>(pvk, fewer, proof), splitprove::Error);
  }
}

TYPED_TEST(Groth16, UnsatisfyingWitnessIsNamedAndItsProofFails) {
  ENGINE_TYPES;
  auto r1cs = io::read_r1cs<E>(fixture<E>("chain.r1cs"));
  auto pk = io::read_zkey<E>(fixture<E>("chain.zkey"));
  auto w = io::read_wtns<E>(fixture<E>("chain.wtns"));
  ASSERT_FALSE(zk::first_unsatisfied<E>(r1cs, w.values).has_value());
  auto bad = w.values;
  bad[bad.size() / 2] += Fr::one();
  auto idx = zk::first_unsatisfied<E>(r1cs, bad);
  ASSERT_TRUE(idx.has_value());
  auto proof = zk::prove<E>(pk, bad);
  auto pvk = zk::prepare<E>(zk::verifying_key(pk));
  EXPECT_FALSE(zk::verify<E>(pvk, zk::public_inputs<E>(pk, bad), proof));
  // A witness of the wrong length, or with w[0] != 1, is refused before any work.
  auto shorter = w.values;
  shorter.pop_back();
  EXPECT_THROW(zk::prove<E>(pk, shorter), splitprove::Error);
  auto w0 = w.values;
  w0[0] = Fr::from_u64(2);
  EXPECT_THROW(zk::prove<E>(pk, w0), splitprove::Error);
}

TYPED_TEST(Groth16, DevSetupOfNativeCircuit) {
  ENGINE_TYPES;
  for (uint32_t steps : {1u, 5u, 300u}) {
    SCOPED_TRACE(steps);
    auto cs = chain_r1cs<E>(steps);
    auto w = chain_witness<E>(steps, Fr::random(rng()), Fr::random(rng()));
    ASSERT_FALSE(zk::first_unsatisfied<E>(cs, w).has_value());
    auto pk = zk::dev_setup<E>(cs);
    EXPECT_EQ(pk.domain_size, 1u << (32 - __builtin_clz(steps + 2 + 2)));  // > constraints + n_public
    auto pvk = zk::prepare<E>(zk::verifying_key(pk));
    auto pub = zk::public_inputs<E>(pk, w);
    ASSERT_EQ(pub.size(), 2u);
    auto proof = zk::prove<E>(pk, w);
    EXPECT_TRUE(zk::verify<E>(pvk, pub, proof));
    auto bad = pub;
    bad[1] += Fr::one();
    EXPECT_FALSE(zk::verify<E>(pvk, bad, proof));
    // The key round-trips through the .zkey encoding and still proves.
    auto bytes = io::encode_zkey<E>(pk);
    auto pk2 = io::parse_zkey<E>(bytes, "roundtrip.zkey");
    EXPECT_TRUE(zk::verify<E>(pvk, pub, zk::prove<E>(pk2, w)));
    // A key from another setup does not accept this proof.
    auto other = zk::prepare<E>(zk::verifying_key(zk::dev_setup<E>(cs)));
    EXPECT_FALSE(zk::verify<E>(other, pub, proof));
    // An unsatisfying witness: named, and its proof fails.
    auto wb = w;
    wb[4] += Fr::one();
    EXPECT_EQ(zk::first_unsatisfied<E>(cs, wb), std::optional<size_t>(0));
    EXPECT_FALSE(zk::verify<E>(pvk, zk::public_inputs<E>(pk, wb), zk::prove<E>(pk, wb)));
  }
}

// The H basis at τ without a domain of 2n: L^(2n)_(2i+1)(τ) from H's own Lagrange basis at τ/ω_2n
// equals the odd entries of the basis of the domain of 2n; the monomial basis is τ^i·Z(τ).
TYPED_TEST(Groth16, HBasisAtTauMatchesTheDomainOfTwiceTheSize) {
  ENGINE_TYPES;
  for (unsigned k : {1u, 2u, 5u, 9u}) {
    SCOPED_TRACE(k);
    const poly::Domain<Fr> d(k), d2(k + 1);
    const Fr tau = Fr::random(rng());
    const auto odd = zk::h_basis_at(d, tau, zk::HBasis::odd_coset);
    const auto all = d2.lagrange_at(tau);
    ASSERT_EQ(odd.size(), d.size());
    for (size_t i = 0; i < d.size(); ++i) EXPECT_EQ(odd[i], all[2 * i + 1]) << i;
    const auto mono = zk::h_basis_at(d, tau, zk::HBasis::monomial);
    Fr t = d.vanishing_at(tau);
    for (size_t i = 0; i < d.size(); ++i, t *= tau) EXPECT_EQ(mono[i], t) << i;
    // τ on the domain of 2n (an odd point): the basis is one-hot there.
    const Fr on = d2.omega() * d2.omega().square();  // ω_2n^3, odd point 1
    const auto hot = zk::h_basis_at(d, on, zk::HBasis::odd_coset);
    if (d.size() > 1)
      for (size_t i = 0; i < d.size(); ++i) EXPECT_EQ(hot[i], i == 1 ? Fr::one() : Fr::zero()) << i;
  }
}

// dev_setup_scalars stops at the scalars of the key's point vectors: its key has the sizes, α, β,
// γ, δ and IC but no points, the coefficient list only when asked for, and the points made from
// the scalars (here on the host, one product at a time) complete a key that proves and verifies.
TYPED_TEST(Groth16, DevSetupScalarsCompleteToAWorkingKey) {
  ENGINE_TYPES;
  const uint32_t steps = 40;
  auto cs = chain_r1cs<E>(steps);
  auto w = chain_witness<E>(steps, Fr::random(rng()), Fr::random(rng()));
  EXPECT_TRUE(zk::dev_setup_scalars<E>(cs, {}, zk::HBasis::odd_coset, false).pk.coeffs.empty());
  auto sk = zk::dev_setup_scalars<E>(cs);
  zk::ProvingKey<E> pk = sk.pk;
  EXPECT_TRUE(pk.a.empty() && pk.b1.empty() && pk.b2.empty() && pk.c.empty() && pk.h.empty());
  EXPECT_FALSE(pk.coeffs.empty());
  ASSERT_EQ(pk.ic.size(), pk.n_public + 1u);
  const auto& ks = sk.scalars;
  ASSERT_EQ(ks.a.size(), pk.n_vars);
  ASSERT_EQ(ks.b.size(), pk.n_vars);
  ASSERT_EQ(ks.l.size(), pk.n_vars - pk.n_public - 1);
  ASSERT_EQ(ks.h.size(), pk.domain_size);
  EXPECT_GE(ks.bytes(), (3 * ks.a.size() + ks.h.size()) * sizeof(Fr));
  auto g1 = [](const std::vector<Fr>& v) {
    std::vector<typename E::G1Affine> out;
    for (const auto& k : v) out.push_back(E::G1::mul_ct(E::G1Affine::generator(), k).to_affine());
    return out;
  };
  std::vector<typename E::G2Affine> b2;
  for (const auto& k : ks.b) b2.push_back(E::G2::mul_ct(E::G2Affine::generator(), k).to_affine());
  pk.a = g1(ks.a);
  pk.b1 = g1(ks.b);
  pk.b2 = std::move(b2);
  pk.c = g1(ks.l);
  pk.h = g1(ks.h);
  expect_proves_and_wrong_witness_fails<E>(pk, w);
}

// Keys with the monomial H basis τ^i·Z(τ)/δ (bellman-style): the prover takes h's coefficients
// (poly::h_coefficients) as the H scalars. Proofs verify, a wrong witness fails, the basis flag
// matters (the same key read as odd-coset gives a failing proof), and .zkey refuses such a key.
TYPED_TEST(Groth16, DevSetupMonomialHBasis) {
  ENGINE_TYPES;
  for (uint32_t steps : {1u, 300u}) {
    SCOPED_TRACE(steps);
    auto cs = chain_r1cs<E>(steps);
    auto w = chain_witness<E>(steps, Fr::random(rng()), Fr::random(rng()));
    auto pk = zk::dev_setup<E>(cs, {}, zk::HBasis::monomial);
    EXPECT_EQ(pk.h_basis, zk::HBasis::monomial);
    ASSERT_EQ(pk.h.size(), pk.domain_size);
    expect_proves_and_wrong_witness_fails<E>(pk, w);
    auto pvk = zk::prepare<E>(zk::verifying_key(pk));
    auto pub = zk::public_inputs<E>(pk, w);
    auto as_odd = pk;
    as_odd.h_basis = zk::HBasis::odd_coset;
    EXPECT_FALSE(zk::verify<E>(pvk, pub, zk::prove<E>(as_odd, w)));
    EXPECT_THROW(io::encode_zkey<E>(pk), splitprove::Error);
  }
}

TYPED_TEST(Groth16, DevSetupMatchesSnarkjsLayout) {
  ENGINE_TYPES;
  // Same circuit as the snarkjs fixture: same sizes, and the same coefficient list (the rows the
  // prover evaluates), so keys from either setup are interchangeable for provers.
  auto r1cs = io::read_r1cs<E>(fixture<E>("mixed.r1cs"));
  auto sj = io::read_zkey<E>(fixture<E>("mixed.zkey"));
  auto ours = zk::dev_setup<E>(r1cs);
  EXPECT_EQ(ours.n_vars, sj.n_vars);
  EXPECT_EQ(ours.n_public, sj.n_public);
  EXPECT_EQ(ours.domain_size, sj.domain_size);
  ASSERT_EQ(ours.coeffs.size(), sj.coeffs.size());
  for (size_t i = 0; i < ours.coeffs.size(); ++i) {
    EXPECT_EQ(ours.coeffs[i].matrix, sj.coeffs[i].matrix) << i;
    EXPECT_EQ(ours.coeffs[i].row, sj.coeffs[i].row) << i;
    EXPECT_EQ(ours.coeffs[i].col, sj.coeffs[i].col) << i;
    EXPECT_EQ(ours.coeffs[i].value(), sj.coeffs[i].value()) << i;
  }
  EXPECT_EQ(ours.h.size(), sj.h.size());
  EXPECT_EQ(ours.c.size(), sj.c.size());
}

// The G2 input: the scalars of the B-dense wires, gathered over the pool in chunks, with the count
// of those that are neither 0 nor 1 (the G2 MSM's tail); a wire past the assignment is an error.
TYPED_TEST(Groth16, CompactG2ScalarsGathersTheWiresAndCountsTheTail) {
  ENGINE_TYPES
  const std::size_t n_z = 5000, n_wires = (std::size_t(1) << 16) * 3 + 123;  // several chunks
  std::vector<Fr> z(n_z);
  for (std::size_t i = 0; i < n_z; ++i)
    z[i] = i % 4 == 0 ? Fr::zero() : i % 4 == 1 ? Fr::one() : Fr::random(rng());
  zk::G2Bases<E> bases;
  std::uniform_int_distribution<std::uint32_t> pick(0, n_z - 1);
  for (std::size_t k = 0; k < n_wires; ++k) bases.wires.push_back(pick(rng()));
  std::vector<Fr> out(n_wires);
  const std::size_t tail = zk::compact_g2_scalars<E>(bases, z, out);
  std::size_t want = 0;
  for (std::size_t k = 0; k < n_wires; ++k) {
    ASSERT_EQ(out[k], z[bases.wires[k]]) << k;
    want += bases.wires[k] % 4 >= 2 && !z[bases.wires[k]].is_zero() && !z[bases.wires[k]].is_one();
  }
  EXPECT_EQ(tail, want);
  EXPECT_GT(tail, n_wires / 3);

  bases.wires[n_wires - 7] = n_z;  // one past the end, in the last chunk
  try {
    zk::compact_g2_scalars<E>(bases, z, out);
    ADD_FAILURE() << "a wire past the assignment was accepted";
  } catch (const splitprove::Error& e) {
    EXPECT_NE(std::string(e.what()).find(fmt::format("wire {} is past the assignment's {} values",
                                                     n_z, n_z)),
              std::string::npos)
        << e.what();
  }
  std::vector<Fr> short_out(n_wires - 1);
  EXPECT_THROW(zk::compact_g2_scalars<E>(bases, z, short_out), splitprove::Error);
}
