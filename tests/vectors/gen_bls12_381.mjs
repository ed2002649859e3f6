// Known-answer test vectors for BLS12-381, generated with independent JS
// implementations: @noble/curves (reference) and ffjavascript (what snarkjs uses).
//
//   npm ci            # repo root; installs the exact versions pinned in package.json
//   node tests/vectors/gen_bls12_381.mjs > tests/vectors/bls12_381.json
//
// Fully deterministic: random values come from a SHA-256 counter PRNG with a fixed seed.
// Self-checks (tower identity, exponent, etc.) are printed to stderr; any failure of
// an internal consistency assertion aborts with a non-zero exit code.

import { bls12_381 } from "@noble/curves/bls12-381.js";
import { buildBls12381 } from "ffjavascript";
import {
  assert, log, makeRng, hex, bhex, pkgVersion, fp12Layout, fieldVectors, edges, fp2Vectors,
  pointScalars, ffjavascriptLayout, checkFfjavascriptAgainstNoble, ffjavascriptPairing, frRoots,
} from "./kat_common.mjs";

const { randMod, randNonZero } = makeRng("splitprove-bls12-381-kat-v1");

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const p = Fp.ORDER;
const r = Fr.ORDER;
const X = -0xd201000000010000n;
assert(r === X ** 4n - X ** 2n + 1n, "r = x^4 - x^2 + 1");
assert(p === ((X - 1n) ** 2n * r) / 3n + X, "p = (x-1)^2 r / 3 + x");

const { fp12Flat, fp12FromFlat, unit } = fp12Layout(Fp12);

// ---------------------------------------------------------------- main
const nobleVersion = pkgVersion("@noble/curves");
const ffjsVersion = pkgVersion("ffjavascript");
const out = {
  source: `@noble/curves ${nobleVersion} (bls12-381), ffjavascript ${ffjsVersion}`,
  p: hex(p),
  r: hex(r),
};

out.fp = fieldVectors(Fp, p, true, edges(p), 13, randMod);
out.fr = fieldVectors(Fr, r, true, edges(r), 13, randMod);

out.fp2 = fp2Vectors(Fp, Fp2, p, randMod);

// scalars for G1/G2: random ones are 255-bit (bit 254 forced)
const ks = pointScalars(r, 254n, randMod);

const mulBase = (P, k) => (k === 0n ? P.ZERO : P.BASE.multiply(k));
out.g1 = ks.map((k) => {
  const P = mulBase(G1, k);
  const aff = k === 0n ? null : P.toAffine();
  const c = P.toBytes(true), u = P.toBytes(false);
  assert(c.length === 48 && u.length === 96, "G1 enc length");
  assert(G1.fromBytes(c).equals(P) && G1.fromBytes(u).equals(P), "G1 roundtrip");
  return { k: hex(k), compressed: bhex(c), uncompressed: bhex(u), x: aff ? hex(aff.x) : null, y: aff ? hex(aff.y) : null };
});
out.g2 = ks.map((k) => {
  const P = mulBase(G2, k);
  const aff = k === 0n ? null : P.toAffine();
  const c = P.toBytes(true), u = P.toBytes(false);
  assert(c.length === 96 && u.length === 192, "G2 enc length");
  assert(G2.fromBytes(c).equals(P) && G2.fromBytes(u).equals(P), "G2 roundtrip");
  return {
    k: hex(k), compressed: bhex(c), uncompressed: bhex(u),
    x: aff ? [hex(aff.x.c0), hex(aff.x.c1)] : null,
    y: aff ? [hex(aff.y.c0), hex(aff.y.c1)] : null,
  };
});

{
  const kr = randNonZero(r);
  const addPairs = [[1n, 1n], [1n, 2n], [randNonZero(r), randNonZero(r)], [kr, r - kr]];
  out.g1_add = addPairs.map(([a, b]) => {
    let S = mulBase(G1, a).add(mulBase(G1, b));
    // noble 2.4.0 quirk: add() that lands on infinity returns a projective (X,Y,0) that
    // toBytes() refuses ("bad point: ZERO"); only the canonical (0,1,0) serializes.
    if (S.is0()) S = G1.ZERO;
    assert(S.equals(mulBase(G1, (a + b) % r)), "g1 add");
    return { a_k: hex(a), b_k: hex(b), sum_uncompressed: bhex(S.toBytes(false)) };
  });
}

