// Load on the daemon: C concurrent clients, each proving jobs (Prove: submit + await in one call)
// back to back for S seconds, through @grpc/grpc-js. Prints one JSON object: jobs, partitions,
// throughput, submit (accepted) and end-to-end latency percentiles, and errors by status code
// (RESOURCE_EXHAUSTED is admission doing its job: the client backs off 50 ms and retries).
//
//   node bench/daemon_load.mjs <address> <source dir> <key id> <witness.wtns | native:SEED> <clients> <seconds> [partitions]
// (native:SEED: jobs of the built-in circuit's partitions for a native key; no witness is sent)
import fs from "node:fs";
import path from "node:path";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const [addr, src, key, wtnsPath, clientsArg, secondsArg, partsArg] = process.argv.slice(2);
const clients = Number(clientsArg), seconds = Number(secondsArg), parts = Number(partsArg || 1);
const def = protoLoader.loadSync("splitprove/v1/prover.proto", {
  includeDirs: [path.join(src, "proto")], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const v1 = grpc.loadPackageDefinition(def).splitprove.v1;
const native = wtnsPath.startsWith("native:") ? wtnsPath.slice(7) : null;
const w = native ? Buffer.alloc(0) : fs.readFileSync(wtnsPath);
const CHUNK = 1 << 20;

const submitMs = [], e2eMs = [], errors = {};
let jobs = 0, partitions = 0, exhausted = 0;

function proveOnce(client) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let accepted = 0, state = null;
    const call = client.Prove();
    call.on("data", (ev) => {
      if (ev.accepted) accepted = performance.now();
      if (ev.result) state = ev.result.state;
    });
    call.on("error", (e) => resolve({ code: e.code }));
    call.on("end", () => resolve({ t0, accepted, end: performance.now(), state }));
    if (native) {
      call.write({ header: { key_id: key, partitions: parts, native: { seed: native } } });
      call.end();
      return;
    }
    call.write({ header: { key_id: key, partitions: parts, circom: { witness_bytes: Array(parts).fill(String(w.length)) } } });
    for (let p = 0; p < parts; p++)
      for (let off = 0; off < w.length; off += CHUNK)
        call.write({ chunk: { partition: p, offset: String(off), data: w.subarray(off, off + CHUNK) } });
    call.end();
  });
}

const deadline = performance.now() + seconds * 1000;
const t0 = performance.now();
async function worker() {
  // One channel per client, as separate client processes would have.
  const client = new v1.Prover(addr, grpc.credentials.createInsecure(), { "grpc.max_send_message_length": 64 << 20 });
  while (performance.now() < deadline) {
    const r = await proveOnce(client);
    if (r.code !== undefined) {
      const name = Object.keys(grpc.status).find((k) => grpc.status[k] === r.code);
      if (name === "RESOURCE_EXHAUSTED") {
        exhausted++;
        await new Promise((res) => setTimeout(res, 50));
      } else errors[name] = (errors[name] || 0) + 1;
      continue;
    }
    if (r.state !== "JOB_STATE_SUCCEEDED") { errors[r.state] = (errors[r.state] || 0) + 1; continue; }
    jobs++;
    partitions += parts;
    submitMs.push(r.accepted - r.t0);
    e2eMs.push(r.end - r.t0);
  }
  client.close();
}
await Promise.all(Array.from({ length: clients }, worker));
const wall = (performance.now() - t0) / 1000;
const pct = (a, q) => {
  if (!a.length) return null;
  const s = [...a].sort((x, y) => x - y);
  return Number(s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1));
};
console.log(JSON.stringify({
  clients, seconds, partitions_per_job: parts, jobs, partitions, wall_s: Number(wall.toFixed(2)),
  partitions_per_s: Number((partitions / wall).toFixed(3)),
  submit_ms: { p50: pct(submitMs, 0.5), p99: pct(submitMs, 0.99) },
  end_to_end_ms: { p50: pct(e2eMs, 0.5), p99: pct(e2eMs, 0.99) },
  resource_exhausted: exhausted, errors,
}));
