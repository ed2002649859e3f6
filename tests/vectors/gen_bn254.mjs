// Known-answer test vectors for BN254 (snarkjs "bn128", Ethereum "alt_bn128"), generated with
// independent JS implementations: @noble/curves (reference) and ffjavascript (what snarkjs uses).
//
//   npm ci            # repo root; installs the exact versions pinned in package.json
//   node tests/vectors/gen_bn254.mjs > tests/vectors/bn254.json
//
// Same schema as bls12_381.json (see README.md) so the C++ suites read both with one code path,
// except the point encodings: BN254 has no zcash-style flag encoding; the vectors carry the
// Ethereum precompile layout (EIP-196/197: big-endian, uncompressed, 32-byte coordinates, G2 as
// x.c1 || x.c0 || y.c1 || y.c0, infinity as all zero bytes), written here from the affine
// coordinates by the definition, and snarkjs's little-endian Montgomery form (.zkey/.wtns).
// Fully deterministic (SHA-256 counter PRNG); self-checks go to stderr, a failed assertion exits 1.

import { bn254 } from "@noble/curves/bn254.js";
import { buildBn128 } from "ffjavascript";
import {
  assert, log, makeRng, hex, pkgVersion, fp12Layout, fieldVectors, edges, fp2Vectors,
  pointScalars, ffjavascriptLayout, checkFfjavascriptAgainstNoble, ffjavascriptPairing, frRoots,
} from "./kat_common.mjs";

const { randMod, randNonZero } = makeRng("splitprove-bn254-kat-v1");

const be32 = (v) => v.toString(16).padStart(64, "0");
// Little-endian bytes of v·2^256 mod p (snarkjs's Montgomery form in .zkey / .wtns files).
const leMont = (v, m) => {
  let x = (v << 256n) % m;
  let s = "";
  for (let i = 0; i < 32; i++) { s += (x & 0xffn).toString(16).padStart(2, "0"); x >>= 8n; }
  return s;
};

const { Fp, Fp2, Fp12, Fr } = bn254.fields;
const G1 = bn254.G1.Point;
const G2 = bn254.G2.Point;
const p = Fp.ORDER;
const r = Fr.ORDER;
const X = 0x44e992b44a6909f1n;
assert(p === 36n * X ** 4n + 36n * X ** 3n + 24n * X ** 2n + 6n * X + 1n, "p(x)");
assert(r === 36n * X ** 4n + 36n * X ** 3n + 18n * X ** 2n + 6n * X + 1n, "r(x)");

const { fp12Flat, fp12FromFlat, unit } = fp12Layout(Fp12);

const nobleVersion = pkgVersion("@noble/curves");
const ffjsVersion = pkgVersion("ffjavascript");
const out = {
  source: `@noble/curves ${nobleVersion} (bn254), ffjavascript ${ffjsVersion}`,
  p: hex(p),
  r: hex(r),
};

out.fp = fieldVectors(Fp, p, true, edges(p), 13, randMod);
// Fr square roots: r = 1 mod 4, noble's Tonelli-Shanks returns some root; the C++ test checks
// the root squares back rather than its sign, so only the Legendre symbol matters here.
out.fr = fieldVectors(Fr, r, true, edges(r), 13, randMod);

out.fp2 = fp2Vectors(Fp, Fp2, p, randMod);

// scalars for G1/G2: random ones are 254-bit (bit 253 forced)
const ks = pointScalars(r, 253n, randMod);

// Ethereum precompile layout (EIP-196/197), by definition from the affine coordinates.
const ethG1 = (P) => {
  if (P.is0()) return "00".repeat(64);
  const a = P.toAffine();
  return be32(a.x) + be32(a.y);
};
const ethG2 = (P) => {
  if (P.is0()) return "00".repeat(128);
  const a = P.toAffine();
  return be32(a.x.c1) + be32(a.x.c0) + be32(a.y.c1) + be32(a.y.c0);
};
// snarkjs .zkey layout: coordinates in little-endian Montgomery form, x then y (Fp2 as c0, c1).
const snarkjsG1 = (P) => {
  if (P.is0()) return "00".repeat(64);
  const a = P.toAffine();
  return leMont(a.x, p) + leMont(a.y, p);
};
const snarkjsG2 = (P) => {
  if (P.is0()) return "00".repeat(128);
  const a = P.toAffine();
  return leMont(a.x.c0, p) + leMont(a.x.c1, p) + leMont(a.y.c0, p) + leMont(a.y.c1, p);
};

const mulBase = (P, k) => (k === 0n ? P.ZERO : P.BASE.multiply(k));
out.g1 = ks.map((k) => {
  const P = mulBase(G1, k);
  const aff = k === 0n ? null : P.toAffine();
  return { k: hex(k), ethereum: ethG1(P), snarkjs_le_mont: snarkjsG1(P),
           x: aff ? hex(aff.x) : null, y: aff ? hex(aff.y) : null };
});
out.g2 = ks.map((k) => {
  const P = mulBase(G2, k);
  const aff = k === 0n ? null : P.toAffine();
  if (k !== 0n) P.assertValidity(); // noble's G2 check: on the twist and [6x^2]P = psi(P)
  return {
    k: hex(k), ethereum: ethG2(P), snarkjs_le_mont: snarkjsG2(P),
    x: aff ? [hex(aff.x.c0), hex(aff.x.c1)] : null,
    y: aff ? [hex(aff.y.c0), hex(aff.y.c1)] : null,
  };
});

