// Hostile and careless clients against the daemon, from a client that is not our CLI (node:
// @grpc/grpc-js from the .proto). Each probe asserts the status code, that the message is bounded
// (a status that quotes what it was sent in full can outgrow the client's metadata limit), and
// that nothing is left behind: the jobs the daemon lists and the spool's entries are as before,
// unless the probe made a job on purpose.
//
//   node hostile.mjs <address> <source dir> <state dir> <daemon log> <bn key id> <bls key id>
// The daemon runs with --submit-idle-s 2 and --max-witness 16777215TiB (2^64 - 2^40: declared sizes near 2^64 pass the per-witness
// bound and meet the spool bound).
import fs from "node:fs";
import path from "node:path";
import grpc from "@grpc/grpc-js";
import { chunks, connect, header } from "./messages.mjs";

const [addr, src, stateDir, logPath, bnKey, blsKey] = process.argv.slice(2);
const F = path.join(src, "tests/fixtures");
const client = connect(addr, src);
const MAX_MESSAGE = 512;  // no status message of the daemon's is longer, whatever it was sent

let failures = 0, checks = 0;
function ok(cond, what) {
  checks++;
  if (!cond) { failures++; console.log(`FAIL: ${what}`); } else console.log(`ok: ${what}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const deadline = (s = 10) => ({ deadline: Date.now() + s * 1000 });
const unary = (m, req, opts = deadline()) =>
  new Promise((res) => client[m](req, opts, (err, resp) => res(err ? { err } : { resp })));
const codeName = (c) => Object.keys(grpc.status).find((k) => grpc.status[k] === c);

// A Submit stream left open: write() more, then end() (half-close) or cancel(); `done` resolves
// to {resp} or {err}.
function openSubmit(msgs, opts = deadline(30)) {
  let resolve;
  const done = new Promise((r) => (resolve = r));
  const call = client.Submit(opts, (err, resp) => resolve(err ? { err } : { resp }));
  for (const m of msgs) call.write(m);
  return { call, done };
}
const submitRaw = (msgs, opts) => {
  const s = openSubmit(msgs, opts);
  s.call.end();
  return s.done;
};

// What the daemon holds: its jobs and the spool's entries (one directory per job that keeps its
// witnesses there).
async function books() {
  const r = await unary("ListJobs", { page_size: 1000 });
  if (r.err) throw new Error(`ListJobs: ${r.err.details}`);
  const spool = path.join(stateDir, "spool");
  return { jobs: new Set(r.resp.jobs.map((j) => j.job_id)),
           spool: new Set(fs.readdirSync(spool).filter((e) => e !== "claims")) };
}
const diff = (a, b) => [...b].filter((x) => !a.has(x));
// Whether the books came back to `before` plus `made` (job ids made on purpose); polled for a
// while, as a cut stream's files go when the daemon's handler unwinds.
async function nothingLeft(what, before, made = []) {
  let extraJobs = [], extraSpool = [];
  for (let i = 0; i < 30; i++) {
    const now = await books();
    extraJobs = diff(before.jobs, now.jobs).filter((j) => !made.includes(j));
    extraSpool = diff(before.spool, now.spool).filter((e) => !made.includes(e));
    if (!extraJobs.length && !extraSpool.length) break;
    await sleep(100);
  }
  ok(!extraJobs.length && !extraSpool.length,
     `${what}: nothing left behind (new jobs: [${extraJobs}], new spool entries: [${extraSpool}])`);
}
// The status code and a bounded message; `needle`, when given, in the message.
function expectErr(what, r, code, needle) {
  const err = r && r.err;
  const got = err ? `${codeName(err.code)}: ${String(err.details).slice(0, 200)}` : "OK";
  ok(err && err.code === grpc.status[code] && (!needle || err.details.includes(needle)),
     `${what}: ${code}${needle ? ` with "${needle}"` : ""} (got ${got})`);
  ok(!err || err.details.length <= MAX_MESSAGE,
     `${what}: the message is bounded (${err ? err.details.length : 0} <= ${MAX_MESSAGE} characters)`);
}
// A probe: its books before, the call, the expected error, nothing left.
async function probe(what, fn, code, needle) {
  const before = await books();
  expectErr(what, await fn(), code, needle);
  await nothingLeft(what, before);
}

const read = (p) => fs.readFileSync(path.join(F, p));
const bnW = read("bn128/chain.wtns"), blsW = read("chain.wtns");
// The same witness with one wire's value changed: a valid .wtns for the key, other bytes.
const bnOther = Buffer.from(bnW);
bnOther[bnOther.length - 5] ^= 0x01;

// ---- 1. a stream cut after its last chunk, before the half-close, makes no job
{
  const before = await books();
  const s = openSubmit([header(bnKey, [bnW]), ...chunks([bnW])]);
  await sleep(500);  // every chunk read by the daemon
  s.call.cancel();
  expectErr("Submit cancelled after its last chunk", await s.done, "CANCELLED");
  await sleep(500);
  await nothingLeft("Submit cancelled after its last chunk", before);
}
{
  const before = await books();
  const s = openSubmit([header(bnKey, [bnW]), ...chunks([bnW])], deadline(1.5));
  expectErr("Submit whose deadline passes after its last chunk", await s.done, "DEADLINE_EXCEEDED");
  await sleep(500);
  await nothingLeft("Submit whose deadline passes after its last chunk", before);
}
{
  const before = await books();
  const call = client.Prove(deadline(30));
  const done = new Promise((res) => {
    call.on("data", () => {});
    call.on("error", (err) => res({ err }));
    call.on("end", () => res({}));
  });
  for (const m of [header(bnKey, [bnW]), ...chunks([bnW])]) call.write(m);
  await sleep(500);
  call.cancel();
  expectErr("Prove cancelled after its last chunk", await done, "CANCELLED");
  await sleep(500);
  await nothingLeft("Prove cancelled after its last chunk", before);
}
{
  // The same with an idempotency key: a retry after the cut makes the job, once.
  const idem = `cut-${process.pid}`;
  const before = await books();
  const s = openSubmit([header(bnKey, [bnW], { idempotency_key: idem }), ...chunks([bnW])]);
  await sleep(500);
  s.call.cancel();
  await s.done;
  await sleep(300);
  const retry = await submitRaw([header(bnKey, [bnW], { idempotency_key: idem }), ...chunks([bnW])]);
  ok(retry.resp && !retry.resp.deduplicated,
     `the retry of a cut idempotent Submit makes the job (${retry.err ? retry.err.details : retry.resp.job_id})`);
  await nothingLeft("the retry of a cut idempotent Submit", before, retry.resp ? [retry.resp.job_id] : []);
}

// ---- 2. idempotency: a race between two Submits with one key is decided by the whole submission
{
  const idem = `race-header-${process.pid}`;
  const before = await books();
  const a = openSubmit([header(bnKey, [bnW], { idempotency_key: idem }), ...chunks([bnW])]);
  const b = openSubmit([header(blsKey, [blsW], { idempotency_key: idem }), ...chunks([blsW])]);
  await sleep(500);  // both past the header: neither saw a job under the key
  a.call.end();
  const ra = await a.done;
  ok(ra.resp && !ra.resp.deduplicated, `race, another key_id: the first commit makes the job (${ra.err ? ra.err.details : ""})`);
  b.call.end();
  expectErr("race, another key_id: the second", await b.done, "FAILED_PRECONDITION", ra.resp ? ra.resp.job_id : "job");
  await nothingLeft("race, another key_id", before, ra.resp ? [ra.resp.job_id] : []);
}
{
  const idem = `race-bytes-${process.pid}`;
  const before = await books();
  const a = openSubmit([header(bnKey, [bnW], { idempotency_key: idem }), ...chunks([bnW])]);
  const b = openSubmit([header(bnKey, [bnOther], { idempotency_key: idem }), ...chunks([bnOther])]);
  await sleep(500);
  a.call.end();
  const ra = await a.done;
  b.call.end();
  expectErr("race, same header, other witness bytes: the second", await b.done, "FAILED_PRECONDITION", "witness bytes");
  await nothingLeft("race, same header, other witness bytes", before, ra.resp ? [ra.resp.job_id] : []);
  // The same bytes in a race: the second is answered with the first's job.
  const idem2 = `race-same-${process.pid}`;
  const c = openSubmit([header(bnKey, [bnW], { idempotency_key: idem2 }), ...chunks([bnW])]);
  const d = openSubmit([header(bnKey, [bnW], { idempotency_key: idem2 }), ...chunks([bnW])]);
  await sleep(500);
  c.call.end();
  const rc = await c.done;
  d.call.end();
  const rd = await d.done;
  ok(rc.resp && rd.resp && rd.resp.job_id === rc.resp.job_id && rd.resp.deduplicated,
     "race, the same submission: the second names the first's job, deduplicated");
  await nothingLeft("race, the same submission", before,
                    [ra.resp && ra.resp.job_id, rc.resp && rc.resp.job_id].filter(Boolean));
}
{
  const idem = `seq-bytes-${process.pid}`;
  const first = await submitRaw([header(bnKey, [bnW], { idempotency_key: idem }), ...chunks([bnW])]);
  const before = await books();
  expectErr("retry, same header, other witness bytes",
            await submitRaw([header(bnKey, [bnOther], { idempotency_key: idem }), ...chunks([bnOther])]),
            "FAILED_PRECONDITION", first.resp ? first.resp.job_id : "job");
  await nothingLeft("retry, same header, other witness bytes", before);
  const again = await submitRaw([header(bnKey, [bnW], { idempotency_key: idem }), ...chunks([bnW])]);
  ok(first.resp && again.resp && again.resp.job_id === first.resp.job_id && again.resp.deduplicated,
     "retry, the same bytes: the first job, deduplicated");
  expectErr("retry, the same header, a witness cut short",
            await submitRaw([header(bnKey, [bnW], { idempotency_key: idem }), ...chunks([bnW.subarray(0, 100)])]),
            "INVALID_ARGUMENT", "stream ended");
  await nothingLeft("the retries", before);
}

// ---- 4. errors quote what they were sent in part only; over-long ids are INVALID_ARGUMENT
for (const n of [8 << 10, 131 << 10]) {
  const long = "a".repeat(n);
  await probe(`GetJob, a job id of ${n} bytes`, () => unary("GetJob", { job_id: long }), "INVALID_ARGUMENT", "not a job id");
  await probe(`Cancel, a job id of ${n} bytes`, () => unary("Cancel", { job_id: long }), "INVALID_ARGUMENT", "not a job id");
  await probe(`PreloadKey, a key id of ${n} bytes`, () => unary("PreloadKey", { key_id: long }), "INVALID_ARGUMENT", "64 lowercase hex");
  await probe(`EvictKey, a key id of ${n} bytes`, () => unary("EvictKey", { key_id: long }), "INVALID_ARGUMENT", "64 lowercase hex");
  await probe(`Submit, a key id of ${n} bytes`, () => submitRaw([header(long, [bnW]), ...chunks([bnW])]), "INVALID_ARGUMENT", "64 lowercase hex");
  await probe(`RegisterKey, a path of ${n} bytes`, () => unary("RegisterKey", { source: { zkey_path: long } }), "INVALID_ARGUMENT", "key path");
  await probe(`RegisterKey, an escaping path of ${n} bytes`,
              () => unary("RegisterKey", { source: { zkey_path: "../".repeat(Math.floor(Math.min(n, 4000) / 3)) } }), "PERMISSION_DENIED", "..");
  await probe(`ListJobs, a page token of ${n} bytes`, () => unary("ListJobs", { page_token: long }), "INVALID_ARGUMENT", "page token");
  await probe(`Await, a job id of ${n} bytes`, () => new Promise((res) => {
    const call = client.Await({ job_id: long }, deadline());
    call.on("data", () => {});
    call.on("error", (err) => res({ err }));
    call.on("end", () => res({}));
  }), "INVALID_ARGUMENT", "not a job id");
}
await probe("ListJobs, a forged page token of 200 bytes", () => unary("ListJobs", { page_token: "all/1/" + "x".repeat(194) }),
            "INVALID_ARGUMENT", "page token");
{
  const st = await unary("GetStatus", {}, deadline(5));
  ok(st.resp && st.resp.accepting, "after the long ids the connection still serves (GetStatus)");
}

// ---- 6. declared sizes whose sum passes 2^64 meet the spool bound, not a wrapped sum
const huge = (sizes) => ({ header: { key_id: bnKey, partitions: sizes.length, circom: { witness_bytes: sizes.map(String) } } });
await probe("Submit declaring 2 x 2^63 witness bytes", () => submitRaw([huge([2n ** 63n, 2n ** 63n])]), "RESOURCE_EXHAUSTED", "max_spool_bytes");
await probe("Submit declaring 2^64 + 1 witness bytes in two", () => submitRaw([huge([2n ** 64n - 2n ** 40n - 1n, 2n ** 40n + 2n])]),
            "RESOURCE_EXHAUSTED", "max_spool_bytes");
await probe("Submit declaring 3 x (2^63 - 1) + 12 witness bytes", () => submitRaw([huge([2n ** 63n - 1n, 2n ** 63n - 1n, 2n ** 63n - 1n, 12n])]),
            "RESOURCE_EXHAUSTED", "max_spool_bytes");

// ---- 7. PreloadKey names devices that exist; a Cancel reason cannot forge log lines
await probe("PreloadKey on gpu 99", () => unary("PreloadKey", { key_id: bnKey, gpus: [99] }), "INVALID_ARGUMENT", "gpu 99");
await probe("PreloadKey on gpus 0 and 4294967295", () => unary("PreloadKey", { key_id: bnKey, gpus: [0, 4294967295] }), "INVALID_ARGUMENT", "gpu");
{
  const r = await unary("PreloadKey", { key_id: bnKey });
  ok(r.resp && Number(r.resp.key.host_bytes) > 0, `PreloadKey with no gpus: every device (${r.err ? r.err.details : r.resp.key.residency})`);
}
{
  const s = await submitRaw([header(bnKey, Array(64).fill(bnW)), ...chunks(Array(64).fill(bnW))]);  // seconds of work: still running when cancelled
  const reason = "x\r\n2026-01-01T00:00:00.000Z info event=job_finished job=forged\x1b[2K\0tail";
  const c = s.resp ? await unary("Cancel", { job_id: s.resp.job_id, reason }) : { err: s.err };
  ok(c.resp && c.resp.job.state === "JOB_STATE_CANCELLED", `cancel with a reason of control bytes (${c.err ? c.err.details : "cancelled"})`);
  await sleep(300);
  const log = fs.readFileSync(logPath);
  ok(!log.includes(0x0d) && !log.includes(0x1b) && !log.includes(0x00), "the daemon log holds no raw CR, ESC or NUL");
  const lines = log.toString("latin1").split("\n");
  ok(!lines.some((l) => l.startsWith("2026-01-01T00:00:00.000Z")), "no log line was forged by the reason");
  const line = s.resp ? lines.find((l) => l.includes("event=job_cancelled") && l.includes(s.resp.job_id)) : null;
  ok(line && line.includes('reason="x\\r\\n2026-01-01T00:00:00.000Z info event=job_finished job=forged\\x1b[2K\\x00tail"'),
     `the reason is logged escaped (${line})`);
}

// ---- 5. an idle Submit stream (the daemon runs with --submit-idle-s 2) is failed and releases
// its admission
{
  const big = (gib) => ({ header: { key_id: bnKey, partitions: 1, circom: { witness_bytes: [String(BigInt(gib) << 30n)] } } });
  const before = await books();
  const t0 = Date.now();
  const idle = openSubmit([big(200)], deadline(30));  // header only: 200 GiB of the 256 GiB spool held
  await sleep(300);
  expectErr("while an idle stream holds 200 GiB, a Submit of 100 GiB", await submitRaw([big(100)]), "RESOURCE_EXHAUSTED", "max_spool_bytes");
  const r = await idle.done;
  const took = (Date.now() - t0) / 1000;
  expectErr("a header-only stream left idle", r, "DEADLINE_EXCEEDED", "submit_idle_s");
  ok(took >= 2 && took < 5, `the idle stream was failed after ${took.toFixed(1)} s (submit_idle_s 2)`);
  // The client has its status as the call is failed; the handler gives the admission back as it
  // unwinds, moments later.
  let after;
  for (let i = 0; i < 20; i++) {
    after = await submitRaw([big(100)]);
    if (!after.err || after.err.code !== grpc.status.RESOURCE_EXHAUSTED) break;
    await sleep(100);
  }
  expectErr("after it, a Submit of 100 GiB is admitted (then ends short)", after, "INVALID_ARGUMENT", "stream ended");
  await nothingLeft("a header-only stream left idle", before);
}
{
  const before = await books();
  const half = openSubmit([header(bnKey, [bnW]), { chunk: { partition: 0, offset: "0", data: bnW.subarray(0, 100) } }], deadline(30));
  expectErr("a stream left idle after part of a witness", await half.done, "DEADLINE_EXCEEDED", "submit_idle_s");
  await nothingLeft("a stream left idle after part of a witness", before);
  const silent = openSubmit([], deadline(30));
  expectErr("a stream that never sends its header", await silent.done, "DEADLINE_EXCEEDED", "submit_idle_s");
  await nothingLeft("a stream that never sends its header", before);
}

// ---- 8. each job's end is logged once, a cancelled job's as job_cancelled only
{
  await sleep(500);
  const log = fs.readFileSync(logPath).toString("latin1");
  const ends = new Map();
  for (const m of log.matchAll(/ event=job_finished job=([0-9a-f-]{36}) state=(\w+)/g))
    ends.set(m[1], [...(ends.get(m[1]) || []), m[2]]);
  const twice = [...ends].filter(([, v]) => v.length > 1);
  ok(!twice.length, `job_finished is logged once per job (${twice.map(([j, v]) => `${j}: ${v.length} times`).join(", ") || `${ends.size} jobs`})`);
  const cancelledEnds = [...ends].filter(([, v]) => v.includes("cancelled"));
  ok(!cancelledEnds.length, `no job_finished for a cancelled job (${cancelledEnds.map(([j]) => j).join(", ")})`);
}

console.log(`${checks - failures} of ${checks} checks passed`);
client.close();
process.exit(failures ? 1 : 0);
