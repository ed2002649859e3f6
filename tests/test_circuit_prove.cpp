// Native circuits end to end: a PoRep-shaped circuit converted to an .r1cs model gets a
// development key, NativeSource's z, a, b, c are what the prover's own evaluation from the key's
// coefficients gives, a proof from that z verifies (and fails for other public inputs), a tampered
// witness is refused with the partition and the constraint's namespace, and concurrent partitions
// give the same results as sequential ones.
#include <gtest/gtest.h>

#include <stop_token>
#include <thread>
#include <vector>

#include "circuit/native_source.hpp"
#include "circuit/porep.hpp"
#include "circuit/r1cs.hpp"
#include "io/r1cs.hpp"
#include "splitprove/error.hpp"
#include "test_util.hpp"
#include "zk/groth16.hpp"
#include "zk/groth16_impl.hpp"
#include "zk/setup.hpp"
#include "zk/setup_impl.hpp"

using namespace splitprove;
using namespace splitprove::circuit;
using E = ec::Bls12_381;
using Fr = E::Fr;

namespace {

PorepParams small_params() {
  PorepParams p;
  p.name = "porep-small";
  p.challenges = 2;
  p.depth = 4;
  p.layers = 2;
  p.parents = 2;
  p.label_bits = 32;
  p.tail_constraints = 40;
  p.seed = 9;
  return p;
}

struct Buffers {
  std::vector<Fr> z, a, b;
  explicit Buffers(const Shape& s) : z(s.n_vars), a(s.domain_size), b(s.domain_size) {}
};

void run(const PartitionSource<Fr>& src, size_t partition, Buffers& buf, const std::stop_token& stop = {}) {
  src.synthesize(partition, buf.z, buf.a, buf.b, stop);
}

}  // namespace

// The setup's sums at τ (u, v, w: per wire Σ coefficient·L_i over its terms), which threads
// split by wire ranges, are the plain sequential sums, read from the recorded circuit in place or
// from its R1cs copy; the coefficient lists of the two keys are the same; a term naming a wire
// past the end is refused by name.
TEST(CircuitProve, SetupReadsTheRecordedTermsInPlace) {
  auto rec = record_porep<Fr>(small_params());
  const ConstraintSystem<Fr>& cs = rec.cs;
  const auto r1cs = to_r1cs<E>(cs);
  std::vector<Fr> L(cs.n_constraints);
  for (auto& x : L) x = Fr::random(splitprove::testing::rng());
  const size_t n = cs.n_vars();
  std::vector<std::vector<Fr>> want(3, std::vector<Fr>(n, Fr::zero()));
  for (size_t i = 0; i < cs.n_constraints; ++i)
    for (int m = 0; m < 3; ++m)
      for (const auto& t : r1cs.lc(i, m)) want[m][t.wire] += t.coeff * L[i];
  size_t nonzero = 0;
  for (const auto& x : want[0]) nonzero += !x.is_zero();
  EXPECT_GT(nonzero, n / 2);
  auto sums = [&](const auto& rows) {
    std::vector<std::vector<Fr>> got(3, std::vector<Fr>(n, Fr::zero()));
    zk::sums_at_tau(rows, std::span<const Fr>(L), got[0], got[1], got[2]);
    return got;
  };
  EXPECT_EQ(sums(setup_rows(cs)), want);
  EXPECT_EQ(sums(zk::rows_of(r1cs)), want);

  const auto a = zk::dev_setup_scalars<E>(setup_rows(cs)).pk.coeffs;
  const auto b = zk::dev_setup_scalars<E>(r1cs).pk.coeffs;
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), cs.n_constraints);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].matrix, b[i].matrix) << i;
    ASSERT_EQ(a[i].row, b[i].row) << i;
    ASSERT_EQ(a[i].col, b[i].col) << i;
    ASSERT_EQ(a[i].value(), b[i].value()) << i;
  }

  auto bad = r1cs;
  bad.terms[bad.offsets[3 * 5]].wire = bad.n_wires;  // constraint 5's first A term
  try {
    zk::dev_setup_scalars<E>(bad, {}, zk::HBasis::odd_coset, false);
    FAIL() << "a wire past the end was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fmt::format("constraint 5 names wire {} of {}",
                                                     bad.n_wires, bad.n_wires)),
              std::string::npos)
        << e.what();
  }
}

