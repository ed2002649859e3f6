// Readers and writers of the circom/snarkjs files, against files made by circom 2.2.3 and snarkjs
// 0.7.6 (tests/fixtures, made by scripts/gen-fixtures.sh):
// - every fixture reads; the circuits' shapes are what the .circom sources say;
// - snarkjs's proofs verify under our pairing with the keys we read (a real cross-check of every
//   reader: one wrong byte order, Montgomery factor or coordinate order breaks the equation);
// - the zkey's A/B coefficients are exactly the r1cs's (checks the coef·R² storage convention);
// - writers reproduce the tools' files byte for byte (r1cs, wtns, zkey, proof/public/vkey JSON;
//   the vkey JSON even when derived from the zkey, so vk_alphabeta_12 is our pairing's value);
// - every kind of bad input gives its own clear Error (asserted on the message), never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "io/binfile.hpp"
#include "io/curve_id.hpp"
#include "io/json.hpp"
#include "io/points.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "splitprove/error.hpp"

namespace splitprove::io {
namespace {

using E = ec::Bls12_381;
using Fr = E::Fr;
using Fp = E::Fp;
using Fp2 = E::Fp2;
using G1Affine = E::G1Affine;
using G2Affine = E::G2Affine;
using G1Jacobian = E::G1Jacobian;
using G2Jacobian = E::G2Jacobian;
using Codec = PointCodec<E>;

const char* const kCircuits[] = {"multiplier", "mixed", "chain"};

std::string fixture(const std::string& name) {
  return std::string(SPLITPROVE_SOURCE_DIR) + "/tests/fixtures/" + name;
}

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string text_of(const std::string& path) { return read_text_file(path); }

// Runs f, which must throw a splitprove::Error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nexpected: " << p;
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a splitprove::Error: " << e.what();
    return;
  }
  ADD_FAILURE() << "no error thrown";
}

// A container split into its sections, to rebuild with changes.
struct Container {
  std::string magic;
  uint32_t version;
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> sections;

  explicit Container(const std::vector<uint8_t>& b) {
    magic.assign(b.begin(), b.begin() + 4);
    BinFile f(b, "t", magic, b[4]);
    version = b[4];
    for (const auto& s : f.sections())
      sections.push_back({s.id, {b.begin() + s.offset, b.begin() + s.offset + s.size}});
  }
  std::vector<uint8_t>& payload(uint32_t id) {
    for (auto& s : sections)
      if (s.first == id) return s.second;
    throw std::runtime_error("no section");
  }
  std::vector<uint8_t> bytes() const {
    VectorSink s;
    write_container_header(s, magic, version, uint32_t(sections.size()));
    for (const auto& [id, p] : sections) {
      write_section_header(s, id, p.size());
      s.write(p.data(), p.size());
    }
    return s.out;
  }
};

// ---- reading what the tools wrote ----------------------------------------------------------

TEST(R1cs, MultiplierIsAtimesBequalsC) {
  const auto r = read_r1cs<E>(fixture("multiplier.r1cs"));
  EXPECT_EQ(r.n_wires, 4u);
  EXPECT_EQ(r.n_pub_out, 1u);
  EXPECT_EQ(r.n_pub_in, 0u);
  EXPECT_EQ(r.n_prv_in, 2u);
  EXPECT_EQ(r.n_constraints, 1u);
  EXPECT_EQ(r.n_labels, 4u);
  EXPECT_EQ(r.wire_labels.size(), 4u);
  // Wires: 0 = 1, 1 = c (output), 2 = a, 3 = b. circom stores -a·b = -c: A = {a: r-1}, B = {b: 1},
  // C = {c: r-1}.
  const auto a = r.lc(0, 0), b = r.lc(0, 1), c = r.lc(0, 2);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(a[0].wire, 2u);
  EXPECT_EQ(a[0].coeff, -Fr::one());
  EXPECT_EQ(b[0].wire, 3u);
  EXPECT_EQ(b[0].coeff, Fr::one());
  EXPECT_EQ(c[0].wire, 1u);
  EXPECT_EQ(c[0].coeff, -Fr::one());
}

TEST(R1cs, MixedHasLinearConstraintsAndSeveralPublics) {
  const auto r = read_r1cs<E>(fixture("mixed.r1cs"));
  EXPECT_EQ(r.n_pub_out, 3u);
  EXPECT_EQ(r.n_pub_in, 2u);
  EXPECT_EQ(r.n_prv_in, 2u);
  EXPECT_EQ(r.n_public(), 5u);
  EXPECT_EQ(r.n_constraints, 6u);  // 4 quadratic + 2 linear (--O0)
  size_t linear = 0;
  bool coeff_not_unit = false;
  for (size_t i = 0; i < r.n_constraints; ++i) {
    linear += r.lc(i, 0).empty() && r.lc(i, 1).empty();
    for (int m = 0; m < 3; ++m)
      for (const auto& t : r.lc(i, m))
        coeff_not_unit |= !(t.coeff == Fr::one() || t.coeff == -Fr::one());
  }
  EXPECT_EQ(linear, 2u);
  EXPECT_TRUE(coeff_not_unit);  // 3·z, 7·x, 2·y, -5
}

TEST(R1cs, WitnessSatisfiesEveryConstraintAndATamperedOneDoesNot) {
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const auto r = read_r1cs<E>(fixture(std::string(c) + ".r1cs"));
    auto w = read_wtns<E>(fixture(std::string(c) + ".wtns"));
    check_witness_length(w, r.n_wires, r.source, "wires");
    EXPECT_EQ(first_unsatisfied<E>(r, w.values), std::nullopt);
    // The last wire of these circuits is internal and occurs in some constraint.
    w.values.back() += Fr::one();
    EXPECT_NE(first_unsatisfied<E>(r, w.values), std::nullopt);
  }
  const auto r = read_r1cs<E>(fixture("multiplier.r1cs"));
  auto w = read_wtns<E>(fixture("multiplier.wtns"));
  EXPECT_EQ(w.values[1], Fr::from_u64(33));  // c = 3·11
  w.values[1] = Fr::from_u64(34);
  EXPECT_EQ(first_unsatisfied<E>(r, w.values), std::optional<size_t>(0));
}

