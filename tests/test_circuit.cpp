// The native constraint-system API and its gadgets: every gadget is satisfied by its honest
// witness and fails, naming its namespace, on a wrong one; the hash and Merkle gadgets agree with
// their native implementations; recording and synthesis produce the same assignment; the PoRep
// circuit has the size porep_for_log2 promises.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/gadgets.hpp"
#include "circuit/hash.hpp"
#include "circuit/merkle.hpp"
#include "circuit/porep.hpp"
#include "splitprove/error.hpp"
#include "test_util.hpp"
#include "ec/curves.hpp"

using namespace splitprove;
using namespace splitprove::circuit;
using Fr = ec::Bls12_381::Fr;
using splitprove::testing::rng;

namespace {

// Records `body` and returns the recording (its z satisfies or not, see first_unsatisfied).
template <class F>
Recording<Fr> record(F&& body, const std::string& name = "t") {
  Recorder<Fr> rec(name);
  body(rec);
  return std::move(rec).finish();
}

// The message of the error check() throws for the recording, or "" when satisfied.
std::string failure(const Recording<Fr>& r) {
  auto row = r.cs.first_unsatisfied(std::span<const Fr>(r.z));
  return row ? r.cs.unsatisfied(*row, "").what() : "";
}

Fr random_bits(unsigned bits) {
  typename Fr::Repr x{};
  for (size_t i = 0; i < x.size(); ++i) {
    const unsigned lo = unsigned(64 * i);
    x[i] = lo >= bits ? 0 : bits - lo >= 64 ? rng()() : rng()() & ((uint64_t(1) << (bits - lo)) - 1);
  }
  return Fr::from_canonical(x);
}

}  // namespace

TEST(Circuit, WireNumberingFollowsZkey) {
  // Publics and privates allocated interleaved end up as 0 = 1, publics, privates.
  auto r = record([](auto& cs) {
    Variable p0 = cs.alloc(Fr::from_u64(3));
    Variable q0 = cs.alloc_public(Fr::from_u64(9));
    Variable p1 = cs.alloc(Fr::from_u64(5));
    Variable q1 = cs.alloc_public(Fr::from_u64(15));
    cs.enforce("p0*p0", cs.lc(p0), cs.lc(p0), cs.lc(q0));
    cs.enforce("p0*p1", cs.lc(p0), cs.lc(p1), cs.lc(q1));
  });
  EXPECT_EQ(r.cs.n_public, 2u);
  EXPECT_EQ(r.cs.n_vars(), 5u);
  ASSERT_EQ(r.z.size(), 5u);
  EXPECT_EQ(r.z, (std::vector<Fr>{Fr::one(), Fr::from_u64(9), Fr::from_u64(15), Fr::from_u64(3),
                                  Fr::from_u64(5)}));
  EXPECT_EQ(r.cs.a.row(1)[0].col, 3u);
  EXPECT_EQ(r.cs.b.row(1)[0].col, 4u);
  EXPECT_EQ(r.cs.c.row(1)[0].col, 2u);
  EXPECT_EQ(failure(r), "");
  // A density: p0 (wire 3) and the public-binding wires 0..2; B density: p0, p1.
  EXPECT_EQ(r.cs.a_density, (std::vector<bool>{true, true, true, true, false}));
  EXPECT_EQ(r.cs.b_density, (std::vector<bool>{false, false, false, true, true}));
  EXPECT_EQ(r.cs.b_dense_count(), 2u);
  // Rows are 2 constraints + 3 binding rows = 5 -> domain 8.
  EXPECT_EQ(r.cs.domain_size(), 8u);
}

TEST(Circuit, LinearCombinationsAreMergedAndZerosDropped) {
  auto r = record([](auto& cs) {
    Variable x = cs.alloc(Fr::from_u64(4));
    Variable y = cs.alloc(Fr::from_u64(6));
    // (x + y - x + 2y)·1 = 3y: A has one term (y, 3) after merging.
    cs.enforce("m", cs.lc(x) + cs.lc(y) - cs.lc(x) + cs.lc(y) * Fr::from_u64(2),
               cs.constant(Fr::one()), cs.lc(y) * Fr::from_u64(3));
  });
  ASSERT_EQ(r.cs.a.row(0).size(), 1u);
  EXPECT_EQ(r.cs.a.row(0)[0].col, 2u);
  EXPECT_EQ(r.cs.coeffs[r.cs.a.row(0)[0].coeff], Fr::from_u64(3));
  EXPECT_EQ(failure(r), "");
}

