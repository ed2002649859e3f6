// The peer of bench/bench_arith.cpp: the same BLS12-381 operations timed in @noble/curves (the
// version pinned in /package.json), with the same latency chains (each result is the next input),
// printed as JSON on stdout. Keys are bench_arith's benchmark names; an operation noble has no
// counterpart for (mixed / XYZZ addition: its points are projective with complete formulas) is
// reported as null with the reason.
//
//   node bench/peer_noble.mjs [--repetitions N] [--min-time SECONDS] [--filter REGEX]
//
// Per operation: calibrate an iteration count to about --min-time seconds (this also warms the JIT
// up), then run N repetitions of that many iterations and report the median. Both wall-clock and
// process CPU time are recorded; the table uses CPU time, like the C++ side.
import { readFileSync } from "node:fs";
import { bls12_381 as bls } from "@noble/curves/bls12-381.js";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const REPS = Number(opt("--repetitions", "5"));
const MIN_TIME = Number(opt("--min-time", "0.3"));
const FILTER = new RegExp(opt("--filter", "."));
if (!(REPS >= 1) || !(MIN_TIME > 0)) {
  process.stderr.write("peer_noble: --repetitions must be >= 1 and --min-time > 0\n");
  process.exit(2);
}

const { Fp, Fp2, Fp12, Fr } = bls.fields;
const G1 = bls.G1.Point;
const G2 = bls.G2.Point;
const r = Fr.ORDER;

