// The run-to-run spread of saved arithmetic benchmark runs (files written by
// `scripts/bench-arith.sh --save FILE.json`), as a markdown table on stdout: the splitprove and
// noble medians of every run, and the spread (max - min) / min of those medians.
//
//   node bench/arith_spread.mjs RUN1.json RUN2.json [RUN3.json ...]
import { readFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length < 2) {
  process.stderr.write("usage: arith_spread.mjs RUN1.json RUN2.json [...]  (files from bench-arith.sh --save)\n");
  process.exit(2);
}
const runs = files.map((f) => {
  let j;
  try {
    j = JSON.parse(readFileSync(f, "utf8"));
  } catch (e) {
    process.stderr.write(`arith_spread: ${f}: ${e.message}\n`);
    process.exit(2);
  }
  if (!j.splitprove || !j.noble) {
    process.stderr.write(`arith_spread: ${f}: not a bench-arith --save file (no "splitprove"/"noble")\n`);
    process.exit(2);
  }
  return j;
});

const fmt = (ns) => {
  if (ns === undefined || ns === null) return "—";
  if (ns < 1e3) return `${ns.toPrecision(3)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`;
  return `${(ns / 1e6).toPrecision(3)} ms`;
};
const spread = (xs) => {
  const v = xs.filter((x) => typeof x === "number");
  if (v.length < 2) return "—";
  return `${(((Math.max(...v) - Math.min(...v)) / Math.min(...v)) * 100).toFixed(0)}%`;
};

const keys = Object.keys(runs[0].splitprove);
const hdr = runs.map((r, i) => `run ${i + 1}`);
const out = [];
out.push(`| op | ${hdr.map((h) => `splitprove ${h}`).join(" | ")} | spread | ${hdr.map((h) => `noble ${h}`).join(" | ")} | spread |`);
out.push(`|---|${runs.map(() => "---:").join("|")}|---:|${runs.map(() => "---:").join("|")}|---:|`);
for (const k of keys) {
  const ours = runs.map((r) => r.splitprove[k]?.cpu_median_ns);
  const nob = runs.map((r) => r.noble.results[k]?.cpu_median_ns);
  out.push(`| ${k} | ${ours.map(fmt).join(" | ")} | ${spread(ours)} | ${nob.map(fmt).join(" | ")} | ${spread(nob)} |`);
}
const loads = runs.map((r, i) => `run ${i + 1}: ${r.context?.date ?? "?"}, load ${(r.context?.load_avg ?? []).map((x) => x.toFixed(1)).join("/")}`);
process.stdout.write(`- ${loads.join("\n- ")}\n\n${out.join("\n")}\n`);