TEST(R1cs, EncodeReproducesCircomsFile) {
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const auto path = fixture(std::string(c) + ".r1cs");
    EXPECT_EQ(encode_r1cs<E>(read_r1cs<E>(path)), bytes_of(path));
  }
}

TEST(Wtns, EncodeReproducesSnarkjsFile) {
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const auto path = fixture(std::string(c) + ".wtns");
    const auto w = read_wtns<E>(path);
    EXPECT_TRUE(w.values[0].is_one());
    EXPECT_EQ(encode_wtns<E>(w.values), bytes_of(path));
  }
}

TEST(CurveId, DetectedFromThePrimes) {
  for (const char* f : {"multiplier.r1cs", "multiplier.wtns", "multiplier.zkey"})
    EXPECT_EQ(detect_curve(fixture(f)), ec::CurveId::kBls12_381) << f;
}

TEST(Zkey, MatchesItsCircuitAndHasSnarkjsSetupShape) {
  for (const char* c : kCircuits) {
    for (const std::string suffix : {"_0000.zkey", ".zkey"}) {
      const auto path = fixture(c + suffix);
      SCOPED_TRACE(path);
      ZkeyMeta meta;
      const auto pk = read_zkey<E>(path, {}, &meta);
      const auto r1cs = read_r1cs<E>(fixture(std::string(c) + ".r1cs"));
      check_zkey_matches_r1cs(pk, path, r1cs);
      EXPECT_EQ(pk.gamma2, G2Affine::generator());  // snarkjs setups never randomise gamma
      const bool fresh = suffix == "_0000.zkey";
      EXPECT_EQ(meta.n_contributions, fresh ? 0u : 1u);
      EXPECT_EQ(pk.delta1 == G1Affine::generator(), fresh);
      EXPECT_EQ(pk.delta2 == G2Affine::generator(), fresh);
      // delta_1 and delta_2 carry the same secret: e(delta_1, -G2)·e(G1, delta_2) = 1.
      auto neg_g2 = E::Pairing::prepare(-G2Affine::generator());
      auto d2 = E::Pairing::prepare(pk.delta2);
      std::pair<G1Affine, const E::Pairing::G2Prepared*> pairs[] = {{pk.delta1, &neg_g2},
                                                                    {G1Affine::generator(), &d2}};
      EXPECT_TRUE(E::Pairing::product_is_one(pairs));
      // B1[i] and B2[i] are the same v_i(τ) in G1 and G2.
      for (size_t i = 0; i < pk.n_vars; i += 7) {
        auto b2 = E::Pairing::prepare(pk.b2[i]);
        std::pair<G1Affine, const E::Pairing::G2Prepared*> bb[] = {{pk.b1[i], &neg_g2},
                                                                   {G1Affine::generator(), &b2}};
        EXPECT_TRUE(E::Pairing::product_is_one(bb)) << "wire " << i;
      }
    }
  }
}

TEST(Zkey, RoundTripIsByteIdentical) {
  for (const char* c : kCircuits) {
    for (const std::string suffix : {"_0000.zkey", ".zkey"}) {
      const auto path = fixture(c + suffix);
      SCOPED_TRACE(path);
      const auto original = bytes_of(path);
      ZkeyMeta meta;
      const auto pk = parse_zkey<E>(original, path, {}, &meta);
      // With the bookkeeping of the original (section order, section 10 verbatim): identical.
      EXPECT_EQ(encode_zkey<E>(pk, ZkeyWriteOptions::reproducing(meta)), original);
      // With the defaults (setup order, circuit hash + zero contributions): identical to a fresh
      // `groth16 setup` file; a contributed file differs only in the order of the sections and in
      // section 10 (its contribution list is dropped), so sections 1-9 must be byte-identical.
      ZkeyWriteOptions opt;
      opt.circuit_hash = meta.circuit_hash;
      const auto mine = encode_zkey<E>(pk, opt);
      if (suffix == "_0000.zkey") {
        EXPECT_EQ(mine, original);
      } else {
        Container a(original), b(mine);
        for (uint32_t id = 1; id <= 9; ++id) EXPECT_EQ(a.payload(id), b.payload(id)) << id;
        EXPECT_EQ(b.payload(10).size(), 68u);
        EXPECT_TRUE(
            std::equal(b.payload(10).begin(), b.payload(10).begin() + 64, a.payload(10).begin()));
        ZkeyMeta m2;
        parse_zkey<E>(mine, "mine", {}, &m2);
        EXPECT_EQ(m2.n_contributions, 0u);
      }
    }
  }
}

TEST(Zkey, WriteZkeyToFileReadsBack) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto out = (dir / ("splitprove_test_io_" + std::to_string(::getpid()) + ".zkey")).string();
  const auto pk = read_zkey<E>(fixture("mixed_0000.zkey"));
  ZkeyMeta meta;
  read_zkey<E>(fixture("mixed_0000.zkey"), {}, &meta);
  ZkeyWriteOptions opt;
  opt.circuit_hash = meta.circuit_hash;
  write_zkey<E>(out, pk, opt);
  EXPECT_EQ(bytes_of(out), bytes_of(fixture("mixed_0000.zkey")));
  std::filesystem::remove(out);
}

