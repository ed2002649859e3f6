// The node client on the daemon's TLS port: GetStatus with the bearer token answers; without it,
// or with another token, the call fails UNAUTHENTICATED.
//   node tests/daemon/tls.mjs <host:port> <source dir> <ca.pem> <token file>
import fs from "node:fs";
import path from "node:path";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const [addr, src, caPath, tokenPath] = process.argv.slice(2);
const def = protoLoader.loadSync("splitprove/v1/prover.proto", { includeDirs: [path.join(src, "proto")], keepCase: true });
const v1 = grpc.loadPackageDefinition(def).splitprove.v1;
const ssl = grpc.credentials.createSsl(fs.readFileSync(caPath));
const withToken = (t) => grpc.credentials.combineChannelCredentials(ssl,
  grpc.credentials.createFromMetadataGenerator((_, cb) => { const m = new grpc.Metadata(); m.set("authorization", `Bearer ${t}`); cb(null, m); }));
const status = (creds) => new Promise((resolve) => new v1.Prover(addr, creds).GetStatus({}, (err, r) => resolve({ err, r })));

const token = fs.readFileSync(tokenPath, "utf8").trim();
const ok = await status(withToken(token));
if (ok.err || !ok.r) { console.log(`FAIL: GetStatus over TLS with the token: ${ok.err?.message}`); process.exit(1); }
for (const [what, creds] of [["no token", ssl], ["another token", withToken("x".repeat(32))]]) {
  const { err } = await status(creds);
  if (!err || err.code !== grpc.status.UNAUTHENTICATED) { console.log(`FAIL: ${what}: ${err ? err.message : "served"}`); process.exit(1); }
}
console.log("ok: node client over TLS (token accepted; none or another UNAUTHENTICATED)");
process.exit(0);
