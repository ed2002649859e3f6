// The circom/snarkjs files of both curves through one typed suite: the fixtures snarkjs made for
// BLS12-381 (tests/fixtures) and for BN254, snarkjs's "bn128" (tests/fixtures/bn128), are read,
// written back byte for byte, and cross-checked (snarkjs's proofs verify under our verifier, the
// vkey we derive from the .zkey equals snarkjs's export, vk_alphabeta_12 included); the curve is
// found from the files; a file of the other curve is a clear error; the snarkjs point encoding
// (LE Montgomery) matches noble's coordinates for BN254.
#include <gtest/gtest.h>

#include <fstream>

#include "io/binfile.hpp"
#include "io/curve_id.hpp"
#include "io/json.hpp"
#include "io/points.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "splitprove/error.hpp"
#include "test_util.hpp"
#include "zk/groth16.hpp"

namespace splitprove::io {
namespace {

using splitprove::testing::from_hex_bytes;
using splitprove::testing::to_hex_bytes;

const char* const kCircuits[] = {"multiplier", "mixed", "chain"};

template <class E>
std::string fixture(const std::string& name) {
  const char* dir = E::kId == ec::CurveId::kBn254 ? "/tests/fixtures/bn128/" : "/tests/fixtures/";
  return splitprove::testing::source_dir() + dir + name;
}

// The other curve's engine, for mismatch tests.
template <class E>
using Other = std::conditional_t<E::kId == ec::CurveId::kBn254, ec::Bls12_381, ec::Bn254>;

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

template <class E>
class IoCurves : public ::testing::Test {};
using Engines = ::testing::Types<ec::Bls12_381, ec::Bn254>;
struct EngineNames {
  template <class E>
  static std::string GetName(int) {
    return std::string(E::kSnarkjsName);
  }
};
TYPED_TEST_SUITE(IoCurves, Engines, EngineNames);

TYPED_TEST(IoCurves, CurveIsFoundFromTheFiles) {
  using E = TypeParam;
  for (const char* c : kCircuits) {
    for (const char* ext : {".r1cs", ".wtns", ".zkey"})
      EXPECT_EQ(detect_curve(fixture<E>(std::string(c) + ext)), E::kId) << c << ext;
    for (const char* ext : {".vkey.json", ".proof.json"})
      EXPECT_EQ(read_curve_of_json(fixture<E>(std::string(c) + ext)), E::kId) << c << ext;
  }
  EXPECT_EQ(curve_of_json("{\"protocol\": \"groth16\"}", "x.json"), std::nullopt);
  EXPECT_NE(error_of([] {
              curve_of_json("{\"curve\": \"bn256x\"}", "x.json");
            }).find("x.json: curve: unknown curve"),
            std::string::npos);
}

TYPED_TEST(IoCurves, WritersReproduceTheToolsFiles) {
  using E = TypeParam;
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const std::string base = fixture<E>(c);
    EXPECT_EQ(encode_r1cs<E>(read_r1cs<E>(base + ".r1cs")), bytes_of(base + ".r1cs"));
    const auto w = read_wtns<E>(base + ".wtns");
    EXPECT_TRUE(w.values[0].is_one());
    EXPECT_EQ(encode_wtns<E>(w.values), bytes_of(base + ".wtns"));
    for (const std::string suffix : {"_0000.zkey", ".zkey"}) {
      const auto original = bytes_of(base + suffix);
      ZkeyMeta meta;
      const auto pk = parse_zkey<E>(original, base + suffix, {}, &meta);
      EXPECT_EQ(encode_zkey<E>(pk, ZkeyWriteOptions::reproducing(meta)), original) << suffix;
      check_zkey_matches_r1cs(pk, base + suffix, read_r1cs<E>(base + ".r1cs"));
    }
    EXPECT_EQ(proof_to_json<E>(read_proof_json<E>(base + ".proof.json")),
              read_text_file(base + ".proof.json"));
    EXPECT_EQ(public_to_json<E>(read_public_json<E>(base + ".public.json")),
              read_text_file(base + ".public.json"));
    EXPECT_EQ(vkey_to_json<E>(read_vkey_json<E>(base + ".vkey.json")),
              read_text_file(base + ".vkey.json"));
  }
}

// vk_alphabeta_12 = e(alpha, beta) is computed by our pairing here: byte equality with snarkjs's
// export checks the pairing's value (its final-exponentiation multiple) and the Fp12 layout.
TYPED_TEST(IoCurves, VkeyFromTheZkeyEqualsSnarkjsExport) {
  using E = TypeParam;
  for (const std::string name : {"multiplier", "mixed", "chain", "multiplier_0000"}) {
    SCOPED_TRACE(name);
    const auto pk = read_zkey<E>(fixture<E>(name + ".zkey"));
    EXPECT_EQ(vkey_to_json<E>(zk::verifying_key(pk)),
              read_text_file(fixture<E>(name + ".vkey.json")));
  }
}

TYPED_TEST(IoCurves, SnarkjsProofsVerifyAndWrongOnesDoNot) {
  using E = TypeParam;
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const std::string base = fixture<E>(c);
    const auto proof = read_proof_json<E>(base + ".proof.json");
    auto pub = read_public_json<E>(base + ".public.json");
    const auto pvk = zk::prepare<E>(read_vkey_json<E>(base + ".vkey.json"));
    EXPECT_TRUE(zk::verify<E>(pvk, pub, proof));
    pub[0] += E::Fr::one();
    EXPECT_FALSE(zk::verify<E>(pvk, pub, proof));
    pub[0] -= E::Fr::one();
    auto bad = proof;
    bad.a = -bad.a;
    EXPECT_FALSE(zk::verify<E>(pvk, pub, bad));
    const auto other = zk::prepare<E>(zk::verifying_key(read_zkey<E>(base + "_0000.zkey")));
    EXPECT_FALSE(zk::verify<E>(other, pub, proof));  // another delta
  }
}