// read_zkey uses the point and coefficient sections where the file is mapped; they are the same as decoded
// copies (parse_zkey, map_points = false), at whatever alignment the sections have, and the key
// keeps the mapping alive for as long as it (or a copy of it) lives.
TEST(Zkey, PointsAreUsedWhereTheFileIsMapped) {
  auto same = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!(x[i] == y[i])) return false;
    return true;
  };
  size_t unaligned = 0;
  for (const char* c : kCircuits) {
    for (const std::string suffix : {"_0000.zkey", ".zkey"}) {
      const auto path = fixture(c + suffix);
      SCOPED_TRACE(path);
      zk::ProvingKey<E> pk;
      {
        const auto mapped = read_zkey<E>(path);
        EXPECT_TRUE(mapped.a.borrowed() && mapped.b1.borrowed() && mapped.b2.borrowed() &&
                    mapped.h.borrowed() && mapped.coeffs.borrowed());
        pk = mapped;  // the copy shares the mapping; the original dies here
      }
      const auto copied = parse_zkey<E>(bytes_of(path), path);
      ZkeyReadOptions no_map;
      no_map.map_points = false;
      const auto read_copy = read_zkey<E>(path, no_map);
      EXPECT_FALSE(copied.a.borrowed() || read_copy.a.borrowed() || read_copy.h.borrowed());
      for (const auto* k : {&copied, &read_copy}) {
        EXPECT_TRUE(same(pk.a, k->a));
        EXPECT_TRUE(same(pk.b1, k->b1));
        EXPECT_TRUE(same(pk.b2, k->b2));
        EXPECT_TRUE(same(pk.c, k->c));
        EXPECT_TRUE(same(pk.h, k->h));
        ASSERT_EQ(pk.coeffs.size(), k->coeffs.size());
        for (size_t i = 0; i < pk.coeffs.size(); ++i) {
          const auto x = pk.coeffs[i], y = k->coeffs[i];
          ASSERT_TRUE(x.matrix == y.matrix && x.row == y.row && x.col == y.col &&
                      x.value() == y.value())
              << "coefficient " << i;
        }
      }
      for (const auto* v : {&pk.a.view(), &pk.b1.view(), &pk.c.view(), &pk.h.view()})
        unaligned += !v->aligned().has_value();
      unaligned += !pk.b2.view().aligned().has_value();
    }
  }
  // Sections follow 12-byte section headers: some of the fixtures' point sections are only 4-byte
  // aligned, so the unaligned reads are exercised.
  EXPECT_GT(unaligned, 0u);
}

// ---- JSON ----------------------------------------------------------------------------------

TEST(Json, RoundTripsAreByteIdentical) {
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const std::string base = fixture(c);
    EXPECT_EQ(proof_to_json<E>(read_proof_json<E>(base + ".proof.json")),
              text_of(base + ".proof.json"));
    const auto pub = read_public_json<E>(base + ".public.json");
    EXPECT_EQ(public_to_json<E>(pub), text_of(base + ".public.json"));
    EXPECT_EQ(vkey_to_json<E>(read_vkey_json<E>(base + ".vkey.json")),
              text_of(base + ".vkey.json"));
  }
  EXPECT_EQ(public_to_json<E>({}), "[\n]");  // bfj's empty array
}

TEST(Json, VkeyFromTheZkeyEqualsSnarkjsExport) {
  // vk_alphabeta_12 is computed by our pairing here: byte equality checks its value and layout.
  for (const std::string name : {"multiplier", "mixed", "chain", "multiplier_0000"}) {
    SCOPED_TRACE(name);
    const auto pk = read_zkey<E>(fixture(name + ".zkey"));
    EXPECT_EQ(vkey_to_json<E>(zk::verifying_key(pk)), text_of(fixture(name + ".vkey.json")));
  }
}

TEST(Json, InputsSitOnTheirWires) {
  // circom's wire order: 0 = 1, outputs, public inputs, private inputs (each in declaration order).
  const std::vector<std::pair<std::string, std::vector<std::pair<std::string, size_t>>>> cases = {
      {"multiplier", {{"a", 2}, {"b", 3}}},
      {"mixed", {{"x", 4}, {"y", 5}, {"z", 6}, {"s", 7}}},
      {"chain", {{"c", 2}, {"x0", 3}}}};
  for (const auto& [c, wires] : cases) {
    SCOPED_TRACE(c);
    const auto input = nlohmann::json::parse(text_of(fixture(c + ".input.json")));
    const auto w = read_wtns<E>(fixture(c + ".wtns"));
    for (const auto& [name, wire] : wires) {
      ff::Limbs<4> v;
      ASSERT_TRUE(ff::from_decimal<4>(input.at(name).get<std::string>(), v)) << name;
      EXPECT_EQ(w.values.at(wire), Fr::from_canonical(v)) << name;
    }
  }
}

TEST(Json, PublicSignalsAreWitnessWires1ToNPublic) {
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const auto w = read_wtns<E>(fixture(std::string(c) + ".wtns"));
    const auto pub = read_public_json<E>(fixture(std::string(c) + ".public.json"));
    const auto r = read_r1cs<E>(fixture(std::string(c) + ".r1cs"));
    ASSERT_EQ(pub.size(), r.n_public());
    for (size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(pub[i], w.values[1 + i]) << i;
  }
  // mixed: out2 = 7·2 + 2·3 - 30 = -10, written as r - 10.
  EXPECT_EQ(read_public_json<E>(fixture("mixed.public.json"))[2], -Fr::from_u64(10));
}

// ---- snarkjs's proofs verify under our pairing ----------------------------------------------

// e(-A, B)·e(cpub, gamma)·e(C, delta)·e(alpha, beta) = 1 with cpub = IC_0 + Σ pub_i·IC_i.
bool groth16_verify(const zk::VerifyingKey<E>& vk, std::span<const Fr> pub, const zk::Proof<E>& p) {
  if (pub.size() != vk.n_public) return false;
  G1Jacobian acc = vk.ic[0].to_jacobian();
  for (size_t i = 0; i < pub.size(); ++i) acc += vk.ic[i + 1].to_jacobian().mul(pub[i]);
  auto b = E::Pairing::prepare(p.b), g = E::Pairing::prepare(vk.gamma2),
       d = E::Pairing::prepare(vk.delta2), be = E::Pairing::prepare(vk.beta2);
  std::pair<G1Affine, const E::Pairing::G2Prepared*> pairs[] = {
      {-p.a, &b}, {acc.to_affine(), &g}, {p.c, &d}, {vk.alpha1, &be}};
  return E::Pairing::product_is_one(pairs);
}