TEST(CircuitProve, PorepProvesAndVerifies) {
  const auto p = small_params();
  auto rec = record_porep<Fr>(p);
  auto cs = std::make_shared<const ConstraintSystem<Fr>>(std::move(rec.cs));
  auto r1cs = to_r1cs<E>(*cs);
  // The .r1cs model agrees: the recording's z satisfies it, and it round-trips through the file
  // encoding.
  ASSERT_FALSE(zk::first_unsatisfied<E>(r1cs, rec.z).has_value());
  auto back = io::parse_r1cs<E>(io::encode_r1cs<E>(r1cs), "porep-small.r1cs");
  EXPECT_EQ(back.n_wires, cs->n_vars());
  EXPECT_EQ(back.n_public(), cs->n_public);
  EXPECT_EQ(back.n_constraints, cs->n_constraints);
  ASSERT_EQ(back.terms.size(), r1cs.terms.size());

  auto pk = zk::dev_setup<E>(setup_rows(*cs));  // the recorded terms in place, as the harness does
  const Shape shape = cs->shape();
  EXPECT_EQ(pk.n_vars, shape.n_vars);
  EXPECT_EQ(pk.n_public, shape.n_public);
  EXPECT_EQ(pk.domain_size, shape.domain_size);
  auto pvk = zk::prepare<E>(zk::verifying_key(pk));

  auto src = porep_source<Fr>(p, cs, true);
  EXPECT_EQ(src->describe(), "porep-small");
  EXPECT_GT(src->shape().scratch_bytes, 0u);
  for (size_t part : {0, 3}) {
    SCOPED_TRACE(part);
    Buffers buf(shape);
    run(*src, part, buf);
    // a, b from the key's coefficient list (the prover's own evaluation) equal the source's.
    std::vector<Fr> a(shape.domain_size, Fr::zero()), b(shape.domain_size, Fr::zero());
    zk::evaluate_ab<E>(pk, buf.z, a, b);
    EXPECT_EQ(a, buf.a);
    EXPECT_EQ(b, buf.b);
    // c = a∘b is the C row applied to z on every row (the host never holds c): the constraint
    // rows, the public-binding rows and the padding.
    for (size_t i = 0; i < shape.domain_size; ++i) {
      const Fr cz = i < cs->n_constraints ? cs->dot(cs->c, i, buf.z) : Fr::zero();
      ASSERT_EQ(cz, a[i] * b[i]) << i;
    }
    // B density: exactly the wires with a B coefficient in the key.
    std::vector<bool> bd(shape.n_vars, false), ad(shape.n_vars, false);
    for (size_t k = 0; k < pk.coeffs.size(); ++k) {
      const auto co = pk.coeffs[k];
      (co.matrix == zk::Matrix::kB ? bd : ad)[co.col] = true;
    }
    EXPECT_EQ(bd, cs->b_density);
    EXPECT_EQ(ad, cs->a_density);

    auto pub = zk::public_inputs<E>(pk, buf.z);
    ASSERT_EQ(pub.size(), p.n_public());
    auto proof = zk::prove<E>(pk, buf.z);
    EXPECT_TRUE(zk::verify<E>(pvk, pub, proof));
    auto bad = pub;
    bad[1] += Fr::one();  // another challenge index
    EXPECT_FALSE(zk::verify<E>(pvk, bad, proof));
  }
  // Partitions differ (their own data), so do their public roots.
  Buffers b0(shape), b1(shape);
  run(*src, 0, b0);
  run(*src, 1, b1);
  EXPECT_NE(b0.z[1], b1.z[1]);
}