TEST(Circuit, BooleanRejectsNonBit) {
  for (uint64_t v : {0, 1}) EXPECT_EQ(failure(record([&](auto& cs) { alloc_boolean(cs, v == 1); })), "");
  auto r = record([](auto& cs) {
    auto s = cs.scope("flags", 4);
    enforce_boolean(cs, cs.alloc(Fr::from_u64(2)));
  });
  EXPECT_EQ(failure(r), "t/flags 4/boolean: constraint 0 unsatisfied");
}

TEST(Circuit, BitDecompositionAndPacking) {
  for (unsigned n : {1u, 8u, 64u, 65u, 200u, 254u}) {
    SCOPED_TRACE(n);
    const Fr x = random_bits(n);
    std::vector<bool> got;
    auto r = record([&](auto& cs) {
      auto bits = to_bits(cs, cs.lc(cs.alloc(x)), n);
      for (Variable b : bits) got.push_back(!cs.value(b).is_zero());
      Variable y = pack(cs, std::span<const Variable>(bits));
      cs.enforce("same", cs.lc(y), cs.constant(Fr::one()), cs.constant(x));
    });
    EXPECT_EQ(failure(r), "");
    EXPECT_EQ(r.cs.n_constraints, n + 1 + 1 + 1);
    const auto c = x.to_canonical();
    for (unsigned i = 0; i < n; ++i) EXPECT_EQ(got[i], bool((c[i / 64] >> (i % 64)) & 1)) << i;
  }
  // A value wider than the decomposition: the packing constraint fails.
  auto r = record([&](auto& cs) {
    auto s = cs.scope("narrow");
    to_bits(cs, cs.lc(cs.alloc(Fr::from_u64(256 + 5))), 8);
  });
  EXPECT_EQ(failure(r), "t/narrow/packing: constraint 8 unsatisfied");
}

TEST(Circuit, ArithmeticSelectSwapXor) {
  const Fr a = Fr::random(rng()), b = Fr::random(rng());
  for (bool bit : {false, true}) {
    auto r = record([&](auto& cs) {
      auto la = cs.lc(cs.alloc(a)), lb = cs.lc(cs.alloc(b));
      Variable s = add(cs, la, lb), m = mul(cs, la, lb);
      EXPECT_EQ(cs.value(s), a + b);
      EXPECT_EQ(cs.value(m), a * b);
      Variable bv = alloc_boolean(cs, bit);
      Variable sel = select(cs, bv, la, lb);
      EXPECT_EQ(cs.value(sel), bit ? a : b);
      auto [l, rr] = cond_swap(cs, bv, la, lb);
      EXPECT_EQ(l.value(), bit ? b : a);
      EXPECT_EQ(rr.value(), bit ? a : b);
      for (bool o : {false, true}) {
        Variable x = xor_bits(cs, bv, alloc_boolean(cs, o));
        EXPECT_EQ(cs.value(x), bit != o ? Fr::one() : Fr::zero());
      }
    });
    EXPECT_EQ(failure(r), "");
  }
  // Wrong results are caught: a product, a selection, an XOR with a non-boolean-looking output.
  auto wrong = [&](const char* what, auto&& body) {
    auto r = record([&](auto& cs) {
      auto s = cs.scope(what);
      body(cs);
    });
    EXPECT_NE(failure(r).find(std::string("t/") + what + "/"), std::string::npos) << failure(r);
  };
  wrong("mul", [&](auto& cs) {
    Variable x = cs.alloc(a), y = cs.alloc(b), z = cs.alloc(a * b + Fr::one());
    cs.enforce("mul", cs.lc(x), cs.lc(y), cs.lc(z));
  });
  wrong("select", [&](auto& cs) {
    Variable bit = alloc_boolean(cs, true);
    Variable r = cs.alloc(b);  // should be a
    cs.enforce("select", cs.lc(bit), cs.lc(cs.alloc(a)) - cs.lc(cs.alloc(b)), cs.lc(r) - cs.constant(b));
  });
  wrong("xor", [&](auto& cs) {
    Variable x = alloc_boolean(cs, true), y = alloc_boolean(cs, true);
    Variable c = cs.alloc(Fr::one());  // 1 ^ 1 = 0
    cs.enforce("xor", cs.lc(x) * Fr::from_u64(2), cs.lc(y), cs.lc(x) + cs.lc(y) - cs.lc(c));
  });
}