TEST(Groth16, SnarkjsProofsVerifyWithKeysWeRead) {
  for (const char* c : kCircuits) {
    SCOPED_TRACE(c);
    const std::string base = fixture(c);
    const auto proof = read_proof_json<E>(base + ".proof.json");
    auto pub = read_public_json<E>(base + ".public.json");
    const auto vk_json = read_vkey_json<E>(base + ".vkey.json");
    const auto vk_zkey = zk::verifying_key(read_zkey<E>(base + ".zkey"));
    EXPECT_TRUE(groth16_verify(vk_json, pub, proof));
    EXPECT_TRUE(groth16_verify(vk_zkey, pub, proof));
    // ... and the check can fail: a wrong public signal, a wrong key, a swapped proof element.
    pub[0] += Fr::one();
    EXPECT_FALSE(groth16_verify(vk_zkey, pub, proof));
    pub[0] -= Fr::one();
    const auto vk_fresh = zk::verifying_key(read_zkey<E>(base + "_0000.zkey"));
    EXPECT_FALSE(groth16_verify(vk_fresh, pub, proof));  // other delta
    auto bad = proof;
    bad.a = -bad.a;
    EXPECT_FALSE(groth16_verify(vk_zkey, pub, bad));
  }
}

// ---- bad files -----------------------------------------------------------------------------

// A point of E(Fp) that is not in G1: x³ + 4 a square, and (cofactor ≈ 2^126) almost surely outside
// the subgroup; checked with the order-based definition.
G1Affine point_outside_g1() {
  for (uint64_t x = 1;; ++x) {
    const Fp fx = Fp::from_u64(x);
    auto y = (fx.square() * fx + Fp::from_u64(4)).sqrt();
    if (!y) continue;
    G1Affine p{fx, *y};
    if (!E::G1::in_subgroup_by_order(p.to_jacobian())) return p;
  }
}

G2Affine point_outside_g2() {
  for (uint64_t x = 1;; ++x) {
    const Fp2 fx{Fp::from_u64(x), Fp::one()};
    auto y = (fx.square() * fx + E::G2::b()).sqrt();
    if (!y) continue;
    G2Affine p{fx, *y};
    if (!E::G2::in_subgroup_by_order(p.to_jacobian())) return p;
  }
}

TEST(BadFiles, TruncatedAtEveryLength) {
  for (const char* f : {"multiplier.r1cs", "multiplier.wtns", "multiplier.zkey"}) {
    SCOPED_TRACE(f);
    const auto b = bytes_of(fixture(f));
    for (size_t n = 0; n < b.size(); ++n) {
      std::vector<uint8_t> t(b.begin(), b.begin() + n);
      try {
        if (f[11] == 'r') parse_r1cs<E>(t, f);
        if (f[11] == 'w') parse_wtns<E>(t, f);
        if (f[11] == 'z') parse_zkey<E>(t, f);
        ADD_FAILURE() << "truncated to " << n << " bytes: no error";
      } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(f, 0), 0u) << msg;  // names the file first
        const bool clear = msg.find("truncated") != std::string::npos ||
                           msg.find("runs past the end") != std::string::npos ||
                           msg.find("not a .") != std::string::npos ||
                           msg.find("cannot fit") != std::string::npos;
        EXPECT_TRUE(clear) << n << ": " << msg;
      }
    }
  }
}

TEST(BadFiles, WrongMagicVersionAndStrayBytes) {
  auto b = bytes_of(fixture("multiplier.zkey"));
  auto m = b;
  std::memcpy(m.data(), "ptau", 4);
  expect_error([&] { parse_zkey<E>(m, "k.zkey"); }, {"k.zkey: not a .zkey file", "magic \"ptau\""});
  expect_error([&] { parse_r1cs<E>(b, "k.r1cs"); }, {"not a .r1cs file", "\"zkey\""});
  m = b;
  m[4] = 2;
  expect_error([&] { parse_zkey<E>(m, "k.zkey"); }, {"unsupported version 2 (expected 1)"});
  m = b;
  m.push_back(0);
  expect_error([&] { parse_zkey<E>(m, "k.zkey"); },
               {"1 stray bytes after the last of 10 sections"});
}

TEST(BadFiles, WrongCurvePrime) {
  // r1cs/wtns: the scalar prime r sits after n8 in section 1.
  for (const char* f : {"multiplier.r1cs", "multiplier.wtns"}) {
    SCOPED_TRACE(f);
    Container c(bytes_of(fixture(f)));
    auto& h = c.payload(1);
    std::memcpy(h.data() + 4, ec::kBn254R.data(), 32);
    auto bn = c.bytes();
    auto parse = [&](const std::vector<uint8_t>& b) {
      if (std::string(f).ends_with("r1cs"))
        parse_r1cs<E>(b, f);
      else
        parse_wtns<E>(b, f);
    };
    expect_error(
        [&] { parse(bn); },
        {std::string(f) + ": section 1 (header): scalar field prime r is BN254's, expected "
                          "BLS12-381's"});
    EXPECT_EQ(detect_curve(bn, f), ec::CurveId::kBn254);
    h[4] ^= 2;
    auto junk = c.bytes();
    expect_error([&] { parse(junk); }, {"section 1 (header): unknown scalar field prime r 0x"});
  }
  Container z(bytes_of(fixture("multiplier.zkey")));
  z.payload(2)[4 + 47] ^= 1;  // top byte of q
  expect_error([&] { parse_zkey<E>(z.bytes(), "k.zkey"); },
               {"k.zkey: section 2 (Groth16 header): unknown base field prime q"});
  z = Container(bytes_of(fixture("multiplier.zkey")));
  z.payload(2)[4 + 48 + 4] ^= 1;  // r
  expect_error([&] { parse_zkey<E>(z.bytes(), "k.zkey"); },
               {"section 2 (Groth16 header): unknown scalar field prime r"});
}

