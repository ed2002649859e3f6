// Every check computes its result here and compares it with a value from an independent source
// (the zcash/IETF generator encodings, snarkjs's NTT root w[10], and the pairing value that
// noble-curves, zkcrypto and ffjavascript agree on; see tests/vectors/).
#include "splitprove/selftest.hpp"

#include <fmt/format.h>

#include <chrono>
#include <functional>

#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "ec/encoding.hpp"
#include "util/random.hpp"

namespace splitprove {
namespace {

using namespace bls12_381;

std::string hex_bytes(const std::vector<uint8_t>& v) {
  std::string s;
  for (auto b : v) s += fmt::format("{:02x}", b);
  return s;
}

}  // namespace

std::vector<SelftestCheck> run_selftest() {
  std::vector<SelftestCheck> out;
  auto check = [&](const std::string& name, const std::function<bool(std::string&)>& fn) {
    SelftestCheck c;
    c.name = name;
    auto t0 = std::chrono::steady_clock::now();
    try {
      c.ok = fn(c.detail);
    } catch (const std::exception& e) {
      c.ok = false;
      c.detail = e.what();
    }
    c.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.push_back(std::move(c));
  };
  util::OsRng rng;

  check("Fp: a·b·b^-1 = a, sqrt(a^2) = ±a (random a, b)", [&](std::string& d) {
    Fp a = Fp::random(rng), b = Fp::random(rng);
    auto s = a.square().sqrt();
    d = fmt::format("a = 0x{}...", a.to_hex().substr(0, 16));
    return a * b * b.inverse() == a && s && (*s == a || *s == -a);
  });
  check("Fr: 2^32-th root of unity (snarkjs convention)", [&](std::string& d) {
    Fr w32 = Fr::root_of_unity(32), w10 = Fr::root_of_unity(10);
    d = fmt::format("w[10] = 0x{}", w10.to_hex());
    bool order = w32.pow(Limbs<1>{uint64_t(1) << 32}).is_one() &&
                 !w32.pow(Limbs<1>{uint64_t(1) << 31}).is_one();
    return order && w10 == Fr::from_hex("2f27b09858f43cef3ed6d55a6350721d79efd6b0570bf109d58a5af42d010ff9");
  });
  check("G1: generator on curve, in subgroup (r·G = 0 and endomorphism test)", [&](std::string& d) {
    auto g = G1Jacobian::generator();
    d = "y^2 = x^3 + 4";
    return g.on_curve() && G1::in_subgroup_by_order(g) && g1_in_subgroup(g);
  });
  check("G2: generator on curve, in subgroup (r·G = 0 and psi test)", [&](std::string& d) {
    auto g = G2Jacobian::generator();
    d = "y^2 = x^3 + 4(1+u)";
    return g.on_curve() && G2::in_subgroup_by_order(g) && g2_in_subgroup(g);
  });
  check("encodings: compressed generators match the zcash format", [&](std::string& d) {
    auto e1 = hex_bytes(ec::ZcashCodec<G1>::encode(G1Affine::generator(), true));
    auto e2 = hex_bytes(ec::ZcashCodec<G2>::encode(G2Affine::generator(), true));
    d = "G1 " + e1.substr(0, 16) + "..., G2 " + e2.substr(0, 16) + "...";
    G1Affine back;
    auto err = ec::ZcashCodec<G1>::decode(ec::ZcashCodec<G1>::encode(G1Affine::generator(), true),
                                          back, [](const G1Jacobian& p) { return g1_in_subgroup(p); });
    return e1 == "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb" &&
           e2 == "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
                 "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8" &&
           err == ec::DecodeError::kNone && back == G1Affine::generator();
  });
  check("scalar multiplication: (a·b)·G = a·(b·G) in G1 and G2", [&](std::string& d) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    d = "random a, b";
    return G1Jacobian::generator().mul(a * b) == G1Jacobian::generator().mul(b).mul(a) &&
           G2Jacobian::generator().mul(a * b) == G2Jacobian::generator().mul(b).mul(a);
  });
  check("pairing: e(G1, G2) known answer", [&](std::string& d) {
    Fp12 e = Pairing::pairing(G1Affine::generator(), G2Affine::generator());
    d = "c0.c0.c0 = 0x" + e.c0.c0.c0.to_hex().substr(0, 24) + "...";
    return e.c0.c0.c0 == Fp::from_hex("1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6") &&
           e.c1.c2.c1 == Fp::from_hex("0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631");
  });
  check("pairing: bilinear, e(a·P, b·Q) = e(P, Q)^(a·b), non-degenerate", [&](std::string& d) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    G1Jacobian P = G1Jacobian::generator();
    G2Jacobian Q = G2Jacobian::generator();
    Fp12 e = Pairing::pairing(P.to_affine(), Q.to_affine());
    Fp12 lhs = Pairing::pairing(P.mul(a).to_affine(), Q.mul(b).to_affine());
    d = "random a, b";
    return !e.is_one() && lhs == e.pow((a * b).to_canonical());
  });
  check("multi-pairing: e(a·P, Q)·e(-P, a·Q) = 1 with one final exponentiation", [&](std::string& d) {
    Fr a = Fr::random(rng);
    G1Jacobian P = G1Jacobian::generator();
    G2Jacobian Q = G2Jacobian::generator();
    auto q1 = Pairing::prepare(Q.to_affine()), q2 = Pairing::prepare(Q.mul(a).to_affine());
    std::pair<G1Affine, const Pairing::G2Prepared*> good[] = {{P.mul(a).to_affine(), &q1},
                                                              {(-P).to_affine(), &q2}};
    std::pair<G1Affine, const Pairing::G2Prepared*> bad[] = {{P.mul(a).to_affine(), &q1},
                                                             {P.to_affine(), &q2}};
    d = "and a wrong pair is rejected";
    return Pairing::product_is_one(good) && !Pairing::product_is_one(bad);
  });
  check("BN254 Fr: 2^28-th root of unity (snarkjs bn128 convention)", [&](std::string& d) {
    const auto w = bn254::Fr::root_of_unity(28);
    d = "w[28] = " + w.to_decimal().substr(0, 20) + "...";
    return w.to_decimal() ==
           "19103219067921713944291392827692070036145651957329286315305642004821462161904";
  });
  check("BN254 G2: generator in subgroup (r·G = 0 and psi test), EIP-197 layout",
        [&](std::string& d) {
          auto g = bn254::G2Jacobian::generator();
          auto e = hex_bytes(ec::EvmCodec<bn254::G2>::encode(bn254::G2Affine::generator()));
          d = "x.c1 = 0x" + e.substr(0, 16) + "...";
          return g.on_curve() && bn254::G2::in_subgroup_by_order(g) && bn254::g2_in_subgroup(g) &&
                 e.substr(0, 64) ==
                     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2";
        });
  check("BN254 pairing: e(G1, G2) known answer (noble, ffjavascript), bilinear",
        [&](std::string& d) {
          using BnE = bn254::Pairing;
          using bn254::Fp;
          auto e = BnE::pairing(bn254::G1Affine::generator(), bn254::G2Affine::generator());
          bn254::Fr a = bn254::Fr::random(rng);
          auto lhs = BnE::pairing(bn254::G1Jacobian::generator().mul(a).to_affine(),
                                  bn254::G2Affine::generator());
          d = "c0.c0.c0 = 0x" + e.c0.c0.c0.to_hex().substr(0, 24) + "...";
          return e.c0.c0.c0 ==
                     Fp::from_hex("262b253feda94cfe0da01bde280a3ed6f87e5feb898578b55e1f63739d870e95") &&
                 e.c1.c2.c1 ==
                     Fp::from_hex("f97b5221474526b601f3730a3afa965ceee1b343940c383e5314859e762c97") &&
                 lhs == e.pow(a.to_canonical());
        });
  return out;
}

}  // namespace splitprove
