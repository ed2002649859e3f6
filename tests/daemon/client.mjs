// A client of the daemon written against proto/splitprove/v1/prover.proto in another ecosystem
// (node: @grpc/grpc-js + @grpc/proto-loader). It proves jobs on both curves and checks every proof
// with snarkjs, then sends bad requests and checks each one's status code and message, and that
// the daemon keeps serving.
//
//   node client.mjs <address> <source dir> <work dir> <bls key id> <bn key id> <native key id>
// The work dir holds bls.vkey.json, bn.vkey.json and native.vkey.json (the keys' verifying keys;
// the native key is the built-in circuit's, BN254 2^10).
import fs from "node:fs";
import path from "node:path";
import grpc from "@grpc/grpc-js";
import { chunks, connect, header } from "./messages.mjs";
import * as snarkjs from "snarkjs";

const [addr, src, work, blsKey, bnKey, nativeKey] = process.argv.slice(2);
const F = path.join(src, "tests/fixtures");
const client = connect(addr, src);

let failures = 0, checks = 0;
function ok(cond, what) {
  checks++;
  if (!cond) { failures++; console.log(`FAIL: ${what}`); } else console.log(`ok: ${what}`);
}

const unary = (m, req) => new Promise((res, rej) => client[m](req, (e, r) => (e ? rej(e) : res(r))));

// Sends a Submit stream of the given messages; resolves to {resp} or {err}.
function submitRaw(msgs) {
  return new Promise((resolve) => {
    const call = client.Submit((err, resp) => resolve(err ? { err } : { resp }));
    for (const m of msgs) call.write(m);
    call.end();
  });
}
const submit = (key, ws, extra) => submitRaw([header(key, ws, extra), ...chunks(ws)]);

function awaitJob(job_id) {
  return new Promise((resolve, reject) => {
    const results = [];
    let result = null;
    const call = client.Await({ job_id });
    call.on("data", (ev) => {
      if (ev.partition_result) results.push(ev.partition_result);
      if (ev.result) result = ev.result;
    });
    call.on("error", reject);
    call.on("end", () => resolve({ results, result }));
  });
}

async function expectCode(what, promise, code, needle) {
  let err = null;
  try {
    const r = await promise;
    err = r && r.err ? r.err : null;
  } catch (e) { err = e; }
  const name = err ? Object.keys(grpc.status).find((k) => grpc.status[k] === err.code) : "OK";
  ok(err && err.code === grpc.status[code] && (!needle || err.details.includes(needle)),
     `${what}: ${code}${needle ? ` with "${needle}"` : ""} (got ${name}: ${err ? err.details : ""})`);
}

const read = (p) => fs.readFileSync(path.join(F, p));
const blsW = read("chain.wtns"), bnW = read("bn128/chain.wtns"), bnMixed = read("bn128/mixed.wtns");
const vkeys = { [blsKey]: JSON.parse(fs.readFileSync(path.join(work, "bls.vkey.json"))),
                [bnKey]: JSON.parse(fs.readFileSync(path.join(work, "bn.vkey.json"))),
                [nativeKey]: JSON.parse(fs.readFileSync(path.join(work, "native.vkey.json"))) };

async function proveAndVerify(key, ws, label, native) {
  const s = native ? await submitRaw([{ header: { key_id: key, partitions: native.partitions, native: { seed: native.seed } } }])
                   : await submit(key, ws);
  const n = native ? native.partitions : ws.length;
  if (s.err) { ok(false, `${label}: submit: ${s.err.details}`); return null; }
  const { results, result } = await awaitJob(s.resp.job_id);
  ok(result && result.state === "JOB_STATE_SUCCEEDED" && results.length === n,
     `${label}: job ${s.resp.job_id} succeeded with ${results.length} results`);
  for (const r of results) {
    const valid = await snarkjs.groth16.verify(vkeys[key], JSON.parse(r.public_json), JSON.parse(r.proof_json));
    ok(valid, `${label}: partition ${r.partition}: snarkjs groth16 verify`);
  }
  return s.resp.job_id;
}