TEST(BadFiles, MissingAndDuplicatedSections) {
  const auto b = bytes_of(fixture("multiplier_0000.zkey"));
  for (uint32_t id = 1; id <= 9; ++id) {
    Container c(b);
    std::erase_if(c.sections, [&](const auto& s) { return s.first == id; });
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"k.zkey: section " + std::to_string(id) + " (", "): missing section"});
    Container d(b);
    for (size_t i = 0; i < d.sections.size(); ++i)
      if (d.sections[i].first == id) {
        d.sections.push_back(d.sections[i]);
        break;
      }
    expect_error([&] { parse_zkey<E>(d.bytes(), "k.zkey"); },
                 {"k.zkey: section " + std::to_string(id) + " (", "): duplicated section"});
  }
  // Section 10 is optional for a prover, but a duplicate is still an error.
  Container c(b);
  std::erase_if(c.sections, [](const auto& s) { return s.first == 10; });
  EXPECT_NO_THROW(parse_zkey<E>(c.bytes(), "k.zkey"));
  Container d(b);
  d.sections.push_back(d.sections.back());
  expect_error([&] { parse_zkey<E>(d.bytes(), "k.zkey"); },
               {"section 10 (contributions): duplicated section"});
  // Any order is fine (this is the contributed file's order 1..10 applied to the fresh key).
  Container e(b);
  std::sort(e.sections.begin(), e.sections.end());
  EXPECT_NO_THROW(parse_zkey<E>(e.bytes(), "k.zkey"));
  // r1cs: header or constraints missing.
  Container r(bytes_of(fixture("multiplier.r1cs")));
  std::erase_if(r.sections, [](const auto& s) { return s.first == 1; });
  expect_error([&] { parse_r1cs<E>(r.bytes(), "c.r1cs"); },
               {"c.r1cs: section 1 (header): missing section"});
}

TEST(BadFiles, WitnessLengthNotMatching) {
  const auto r = read_r1cs<E>(fixture("multiplier.r1cs"));
  const auto pk = read_zkey<E>(fixture("multiplier.zkey"));
  auto w = read_wtns<E>(fixture("multiplier.wtns"));
  w.values.pop_back();
  const auto shorter = parse_wtns<E>(encode_wtns<E>(w.values), "w.wtns");
  expect_error([&] { check_witness_length(shorter, r.n_wires, r.source, "wires"); },
               {"w.wtns: witness has 3 values, but ", "multiplier.r1cs has 4 wires"});
  expect_error([&] { check_witness_length(shorter, pk.n_vars, "k.zkey", "variables"); },
               {"k.zkey has 4 variables"});
  expect_error([&] { first_unsatisfied<E>(r, shorter.values); }, {"witness has 3 values"});
  // Inside one file: nWitness disagrees with the size of section 2.
  Container c(bytes_of(fixture("multiplier.wtns")));
  c.payload(1)[36] = 5;
  expect_error([&] { parse_wtns<E>(c.bytes(), "w.wtns"); },
               {"w.wtns: section 2 (values): size 128 bytes, expected nWitness·n8 = 5·32 = 160"});
  // And w[0] must be the constant 1.
  auto w0 = read_wtns<E>(fixture("multiplier.wtns"));
  w0.values[0] = Fr::from_u64(2);
  expect_error([&] { check_witness_length(w0, 4, "c.r1cs", "wires"); },
               {"witness value 0 (the constant wire) is 2, not 1"});
}

// validate_wtns makes read_wtns' and check_witness_length's checks on a mapped file, keeping
// nothing: the same verdicts and the same messages.
TEST(BadFiles, ValidateWitnessMatchesReadAndLengthCheck) {
  const auto path = (std::filesystem::temp_directory_path() /
                     ("splitprove_test_validate_" + std::to_string(::getpid()) + ".wtns"))
                        .string();
  const auto good = bytes_of(fixture("multiplier.wtns"));
  write_file(path, good);
  EXPECT_EQ(validate_wtns<E>(path, 4, "k.zkey", "variables"), 4u);
  expect_error([&] { validate_wtns<E>(path, 5, "k.zkey", "variables"); },
               {path + ": witness has 4 values, but k.zkey has 5 variables"});
  {
    Container c(good);
    store_le(Fr::MOD, c.payload(2).data() + 2 * 32);
    write_file(path, c.bytes());
    expect_error([&] { validate_wtns<E>(path, 4, "k.zkey", "variables"); },
                 {path + ": section 2 (values): value 2 is not below r"});
  }
  {
    auto w = read_wtns<E>(fixture("multiplier.wtns"));
    w.values[0] = Fr::from_u64(2);
    write_file(path, encode_wtns<E>(w.values));
    expect_error([&] { validate_wtns<E>(path, 4, "k.zkey", "variables"); },
                 {"witness value 0 (the constant wire) is 2, not 1"});
  }
  {
    Container c(good);
    c.payload(1)[36] = 5;
    write_file(path, c.bytes());
    expect_error([&] { validate_wtns<E>(path, 5, "k.zkey", "variables"); },
                 {"section 2 (values): size 128 bytes, expected nWitness·n8 = 5·32 = 160"});
  }
  std::filesystem::remove(path);
}

// Offset of point i of a zkey point section, and helpers to plant bytes there.
void put_g1(std::vector<uint8_t>& sec, size_t i, const G1Affine& p) {
  Codec::encode(p, sec.data() + i * Codec::kG1);
}