TEST(CircuitProve, TamperedWitnessIsNamed) {
  const auto p = small_params();
  auto rec = record_porep<Fr>(p);
  auto cs = std::make_shared<const ConstraintSystem<Fr>>(std::move(rec.cs));
  const Shape shape = cs->shape();
  // Tamper with the variable a chosen constraint defines (allocated just before it, so the last
  // wire of its C row): that constraint is the first one unsatisfied, no earlier row uses it.
  auto rows_named = [&](const std::string& suffix) {
    std::vector<size_t> rows;
    for (size_t i = 0; i < cs->n_constraints; ++i) {
      const std::string w = cs->where(i);
      if (w.size() >= suffix.size() && w.compare(w.size() - suffix.size(), suffix.size(), suffix) == 0)
        rows.push_back(i);
    }
    return rows;
  };
  for (const char* name : {"/x^4", "/xor", "/label/packing", "/select"}) {
    auto rows = rows_named(name);
    ASSERT_FALSE(rows.empty()) << name;
    const size_t row = rows[rows.size() / 2];
    ASSERT_FALSE(cs->c.row(row).empty());
    const uint32_t wire = cs->c.row(row).back().col;
    ASSERT_GT(wire, cs->n_public);
    auto gen = [&](Synthesizer<Fr>& syn, size_t part) {
      porep_circuit(syn, p, porep_witness<Fr>(p, part), part);
      const Variable v{wire - 1 - cs->n_public, Variable::kPrivate};
      syn.set(v, syn.value(v) + Fr::one());
    };
    NativeSource<Fr> src(cs, gen, {true, 0});
    Buffers buf(shape);
    try {
      run(src, 5, buf);
      ADD_FAILURE() << "a tampered witness was accepted (" << name << ")";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("porep-small partition 5: {}: constraint {} unsatisfied", cs->where(row), row));
      EXPECT_NE(std::string(e.what()).find("porep-small/challenge "), std::string::npos) << e.what();
    }
    // Without the check the source fills the buffers and the proof would fail instead.
    NativeSource<Fr> unchecked(cs, gen, {false, 0});
    EXPECT_NO_THROW(run(unchecked, 5, buf));
    EXPECT_TRUE(cs->first_unsatisfied(buf.z, buf.a, buf.b).has_value());
  }
  // A wrong Merkle root (the public input) fails challenge 0's root constraint.
  auto wrong_root = [&](Synthesizer<Fr>& syn, size_t part) {
    auto w = porep_witness<Fr>(p, part);
    w.root += Fr::one();
    porep_circuit(syn, p, w, part);
  };
  NativeSource<Fr> src(cs, wrong_root, {true, 0});
  Buffers buf(shape);
  try {
    run(src, 2, buf);
    ADD_FAILURE() << "a wrong root was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("porep-small partition 2: porep-small/challenge 0/root: "
                                                 "constraint {} unsatisfied",
                                                 p.challenge_constraints() - 1));
  }
  // A generator that allocates differently from the recording is refused, naming the partition.
  PorepParams q = p;
  q.tail_constraints = 2;
  NativeSource<Fr> mismatched(cs, [&](Synthesizer<Fr>& syn, size_t part) {
    porep_circuit(syn, q, porep_witness<Fr>(q, part), part);
  }, {true, 0});
  try {
    run(mismatched, 4, buf);
    ADD_FAILURE() << "a mismatched generator was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("porep-small partition 4: synthesis allocated"), std::string::npos)
        << e.what();
  }
  // Wrongly sized buffers are an error, not a crash.
  std::vector<Fr> small(3);
  EXPECT_THROW(src.synthesize(0, small, buf.a, buf.b, {}), Error);
}

TEST(CircuitProve, ConcurrentPartitionsMatchSequential) {
  const auto p = small_params();
  auto cs = std::make_shared<const ConstraintSystem<Fr>>(record_porep<Fr>(p).cs);
  auto src = porep_source<Fr>(p, cs);
  const Shape shape = src->shape();
  const size_t parts = 6;
  std::vector<Buffers> seq, par;
  for (size_t i = 0; i < parts; ++i) {
    seq.emplace_back(shape);
    par.emplace_back(shape);
    run(*src, i, seq.back());
  }
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < parts; ++i) threads.emplace_back([&, i] { run(*src, i, par[i]); });
  }
  for (size_t i = 0; i < parts; ++i) {
    EXPECT_EQ(seq[i].z, par[i].z) << i;
    EXPECT_EQ(seq[i].a, par[i].a) << i;
    EXPECT_EQ(seq[i].b, par[i].b) << i;
  }
  // A stop request returns early without an error.
  std::stop_source stop;
  stop.request_stop();
  Buffers buf(shape);
  EXPECT_NO_THROW(run(*src, 0, buf, stop.get_token()));
}

TEST(CircuitProve, PorepSourceForLog2) {
  auto src = porep_source_for_log2<Fr>(10, 3);
  const Shape s = src->shape();
  EXPECT_EQ(s.domain_size, 1024u);
  EXPECT_EQ(s.n_constraints + s.n_public, 1023u);
  EXPECT_EQ(src->describe(), "porep-2^10");
  EXPECT_TRUE(src->checks());
  Buffers buf(s);
  for (size_t part : {0, 1, 7}) {
    run(*src, part, buf);  // check mode: throws if partition `part` were unsatisfied
    EXPECT_GT(zero_one_fraction<Fr>(buf.z), 0.5);
    EXPECT_FALSE(src->constraint_system().first_unsatisfied(std::span<const Fr>(buf.z)).has_value());
  }
}
