// Joins the output of bench_arith (Google Benchmark JSON, run with --benchmark_repetitions and
// --benchmark_report_aggregates_only) and of bench/peer_noble.mjs into the markdown table of
// bench/RESULTS.md, printed on stdout. Called by scripts/bench-arith.sh.
//
//   node bench/arith_table.mjs SPLITPROVE.json NOBLE.json [--save RAW.json] [--meta KEY=VALUE ...]
//
// Figures are medians of per-repetition CPU time per operation. Ratios are splitprove ÷ peer
// (below 1: splitprove is faster). --save writes both inputs, reduced to what the table needs
// plus the spread of the repetitions, into one small JSON file.
import { readFileSync, writeFileSync } from "node:fs";

// blst on this machine kind, as given by the foundation issue; the goal is ratio <= GOAL.
const BLST_NS = { fp_mul: 62, fr_mul: 35, g1_add: 1230, pairing: 1.04e6 };
const GOAL = 1.3;

const LABELS = [
  ["fp_mul", "Fp mul"],
  ["fp_sqr", "Fp square"],
  ["fp_add", "Fp add"],
  ["fp_inv", "Fp inverse"],
  ["fr_mul", "Fr mul"],
  ["fp2_mul", "Fp2 mul"],
  ["fp12_mul", "Fp12 mul"],
  ["fp12_cyclotomic_sqr", "Fp12 cyclotomic square"],
  ["g1_add", "G1 add (Jacobian + Jacobian, add-or-double)"],
  ["g1_add_mixed", "G1 mixed add (Jacobian + affine)"],
  ["g1_dbl", "G1 double"],
  ["g1_xyzz_add_mixed", "G1 XYZZ mixed add"],
  ["g2_add", "G2 add (Jacobian + Jacobian)"],
  ["g1_mul", "G1 scalar mul (255-bit)"],
  ["g2_mul", "G2 scalar mul (255-bit)"],
  ["g1_subgroup_fast", "G1 subgroup check (endomorphism)"],
  ["g1_subgroup_by_order", "G1 subgroup check (r·P)"],
  ["g2_subgroup_fast", "G2 subgroup check (endomorphism)"],
  ["g2_subgroup_by_order", "G2 subgroup check (r·P)"],
  ["g1_decode_compressed", "G1 decode compressed (+ subgroup)"],
  ["g2_decode_compressed", "G2 decode compressed (+ subgroup)"],
  ["miller_loop", "Miller loop (prepared G2 lines)"],
  ["miller_loop_with_lines", "Miller loop (G2 lines computed)"],
  ["final_exp", "final exponentiation"],
  ["pairing", "full pairing"],
  ["multi_pairing_2", "2-pair multi-pairing check"],
];

const argv = process.argv.slice(2);
const positional = [], meta = {};
let savePath = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--save") savePath = argv[++i];
  else if (argv[i] === "--meta") {
    const kv = argv[++i] ?? "";
    const eq = kv.indexOf("=");
    if (eq <= 0) fail(`--meta expects KEY=VALUE, got "${kv}"`);
    meta[kv.slice(0, eq)] = kv.slice(eq + 1);
  } else positional.push(argv[i]);
}
if (positional.length !== 2) fail("usage: arith_table.mjs SPLITPROVE.json NOBLE.json [--save RAW.json] [--meta K=V]");

function fail(msg) {
  process.stderr.write(`arith_table: ${msg}\n`);
  process.exit(2);
}
function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    fail(`${path}: ${e.message}`);
  }
}

const UNIT_NS = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
const gb = readJson(positional[0]);
const noble = readJson(positional[1]);
if (!Array.isArray(gb.benchmarks)) fail(`${positional[0]}: no "benchmarks" array (not Google Benchmark JSON)`);
if (!noble.results) fail(`${positional[1]}: no "results" object (not peer_noble.mjs output)`);