TEST(Circuit, HashGadgetMatchesNative) {
  for (int t = 0; t < 3; ++t) {
    const Fr l = Fr::random(rng()), r = Fr::random(rng());
    const Fr h = bench_hash(l, r);
    EXPECT_NE(h, bench_hash(r, l));
    EXPECT_NE(h, bench_hash(l + Fr::one(), r));
    Fr got;
    auto rec = record([&](auto& cs) {
      auto out = bench_hash_gadget(cs, cs.lc(cs.alloc(l)), cs.lc(cs.alloc(r)));
      got = out.value();
      Variable hv = cs.alloc_public(h);
      cs.enforce("out", out, cs.constant(Fr::one()), cs.lc(hv));
    });
    EXPECT_EQ(got, h);
    EXPECT_EQ(rec.cs.n_constraints, kBenchHashConstraints + 1);
    EXPECT_EQ(failure(rec), "");
    // Claiming a wrong output fails at the output constraint.
    auto bad = record([&](auto& cs) {
      auto out = bench_hash_gadget(cs, cs.lc(cs.alloc(l)), cs.lc(cs.alloc(r)));
      cs.enforce("out", out, cs.constant(Fr::one()), cs.lc(cs.alloc_public(h + Fr::one())));
    });
    EXPECT_EQ(failure(bad), fmt::format("t/out: constraint {} unsatisfied", kBenchHashConstraints));
    // A wrong S-box value inside is named by round.
    auto rec2 = record([&](auto& cs) { bench_hash_gadget(cs, cs.lc(cs.alloc(l)), cs.lc(cs.alloc(r))); });
    auto z = rec2.z;
    const size_t row = 3 * 3 * 5 + 3 * 1 + 1;  // round 5, S-box 1, x^4
    z[rec2.cs.c.row(row)[0].col] += Fr::one();
    auto idx = rec2.cs.first_unsatisfied(std::span<const Fr>(z));
    ASSERT_TRUE(idx.has_value());
    EXPECT_EQ(*idx, row);
    EXPECT_EQ(rec2.cs.where(row), "t/hash/round 5/x^4");
  }
}

TEST(Circuit, SparseMerkleTreeMatchesDenseTree) {
  const unsigned d = 4;
  std::vector<Fr> leaves(16, Fr::zero());
  std::vector<std::pair<uint64_t, Fr>> set;
  for (uint64_t i : {3, 4, 9, 15, 4}) {
    leaves[i] = Fr::random(rng());
    set.push_back({i, leaves[i]});
  }
  std::vector<Fr> level = leaves;
  while (level.size() > 1) {
    std::vector<Fr> up(level.size() / 2);
    for (size_t i = 0; i < up.size(); ++i) up[i] = bench_hash(level[2 * i], level[2 * i + 1]);
    level = up;
  }
  SparseMerkleTree<Fr> tree(d, set);
  EXPECT_EQ(tree.root(), level[0]);
  for (uint64_t i = 0; i < 16; ++i) {
    auto sib = tree.siblings(i);
    EXPECT_EQ(merkle_root_native(leaves[i], i, std::span<const Fr>(sib)), level[0]) << i;
  }
  EXPECT_THROW(SparseMerkleTree<Fr>(d, std::vector<std::pair<uint64_t, Fr>>{{16, Fr::one()}}), Error);
}

TEST(Circuit, MerkleGadgetAcceptsThePathAndRejectsAnother) {
  const unsigned d = 5;
  std::vector<std::pair<uint64_t, Fr>> set{{6, Fr::random(rng())}, {21, Fr::random(rng())}};
  SparseMerkleTree<Fr> tree(d, set);
  auto run = [&](uint64_t index, Fr leaf, Fr root) {
    return record([&](auto& cs) {
      Variable rv = cs.alloc_public(root);
      Variable iv = cs.alloc_public(Fr::from_u64(index));
      auto bits = to_bits(cs, cs.lc(iv), d);
      std::vector<Variable> sib;
      for (const Fr& s : tree.siblings(index)) sib.push_back(cs.alloc(s));
      auto top = merkle_root_gadget(cs, cs.lc(cs.alloc(leaf)), std::span<const Variable>(bits),
                                    std::span<const Variable>(sib));
      cs.enforce("root", top, cs.constant(Fr::one()), cs.lc(rv));
    });
  };
  for (const auto& [i, leaf] : set) EXPECT_EQ(failure(run(i, leaf, tree.root())), "");
  const size_t last = d + 1 + d * (1 + kBenchHashConstraints);
  const std::string msg = fmt::format("t/root: constraint {} unsatisfied", last);
  EXPECT_EQ(failure(run(6, set[0].second + Fr::one(), tree.root())), msg);  // wrong leaf
  EXPECT_EQ(failure(run(7, set[0].second, tree.root())), msg);              // wrong index
  EXPECT_EQ(failure(run(6, set[0].second, tree.root() + Fr::one())), msg);  // wrong root
}

