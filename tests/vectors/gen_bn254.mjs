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

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { bn254 } from "@noble/curves/bn254.js";
import { FpLegendre } from "@noble/curves/abstract/modular.js";
import { buildBn128 } from "ffjavascript";

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
const SEED = "splitprove-bn254-kat-v1";
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
const randMod = (m) => randBig(Math.ceil(m.toString(16).length / 2) + 8) % m;
const randNonZero = (m) => { for (;;) { const v = randMod(m); if (v !== 0n) return v; } };

// ---------------------------------------------------------------- helpers
const hex = (v) => v.toString(16);
const modpow = (b, e, m) => { let r = 1n; b %= m; while (e > 0n) { if (e & 1n) r = r * b % m; b = b * b % m; e >>= 1n; } return r; };
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
  return out;
};

const nobleVersion = pkgVersion("@noble/curves");
const ffjsVersion = pkgVersion("ffjavascript");
const out = {
  source: `@noble/curves ${nobleVersion} (bn254), ffjavascript ${ffjsVersion}`,
  p: hex(p),
  r: hex(r),
};

out.fp = fieldVectors(Fp, p, true, edges(p), 13);
// Fr square roots: r = 1 mod 4, noble's Tonelli-Shanks returns some root; the C++ test checks
// the root squares back rather than its sign, so only the Legendre symbol matters here.
out.fr = fieldVectors(Fr, r, true, edges(r), 13);

{
  const f2 = (c0, c1) => Fp2.create({ c0, c1 });
  const as = [f2(1n, 0n), f2(0n, 1n), f2(p - 1n, p - 1n), f2(1n, 1n)];
  while (as.length < 8) as.push(f2(randMod(p), randMod(p)));
  out.fp2 = as.map((a, i) => {
    const b = i === 3 ? f2(0n, 0n) : f2(randMod(p), randMod(p));
    const arr = (x) => [hex(x.c0), hex(x.c1)];
    const m = Fp2.mul(a, b);
    assert(m.c0 === Fp.sub(Fp.mul(a.c0, b.c0), Fp.mul(a.c1, b.c1)) &&
           m.c1 === Fp.add(Fp.mul(a.c0, b.c1), Fp.mul(a.c1, b.c0)), "Fp2 u^2=-1");
    return { a: arr(a), b: arr(b), mul: arr(m), sqr_a: arr(Fp2.sqr(a)), inv_a: arr(Fp2.inv(a)) };
  });
}

const ks = [1n, 2n, 3n, 5n, 7n, r - 1n];
for (let i = 0; i < 3; i++) {
  let k; do { k = randMod(r) | (1n << 253n); } while (k >= r);
  ks.push(k);
}
ks.push(0n);

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
const unit = (i) => fp12FromFlat(Array.from({ length: 12 }, (_, j) => (j === i ? 1n : 0n)));
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
const F12 = curve.F12;
const ffFlat = (buf) => {
  const o = F12.toObject(buf);
  const res = [];
  for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 2; k++) res.push(BigInt(o[i][j][k]));
  return res;
};
const ffFromFlat = (a) => F12.fromObject([[[a[0], a[1]], [a[2], a[3]], [a[4], a[5]]], [[a[6], a[7]], [a[8], a[9]], [a[10], a[11]]]]);
{
  for (let t = 0; t < 3; t++) {
    const A = Array.from({ length: 12 }, () => randMod(p));
    const B = Array.from({ length: 12 }, () => randMod(p));
    const nm = fp12Flat(Fp12.mul(fp12FromFlat(A), fp12FromFlat(B)));
    const fm = ffFlat(F12.mul(ffFromFlat(A), ffFromFlat(B)));
    assert(nm.every((x, i) => x === fm[i]), "ffjavascript F12 tower/layout == noble tower/layout");
  }
  log("tower check: ffjavascript F12.mul == noble Fp12.mul under the documented flat order: true");
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
{
  let nqr = 2n;
  while (modpow(nqr, (r - 1n) / 2n, r) !== r - 1n) nqr++;
  let s = 0, t = r - 1n;
  while ((t & 1n) === 0n) { t >>= 1n; s++; }
  assert(s === 28, "s = 28");
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
  assert(matches, "roots of unity match ffjavascript");
  out.fr_roots = { nqr: hex(nqr), s, w: wObj, matches_ffjavascript: matches };
}

out.x = hex(X);

process.stdout.write(JSON.stringify(out, null, 1) + "\n");