// ---- jobs on both curves, proofs checked by snarkjs
const bnJob = await proveAndVerify(bnKey, [bnW, bnW, bnW], "BN254 job of 3");
await proveAndVerify(blsKey, [blsW, blsW], "BLS12-381 job of 2");
// The built-in native circuit: partitions from a seed, no witnesses sent.
await proveAndVerify(nativeKey, null, "native BN254 2^10 job of 3", { partitions: 3, seed: "42" });
const nk = await unary("RegisterKey", { source: { native: { curve: "CURVE_BN254", log2_size: 10 } } });
ok(nk.key.key_id === nativeKey && nk.existed, "registering the native circuit again names the same key");
// Two jobs at once, interleaved on the daemon.
await Promise.all([proveAndVerify(bnKey, [bnW], "concurrent BN254"), proveAndVerify(blsKey, [blsW], "concurrent BLS12-381")]);

// ---- bad requests
const unknownKey = "0".repeat(64);
await expectCode("chunk before the header", submitRaw(chunks([bnW])), "INVALID_ARGUMENT", "first message must be a header");
await expectCode("header, then the stream ends", submitRaw([header(bnKey, [bnW])]), "INVALID_ARGUMENT", "stream ended");
await expectCode("witness truncated", submitRaw([header(bnKey, [bnW]), ...chunks([bnW.subarray(0, 100)])]), "INVALID_ARGUMENT", "stream ended");
await expectCode("witness of the other curve", submit(bnKey, [blsW]), "INVALID_ARGUMENT", "is for BLS12-381");
await expectCode("witness of another circuit", submit(bnKey, [bnMixed]), "INVALID_ARGUMENT", "partition 0");
await expectCode("unknown key", submit(unknownKey, [bnW]), "NOT_FOUND", "no key");
await expectCode("malformed key id", submit("abc", [bnW]), "INVALID_ARGUMENT", "64 lowercase hex");
await expectCode("partitions and sizes disagree", submitRaw([{ header: { key_id: bnKey, partitions: 2, circom: { witness_bytes: [String(bnW.length)] } } }]), "INVALID_ARGUMENT", "partitions 2");
await expectCode("native partitions for a .zkey key", submitRaw([{ header: { key_id: bnKey, partitions: 1, native: { seed: "1" } } }]), "INVALID_ARGUMENT", "circom witnesses");
await expectCode("witnesses for the native key", submit(nativeKey, [bnW]), "INVALID_ARGUMENT", "native partitions");
await expectCode("native size check", submitRaw([{ header: { key_id: nativeKey, partitions: 1, native: { seed: "1", log2_size: 12 } } }]), "INVALID_ARGUMENT", "2^10");
await expectCode("native circuit of 2^40", unary("RegisterKey", { source: { native: { curve: "CURVE_BN254", log2_size: 40 } } }), "INVALID_ARGUMENT", "2^10..2^28");
await expectCode("chunk out of order", submitRaw([header(bnKey, [bnW, bnW]), ...chunks([bnW, bnW]).reverse()]), "INVALID_ARGUMENT", "out of order");
await expectCode("chunk beyond the declared size", submitRaw([header(bnKey, [bnW.subarray(0, 200)]), ...chunks([bnW])]), "INVALID_ARGUMENT", "declared size");
await expectCode("chunk above 4 MiB", submitRaw([{ header: { key_id: bnKey, partitions: 1, circom: { witness_bytes: [String(5 << 20)] } } }, { chunk: { partition: 0, offset: "0", data: Buffer.alloc(5 << 20) } }]), "INVALID_ARGUMENT", "at most 4 MiB");
await expectCode("message above the daemon's limit", submitRaw([{ header: { key_id: bnKey, partitions: 1, circom: { witness_bytes: [String(9 << 20)] } } }, { chunk: { partition: 0, offset: "0", data: Buffer.alloc(9 << 20) } }]), "RESOURCE_EXHAUSTED");
await expectCode("priority out of range", submit(bnKey, [bnW], { priority: 5000 }), "INVALID_ARGUMENT", "priority");
await expectCode("await an unknown job", awaitJob("01234567-89ab-7def-8123-456789abcdef"), "NOT_FOUND", "no job");
await expectCode("get a malformed job id", unary("GetJob", { job_id: "nope" }), "INVALID_ARGUMENT", "not a job id");
await expectCode("register a path that escapes", unary("RegisterKey", { source: { zkey_path: "../../etc/passwd" } }), "PERMISSION_DENIED", "..");
await expectCode("register an absolute path", unary("RegisterKey", { source: { zkey_path: "/etc/passwd" } }), "PERMISSION_DENIED", "absolute");
await expectCode("register a missing file", unary("RegisterKey", { source: { zkey_path: "nothing.zkey" } }), "NOT_FOUND");
await expectCode("register a file that is not a key", unary("RegisterKey", { source: { zkey_path: "not-a-key.zkey" } }), "INVALID_ARGUMENT", "not-a-key.zkey");
await expectCode("cancel a finished job", unary("Cancel", { job_id: bnJob }), "FAILED_PRECONDITION", "already succeeded");
await expectCode("list with page size 5000", unary("ListJobs", { page_size: 5000 }), "INVALID_ARGUMENT", "at most 1000");
await expectCode("list with a forged page token", unary("ListJobs", { page_token: "all/1/x" }), "INVALID_ARGUMENT", "page token");
await expectCode("evict an unknown key", unary("EvictKey", { key_id: unknownKey }), "NOT_FOUND");

