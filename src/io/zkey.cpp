#include "io/zkey.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>

#include "io/binfile.hpp"
#include "io/curve_id.hpp"
#include "io/points.hpp"
#include "util/parallel.hpp"

namespace splitprove::io {
namespace {

enum : uint32_t {
  kProtocol = 1,
  kHeader = 2,
  kIC = 3,
  kCoeffs = 4,
  kA = 5,
  kB1 = 6,
  kB2 = 7,
  kC = 8,
  kH = 9,
  kContributions = 10,
};

const char* section_name(uint32_t id) {
  switch (id) {
    case kProtocol:
      return "protocol";
    case kHeader:
      return "Groth16 header";
    case kIC:
      return "IC";
    case kCoeffs:
      return "coefficients";
    case kA:
      return "A";
    case kB1:
      return "B1";
    case kB2:
      return "B2";
    case kC:
      return "C";
    case kH:
      return "H";
    case kContributions:
      return "contributions";
  }
  return "unknown";
}

// One A/B entry in the file: u32 matrix, u32 row, u32 wire, n8r-byte value.
template <class E>
constexpr size_t kCoeffBytes = 12 + 8 * E::Fr::N;

template <class E, class Affine>
void decode_one(Cursor& c, Affine& out, const char* field, bool check_subgroup, bool allow_inf) {
  using Codec = PointCodec<E>;
  constexpr size_t kSize = Codec::template size_of<Affine>();
  const auto bytes = c.take(kSize, field);
  const PointProblem pr = Codec::decode(bytes.data(), out, check_subgroup);
  if (pr != PointProblem::kNone) c.fail(std::string(field) + ": " + describe(pr));
  if (!allow_inf && out.is_identity()) c.fail(std::string(field) + ": the point at infinity is not allowed");
}

}  // namespace

// With `mapping` (the object that owns `bytes`, a mapped file), the point sections are checked
// and then used where they lie; without it they are decoded into the key's own arrays. Without
// `proving_sections` the coefficients and the A, B1, B2, C, H points are not read (their sizes
// are still checked against the header): the key then holds the verifying part only.
template <class E>
zk::ProvingKey<E> parse_zkey_from(std::span<const uint8_t> bytes, const std::string& name,
                                  const ZkeyReadOptions& opt, ZkeyMeta* meta,
                                  std::shared_ptr<const void> mapping,
                                  bool proving_sections = true) {
  using Fr = typename E::Fr;
  using Codec = PointCodec<E>;
  constexpr uint32_t kN8q = uint32_t(Codec::kFp);
  constexpr uint32_t kN8r = 8 * Fr::N;
  const bool sub = opt.check_subgroup;

  BinFile f(bytes, name, "zkey", 1);
  auto sec = [&](uint32_t id) { return f.section(id, section_name(id)); };
  auto where = [&](uint32_t id) { return f.where(id, section_name(id)); };
  // Every section the key is made of must be there exactly once; check them all up front so that a
  // missing or duplicated section is reported before any expensive decoding.
  for (uint32_t id = kProtocol; id <= kH; ++id) sec(id);
  if (f.count(kContributions) > 1) sec(kContributions);  // throws "duplicated section"

  {
    Cursor c(sec(kProtocol), where(kProtocol));
    const uint32_t protocol = c.u32("protocol id");
    if (protocol != 1) {
      const char* what = protocol == 2 ? " (PLONK)" : protocol == 10 ? " (FFLONK)" : "";
      c.fail("protocol " + std::to_string(protocol) + what + ", expected 1 (Groth16)");
    }
    c.expect_end();
  }

  zk::ProvingKey<E> pk;
  {
    Cursor c(sec(kHeader), where(kHeader));
    const uint32_t n8q = c.u32("n8q");
    if (n8q != kN8q) {
      // A different size is a different curve; name it when the prime is one we know.
      if (n8q > 0 && n8q <= 64 && n8q % 8 == 0 && c.remaining() >= n8q)
        expect_prime(c.take(n8q, "q"), E::kId, true, c.where());
      c.fail("base field size n8q = " + std::to_string(n8q) + ", expected " + std::to_string(kN8q) +
             " for " + std::string(E::kName));
    }
    expect_prime(c.take(n8q, "q"), E::kId, true, c.where());
    const uint32_t n8r = c.u32("n8r");
    if (n8r != kN8r)
      c.fail("scalar field size n8r = " + std::to_string(n8r) + ", expected " +
             std::to_string(kN8r));
    expect_prime(c.take(n8r, "r"), E::kId, false, c.where());
    pk.n_vars = c.u32("nVars");
    pk.n_public = c.u32("nPublic");
    pk.domain_size = c.u32("domainSize");
    if (pk.n_vars < uint64_t(pk.n_public) + 1)
      c.fail("nVars = " + std::to_string(pk.n_vars) +
             " is less than nPublic + 1 = " + std::to_string(uint64_t(pk.n_public) + 1));
    if (pk.domain_size == 0 || (pk.domain_size & (pk.domain_size - 1)))
      c.fail("domainSize = " + std::to_string(pk.domain_size) + " is not a power of two");
    if (pk.domain_size <= pk.n_public)
      c.fail("domainSize = " + std::to_string(pk.domain_size) + " cannot hold the " +
             std::to_string(uint64_t(pk.n_public) + 1) + " public-input rows");
    decode_one<E>(c, pk.alpha1, "alpha_1", sub, false);
    decode_one<E>(c, pk.beta1, "beta_1", sub, false);
    decode_one<E>(c, pk.beta2, "beta_2", sub, false);
    decode_one<E>(c, pk.gamma2, "gamma_2", sub, false);
    decode_one<E>(c, pk.delta1, "delta_1", sub, false);
    decode_one<E>(c, pk.delta2, "delta_2", sub, false);
    c.expect_end();
  }

  // Sizes against counts, for every point section, before anything is allocated for them.
  auto expect_size = [&](uint32_t id, uint64_t count, uint64_t point_size, const char* what) {
    const uint64_t got = sec(id).size();
    if (got != count * point_size)
      throw Error(where(id) + "size " + std::to_string(got) + " bytes, expected " + what + " = " +
                  std::to_string(count) + " points of " + std::to_string(point_size) +
                  " bytes = " + std::to_string(count * point_size));
  };
  const uint64_t n_private = uint64_t(pk.n_vars) - pk.n_public - 1;
  expect_size(kIC, uint64_t(pk.n_public) + 1, Codec::kG1, "nPublic + 1");
  expect_size(kA, pk.n_vars, Codec::kG1, "nVars");
  expect_size(kB1, pk.n_vars, Codec::kG1, "nVars");
  expect_size(kB2, pk.n_vars, Codec::kG2, "nVars");
  expect_size(kC, n_private, Codec::kG1, "nVars - nPublic - 1");
  expect_size(kH, pk.domain_size, Codec::kG1, "domainSize");

  if (proving_sections) {
    Cursor c(sec(kCoeffs), where(kCoeffs));
    const uint32_t n = c.u32("nCoefs");
    if (c.remaining() != uint64_t(n) * kCoeffBytes<E>)
      c.fail("size " + std::to_string(c.remaining() + 4) + " bytes, expected 4 + nCoefs·" +
             std::to_string(kCoeffBytes<E>) + " = " +
             std::to_string(4 + uint64_t(n) * kCoeffBytes<E>) +
             " for nCoefs = " + std::to_string(n));
    const auto data = c.take(c.remaining(), "coefficients");
    // Checked in place; then, like the points, used where they lie (the record is the layout of
    // zk::Coefficient) or copied as they are.
    static_assert(sizeof(zk::Coefficient<E>) == kCoeffBytes<E>);
    // Lowest bad entry wins (see decode_points); the message is rebuilt serially afterwards.
    std::atomic<size_t> first_bad{std::numeric_limits<size_t>::max()};
    util::parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) {
            const uint8_t* p = data.data() + i * kCoeffBytes<E>;
            uint32_t m, row, col;
            std::memcpy(&m, p, 4);
            std::memcpy(&row, p + 4, 4);
            std::memcpy(&col, p + 8, 4);
            const auto v = load_le<Fr::N>(p + 12);
            if (m > 1 || row >= pk.domain_size || col >= pk.n_vars ||
                ff::cmp_limbs(v, Fr::MOD) >= 0) {
              size_t cur = first_bad.load();
              while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
              }
              return;
            }
          }
        },
        4096);
    if (const size_t i = first_bad.load(); i != std::numeric_limits<size_t>::max()) {
      const uint8_t* p = data.data() + i * kCoeffBytes<E>;
      uint32_t m, row, col;
      std::memcpy(&m, p, 4);
      std::memcpy(&row, p + 4, 4);
      std::memcpy(&col, p + 8, 4);
      const std::string at = "coefficient " + std::to_string(i) + ": ";
      if (m > 1) c.fail(at + "matrix " + std::to_string(m) + ", expected 0 (A) or 1 (B)");
      if (row >= pk.domain_size)
        c.fail(at + "row " + std::to_string(row) +
               " >= domainSize = " + std::to_string(pk.domain_size));
      if (col >= pk.n_vars)
        c.fail(at + "wire " + std::to_string(col) + " >= nVars = " + std::to_string(pk.n_vars));
      c.fail(at + "value is not below r");
    }
    const auto* records = reinterpret_cast<const std::byte*>(data.data());
    if (mapping) {
      pk.coeffs = util::PodArray<zk::Coefficient<E>>::borrow(mapping, records, n);
    } else {
      util::UninitVector<zk::Coefficient<E>> v(n);
      if (n) std::memcpy(static_cast<void*>(v.data()), records, data.size());
      pk.coeffs = std::move(v);
    }
  }

  decode_points<E>(sec(kIC), pk.ic, where(kIC), sub);
  auto points = [&](uint32_t id, auto& arr) {
    using Affine = typename std::decay_t<decltype(arr)>::value_type;
    const auto bytes = sec(id);
    if (mapping) {
      check_points<E, Affine>(bytes, where(id), sub);
      arr = util::PodArray<Affine>::borrow(mapping, reinterpret_cast<const std::byte*>(bytes.data()),
                                           bytes.size() / sizeof(Affine));
    } else {
      util::UninitVector<Affine> v;
      decode_points<E>(bytes, v, where(id), sub);
      arr = std::move(v);
    }
  };
  if (proving_sections) {
    points(kA, pk.a);
    points(kB1, pk.b1);
    points(kB2, pk.b2);
    points(kC, pk.c);
    points(kH, pk.h);
  }

  ZkeyMeta m;
  if (f.count(kContributions)) {
    const auto data = sec(kContributions);
    Cursor c(data, where(kContributions));
    auto hash = c.take(64, "circuit hash");
    std::copy(hash.begin(), hash.end(), m.circuit_hash.begin());
    m.n_contributions = c.u32("number of contributions");
    // A contribution is at least 3 G1 + 1 G2 + 64 + 8 bytes: bound the count by the section.
    constexpr uint64_t kMinContribution = 3 * Codec::kG1 + Codec::kG2 + 64 + 8;
    if (uint64_t(m.n_contributions) * kMinContribution > c.remaining())
      c.fail(std::to_string(m.n_contributions) + " contributions cannot fit in " +
             std::to_string(c.remaining()) + " bytes");
    for (uint32_t k = 0; k < m.n_contributions; ++k) {
      const std::string at = "contribution " + std::to_string(k) + ": ";
      typename E::G1Affine g1;
      typename E::G2Affine g2;
      decode_one<E>(c, g1, (at + "deltaAfter").c_str(), sub, true);
      decode_one<E>(c, g1, (at + "g1_s").c_str(), sub, true);
      decode_one<E>(c, g1, (at + "g1_sx").c_str(), sub, true);
      decode_one<E>(c, g2, (at + "g2_spx").c_str(), sub, true);
      c.take(64, "transcript");
      c.u32("type");
      const uint32_t plen = c.u32("parameter length");
      Cursor params(c.take(plen, "parameters"), c.where() + at + "parameters: ");
      // Type-length-value list, types strictly increasing: 1 name (u8 length + bytes),
      // 2 numIterationsExp (u8), 3 beacon hash (u8 length + bytes).
      uint8_t last = 0;
      while (params.remaining()) {
        const uint8_t type = params.take(1, "parameter type")[0];
        if (type <= last) params.fail("parameter types not strictly increasing");
        last = type;
        if (type == 1 || type == 3) {
          const uint8_t len = params.take(1, "parameter length")[0];
          params.take(len, type == 1 ? "name" : "beacon hash");
        } else if (type == 2) {
          params.take(1, "numIterationsExp");
        } else {
          params.fail("unknown parameter type " + std::to_string(type));
        }
      }
    }
    c.expect_end();
    m.has_contributions_section = true;
    m.contributions_section.assign(data.begin(), data.end());
  }
  if (meta) {
    for (const auto& s : f.sections()) m.section_order.push_back(s.id);
    *meta = std::move(m);
  }
  return pk;
}

