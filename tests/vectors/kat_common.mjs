// Helpers shared by the known-answer vector generators (gen_bls12_381.mjs, gen_bn254.mjs): the
// deterministic PRNG, hex formatting, prime-field and Fp2 vectors, the Fp12 flat coefficient
// order, the ffjavascript cross-checks and the snarkjs roots of unity. A generator keeps only what
// is its curve's own (parameters, encodings, pairing convention). The order in which a generator
// draws random values is part of its output: keep it when editing.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { FpLegendre } from "@noble/curves/abstract/modular.js";

export const pkgVersion = (name) =>
  JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), "utf8")).version;

export function assert(cond, msg) {
  if (!cond) {
    process.stderr.write(`ASSERTION FAILED: ${msg}\n`);
    process.exit(1);
  }
}
export const log = (s) => process.stderr.write(s + "\n");

// ---------------------------------------------------------------- PRNG
// Deterministic: block_i = SHA256(seed || be64(i)).
export function makeRng(seed) {
  let ctr = 0n;
  const randBytes = (n) => {
    const out = [];
    while (out.length < n) {
      const c = Buffer.alloc(8);
      c.writeBigUInt64BE(ctr++);
      out.push(...createHash("sha256").update(seed).update(c).digest());
    }
    return Buffer.from(out.slice(0, n));
  };
  const randBig = (nbytes) => BigInt("0x" + randBytes(nbytes).toString("hex"));
  // Uniform-ish below m (64 extra bits of width make the modulo bias negligible).
  const randMod = (m) => randBig(Math.ceil(m.toString(16).length / 2) + 8) % m;
  const randNonZero = (m) => { for (;;) { const v = randMod(m); if (v !== 0n) return v; } };
  return { randBytes, randBig, randMod, randNonZero };
}

// ---------------------------------------------------------------- formatting, arithmetic
export const hex = (v) => v.toString(16);
export const bhex = (u8) => Buffer.from(u8).toString("hex");
export const modpow = (b, e, m) => { let r = 1n; b %= m; while (e > 0n) { if (e & 1n) r = r * b % m; b = b * b % m; e >>= 1n; } return r; };

// The flat Fp12 coefficient order (README.md): c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
export function fp12Layout(Fp12) {
  const fp12Flat = (e) => {
    const out = [];
    for (const c6 of [e.c0, e.c1]) for (const c2 of [c6.c0, c6.c1, c6.c2]) out.push(c2.c0, c2.c1);
    return out;
  };
  const fp12FromFlat = (a) => Fp12.create({
    c0: { c0: { c0: a[0], c1: a[1] }, c1: { c0: a[2], c1: a[3] }, c2: { c0: a[4], c1: a[5] } },
    c1: { c0: { c0: a[6], c1: a[7] }, c1: { c0: a[8], c1: a[9] }, c2: { c0: a[10], c1: a[11] } },
  });
  const unit = (i) => fp12FromFlat(Array.from({ length: 12 }, (_, j) => (j === i ? 1n : 0n)));
  return { fp12Flat, fp12FromFlat, unit };
}

