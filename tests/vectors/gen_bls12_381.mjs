// Known-answer test vectors for BLS12-381, generated with independent JS
// implementations: @noble/curves (reference) and ffjavascript (what snarkjs uses).
//
//   npm ci            # repo root; installs the exact versions pinned in package.json
//   node tests/vectors/gen_bls12_381.mjs > tests/vectors/bls12_381.json
//
// Fully deterministic: random values come from a SHA-256 counter PRNG with a fixed seed.
// Self-checks (tower identity, exponent, etc.) are printed to stderr; any failure of
// an internal consistency assertion aborts with a non-zero exit code.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { FpLegendre } from "@noble/curves/abstract/modular.js";
import { buildBls12381 } from "ffjavascript";

const pkgVersion = (name) =>
  JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), "utf8")).version;

function assert(cond, msg) {
  if (!cond) {
    process.stderr.write(`ASSERTION FAILED: ${msg}\n`);
    process.exit(1);
  }
}
const log = (s) => process.stderr.write(s + "\n");

// ---------------------------------------------------------------- PRNG
// Deterministic: block_i = SHA256(SEED || be64(i)).
const SEED = "splitprove-bls12-381-kat-v1";
let ctr = 0n;
function randBytes(n) {
  const out = [];
  while (out.length < n) {
    const c = Buffer.alloc(8);
    c.writeBigUInt64BE(ctr++);
    out.push(...createHash("sha256").update(SEED).update(c).digest());
  }
  return Buffer.from(out.slice(0, n));
}
const randBig = (nbytes) => BigInt("0x" + randBytes(nbytes).toString("hex"));
// Uniform-ish below m (64 extra bits of width make the modulo bias negligible).
const randMod = (m) => randBig(Math.ceil(m.toString(16).length / 2) + 8) % m;
const randNonZero = (m) => { for (;;) { const v = randMod(m); if (v !== 0n) return v; } };

// ---------------------------------------------------------------- helpers
const hex = (v) => v.toString(16);
const bhex = (u8) => Buffer.from(u8).toString("hex");
const modpow = (b, e, m) => { let r = 1n; b %= m; while (e > 0n) { if (e & 1n) r = r * b % m; b = b * b % m; e >>= 1n; } return r; };

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const p = Fp.ORDER;
const r = Fr.ORDER;
const X = -0xd201000000010000n;
assert(r === X ** 4n - X ** 2n + 1n, "r = x^4 - x^2 + 1");
assert(p === ((X - 1n) ** 2n * r) / 3n + X, "p = (x-1)^2 r / 3 + x");

// Flatten a noble Fp12 into the documented coefficient order.
const fp12Flat = (e) => {
  const out = [];
  for (const c6 of [e.c0, e.c1]) for (const c2 of [c6.c0, c6.c1, c6.c2]) out.push(c2.c0, c2.c1);
  return out;
};
const fp12FromFlat = (a) => Fp12.create({
  c0: { c0: { c0: a[0], c1: a[1] }, c1: { c0: a[2], c1: a[3] }, c2: { c0: a[4], c1: a[5] } },
  c1: { c0: { c0: a[6], c1: a[7] }, c1: { c0: a[8], c1: a[9] }, c2: { c0: a[10], c1: a[11] } },
});

// ---------------------------------------------------------------- prime field vectors
function fieldVectors(F, m, withSqrt, edgePairs, nRandom) {
  const pairs = [...edgePairs];
  for (let i = 0; i < nRandom; i++) pairs.push([randMod(m), randMod(m)]);
  return pairs.map(([a, b]) => {
    const e = {
      a: hex(a), b: hex(b),
      add: hex(F.add(a, b)), sub: hex(F.sub(a, b)), mul: hex(F.mul(a, b)),
      sqr_a: hex(F.sqr(a)),
      inv_a: a === 0n ? null : hex(F.inv(a)),
      neg_a: hex(F.neg(a)),
      pow_a_b: hex(F.pow(a, b)),
    };
    // independent cross-checks with plain BigInt arithmetic
    assert(F.mul(a, b) === a * b % m, "mul");
    assert(F.pow(a, b) === modpow(a, b, m), "pow");
    if (a !== 0n) assert(F.mul(a, F.inv(a)) === 1n, "inv");
    if (withSqrt) {
      const l = FpLegendre(F, a);
      e.sqrt_a = l === -1 ? null : hex(F.sqrt(a));
      e.legendre_a = l;
      if (l !== -1) assert(F.sqr(F.sqrt(a)) === a, "sqrt");
    }
    return e;
  });
}
const edges = (m) => {
  const v = [0n, 1n, m - 1n];
  const out = [];
  for (const a of v) for (const b of v) out.push([a, b]);
  out.push([2n, (m - 1n) / 2n], [m - 2n, 3n]);
  return out; // 11 entries
};

// ---------------------------------------------------------------- main
const nobleVersion = pkgVersion("@noble/curves");
const ffjsVersion = pkgVersion("ffjavascript");
const out = {
  source: `@noble/curves ${nobleVersion} (bls12-381), ffjavascript ${ffjsVersion}`,
  p: hex(p),
  r: hex(r),
};