template <class E>
zk::ProvingKey<E> parse_zkey(std::span<const uint8_t> bytes, const std::string& name,
                             const ZkeyReadOptions& opt, ZkeyMeta* meta) {
  return parse_zkey_from<E>(bytes, name, opt, meta, nullptr);
}

template <class E>
zk::ProvingKey<E> read_zkey(const std::string& path, const ZkeyReadOptions& opt, ZkeyMeta* meta) {
  auto m = std::make_shared<const MappedFile>(path);
  return parse_zkey_from<E>(m->bytes(), path, opt, meta,
                            opt.map_points ? m : std::shared_ptr<const MappedFile>());
}

template <class E>
zk::VerifyingKey<E> read_zkey_verifying_key(const std::string& path) {
  const MappedFile m(path);
  return zk::verifying_key(parse_zkey_from<E>(m.bytes(), path, {}, nullptr, nullptr, false));
}

namespace {

template <class E>
void write_zkey_to(ByteSink& s, const zk::ProvingKey<E>& pk, const ZkeyWriteOptions& opt) {
  using Fr = typename E::Fr;
  using Fp = typename E::Fp;
  using Codec = PointCodec<E>;
  constexpr uint32_t kN8q = uint32_t(Codec::kFp);
  constexpr uint32_t kN8r = 8 * Fr::N;

  // The key must be self-consistent, or the file would not read back.
  auto bad = [](const std::string& what) { throw Error("write_zkey: " + what); };
  const uint64_t n_private = uint64_t(pk.n_vars) - pk.n_public - 1;
  if (pk.n_vars < uint64_t(pk.n_public) + 1) bad("n_vars < n_public + 1");
  if (pk.h_basis != zk::HBasis::odd_coset)
    bad("the key's H points are in the monomial basis (tau^i*Z(tau)/delta); a .zkey holds the "
        "odd-coset Lagrange basis");
  if (pk.ic.size() != uint64_t(pk.n_public) + 1)
    bad("IC has " + std::to_string(pk.ic.size()) + " points, expected n_public + 1");
  if (pk.a.size() != pk.n_vars || pk.b1.size() != pk.n_vars || pk.b2.size() != pk.n_vars)
    bad("A, B1 and B2 must have n_vars points each");
  if (pk.c.size() != n_private) bad("C must have n_vars - n_public - 1 points");
  if (pk.h.size() != pk.domain_size) bad("H must have domain_size points");

  auto points_section = [&](uint32_t id, const auto& pts) {
    using Affine = typename std::decay_t<decltype(pts)>::value_type;
    constexpr size_t kSize = Codec::template size_of<Affine>();
    write_section_header(s, id, uint64_t(pts.size()) * kSize);
    std::vector<uint8_t> buf;
    constexpr size_t kChunk = 1 << 14;  // points per write: 1.5-3 MiB
    for (size_t i = 0; i < pts.size(); i += kChunk) {
      const size_t n = std::min(kChunk, pts.size() - i);
      buf.resize(n * kSize);
      for (size_t k = 0; k < n; ++k) Codec::encode(pts[i + k], buf.data() + k * kSize);
      s.write(buf.data(), buf.size());
    }
  };
  auto write_section = [&](uint32_t id) {
    switch (id) {
      case kProtocol:
        write_section_header(s, id, 4);
        s.u32(1);
        break;
      case kHeader: {
        write_section_header(s, id, 4 + kN8q + 4 + kN8r + 12 + 3 * Codec::kG1 + 3 * Codec::kG2);
        s.u32(kN8q);
        s.write(Fp::MOD.data(), kN8q);
        s.u32(kN8r);
        s.write(Fr::MOD.data(), kN8r);
        s.u32(pk.n_vars);
        s.u32(pk.n_public);
        s.u32(pk.domain_size);
        uint8_t b[Codec::kG2];
        Codec::encode(pk.alpha1, b), s.write(b, Codec::kG1);
        Codec::encode(pk.beta1, b), s.write(b, Codec::kG1);
        Codec::encode(pk.beta2, b), s.write(b, Codec::kG2);
        Codec::encode(pk.gamma2, b), s.write(b, Codec::kG2);
        Codec::encode(pk.delta1, b), s.write(b, Codec::kG1);
        Codec::encode(pk.delta2, b), s.write(b, Codec::kG2);
        break;
      }
      case kIC:
        points_section(id, pk.ic);
        break;
      case kCoeffs: {
        write_section_header(s, id, 4 + uint64_t(pk.coeffs.size()) * kCoeffBytes<E>);
        s.u32(uint32_t(pk.coeffs.size()));
        std::vector<uint8_t> buf;
        constexpr size_t kChunk = 1 << 15;
        for (size_t i = 0; i < pk.coeffs.size(); i += kChunk) {
          const size_t n = std::min(kChunk, pk.coeffs.size() - i);
          buf.resize(n * kCoeffBytes<E>);
          // A record is the layout of zk::Coefficient (matrix, row, wire, coef·R² mod r).
          for (size_t k = 0; k < n; ++k) {
            const zk::Coefficient<E> e = pk.coeffs[i + k];
            std::memcpy(buf.data() + k * kCoeffBytes<E>, &e, kCoeffBytes<E>);
          }
          s.write(buf.data(), buf.size());
        }
        break;
      }
      case kA:
        points_section(id, pk.a);
        break;
      case kB1:
        points_section(id, pk.b1);
        break;
      case kB2:
        points_section(id, pk.b2);
        break;
      case kC:
        points_section(id, pk.c);
        break;
      case kH:
        points_section(id, pk.h);
        break;
      case kContributions:
        if (!opt.contributions_section.empty()) {
          write_section_header(s, id, opt.contributions_section.size());
          s.write(opt.contributions_section.data(), opt.contributions_section.size());
        } else {
          write_section_header(s, id, 64 + 4);
          s.write(opt.circuit_hash.data(), 64);
          s.u32(0);
        }
        break;
    }
  };

  // The order must name each of the ten sections once.
  std::array<int, 11> seen{};
  for (uint32_t id : opt.section_order) {
    if (id < 1 || id > 10) bad("section_order names section " + std::to_string(id));
    if (seen[id]++) bad("section_order names section " + std::to_string(id) + " twice");
  }
  if (opt.section_order.size() != 10) bad("section_order must list sections 1..10");
  write_container_header(s, "zkey", 1, 10);
  for (uint32_t id : opt.section_order) write_section(id);
}

}  // namespace