TEST(BadFiles, PointsOffCurveOutsideSubgroupOrOutOfRange) {
  const auto b = bytes_of(fixture("mixed.zkey"));
  const auto pk = parse_zkey<E>(b, "k.zkey");
  // A non-identity A point to damage.
  size_t i = 0;
  while (pk.a[i].is_identity()) ++i;

  {  // off the curve: y + 1
    Container c(b);
    G1Affine p = pk.a[i];
    p.y += Fp::one();
    put_g1(c.payload(5), i, p);
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"k.zkey: section 5 (A): point " + std::to_string(i) + ": not on the curve"});
  }
  {  // on the curve, outside G1
    Container c(b);
    put_g1(c.payload(6), i, point_outside_g1());
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"k.zkey: section 6 (B1): point " + std::to_string(i) +
                  ": not in the prime-order subgroup"});
    // Only the subgroup check catches it: with it off, the key reads.
    EXPECT_NO_THROW(parse_zkey<E>(c.bytes(), "k.zkey", ZkeyReadOptions{false}));
  }
  {  // G2, outside the subgroup
    Container c(b);
    Codec::encode(point_outside_g2(), c.payload(7).data() + 3 * Codec::kG2);
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 7 (B2): point 3: not in the prime-order subgroup"});
  }
  {  // a coordinate >= q (exactly q: the smallest bad value)
    Container c(b);
    auto& sec = c.payload(9);
    store_le(Fp::MOD, sec.data() + 2 * Codec::kG1);
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 9 (H): point 2: coordinate x is not a field element (>= q)"});
    Container d(b);
    std::fill(d.payload(7).begin() + Codec::kG2 + 3 * Codec::kFp,
              d.payload(7).begin() + 2 * Codec::kG2, uint8_t(0xff));
    expect_error([&] { parse_zkey<E>(d.bytes(), "k.zkey"); },
                 {"section 7 (B2): point 1: coordinate y.c1 is not a field element (>= q)"});
  }
  {  // the lowest bad index is reported, whatever the thread schedule
    Container c(b);
    auto& sec = c.payload(9);
    for (size_t k = 5; k < pk.h.size(); k += 3) store_le(Fp::MOD, sec.data() + k * Codec::kG1);
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); }, {"section 9 (H): point 5: "});
  }
  {  // read from a file, the points checked in place: the same errors, naming the file
    const auto path = (std::filesystem::temp_directory_path() /
                       ("splitprove_test_bad_" + std::to_string(::getpid()) + ".zkey"))
                          .string();
    Container c(b);
    G1Affine p = pk.a[i];
    p.y += Fp::one();
    put_g1(c.payload(6), i, p);
    store_le(Fp::MOD, c.payload(8).data() + 1 * Codec::kG1);
    write_file(path, c.bytes());
    expect_error([&] { read_zkey<E>(path); },
                 {path + ": section 6 (B1): point " + std::to_string(i) + ": not on the curve"});
    Container d(b);
    store_le(Fp::MOD, d.payload(8).data() + 1 * Codec::kG1);
    write_file(path, d.bytes());
    expect_error([&] { read_zkey<E>(path); },
                 {path + ": section 8 (C): point 1: coordinate x is not a field element (>= q)"});
    std::filesystem::remove(path);
  }
  {  // header points: off curve, and alpha_1 at infinity
    Container c(b);
    auto& h = c.payload(2);
    const size_t alpha = 4 + 48 + 4 + 32 + 12;
    h[alpha + 60] ^= 1;
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 2 (Groth16 header): alpha_1: not on the curve"});
    Container d(b);
    std::fill(d.payload(2).begin() + alpha, d.payload(2).begin() + alpha + 96, uint8_t(0));
    expect_error([&] { parse_zkey<E>(d.bytes(), "k.zkey"); },
                 {"alpha_1: the point at infinity is not allowed"});
  }
}

// A coefficient is its .zkey record: matrix, row, wire (u32 LE), then coef·R² mod r in 8·N bytes.
TEST(Zkey, CoefficientIsTheRecordLayout) {
  static_assert(sizeof(zk::Coefficient<E>) == 12 + 8 * Fr::N);
  std::mt19937_64 rng(7);
  const Fr r_as_value = Fr::from_mont(Fr::R2);  // the field element R
  for (int t = 0; t < 50; ++t) {
    Fr v = Fr::from_u64(rng()) * Fr::from_u64(rng()) * Fr::from_u64(rng());
    if (t == 0) v = Fr::one();
    if (t == 1) v = -Fr::one();
    const zk::Coefficient<E> c(zk::Matrix::kB, 7 + uint32_t(t), 123456, v);
    EXPECT_EQ(c.value(), v);
    EXPECT_EQ(c.scaled(), v * r_as_value);
    uint8_t bytes[sizeof(c)];
    std::memcpy(bytes, &c, sizeof(c));
    uint32_t head[3];
    std::memcpy(head, bytes, 12);
    EXPECT_EQ(head[0], 1u);
    EXPECT_EQ(head[1], 7u + uint32_t(t));
    EXPECT_EQ(head[2], 123456u);
    EXPECT_EQ(load_le<Fr::N>(bytes + 12), Fr::mont_mul(v.mont(), Fr::R2));
  }
}

// The verifying key alone: equal to the full read's, fully checked, and the proving sections are
// not read (a bad A point does not stop it; a bad IC point, a point outside the subgroup in the
// header or a proving section of the wrong size does).
TEST(Zkey, VerifyingKeyAloneSkipsTheProvingSections) {
  const auto path = (std::filesystem::temp_directory_path() /
                     ("splitprove_test_vk_" + std::to_string(::getpid()) + ".zkey"))
                        .string();
  for (const char* c : kCircuits) {
    const auto fx = fixture(std::string(c) + ".zkey");
    SCOPED_TRACE(fx);
    const auto vk = read_zkey_verifying_key<E>(fx);
    const auto full = zk::verifying_key(read_zkey<E>(fx));
    EXPECT_EQ(vk.n_public, full.n_public);
    EXPECT_TRUE(vk.alpha1 == full.alpha1 && vk.beta2 == full.beta2 && vk.gamma2 == full.gamma2 &&
                vk.delta2 == full.delta2);
    EXPECT_EQ(vk.ic, full.ic);
  }
  const auto b = bytes_of(fixture("mixed.zkey"));
  {
    Container c(b);
    store_le(Fp::MOD, c.payload(5).data());  // A point 0: x >= q
    write_file(path, c.bytes());
    EXPECT_NO_THROW(read_zkey_verifying_key<E>(path));
    expect_error([&] { read_zkey<E>(path); }, {"section 5 (A): point 0: coordinate x"});
  }
  {
    Container c(b);
    put_g1(c.payload(3), 1, point_outside_g1());
    write_file(path, c.bytes());
    expect_error([&] { read_zkey_verifying_key<E>(path); },
                 {path + ": section 3 (IC): point 1: not in the prime-order subgroup"});
  }
  {
    Container c(b);
    c.payload(9).resize(c.payload(9).size() - Codec::kG1);
    write_file(path, c.bytes());
    expect_error([&] { read_zkey_verifying_key<E>(path); }, {"section 9 (H): size "});
  }
  std::filesystem::remove(path);
}