TEST(Circuit, RecordingAndSynthesisAgree) {
  PorepParams p;
  p.challenges = 3;
  p.depth = 5;
  p.layers = 2;
  p.parents = 3;
  p.label_bits = 40;
  p.tail_constraints = 300;
  p.seed = 77;
  auto rec = record_porep<Fr>(p);
  const auto& cs = rec.cs;
  EXPECT_EQ(cs.n_constraints, p.n_constraints());
  EXPECT_EQ(cs.n_public, p.n_public());
  EXPECT_EQ(failure(rec), "");
  // Partition 0 synthesized = the recording's assignment; other partitions differ but satisfy.
  for (size_t part : {0, 1, 2}) {
    SCOPED_TRACE(part);
    std::vector<Fr> z(cs.n_vars());
    Synthesizer<Fr> syn(z, cs.n_public);
    porep_circuit(syn, p, porep_witness<Fr>(p, part), part);
    syn.finish();
    if (part == 0) EXPECT_EQ(z, rec.z);
    else EXPECT_NE(z, rec.z);
    EXPECT_FALSE(cs.first_unsatisfied(std::span<const Fr>(z)).has_value());
    // evaluate() = the rows applied to z, binding rows, zeros; a·b is C·z on every row.
    const size_t n = cs.domain_size();
    std::vector<Fr> a(n), b(n);
    cs.evaluate(z, a, b);
    for (size_t i = 0; i < n; ++i) {
      if (i < cs.n_constraints) {
        ASSERT_EQ(a[i], cs.dot(cs.a, i, z)) << i;
        ASSERT_EQ(b[i], cs.dot(cs.b, i, z)) << i;
        ASSERT_EQ(a[i] * b[i], cs.dot(cs.c, i, z)) << i;
      } else {
        ASSERT_EQ(a[i], i - cs.n_constraints <= cs.n_public ? z[i - cs.n_constraints] : Fr::zero()) << i;
        ASSERT_TRUE(b[i].is_zero()) << i;
      }
    }
    EXPECT_FALSE(cs.first_unsatisfied(z, a, b).has_value());
  }
  // A generator that does not match the recorded shape is refused.
  PorepParams q = p;
  q.tail_constraints += 1;
  std::vector<Fr> z(cs.n_vars());
  Synthesizer<Fr> syn(z, cs.n_public);
  EXPECT_THROW(
      {
        porep_circuit(syn, q, porep_witness<Fr>(q, 0), 0);
        syn.finish();
      },
      Error);
  q = p;
  q.tail_constraints -= 300;
  std::vector<Fr> z2(cs.n_vars());
  Synthesizer<Fr> syn2(z2, cs.n_public);
  porep_circuit(syn2, q, porep_witness<Fr>(q, 0), 0);
  EXPECT_THROW(syn2.finish(), Error);
}

// Binary wires are the ones the rows force to 0 or 1: booleans in either order, x·x = x, and
// the XOR of two binary wires; a wire that merely holds 0 or 1, or an XOR with a non-binary
// input, is not.
TEST(Circuit, BinaryWiresAreTheOnesTheRowsForce) {
  auto r = record([](auto& cs) {
    Variable a = alloc_boolean(cs, true);                   // wire 1: w·(1 - w) = 0
    Variable b = cs.alloc(Fr::zero());                      // wire 2: (1 - w)·w = 0
    cs.enforce("b", [&] { return cs.constant(Fr::one()) - cs.lc(b); }, cs.lc(b), cs.zero());
    Variable c = cs.alloc(Fr::one());                       // wire 3: w·w = w
    cs.enforce("c", cs.lc(c), cs.lc(c), cs.lc(c));
    Variable x = xor_bits(cs, a, b);                        // wire 4: XOR of binary wires
    Variable y = xor_bits(cs, x, c);                        // wire 5: and again
    Variable free = cs.alloc(Fr::one());                    // wire 6: 1, but nothing forces it
    cs.enforce("free", cs.lc(free), cs.constant(Fr::one()), cs.lc(free));
    Variable z = xor_bits(cs, y, free);                     // wire 7: an input is not binary
    Variable v = cs.alloc(Fr::from_u64(7));                 // wire 8: w·(1 - w) = -42
    cs.enforce("v", cs.lc(v), [&] { return cs.constant(Fr::one()) - cs.lc(v); },
               cs.constant(-Fr::from_u64(42)));
    (void)z;
  });
  EXPECT_EQ(failure(r), "");
  EXPECT_EQ(r.cs.binary,
            (std::vector<bool>{true, true, true, true, true, true, false, false, false}));
}