// ---------------------------------------------------------------- prime field vectors
export function fieldVectors(F, m, withSqrt, edgePairs, nRandom, randMod) {
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
// 11 edge pairs: {0, 1, m-1}², (2, (m-1)/2), (m-2, 3).
export const edges = (m) => {
  const v = [0n, 1n, m - 1n];
  const out = [];
  for (const a of v) for (const b of v) out.push([a, b]);
  out.push([2n, (m - 1n) / 2n], [m - 2n, 3n]);
  return out;
};

// Fp2 = Fp[u]/(u² + 1): 8 entries, one with b = 0, the product cross-checked with u² = -1.
export function fp2Vectors(Fp, Fp2, p, randMod) {
  const f2 = (c0, c1) => Fp2.create({ c0, c1 });
  const as = [f2(1n, 0n), f2(0n, 1n), f2(p - 1n, p - 1n), f2(1n, 1n)];
  while (as.length < 8) as.push(f2(randMod(p), randMod(p)));
  return as.map((a, i) => {
    const b = i === 3 ? f2(0n, 0n) : f2(randMod(p), randMod(p));
    const arr = (x) => [hex(x.c0), hex(x.c1)];
    const m = Fp2.mul(a, b);
    assert(m.c0 === Fp.sub(Fp.mul(a.c0, b.c0), Fp.mul(a.c1, b.c1)) &&
           m.c1 === Fp.add(Fp.mul(a.c0, b.c1), Fp.mul(a.c1, b.c0)), "Fp2 u^2=-1");
    return { a: arr(a), b: arr(b), mul: arr(m), sqr_a: arr(Fp2.sqr(a)), inv_a: arr(Fp2.inv(a)) };
  });
}

// The scalars of the g1/g2 vectors: small ones, r-1, three random ones of the full width of r
// (bit `top` forced), and 0 (infinity).
export function pointScalars(r, top, randMod) {
  const ks = [1n, 2n, 3n, 5n, 7n, r - 1n];
  for (let i = 0; i < 3; i++) {
    let k; do { k = randMod(r) | (1n << top); } while (k >= r);
    ks.push(k);
  }
  ks.push(0n);
  return ks;
}

// ---------------------------------------------------------------- ffjavascript
// ffjavascript's F12 in the flat order, and the checks that it is the same tower and the same
// generators as noble's.
export function ffjavascriptLayout(curve) {
  const F12 = curve.F12;
  const ffFlat = (buf) => {
    const o = F12.toObject(buf); // [[[c0.c0.c0, c0.c0.c1], [c0.c1.*], [c0.c2.*]], [[c1.c0.*], ...]]
    const res = [];
    for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 2; k++) res.push(BigInt(o[i][j][k]));
    return res;
  };
  const ffFromFlat = (a) => F12.fromObject([[[a[0], a[1]], [a[2], a[3]], [a[4], a[5]]], [[a[6], a[7]], [a[8], a[9]], [a[10], a[11]]]]);
  return { ffFlat, ffFromFlat };
}
export function checkFfjavascriptAgainstNoble(curve, { Fp12, fp12Flat, fp12FromFlat, G1, G2, p, randMod }) {
  const { ffFlat, ffFromFlat } = ffjavascriptLayout(curve);
  // tower identity check: multiply two random Fp12 elements in both libraries
  for (let t = 0; t < 3; t++) {
    const A = Array.from({ length: 12 }, () => randMod(p));
    const B = Array.from({ length: 12 }, () => randMod(p));
    const nm = fp12Flat(Fp12.mul(fp12FromFlat(A), fp12FromFlat(B)));
    const fm = ffFlat(curve.F12.mul(ffFromFlat(A), ffFromFlat(B)));
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
// e(a·G1, b·G2) by ffjavascript, flat.
export function ffjavascriptPairing(curve) {
  const { ffFlat } = ffjavascriptLayout(curve);
  return (a, b) => ffFlat(curve.pairing(curve.G1.timesScalar(curve.G1.g, a), curve.G2.timesScalar(curve.G2.g, b)));
}

// ---------------------------------------------------------------- Fr roots of unity
// snarkjs's convention: r - 1 = 2^s·t, nqr the smallest non-residue, w[s] = nqr^t, w[k] = w[k+1]²;
// checked equal to ffjavascript's Fr.w.
export function frRoots(r, expectS, curve) {
  let nqr = 2n;
  while (modpow(nqr, (r - 1n) / 2n, r) !== r - 1n) nqr++;
  let s = 0, t = r - 1n;
  while ((t & 1n) === 0n) { t >>= 1n; s++; }
  assert(s === expectS, `s = ${expectS}`);
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
  return { nqr: hex(nqr), s, w: wObj, matches_ffjavascript: matches };
}