// name -> {median, mean, stddev, cv} in ns of CPU time, from the aggregate rows.
const ours = {};
for (const b of gb.benchmarks) {
  if (b.run_type !== "aggregate") continue;
  if (b.error_occurred) fail(`${positional[0]}: ${b.run_name}: ${b.error_message}`);
  const scale = UNIT_NS[b.time_unit];
  if (!scale) fail(`${positional[0]}: ${b.name}: unknown time unit "${b.time_unit}"`);
  const o = (ours[b.run_name] ??= {});
  if (b.aggregate_name === "cv") o.cv = b.cpu_time;  // a ratio, not a time
  else o[b.aggregate_name] = b.cpu_time * scale;
  if (b.aggregate_name === "median") o.real_median = b.real_time * scale;
  o.repetitions = b.repetitions;
}
for (const b of gb.benchmarks) {
  if (b.error_occurred) fail(`${positional[0]}: ${b.run_name ?? b.name}: ${b.error_message}`);
}

function fmtTime(ns) {
  if (ns === undefined || ns === null) return "—";
  if (ns < 1e3) return `${ns.toPrecision(3)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`;
  return `${(ns / 1e6).toPrecision(3)} ms`;
}
const fmtRatio = (r) => (r >= 10 || r < 0.1 ? r.toPrecision(2) : r.toFixed(2));

const rows = [];
const missing = [];
rows.push("| op | splitprove median | blst reference | ratio vs blst | noble median | ratio vs noble |");
rows.push("|---|---:|---:|---:|---:|---:|");
for (const [key, label] of LABELS) {
  const o = ours[key]?.median;
  if (o === undefined) missing.push(key);
  const b = BLST_NS[key];
  const n = noble.results[key]?.cpu_median_ns;
  let rb = "—";
  if (b !== undefined && o !== undefined) {
    const r = o / b;
    rb = `${fmtRatio(r)} ${r <= GOAL ? "(goal met)" : "(**goal missed**)"}`;
  }
  const rn = n !== undefined && o !== undefined ? fmtRatio(o / n) : "—";
  rows.push(`| ${label} | ${fmtTime(o)} | ${b !== undefined ? fmtTime(b) : "—"} | ${rb} | ${fmtTime(n)} | ${rn} |`);
}
if (missing.length) fail(`${positional[0]}: no median for ${missing.join(", ")}`);

const ctx = gb.context ?? {};
const head = [
  `machine: ${meta.cpu ?? "?"}, ${ctx.num_cpus ?? "?"} CPUs, ${ctx.mhz_per_cpu ?? "?"} MHz; ` +
    `load average at start ${(ctx.load_avg ?? []).map((x) => x.toFixed(2)).join(" ")}`,
  `date: ${ctx.date ?? "?"}; compiler: ${meta.compiler ?? "?"}; pinned: ${meta.pin ?? "no"}`,
  `splitprove: median CPU time of ${ours.fp_mul?.repetitions ?? "?"} repetitions; ` +
    `noble ${noble.version} on Node ${noble.node}: median CPU time of ${noble.repetitions} repetitions`,
  `ratios are splitprove ÷ peer (below 1: splitprove is faster); blst goal: ratio <= ${GOAL}`,
];
const markdown = head.map((l) => `- ${l}`).join("\n") + "\n\n" + rows.join("\n") + "\n";
process.stdout.write(markdown);

if (savePath) {
  const slim = {};
  for (const [key] of LABELS) {
    const o = ours[key];
    slim[key] = {
      cpu_median_ns: o.median, cpu_mean_ns: o.mean, cpu_stddev_ns: o.stddev, cpu_cv: o.cv,
      real_median_ns: o.real_median,
    };
  }
  const nob = {};
  for (const [key, v] of Object.entries(noble.results)) {
    nob[key] = v.unsupported ? { unsupported: v.unsupported }
      : { cpu_median_ns: v.cpu_median_ns, wall_median_ns: v.wall_median_ns, cpu_ns: v.cpu_ns,
          iterations: v.iterations };
  }
  const raw = {
    meta, context: ctx, blst_reference_ns: BLST_NS, goal_ratio: GOAL,
    splitprove: slim,
    noble: { version: noble.version, node: noble.node, repetitions: noble.repetitions,
             min_time_s: noble.min_time_s, results: nob },
  };
  raw.table_markdown = markdown;
  try {
    writeFileSync(savePath, JSON.stringify(raw, null, 1) + "\n");
  } catch (e) {
    fail(`--save ${savePath}: ${e.message}`);
  }
  process.stderr.write(`arith_table: raw figures written to ${savePath}\n`);
}
