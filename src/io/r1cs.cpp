#include "io/r1cs.hpp"

#include <atomic>
#include <limits>

#include "io/binfile.hpp"
#include "io/curve_id.hpp"
#include "util/parallel.hpp"

namespace splitprove::io {

template <class E>
R1cs<E> parse_r1cs(std::span<const uint8_t> bytes, const std::string& name) {
  using Fr = typename E::Fr;
  constexpr uint32_t kN8 = 8 * Fr::N;
  BinFile f(bytes, name, "r1cs", 1);
  for (uint32_t id : {4u, 5u})
    if (f.count(id))
      throw Error(f.where(id, id == 4 ? "custom gates list" : "custom gates applications") +
                  "custom gates are a PLONK feature; a Groth16 circuit has none");

  R1cs<E> r;
  r.source = name;
  {
    Cursor c(f.section(1, "header"), f.where(1, "header"));
    const uint32_t n8 = c.u32("n8");
    if (n8 != kN8)
      c.fail("field size n8 = " + std::to_string(n8) + ", expected " + std::to_string(kN8) +
             " for " + std::string(E::kName));
    expect_prime(c.take(n8, "prime"), E::kId, false, c.where());
    r.n_wires = c.u32("nWires");
    r.n_pub_out = c.u32("nPubOut");
    r.n_pub_in = c.u32("nPubIn");
    r.n_prv_in = c.u32("nPrvIn");
    r.n_labels = c.u64("nLabels");
    r.n_constraints = c.u32("nConstraints");
    c.expect_end();
    const uint64_t inputs = 1ull + r.n_pub_out + r.n_pub_in + r.n_prv_in;
    if (inputs > r.n_wires)
      c.fail("nWires = " + std::to_string(r.n_wires) + " is less than 1 + nPubOut + nPubIn + " +
             "nPrvIn = " + std::to_string(inputs));
  }

  {
    const std::string where = f.where(2, "constraints");
    Cursor c(f.section(2, "constraints"), where);
    // Each constraint takes at least 12 bytes (three empty LCs): reject an impossible count before
    // reserving anything for it.
    if (uint64_t(r.n_constraints) * 12 > c.remaining())
      c.fail("nConstraints = " + std::to_string(r.n_constraints) + " (header) cannot fit in " +
             std::to_string(c.remaining()) + " bytes");
    r.offsets.reserve(3 * size_t(r.n_constraints) + 1);
    r.offsets.push_back(0);
    // Canonical coefficients first (range-checked here); Montgomery conversion afterwards, in
    // parallel. The bytes of a term are 4 + n8; the count bound keeps `reserve` honest.
    std::vector<ff::Limbs<Fr::N>> raw;
    const size_t max_terms = c.remaining() / (4 + kN8);
    for (uint32_t i = 0; i < r.n_constraints; ++i) {
      for (int m = 0; m < 3; ++m) {
        const uint32_t nt = c.u32("nTerms");
        if (uint64_t(nt) * (4 + kN8) > c.remaining())
          c.fail("constraint " + std::to_string(i) + ": " + "ABC"[m] + " has " +
                 std::to_string(nt) + " terms, more than the " + std::to_string(c.remaining()) +
                 " bytes left can hold");
        if (raw.capacity() == 0) raw.reserve(std::min<size_t>(max_terms, 1u << 20));
        for (uint32_t t = 0; t < nt; ++t) {
          const uint32_t wire = c.u32("wire id");
          if (wire >= r.n_wires)
            c.fail("constraint " + std::to_string(i) + ": " + "ABC"[m] + " term " +
                   std::to_string(t) + ": wire " + std::to_string(wire) +
                   " >= nWires = " + std::to_string(r.n_wires));
          const auto v = load_le<Fr::N>(c.take(kN8, "coefficient").data());
          if (ff::cmp_limbs(v, Fr::MOD) >= 0)
            c.fail("constraint " + std::to_string(i) + ": " + "ABC"[m] + " term " +
                   std::to_string(t) + ": coefficient is not below r");
          r.terms.push_back({wire, Fr::zero()});
          raw.push_back(v);
        }
        r.offsets.push_back(r.terms.size());
      }
    }
    c.expect_end();
    util::parallel_for(
        raw.size(),
        [&](size_t b, size_t e) {
          for (size_t k = b; k < e; ++k) r.terms[k].coeff = Fr::from_canonical(raw[k]);
        },
        4096);
  }

  if (f.count(3)) {
    Cursor c(f.section(3, "wire to label map"), f.where(3, "wire to label map"));
    if (c.remaining() != uint64_t(r.n_wires) * 8)
      c.fail("size " + std::to_string(c.remaining()) +
             " bytes, expected nWires·8 = " + std::to_string(uint64_t(r.n_wires) * 8));
    r.wire_labels.resize(r.n_wires);
    for (auto& l : r.wire_labels) l = c.u64("label id");
  }
  return r;
}

template <class E>
R1cs<E> read_r1cs(const std::string& path) {
  MappedFile m(path);
  return parse_r1cs<E>(m.bytes(), path);
}

template <class E>
std::vector<uint8_t> encode_r1cs(const R1cs<E>& r) {
  using Fr = typename E::Fr;
  constexpr uint32_t kN8 = 8 * Fr::N;
  VectorSink s;
  const bool labels = !r.wire_labels.empty();
  write_container_header(s, "r1cs", 1, labels ? 3 : 2);
  uint64_t size2 = 12ull * r.n_constraints + r.terms.size() * (4 + kN8);
  write_section_header(s, 2, size2);
  for (size_t i = 0; i < r.n_constraints; ++i)
    for (int m = 0; m < 3; ++m) {
      auto lc = r.lc(i, m);
      s.u32(uint32_t(lc.size()));
      for (const auto& t : lc) {
        s.u32(t.wire);
        uint8_t buf[kN8];
        store_le(t.coeff.to_canonical(), buf);
        s.write(buf, kN8);
      }
    }
  write_section_header(s, 1, 4 + kN8 + 4 * 4 + 8 + 4);
  s.u32(kN8);
  s.write(Fr::MOD.data(), kN8);
  s.u32(r.n_wires);
  s.u32(r.n_pub_out);
  s.u32(r.n_pub_in);
  s.u32(r.n_prv_in);
  s.u64(r.n_labels);
  s.u32(r.n_constraints);
  if (labels) {
    write_section_header(s, 3, 8 * r.wire_labels.size());
    for (uint64_t l : r.wire_labels) s.u64(l);
  }
  return std::move(s.out);
}

// One line per curve of SPLITPROVE_FOR_EACH_ENGINE (ec/curves.hpp).
#define SPLITPROVE_IO_R1CS_INSTANTIATE(E) \
  template R1cs<E> parse_r1cs<E>(std::span<const uint8_t>, const std::string&); \
  template R1cs<E> read_r1cs<E>(const std::string&);                            \
  template std::vector<uint8_t> encode_r1cs<E>(const R1cs<E>&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_R1CS_INSTANTIATE)
#undef SPLITPROVE_IO_R1CS_INSTANTIATE

}  // namespace splitprove::io