// ---------------------------------------------------------------- pairing (noble)
const pairScalars = [[1n, 1n], [2n, 3n], [randNonZero(r), randNonZero(r)], [randNonZero(r), randNonZero(r)]];
const noblePair = (a, b) => bls12_381.pairing(G1.BASE.multiply(a), G2.BASE.multiply(b));
out.pairing = pairScalars.map(([a, b]) => ({ a: hex(a), b: hex(b), e: fp12Flat(noblePair(a, b)).map(hex) }));

const e11 = noblePair(1n, 1n);
{
  // bilinearity sanity: e(2G1,3G2) == e(G1,G2)^6
  assert(Fp12.eql(noblePair(2n, 3n), Fp12.pow(e11, 6n)), "bilinearity");
  assert(Fp12.eql(Fp12.pow(e11, r), Fp12.ONE) && !Fp12.eql(e11, Fp12.ONE), "e(G1,G2) has order r");
  // tower check: w^2 = v, v^3 = u + 1, u^2 = -1 in noble's layout
  const u = unit(1), v = unit(2), w = unit(6);
  assert(Fp12.eql(Fp12.sqr(u), Fp12.neg(Fp12.ONE)), "u^2=-1");
  assert(Fp12.eql(Fp12.pow(v, 3n), Fp12.add(Fp12.ONE, u)), "v^3=u+1");
  assert(Fp12.eql(Fp12.sqr(w), v), "w^2=v");
  // noble's final exponentiation vs the exact exponent (p^12-1)/r
  const ml = bls12_381.pairing(G1.BASE, G2.BASE, false);
  const exact = Fp12.pow(ml, (p ** 12n - 1n) / r);
  log(`noble final exp == exact (p^12-1)/r power of its Miller loop: ${Fp12.eql(exact, e11)}`);
  log(`noble final exp == 3*(p^12-1)/r power: ${Fp12.eql(Fp12.pow(exact, 3n), e11)}`);
}

// ---------------------------------------------------------------- ffjavascript
const curve = await buildBls12381(true); // singleThread: no worker threads
const { ffFlat } = ffjavascriptLayout(curve);
checkFfjavascriptAgainstNoble(curve, { Fp12, fp12Flat, fp12FromFlat, G1, G2, p, randMod });
const ffPair = ffjavascriptPairing(curve);
out.pairing_ffjavascript = [[1n, 1n], [2n, 3n]].map(([a, b]) => {
  const fe = ffPair(a, b);
  const ne = fp12Flat(noblePair(a, b));
  return { a: hex(a), b: hex(b), e: fe.map(hex), equals_noble: fe.every((x, i) => x === ne[i]) };
});
{
  const fe = fp12FromFlat(ffPair(1n, 1n));
  const rel = {
    "ffjs == noble": Fp12.eql(fe, e11),
    "ffjs == noble^3": Fp12.eql(fe, Fp12.pow(e11, 3n)),
    "noble == ffjs^3": Fp12.eql(e11, Fp12.pow(fe, 3n)),
    "ffjs == conj(noble)": Fp12.eql(fe, Fp12.conjugate(e11)),
    "ffjs == noble^-1": Fp12.eql(fe, Fp12.inv(e11)),
  };
  for (const [k, v] of Object.entries(rel)) log(`pairing relation ${k}: ${v}`);
  // ffjavascript's final exponentiation vs the exact exponent, on its own Miller loop output
  // (prepareG1/prepareG2 take Jacobian buffers, like curve.pairing does internally)
  const ml = curve.millerLoop(curve.prepareG1(curve.G1.toJacobian(curve.G1.g)), curve.prepareG2(curve.G2.toJacobian(curve.G2.g)));
  assert(ffFlat(curve.finalExponentiation(ml)).every((x, i) => x === ffFlat(curve.pairing(curve.G1.g, curve.G2.g))[i]),
         "ffjavascript finalExponentiation(millerLoop) == pairing");
  const mlN = fp12FromFlat(ffFlat(ml));
  const exact = Fp12.pow(mlN, (p ** 12n - 1n) / r);
  log(`ffjavascript final exp == exact (p^12-1)/r power of its Miller loop: ${Fp12.eql(exact, fe)}`);
  log(`ffjavascript final exp == 3*(p^12-1)/r power: ${Fp12.eql(Fp12.pow(exact, 3n), fe)}`);
  log(`ffjavascript Miller loop == noble Miller loop: ${Fp12.eql(mlN, bls12_381.pairing(G1.BASE, G2.BASE, false))}`);
}

// ---------------------------------------------------------------- Fr roots of unity
out.fr_roots = frRoots(r, 32, curve);  // nqr = 5, as ffjavascript picks

out.x = "-" + hex(-X);

process.stdout.write(JSON.stringify(out, null, 1) + "\n");