// Deterministic inputs (xorshift64*), built as multiples of the generators like the C++ side.
let seed = 0x5eeda4172024n;
const rand64 = () => {
  seed ^= seed >> 12n;
  seed ^= (seed << 25n) & 0xffffffffffffffffn;
  seed ^= seed >> 27n;
  return (seed * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
};
const randBelow = (m) => {
  for (;;) {
    let v = 0n;
    for (let i = 0; i < 6; i++) v = (v << 64n) | rand64();
    v &= (1n << BigInt(m.toString(2).length)) - 1n;
    if (v < m) return v;
  }
};
const scalar255 = () => {  // exactly 255 bits, below r
  for (;;) {
    const s = randBelow(r);
    if (s >> 254n === 1n) return s;
  }
};
const fp2 = () => Fp2.create({ c0: randBelow(Fp.ORDER), c1: randBelow(Fp.ORDER) });
const fp6 = () => ({ c0: fp2(), c1: fp2(), c2: fp2() });
const fp12 = () => Fp12.create({ c0: fp6(), c1: fp6() });

const fpA = randBelow(Fp.ORDER), fpB = randBelow(Fp.ORDER);
const frA = randBelow(r), frB = randBelow(r);
const fp2A = fp2(), fp2B = fp2();
const fp12A = fp12(), fp12B = fp12();
const cyclotomic = (() => {  // easy part of the final exponentiation: f^((p^6 - 1)(p^2 + 1))
  const f = fp12();
  const t = Fp12.mul(Fp12.conjugate(f), Fp12.inv(f));
  return Fp12.mul(Fp12.frobeniusMap(t, 2), t);
})();
const k = scalar255();
const g1P = G1.BASE.multiplyUnsafe(scalar255()), g1Q = G1.BASE.multiplyUnsafe(scalar255());
const g2P = G2.BASE.multiplyUnsafe(scalar255()), g2Q = G2.BASE.multiplyUnsafe(scalar255());
const g1Pts = [0, 1].map(() => G1.BASE.multiplyUnsafe(scalar255()));
const g2Pts = [0, 1].map(() => G2.BASE.multiplyUnsafe(scalar255()));
const g1Enc = g1Pts.map((p) => p.toBytes(true));
const g2Enc = g2Pts.map((p) => p.toBytes(true));
const g2Pre = g2Pts.map((q) => bls.utils.calcPairingPrecomputes(q));
const g1Aff = g1Pts.map((p) => p.toAffine());
const c = scalar255();  // e(P, c·Q)·e(-c·P, Q) = 1
const mp = [
  { g1: g1Pts[0], g2: g2Pts[0].multiplyUnsafe(c) },
  { g1: g1Pts[0].multiplyUnsafe(c).negate(), g2: g2Pts[0] },
];
const mpSwapped = [mp[1], mp[0]];
const lowBit = (f) => Number(f.c0.c0.c0 & 1n);

// Each entry: [key, state0, step(state) -> state, check(final state) -> error string | null].
// Bool-valued operations carry {idx, bad}: the next input is picked by the previous answer.
const pick = (ok, s) => ({ idx: (s.idx + (ok ? 1 : 0)) & 1, bad: s.bad + (ok ? 0 : 1) });
const noBad = (what) => (s) => (s.bad ? what : null);
const ops = [
  ["fp_mul", fpA, (x) => Fp.mul(x, fpB)],
  ["fp_sqr", fpA, (x) => Fp.sqr(x)],
  ["fp_add", fpA, (x) => Fp.add(x, fpB)],
  ["fp_inv", fpA, (x) => Fp.inv(x)],
  ["fr_mul", frA, (x) => Fr.mul(x, frB)],
  ["fp2_mul", fp2A, (x) => Fp2.mul(x, fp2B)],
  ["fp12_mul", fp12A, (x) => Fp12.mul(x, fp12B)],
  ["fp12_cyclotomic_sqr", cyclotomic, (x) => Fp12._cyclotomicSquare(x)],
  ["g1_add", g1P, (p) => p.add(g1Q)],
  ["g1_add_mixed", null, "noble has no mixed addition (projective points, complete formulas)"],
  ["g1_dbl", g1P, (p) => p.double()],
  ["g1_xyzz_add_mixed", null, "noble has no XYZZ form"],
  ["g2_add", g2P, (p) => p.add(g2Q)],
  ["g1_mul", g1P, (p) => p.multiplyUnsafe(k)],  // variable time, wNAF + GLV
  ["g2_mul", g2P, (p) => p.multiplyUnsafe(k)],
  ["g1_subgroup_fast", { idx: 0, bad: 0 }, (s) => pick(g1Pts[s.idx].isTorsionFree(), s),
    noBad("isTorsionFree rejected a G1 point")],
  // r·P as (r-1)·P + P: noble refuses the scalar r itself.
  ["g1_subgroup_by_order", { idx: 0, bad: 0 },
    (s) => pick(g1Pts[s.idx].multiplyUnsafe(r - 1n).add(g1Pts[s.idx]).is0(), s),
    noBad("r·P != 0 for a G1 point")],
  ["g2_subgroup_fast", { idx: 0, bad: 0 }, (s) => pick(g2Pts[s.idx].isTorsionFree(), s),
    noBad("isTorsionFree rejected a G2 point")],
  ["g2_subgroup_by_order", { idx: 0, bad: 0 },
    (s) => pick(g2Pts[s.idx].multiplyUnsafe(r - 1n).add(g2Pts[s.idx]).is0(), s),
    noBad("r·P != 0 for a G2 point")],
  // fromBytes decodes and runs assertValidity (on curve + subgroup) on a fresh point object.
  ["g1_decode_compressed", { idx: 0, bad: 0 },
    (s) => pick(G1.fromBytes(g1Enc[s.idx]).equals(g1Pts[s.idx]), s), noBad("G1 decode mismatch")],
  ["g2_decode_compressed", { idx: 0, bad: 0 },
    (s) => pick(G2.fromBytes(g2Enc[s.idx]).equals(g2Pts[s.idx]), s), noBad("G2 decode mismatch")],
  ["miller_loop", 0,
    (i) => lowBit(bls.millerLoopBatch([[g2Pre[i], g1Aff[i].x, g1Aff[i].y]]))],
  ["miller_loop_with_lines", 0,
    (i) => lowBit(bls.millerLoopBatch([[bls.utils.calcPairingPrecomputes(g2Pts[i]),
                                         g1Aff[i].x, g1Aff[i].y]]))],
  ["final_exp", fp12A, (f) => Fp12.finalExponentiate(f)],
  ["pairing", 0, (i) => lowBit(bls.pairing(g1Pts[i], g2Pts[i]))],
  ["multi_pairing_2", { idx: 0, bad: 0 },
    (s) => pick(Fp12.eql(bls.pairingBatch(s.idx ? mpSwapped : mp), Fp12.ONE), s),
    noBad("the 2-pair product was not 1")],
];

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
function timeRun(step, state, n) {
  const w0 = process.hrtime.bigint(), c0 = cpuNs();
  for (let i = 0; i < n; i++) state = step(state);
  const w1 = process.hrtime.bigint(), c1 = cpuNs();
  return { state, wall: Number(w1 - w0), cpu: c1 - c0 };
}
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length & 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const results = {};
for (const [key, state0, step, check] of ops) {
  if (!FILTER.test(key)) continue;
  if (state0 === null) {
    results[key] = { unsupported: step };
    continue;
  }
  // Calibrate: double n until one run takes a tenth of the target, then scale to the target.
  let n = 1, state = state0, t;
  for (;;) {
    t = timeRun(step, state, n);
    state = t.state;
    if (t.wall >= MIN_TIME * 1e8 || n >= 1 << 30) break;
    n *= 2;
  }
  n = Math.max(1, Math.ceil((n * MIN_TIME * 1e9) / Math.max(t.wall, 1)));
  const wall = [], cpu = [];
  for (let rep = 0; rep < REPS; rep++) {
    t = timeRun(step, state, n);
    state = t.state;
    wall.push(t.wall / n);
    cpu.push(t.cpu / n);
  }
  const err = check ? check(state) : null;
  if (err) {
    process.stderr.write(`peer_noble: ${key}: ${err}\n`);
    process.exit(1);
  }
  results[key] = { iterations: n, cpu_median_ns: median(cpu), wall_median_ns: median(wall),
                   cpu_ns: cpu, wall_ns: wall };
  process.stderr.write(`peer_noble: ${key}: ${median(cpu).toFixed(1)} ns (cpu, median of ${REPS})\n`);
}

const version = JSON.parse(
  readFileSync(new URL("../node_modules/@noble/curves/package.json", import.meta.url), "utf8")).version;
process.stdout.write(JSON.stringify({
  peer: "@noble/curves", version, node: process.version, repetitions: REPS, min_time_s: MIN_TIME,
  results,
}, null, 1) + "\n");