TEST(BadFiles, ZkeyHeaderCountsAndCoefficients) {
  const auto b = bytes_of(fixture("multiplier_0000.zkey"));
  const size_t counts = 4 + 48 + 4 + 32;  // nVars, nPublic, domainSize follow the primes
  auto with_header_u32 = [&](size_t off, uint32_t v) {
    Container c(b);
    std::memcpy(c.payload(2).data() + counts + off, &v, 4);
    return c.bytes();
  };
  expect_error([&] { parse_zkey<E>(with_header_u32(0, 5), "k.zkey"); },
               {"k.zkey: section 5 (A): size 384 bytes, expected nVars = 5 points of 96 bytes"});
  expect_error([&] { parse_zkey<E>(with_header_u32(8, 6), "k.zkey"); },
               {"domainSize = 6 is not a power of two"});
  expect_error([&] { parse_zkey<E>(with_header_u32(8, 8), "k.zkey"); },
               {"section 9 (H): size 384 bytes, expected domainSize = 8 points of 96 bytes = 768"});
  expect_error([&] { parse_zkey<E>(with_header_u32(4, 7), "k.zkey"); },
               {"nVars = 4 is less than nPublic + 1 = 8"});
  {
    Container c(b);
    c.payload(1)[0] = 2;
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 1 (protocol): protocol 2 (PLONK), expected 1 (Groth16)"});
  }
  auto coeff = [&](size_t k, size_t off, const std::vector<uint8_t>& v) {
    Container c(b);
    auto& s = c.payload(4);
    std::copy(v.begin(), v.end(), s.begin() + 4 + k * 44 + off);
    return c.bytes();
  };
  expect_error(
      [&] {
        parse_zkey<E>(coeff(1, 0, {2, 0, 0, 0}), "k.zkey");
      },
      {"section 4 (coefficients): coefficient 1: matrix 2, expected 0 (A) or 1 (B)"});
  expect_error(
      [&] {
        parse_zkey<E>(coeff(2, 4, {4, 0, 0, 0}), "k.zkey");
      },
      {"coefficient 2: row 4 >= domainSize = 4"});
  expect_error(
      [&] {
        parse_zkey<E>(coeff(0, 8, {9, 0, 0, 0}), "k.zkey");
      },
      {"coefficient 0: wire 9 >= nVars = 4"});
  std::vector<uint8_t> r_bytes(32);
  store_le(Fr::MOD, r_bytes.data());
  expect_error([&] { parse_zkey<E>(coeff(3, 12, r_bytes), "k.zkey"); },
               {"coefficient 3: value is not below r"});
  {
    Container c(b);
    c.payload(4)[0] += 1;  // nCoefs one too many for the section
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 4 (coefficients): size", "expected 4 + nCoefs·44"});
  }
}

TEST(BadFiles, ContributionsSectionIsBoundsChecked) {
  const auto b = bytes_of(fixture("multiplier.zkey"));
  {
    Container c(b);
    auto& s = c.payload(10);
    s[64] = 0xff;  // nContributions
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 10 (contributions): ", "contributions cannot fit"});
  }
  {
    Container c(b);
    auto& s = c.payload(10);
    const size_t plen = 64 + 4 + 3 * 96 + 192 + 64 + 4;
    s[plen] += 50;  // parameter length beyond the section
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 10 (contributions): truncated: parameters"});
  }
  {
    Container c(b);
    auto& s = c.payload(10);
    s[64 + 4 + 10] ^= 1;  // deltaAfter's x
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 10 (contributions): contribution 0: deltaAfter: not on the curve"});
  }
  {
    Container c(b);
    auto& s = c.payload(10);
    s.push_back(0);
    expect_error([&] { parse_zkey<E>(c.bytes(), "k.zkey"); },
                 {"section 10 (contributions): section is", "its content ends at"});
  }
}

TEST(BadFiles, R1csAndWtnsContent) {
  const auto b = bytes_of(fixture("multiplier.r1cs"));
  {
    Container c(b);
    c.payload(2)[4] = 9;  // A's first wire
    expect_error([&] { parse_r1cs<E>(c.bytes(), "c.r1cs"); },
                 {"c.r1cs: section 2 (constraints): constraint 0: A term 0: wire 9 >= nWires = 4"});
  }
  {
    Container c(b);
    store_le(Fr::MOD, c.payload(2).data() + 8);
    expect_error([&] { parse_r1cs<E>(c.bytes(), "c.r1cs"); },
                 {"constraint 0: A term 0: coefficient is not below r"});
  }
  {
    Container c(b);
    c.payload(2)[0] = 200;  // nTerms of A
    expect_error([&] { parse_r1cs<E>(c.bytes(), "c.r1cs"); },
                 {"constraint 0: A has 200 terms, more than the"});
  }
  {
    Container c(b);
    c.payload(1)[4 + 32 + 16 + 8] = 2;  // nConstraints = 2
    expect_error([&] { parse_r1cs<E>(c.bytes(), "c.r1cs"); },
                 {"section 2 (constraints): truncated"});
  }
  {
    Container c(b);
    c.sections.push_back({4, {0, 0, 0, 0}});
    expect_error([&] { parse_r1cs<E>(c.bytes(), "c.r1cs"); },
                 {"section 4 (custom gates list): custom gates are a PLONK feature"});
  }
  {
    Container c(bytes_of(fixture("multiplier.wtns")));
    store_le(Fr::MOD, c.payload(2).data() + 2 * 32);
    expect_error([&] { parse_wtns<E>(c.bytes(), "w.wtns"); },
                 {"w.wtns: section 2 (values): value 2 is not below r"});
  }
}