out.fp = fieldVectors(Fp, p, true, edges(p), 13);
out.fr = fieldVectors(Fr, r, true, edges(r), 13);

// Fp2
{
  const f2 = (c0, c1) => Fp2.create({ c0, c1 });
  const as = [f2(1n, 0n), f2(0n, 1n), f2(p - 1n, p - 1n), f2(1n, 1n)];
  while (as.length < 8) as.push(f2(randMod(p), randMod(p)));
  out.fp2 = as.map((a, i) => {
    const b = i === 3 ? f2(0n, 0n) : f2(randMod(p), randMod(p));
    const arr = (x) => [hex(x.c0), hex(x.c1)];
    // explicit u^2 = -1 cross-check
    const m = Fp2.mul(a, b);
    assert(m.c0 === Fp.sub(Fp.mul(a.c0, b.c0), Fp.mul(a.c1, b.c1)) &&
           m.c1 === Fp.add(Fp.mul(a.c0, b.c1), Fp.mul(a.c1, b.c0)), "Fp2 u^2=-1");
    return { a: arr(a), b: arr(b), mul: arr(m), sqr_a: arr(Fp2.sqr(a)), inv_a: arr(Fp2.inv(a)) };
  });
}

// scalar list for G1/G2
const ks = [1n, 2n, 3n, 5n, 7n, r - 1n];
for (let i = 0; i < 3; i++) {
  // random 255-bit scalar below r (force bit 254 so it really is 255 bits)
  let k; do { k = randMod(r) | (1n << 254n); } while (k >= r);
  ks.push(k);
}
ks.push(0n);

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
  const unit = (i) => fp12FromFlat(Array.from({ length: 12 }, (_, j) => (j === i ? 1n : 0n)));
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
const F12 = curve.F12;
const ffFlat = (buf) => {
  const o = F12.toObject(buf); // [[[c0.c0.c0, c0.c0.c1], [c0.c1.*], [c0.c2.*]], [[c1.c0.*], ...]]
  const res = [];
  for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 2; k++) res.push(BigInt(o[i][j][k]));
  return res;
};
const ffFromFlat = (a) => F12.fromObject([[[a[0], a[1]], [a[2], a[3]], [a[4], a[5]]], [[a[6], a[7]], [a[8], a[9]], [a[10], a[11]]]]);
{
  // tower identity check: multiply two random Fp12 elements in both libraries
  for (let t = 0; t < 3; t++) {
    const A = Array.from({ length: 12 }, () => randMod(p));
    const B = Array.from({ length: 12 }, () => randMod(p));
    const nm = fp12Flat(Fp12.mul(fp12FromFlat(A), fp12FromFlat(B)));
    const fm = ffFlat(F12.mul(ffFromFlat(A), ffFromFlat(B)));
    assert(nm.every((x, i) => x === fm[i]), "ffjavascript F12 tower/layout == noble tower/layout");
  }
  log("tower check: ffjavascript F12.mul == noble Fp12.mul under the documented flat order: true");
  // generators agree
  const g1 = curve.G1.toObject(curve.G1.toAffine(curve.G1.g));
  const g2 = curve.G2.toObject(curve.G2.toAffine(curve.G2.g));
  const nG1 = G1.BASE.toAffine(), nG2 = G2.BASE.toAffine();
  assert(BigInt(g1[0]) === nG1.x && BigInt(g1[1]) === nG1.y, "G1 generator");
  assert(BigInt(g2[0][0]) === nG2.x.c0 && BigInt(g2[0][1]) === nG2.x.c1 &&
         BigInt(g2[1][0]) === nG2.y.c0 && BigInt(g2[1][1]) === nG2.y.c1, "G2 generator");
}
const ffPair = (a, b) => ffFlat(curve.pairing(curve.G1.timesScalar(curve.G1.g, a), curve.G2.timesScalar(curve.G2.g, b)));
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
{
  const nqr = 5n;
  let s = 0, t = r - 1n;
  while ((t & 1n) === 0n) { t >>= 1n; s++; }
  assert(s === 32, "s = 32");
  assert(modpow(nqr, (r - 1n) / 2n, r) === r - 1n, "5 is a QNR mod r");
  const w = new Array(s + 1);
  w[s] = modpow(nqr, t, r);
  for (let k = s - 1; k >= 0; k--) w[k] = w[k + 1] * w[k + 1] % r;
  assert(w[0] === 1n && w[1] === r - 1n, "w[0]=1, w[1]=-1");
  const wObj = {};
  let matches = true;
  for (let k = 0; k <= s; k++) {
    wObj[String(k)] = hex(w[k]);
    if (BigInt(curve.Fr.toObject(curve.Fr.w[k])) !== w[k]) matches = false;
  }
  log(`ffjavascript Fr.nqr = ${curve.Fr.toObject(curve.Fr.nqr)}, Fr.s = ${curve.Fr.s}`);
  out.fr_roots = { nqr: "5", s, w: wObj, matches_ffjavascript: matches };
}

out.x = "-" + hex(-X);

process.stdout.write(JSON.stringify(out, null, 1) + "\n");
