// The Submit stream's messages, shared by the node clients (client.mjs, hostile.mjs): a header for
// circom witnesses and the witnesses cut into chunks.
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