template <class E>
void write_zkey(const std::string& path, const zk::ProvingKey<E>& pk, const ZkeyWriteOptions& opt) {
  FileSink s(path);
  write_zkey_to<E>(s, pk, opt);
  s.close();
}

template <class E>
std::vector<uint8_t> encode_zkey(const zk::ProvingKey<E>& pk, const ZkeyWriteOptions& opt) {
  VectorSink s;
  write_zkey_to<E>(s, pk, opt);
  return std::move(s.out);
}

template <class E>
void check_zkey_matches_r1cs(const zk::ProvingKey<E>& pk, const std::string& zkey_name,
                             const R1cs<E>& r1cs) {
  const std::string both = zkey_name + " vs " + r1cs.source + ": ";
  if (pk.n_vars != r1cs.n_wires)
    throw Error(both + "nVars = " + std::to_string(pk.n_vars) + " but the circuit has " +
                std::to_string(r1cs.n_wires) + " wires");
  if (pk.n_public != r1cs.n_public())
    throw Error(both + "nPublic = " + std::to_string(pk.n_public) + " but the circuit has " +
                std::to_string(r1cs.n_public()) + " public signals");
  const uint64_t rows = uint64_t(r1cs.n_constraints) + r1cs.n_public() + 1;
  uint64_t domain = 1;
  while (domain < rows) domain <<= 1;
  if (pk.domain_size != domain)
    throw Error(both + "domainSize = " + std::to_string(pk.domain_size) + " but " +
                std::to_string(r1cs.n_constraints) + " constraints + " +
                std::to_string(r1cs.n_public() + 1) + " public rows need " +
                std::to_string(domain));
  size_t k = 0;
  auto expect = [&](zk::Matrix m, uint32_t row, uint32_t col, const typename E::Fr& v) {
    const char* mn = m == zk::Matrix::kA ? "A" : "B";
    if (k >= pk.coeffs.size())
      throw Error(both + "the key has " + std::to_string(pk.coeffs.size()) +
                  " coefficients, the circuit more (" + mn + " row " + std::to_string(row) + ")");
    const zk::Coefficient<E> e = pk.coeffs[k];
    if (e.matrix != m || e.row != row || e.col != col || !(e.value() == v))
      throw Error(both + "coefficient " + std::to_string(k) + " is (" +
                  (e.matrix == zk::Matrix::kA ? "A" : "B") + ", row " + std::to_string(e.row) +
                  ", wire " + std::to_string(e.col) + ", " + e.value().to_decimal() +
                  "), the circuit gives (" + mn + ", row " + std::to_string(row) + ", wire " +
                  std::to_string(col) + ", " + v.to_decimal() + ")");
    ++k;
  };
  for (uint32_t i = 0; i < r1cs.n_constraints; ++i) {
    for (const auto& t : r1cs.lc(i, 0)) expect(zk::Matrix::kA, i, t.wire, t.coeff);
    for (const auto& t : r1cs.lc(i, 1)) expect(zk::Matrix::kB, i, t.wire, t.coeff);
  }
  for (uint32_t i = 0; i <= r1cs.n_public(); ++i)
    expect(zk::Matrix::kA, r1cs.n_constraints + i, i, E::Fr::one());
  if (k != pk.coeffs.size())
    throw Error(both + "the key has " + std::to_string(pk.coeffs.size()) +
                " coefficients, the circuit " + std::to_string(k));
}

// One line per curve of SPLITPROVE_FOR_EACH_ENGINE (ec/curves.hpp).
#define SPLITPROVE_IO_ZKEY_INSTANTIATE(E) \
  template zk::ProvingKey<E> parse_zkey<E>(std::span<const uint8_t>, const std::string&,       \
                                           const ZkeyReadOptions&, ZkeyMeta*);                 \
  template zk::VerifyingKey<E> read_zkey_verifying_key<E>(const std::string&);                 \
  template zk::ProvingKey<E> read_zkey<E>(const std::string&, const ZkeyReadOptions&,          \
                                          ZkeyMeta*);                                          \
  template void write_zkey<E>(const std::string&, const zk::ProvingKey<E>&,                    \
                              const ZkeyWriteOptions&);                                        \
  template std::vector<uint8_t> encode_zkey<E>(const zk::ProvingKey<E>&,                       \
                                               const ZkeyWriteOptions&);                       \
  template void check_zkey_matches_r1cs<E>(const zk::ProvingKey<E>&, const std::string&,       \
                                           const R1cs<E>&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_ZKEY_INSTANTIATE)
#undef SPLITPROVE_IO_ZKEY_INSTANTIATE

}  // namespace splitprove::io