TYPED_TEST(IoCurves, FilesOfTheOtherCurveAreRefusedByName) {
  using E = TypeParam;
  using O = Other<E>;
  const std::string name(E::kName), other(O::kName);
  for (const char* ext : {".r1cs", ".wtns"}) {
    const auto path = fixture<O>(std::string("chain") + ext);
    auto msg = error_of([&] {
      if (std::string(ext) == ".r1cs")
        read_r1cs<E>(path);
      else
        read_wtns<E>(path);
    });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("is " + other + "'s, expected " + name + "'s"), std::string::npos) << msg;
  }
  const auto zkey = fixture<O>("chain.zkey");
  auto msg = error_of([&] { read_zkey<E>(zkey); });
  EXPECT_NE(msg.find(zkey), std::string::npos) << msg;
  EXPECT_NE(msg.find(other), std::string::npos) << msg;
  const auto vkey = fixture<O>("chain.vkey.json");
  msg = error_of([&] { read_vkey_json<E>(vkey); });
  EXPECT_NE(msg.find(vkey + ": curve: \"" + std::string(O::kSnarkjsName) + "\" is " + other +
                     ", expected " + name),
            std::string::npos)
      << msg;
}

// snarkjs's binary point encoding (little-endian Montgomery, .zkey sections) against noble's
// coordinates for BN254 (the generator computes the bytes from the definition).
// decode_points without the subgroup check (how `prove` reads a key) checks the curve equation
// eight points at a time where the build has lanes, and point by point otherwise: the same points
// decode and the same first problem is named. Random multiples of the generators, some identities,
// then single damages at chosen places, and two in one group.
template <class E, class G>
void decode_points_agree_with_the_codec() {
  using Affine = typename G::Affine;
  using Codec = PointCodec<E>;
  constexpr size_t kSize = Codec::template size_of<Affine>();
  const size_t n = 8 * 13 + 5;  // whole groups and a remainder
  std::vector<Affine> pts(n);
  auto p = G::Jacobian::generator().mul(E::Fr::from_u64(12345));
  const auto step = G::Jacobian::generator().mul(E::Fr::from_u64(777));
  for (size_t i = 0; i < n; ++i, p += step) pts[i] = i % 11 == 4 ? Affine::identity() : p.to_affine();
  std::vector<uint8_t> bytes(n * kSize);
  for (size_t i = 0; i < n; ++i) Codec::encode(pts[i], bytes.data() + i * kSize);
  util::UninitVector<Affine> out;  // as a proving key's vectors: not zeroed before decoding
  decode_points<E>(std::span<const uint8_t>(bytes), out, "k: ", false);
  ASSERT_EQ(out.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], pts[i]) << "point " << i;

  const auto off_curve = [&](std::vector<uint8_t>& b, size_t i) {
    Affine q = pts[i].is_identity() ? pts[i + 1] : pts[i];
    q.y += decltype(q.y)::one();
    Codec::encode(q, b.data() + i * kSize);
  };
  const auto out_of_range = [&](std::vector<uint8_t>& b, size_t i) {
    std::fill(b.data() + i * kSize, b.data() + i * kSize + Codec::kFp, uint8_t(0xff));
  };
  const auto error = [&](const std::vector<uint8_t>& b) {
    return error_of([&] {
      util::UninitVector<Affine> o;
      decode_points<E>(std::span<const uint8_t>(b), o, "k: ", false);
    });
  };
  for (const size_t i : {size_t(0), size_t(5), size_t(8 * 6 + 7), size_t(8 * 12 + 3), n - 1}) {
    auto b = bytes;
    off_curve(b, i);
    EXPECT_EQ(error(b), "k: point " + std::to_string(i) + ": not on the curve");
  }
  {  // two in one group, the later one off the curve, the earlier one out of range
    auto b = bytes;
    off_curve(b, 8 * 3 + 6);
    out_of_range(b, 8 * 3 + 2);
    EXPECT_EQ(error(b), "k: point " + std::to_string(8 * 3 + 2) + ": coordinate x is not a field "
                        "element (>= q)");
  }
  {  // two groups apart: the lower is named
    auto b = bytes;
    off_curve(b, 8 * 9 + 1);
    off_curve(b, 8 * 4 + 5);
    EXPECT_EQ(error(b), "k: point " + std::to_string(8 * 4 + 5) + ": not on the curve");
  }
}