{
  const kr = randNonZero(r);
  const addPairs = [[1n, 1n], [1n, 2n], [randNonZero(r), randNonZero(r)], [kr, r - kr]];
  out.g1_add = addPairs.map(([a, b]) => {
    let S = mulBase(G1, a).add(mulBase(G1, b));
    if (S.is0()) S = G1.ZERO;
    assert(S.equals(mulBase(G1, (a + b) % r)), "g1 add");
    return { a_k: hex(a), b_k: hex(b), sum_ethereum: ethG1(S) };
  });
}

// Points on the twist E'(Fp2) outside G2 (the cofactor is 2p - r): a decoder must refuse them.
{
  const b2 = bn254.G2.CURVE?.b ?? G2.CURVE().b;
  const bad = [];
  for (let t = 0n; bad.length < 3; t++) {
    const x = Fp2.create({ c0: 7n + t, c1: 1n });
    const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), b2);
    let y;
    try { y = Fp2.sqrt(rhs); } catch { continue; }
    if (y === undefined || !Fp2.eql(Fp2.sqr(y), rhs)) continue;
    const P = G2.fromAffine({ x, y });
    let inG2 = true;
    try { P.assertValidity(); } catch { inG2 = false; }
    if (inG2) continue;
    assert(!P.multiplyUnsafe(r - 1n).add(P).is0(), "off-subgroup point has r·P != 0");
    bad.push({ x: [hex(x.c0), hex(x.c1)], y: [hex(y.c0), hex(y.c1)], ethereum: be32(x.c1) + be32(x.c0) + be32(y.c1) + be32(y.c0) });
  }
  out.g2_not_in_subgroup = bad;
}

// ---------------------------------------------------------------- pairing (noble)
const pairScalars = [[1n, 1n], [2n, 3n], [randNonZero(r), randNonZero(r)], [randNonZero(r), randNonZero(r)]];
const noblePair = (a, b) => bn254.pairing(G1.BASE.multiply(a), G2.BASE.multiply(b));
out.pairing = pairScalars.map(([a, b]) => ({ a: hex(a), b: hex(b), e: fp12Flat(noblePair(a, b)).map(hex) }));

const e11 = noblePair(1n, 1n);
{
  assert(Fp12.eql(noblePair(2n, 3n), Fp12.pow(e11, 6n)), "bilinearity");
  assert(Fp12.eql(Fp12.pow(e11, r), Fp12.ONE) && !Fp12.eql(e11, Fp12.ONE), "e(G1,G2) has order r");
  const u = unit(1), v = unit(2), w = unit(6);
  assert(Fp12.eql(Fp12.sqr(u), Fp12.neg(Fp12.ONE)), "u^2=-1");
  assert(Fp12.eql(Fp12.pow(v, 3n), Fp12.add(Fp12.mul(Fp12.ONE, fp12FromFlat([9n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n])), u)), "v^3=9+u");
  assert(Fp12.eql(Fp12.sqr(w), v), "w^2=v");
}

// ---------------------------------------------------------------- ffjavascript
const curve = await buildBn128(true);
const { ffFlat } = ffjavascriptLayout(curve);
checkFfjavascriptAgainstNoble(curve, { Fp12, fp12Flat, fp12FromFlat, G1, G2, p, randMod });
const ffPair = ffjavascriptPairing(curve);
out.pairing_ffjavascript = [[1n, 1n], [2n, 3n]].map(([a, b]) => {
  const fe = ffPair(a, b);
  const ne = fp12Flat(noblePair(a, b));
  return { a: hex(a), b: hex(b), e: fe.map(hex), equals_noble: fe.every((x, i) => x === ne[i]) };
});
{
  // How each library's pairing relates to the definition f^((p^12-1)/r) of its own Miller loop.
  const exact = (ml) => Fp12.pow(ml, (p ** 12n - 1n) / r);
  const relation = (value, ml) => {
    const ex = exact(ml);
    if (Fp12.eql(ex, value)) return "exact";
    // value = ex^m for a small multiple m? (The known BN hard parts use 1 or 2x(6x^2+3x+1).)
    const m = 2n * X * (6n * X * X + 3n * X + 1n);
    if (Fp12.eql(Fp12.pow(ex, m), value)) return "2x(6x^2+3x+1)";
    return "other";
  };
  const mlN = bn254.pairing(G1.BASE, G2.BASE, false);
  const rn = relation(e11, mlN);
  log(`noble: pairing = MillerLoop^(m·(p^12-1)/r) with m = ${rn}`);
  const ml = curve.millerLoop(curve.prepareG1(curve.G1.toJacobian(curve.G1.g)), curve.prepareG2(curve.G2.toJacobian(curve.G2.g)));
  const fe = fp12FromFlat(ffPair(1n, 1n));
  const rf = relation(fe, fp12FromFlat(ffFlat(ml)));
  log(`ffjavascript: pairing = MillerLoop^(m·(p^12-1)/r) with m = ${rf}`);
  log(`ffjavascript pairing == noble pairing: ${Fp12.eql(fe, e11)}`);
  out.pairing_convention = { noble: rn, ffjavascript: rf };
}

// ---------------------------------------------------------------- Fr roots of unity
out.fr_roots = frRoots(r, 28, curve);

out.x = hex(X);

process.stdout.write(JSON.stringify(out, null, 1) + "\n");
