// The pipeline engine for every curve (one typed suite, instantiated per engine of ec/curves.hpp):
// the snarkjs circom fixtures of the curve (BLS12-381: tests/fixtures, BN254 "bn128":
// tests/fixtures/bn128) proved through the engine verify with our key and with snarkjs's
// verification key; a job holding an unsatisfied witness fails alone (naming its partition and,
// with the .r1cs, the constraint) while a job of good witnesses beside it succeeds; and nothing is
// left in the engine's books.
#include <gtest/gtest.h>

#include <string>

#include "io/json.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "pipeline/circom_source.hpp"
#include "pipeline/engine.hpp"
#include "pipeline_test_util.hpp"
#include "test_util.hpp"
#include "zk/groth16.hpp"

using namespace splitprove;
using splitprove::testing::items_held;

namespace {

template <class E>
std::string fixture(const std::string& name) {
  const std::string dir = E::kId == ec::CurveId::kBn254 ? "bn128/" : "";
  return splitprove::testing::source_dir() + "/tests/fixtures/" + dir + name;
}

// One circom circuit of the curve: its key (prepared for the engine), witness, circuit and
// snarkjs's verifying key.
template <class E>
struct Circuit {
  explicit Circuit(const std::string& c)
      : name(c),
        pk(std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(fixture<E>(c + ".zkey")))),
        key(pipeline::Key<E>::prepare(pk)),
        witness(io::read_wtns<E>(fixture<E>(c + ".wtns"))),
        r1cs(std::make_shared<const io::R1cs<E>>(io::read_r1cs<E>(fixture<E>(c + ".r1cs")))),
        snarkjs_pvk(zk::prepare<E>(io::read_vkey_json<E>(fixture<E>(c + ".vkey.json")))) {}
  std::shared_ptr<pipeline::CircomSource<E>> source(std::vector<io::Witness<E>> ws,
                                                    bool with_r1cs) const {
    return std::make_shared<pipeline::CircomSource<E>>(pk, std::move(ws),
                                                       with_r1cs ? r1cs : nullptr, name);
  }
  std::string name;
  std::shared_ptr<const zk::ProvingKey<E>> pk;
  std::shared_ptr<const pipeline::Key<E>> key;
  io::Witness<E> witness;
  std::shared_ptr<const io::R1cs<E>> r1cs;
  zk::PreparedVerifyingKey<E> snarkjs_pvk;
};

template <class E>
class PipelineCurves : public ::testing::Test {};

struct EngineNames {
  template <class E>
  static std::string GetName(int) {
    return std::string(E::kSnarkjsName);
  }
};

using Engines = ::testing::Types<ec::Bls12_381, ec::Bn254>;
TYPED_TEST_SUITE(PipelineCurves, Engines, EngineNames);

TYPED_TEST(PipelineCurves, CircomFixturesThroughTheEngineVerify) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg);
  for (const char* c : {"multiplier", "mixed", "chain"}) {
    SCOPED_TRACE(c);
    const Circuit<E> ci(c);
    std::vector<io::Witness<E>> ws(2, ci.witness);
    auto r = engine.wait(engine.submit({ci.source(ws, true), ci.key, ws.size()}));
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.proofs.size(), ws.size());
    const auto pub = zk::public_inputs<E>(*ci.pk, ci.witness.values);
    for (std::size_t i = 0; i < r.proofs.size(); ++i) {
      EXPECT_EQ(r.publics[i], pub);
      EXPECT_TRUE(zk::verify<E>(ci.key->pvk, pub, r.proofs[i]));
      EXPECT_TRUE(zk::verify<E>(ci.snarkjs_pvk, pub, r.proofs[i]));
      // Bound to its statement and to its points.
      auto bad_pub = pub;
      bad_pub[0] += Fr::one();
      EXPECT_FALSE(zk::verify<E>(ci.snarkjs_pvk, bad_pub, r.proofs[i]));
      auto bad = r.proofs[i];
      bad.a = bad.c;
      EXPECT_FALSE(zk::verify<E>(ci.snarkjs_pvk, pub, bad));
    }
    // Fresh randomness per partition: two proofs of one witness differ.
    EXPECT_FALSE(r.proofs[0].a == r.proofs[1].a);
  }
  EXPECT_EQ(items_held(engine), 0u);
}

TYPED_TEST(PipelineCurves, AWrongWitnessFailsOnlyItsJob) {
  using E = TypeParam;
  using Fr = typename E::Fr;
  const Circuit<E> ci("chain");
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg);
  std::vector<io::Witness<E>> bad(3, ci.witness);
  bad[1].values.back() += Fr::one();  // the last (internal) wire
  const std::vector<io::Witness<E>> good(2, ci.witness);
  for (bool with_r1cs : {true, false}) {
    SCOPED_TRACE(with_r1cs ? "with the .r1cs" : "without the .r1cs");
    auto id_bad = engine.submit({ci.source(bad, with_r1cs), ci.key, bad.size()});
    auto id_good = engine.submit({ci.source(good, with_r1cs), ci.key, good.size()});
    auto rb = engine.wait(id_bad);
    EXPECT_FALSE(rb.ok);
    EXPECT_TRUE(rb.proofs.empty());
    EXPECT_NE(rb.error.find("partition 1"), std::string::npos) << rb.error;
    EXPECT_NE(rb.error.find(with_r1cs ? "constraint" : "does not verify"), std::string::npos)
        << rb.error;
    auto rg = engine.wait(id_good);
    ASSERT_TRUE(rg.ok) << rg.error;
    const auto pub = zk::public_inputs<E>(*ci.pk, ci.witness.values);
    for (const auto& p : rg.proofs) EXPECT_TRUE(zk::verify<E>(ci.snarkjs_pvk, pub, p));
  }
  EXPECT_EQ(engine.stats().jobs_failed, 2u);
  EXPECT_EQ(items_held(engine), 0u);
}

}  // namespace