TYPED_TEST(IoCurves, DecodedPointsAndProblemsDoNotDependOnTheLanes) {
  using E = TypeParam;
  decode_points_agree_with_the_codec<E, typename E::G1>();
  decode_points_agree_with_the_codec<E, typename E::G2>();
}

TEST(SnarkjsPoints, Bn254MatchesVectors) {
  using E = ec::Bn254;
  using Codec = PointCodec<E>;
  const auto& v = splitprove::testing::vectors_for("bn254");
  ASSERT_GE(v["g1"].size(), 8u);
  for (const auto& row : v["g1"]) {
    auto p =
        E::G1Jacobian::generator().mul(ff::from_hex<4>(row["k"].get<std::string>())).to_affine();
    std::vector<uint8_t> b(Codec::kG1);
    Codec::encode(p, b.data());
    EXPECT_EQ(to_hex_bytes(b), row["snarkjs_le_mont"].get<std::string>());
    E::G1Affine q;
    EXPECT_EQ(
        Codec::decode(from_hex_bytes(row["snarkjs_le_mont"].get<std::string>()).data(), q, true),
        PointProblem::kNone);
    EXPECT_EQ(q, p);
  }
  for (const auto& row : v["g2"]) {
    auto p =
        E::G2Jacobian::generator().mul(ff::from_hex<4>(row["k"].get<std::string>())).to_affine();
    std::vector<uint8_t> b(Codec::kG2);
    Codec::encode(p, b.data());
    EXPECT_EQ(to_hex_bytes(b), row["snarkjs_le_mont"].get<std::string>());
    E::G2Affine q;
    EXPECT_EQ(
        Codec::decode(from_hex_bytes(row["snarkjs_le_mont"].get<std::string>()).data(), q, true),
        PointProblem::kNone);
    EXPECT_EQ(q, p);
  }
}

}  // namespace
}  // namespace splitprove::io