TEST(Circuit, PorepSizesFillThePowerOfTwo) {
  for (unsigned k = 10; k <= 22; ++k) {
    SCOPED_TRACE(k);
    auto p = porep_for_log2(k);
    EXPECT_EQ(p.n_constraints() + p.n_public(), (uint64_t(1) << k) - 1);
    EXPECT_GE(p.challenges, k >= 13 ? 4u : 1u);
    EXPECT_LE(p.tail_constraints, p.challenge_constraints() + 1);
    if (k >= 16) EXPECT_EQ(p.depth, k);
  }
  EXPECT_THROW(porep_for_log2(9), Error);
  // Recorded sizes match the formula, and the witness is mostly 0s and 1s.
  for (unsigned k : {10u, 11u, 12u, 13u}) {
    SCOPED_TRACE(k);
    auto p = porep_for_log2(k, 5);
    auto rec = record_porep<Fr>(p);
    EXPECT_EQ(rec.cs.n_constraints, p.n_constraints());
    EXPECT_EQ(rec.cs.n_public, p.n_public());
    EXPECT_EQ(rec.cs.domain_size(), size_t(1) << k);
    EXPECT_EQ(failure(rec), "");
    EXPECT_GT(zero_one_fraction<Fr>(rec.z), 0.5);
    // Binary wires hold 0 or 1, and they are most of the B-dense wires (the G2 MSM's tail is
    // bounded by the others): bits of the Merkle paths, labels and data.
    size_t dense = 0, binary_dense = 0;
    for (size_t w = 0; w < rec.z.size(); ++w) {
      if (rec.cs.binary[w]) EXPECT_TRUE(rec.z[w].is_zero() || rec.z[w].is_one()) << "wire " << w;
      dense += rec.cs.b_density[w];
      binary_dense += rec.cs.b_density[w] && rec.cs.binary[w];
    }
    EXPECT_GT(2 * binary_dense, dense);
  }
}

TEST(Circuit, ForksFillTheirRangesOnly) {
  // Recorded: one public, then two parts of 2 privates each (x, x^2), then a constraint per part.
  auto part = [](auto& cs, uint64_t x) {
    Variable v = cs.alloc(Fr::from_u64(x));
    mul(cs, cs.lc(v), cs.lc(v), "square");
  };
  auto rec = record([&](auto& cs) {
    cs.alloc_public(Fr::from_u64(7));
    part(cs, 3);
    part(cs, 5);
  });
  std::vector<Fr> z(rec.cs.n_vars());
  Synthesizer<Fr> syn(z, rec.cs.n_public);
  syn.alloc_public(Fr::from_u64(7));
  // The second part first, on its own fork: the same z as sequential synthesis.
  auto f1 = syn.fork(1, 1, 2, 4);
  part(f1, 5);
  f1.finish();
  auto f0 = syn.fork(1, 1, 0, 2);
  part(f0, 3);
  f0.finish();
  syn.skip_to(1, 4);
  syn.finish();
  EXPECT_EQ(z, rec.z);
  // A fork that allocates more than its range, or fewer, or a range already taken, is an error.
  auto f2 = syn.fork(1, 1, 4, 4);
  EXPECT_THROW(part(f2, 1), Error);
  Synthesizer<Fr> syn2(z, rec.cs.n_public);
  auto f3 = syn2.fork(0, 1, 0, 3);
  part(f3, 2);
  EXPECT_THROW(f3.finish(), Error);
  syn2.alloc_public(Fr::one());
  EXPECT_THROW(syn2.fork(0, 1, 0, 2), Error);
  EXPECT_THROW(syn2.skip_to(1, 5), Error);
}