// ---- idempotency: a retry names the first job; another header under the same key is refused
const idem = `retry-${process.pid}`;
const first = await submit(bnKey, [bnW], { idempotency_key: idem });
const again = await submit(bnKey, [bnW], { idempotency_key: idem });
ok(first.resp && again.resp && again.resp.job_id === first.resp.job_id && again.resp.deduplicated,
   "resubmit with the same idempotency key returns the first job");
await expectCode("same idempotency key, another header", submit(bnKey, [bnW, bnW], { idempotency_key: idem }), "FAILED_PRECONDITION", first.resp.job_id);

// ---- a witness that does not satisfy the circuit fails its job only, with the reason
const bad = Buffer.from(bnW);
bad[bad.length - 5] ^= 0x01;  // a wire's value changed
const sBad = await submit(bnKey, [bad]);
const good = await submit(bnKey, [bnW]);
const rBad = await awaitJob(sBad.resp.job_id), rGood = await awaitJob(good.resp.job_id);
ok(rBad.result.state === "JOB_STATE_FAILED" && rBad.result.error.startsWith("partition 0: ") && rBad.result.error.includes("does not satisfy"),
   `unsatisfied witness fails its job (${rBad.result.error})`);
ok(rGood.result.state === "JOB_STATE_SUCCEEDED", "the job beside it succeeds");

// ---- cancel: a queued job is cancelled; its result says so
const big = await submit(bnKey, Array(12).fill(bnW));
const c = await unary("Cancel", { job_id: big.resp.job_id, reason: "test" });
ok(c.job.state === "JOB_STATE_CANCELLED", "cancel a job in flight");
const rc = await awaitJob(big.resp.job_id);
ok(rc.result.state === "JOB_STATE_CANCELLED" && rc.result.error === "cancelled: test", "its Await ends cancelled");

// ---- still serving, and the status says what happened
const st = await unary("GetStatus", {});
ok(st.accepting && Number(st.jobs_succeeded) >= 5 && Number(st.jobs_failed) === 1, `status: accepting, ${st.jobs_succeeded} succeeded, ${st.jobs_failed} failed`);
await proveAndVerify(bnKey, [bnW], "a job after the bad requests");

console.log(`${checks - failures} of ${checks} checks passed`);
client.close();
process.exit(failures ? 1 : 0);
