// What the node clients (client.mjs, hostile.mjs) share: a Prover client made from the .proto, and
// the Submit stream's messages (a header for circom witnesses, the witnesses cut into chunks).
import path from "node:path";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

// A v1 Prover client of the daemon at `addr` (the .proto read from the source tree `src`).
export function connect(addr, src) {
  const def = protoLoader.loadSync("splitprove/v1/prover.proto", {
    includeDirs: [path.join(src, "proto")],
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  });
  const v1 = grpc.loadPackageDefinition(def).splitprove.v1;
  return new v1.Prover(addr, grpc.credentials.createInsecure(),
                       { "grpc.max_send_message_length": 64 << 20 });
}

export function header(key, witnesses, extra = {}) {
  return { header: { key_id: key, partitions: witnesses.length,
                     circom: { witness_bytes: witnesses.map((w) => String(w.length)) }, ...extra } };
}
export function chunks(witnesses, size = 1 << 20) {
  const out = [];
  witnesses.forEach((w, p) => {
    for (let off = 0; off < w.length; off += size)
      out.push({ chunk: { partition: p, offset: String(off), data: w.subarray(off, off + size) } });
  });
  return out;
}