TEST(BadFiles, Json) {
  const std::string proof = text_of(fixture("multiplier.proof.json"));
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    const auto p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return s.replace(p, from.size(), to);
  };
  const auto pa = read_proof_json<E>(fixture("multiplier.proof.json"));
  const std::string y = pa.a.y.to_decimal();
  expect_error([&] { proof_from_json<E>(replace(proof, y, "12x4"), "proof.json"); },
               {"proof.json: pi_a[1]: not a decimal integer"});
  expect_error([&] { proof_from_json<E>(replace(proof, "\"" + y + "\"", "17"), "proof.json"); },
               {"proof.json: pi_a[1]: expected a decimal string"});
  expect_error([&] { proof_from_json<E>(replace(proof, y, ff::to_decimal(Fp::MOD)), "p"); },
               {"p: pi_a[1]: value is not below q"});
  expect_error(
      [&] { proof_from_json<E>(replace(proof, y, (pa.a.y + Fp::one()).to_decimal()), "p"); },
      {"p: pi_a: not on the curve"});
  expect_error([&] { proof_from_json<E>(replace(proof, "bls12381", "bn128"), "p"); },
               {"p: curve: \"bn128\" is BN254, expected BLS12-381"});
  expect_error([&] { proof_from_json<E>(replace(proof, "groth16", "plonk"), "p"); },
               {"p: protocol: is \"plonk\", expected \"groth16\""});
  expect_error([&] { proof_from_json<E>(proof.substr(0, 100), "p"); }, {"p: not valid JSON"});
  expect_error([&] { proof_from_json<E>(replace(proof, "\"pi_c\"", "\"pi_x\""), "p"); },
               {"p: pi_c: missing"});
  {  // a G1 point outside the subgroup in pi_c
    const auto q = point_outside_g1();
    std::string s = replace(proof, pa.c.x.to_decimal(), q.x.to_decimal());
    s = replace(s, pa.c.y.to_decimal(), q.y.to_decimal());
    expect_error([&] { proof_from_json<E>(s, "p"); }, {"p: pi_c: not in the prime-order subgroup"});
  }
  expect_error([&] { public_from_json<E>("[\"1\", \"x\"]", "pub"); },
               {"pub: [1]: not a decimal integer"});
  expect_error([&] { public_from_json<E>("[\"" + ff::to_decimal(Fr::MOD) + "\"]", "pub"); },
               {"pub: [0]: value is not below r"});
  expect_error([&] { public_from_json<E>("{}", "pub"); }, {"pub: expected a JSON array"});

  const std::string vk = text_of(fixture("multiplier.vkey.json"));
  expect_error([&] { vkey_from_json<E>(replace(vk, "\"nPublic\": 1", "\"nPublic\": 2"), "vk"); },
               {"vk: IC: has 2 points, expected nPublic + 1 = 3"});
  const auto v = read_vkey_json<E>(fixture("multiplier.vkey.json"));
  const auto e = E::Pairing::pairing(v.alpha1, v.beta2);
  expect_error(
      [&] {
        vkey_from_json<E>(
            replace(vk, e.c1.c2.c1.to_decimal(), (e.c1.c2.c1 + Fp::one()).to_decimal()), "vk");
      },
      {"vk: vk_alphabeta_12: does not equal e(vk_alpha_1, vk_beta_2)"});
  expect_error([&] { vkey_from_json<E>(replace(vk, "bls12381", "BN-254"), "vk"); },
               {"vk: curve: \"BN-254\" is BN254"});
  // snarkjs's infinity encodings read as the identity and write back the same.
  zk::Proof<E> inf{G1Affine::identity(), G2Affine::identity(), G1Affine::identity()};
  const auto inf_json = proof_to_json<E>(inf);
  EXPECT_NE(inf_json.find("[\n  \"0\",\n  \"1\",\n  \"0\"\n ]"), std::string::npos) << inf_json;
  const auto back = proof_from_json<E>(inf_json, "inf");
  EXPECT_TRUE(back.a.is_identity() && back.b.is_identity() && back.c.is_identity());
  // A projective z other than 1 is normalised (ffjavascript points are Jacobian).
  const Fp z = Fp::from_u64(7);
  const std::string scaled =
      "{\"pi_a\": [\"" + (pa.a.x * z.square()).to_decimal() + "\", \"" +
      (pa.a.y * z.square() * z).to_decimal() + "\", \"7\"], \"pi_b\": " +
      "[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]], \"pi_c\": [\"0\", \"1\", \"0\"]}";
  EXPECT_EQ(proof_from_json<E>(scaled, "s").a, pa.a);
}

// Random damage to every fixture: each parse either succeeds or throws splitprove::Error (the
// sanitizer build turns any out-of-bounds read into a failure). The fuzz targets do this at scale.
TEST(BadFiles, RandomMutationsNeverCrash) {
  std::mt19937_64 rng(20240611);
  size_t errors = 0, accepted = 0;
  for (const char* f : {"multiplier.r1cs", "mixed.r1cs", "multiplier.wtns", "multiplier.zkey",
                        "multiplier.proof.json", "multiplier.vkey.json"}) {
    const auto b = bytes_of(fixture(f));
    const std::string name(f);
    for (int it = 0; it < 150; ++it) {
      auto m = b;
      const int edits = 1 + int(rng() % 4);
      for (int k = 0; k < edits; ++k) {
        const size_t pos = rng() % m.size();
        switch (rng() % 3) {
          case 0:
            m[pos] ^= uint8_t(1u << (rng() % 8));
            break;
          case 1:
            m[pos] = uint8_t(rng());
            break;
          case 2:
            m.resize(pos);
            break;
        }
        if (m.empty()) break;
      }
      try {
        if (name.ends_with(".r1cs"))
          parse_r1cs<E>(m, f);
        else if (name.ends_with(".wtns"))
          parse_wtns<E>(m, f);
        else if (name.ends_with(".zkey"))
          parse_zkey<E>(m, f);
        else if (name.find("proof") != std::string::npos)
          proof_from_json<E>(std::string(m.begin(), m.end()), f);
        else
          vkey_from_json<E>(std::string(m.begin(), m.end()), f);
        ++accepted;
      } catch (const Error& e) {
        ++errors;
        EXPECT_EQ(std::string(e.what()).rfind(f, 0), 0u) << e.what();
      }
    }
  }
  EXPECT_GT(errors, 500u);
  (void)accepted;
}

}  // namespace
}  // namespace splitprove::io

// Found by fuzz_json: a number literal too large for a double made the JSON library throw
// out_of_range, which escaped as a non-splitprove exception.
TEST(IoJson, NumberOverflowIsAnError) {
  EXPECT_THROW(splitprove::io::proof_from_json<splitprove::ec::Bls12_381>("[1e999]", "proof.json"), splitprove::Error);
  EXPECT_THROW(splitprove::io::public_from_json<splitprove::ec::Bls12_381>("[\"1\", 7e99999]", "public.json"), splitprove::Error);
}
