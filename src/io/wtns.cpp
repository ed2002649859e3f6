#include "io/wtns.hpp"

#include <atomic>
#include <limits>

#include "io/binfile.hpp"
#include "io/curve_id.hpp"
#include "util/parallel.hpp"

namespace splitprove::io {

namespace {

// Checks the header and every value (< r) of a .wtns; with `out`, also stores the values there
// (in Montgomery form). The one reader behind parse_wtns and validate_wtns.
template <class E>
uint32_t scan_wtns(std::span<const uint8_t> bytes, const std::string& name, util::UninitVector<typename E::Fr>* out) {
  using Fr = typename E::Fr;
  constexpr uint32_t kN8 = 8 * Fr::N;
  BinFile f(bytes, name, "wtns", 2);
  uint32_t n = 0;
  {
    Cursor c(f.section(1, "header"), f.where(1, "header"));
    const uint32_t n8 = c.u32("n8");
    if (n8 != kN8)
      c.fail("field size n8 = " + std::to_string(n8) + ", expected " + std::to_string(kN8) +
             " for " + std::string(E::kName));
    expect_prime(c.take(n8, "prime"), E::kId, false, c.where());
    n = c.u32("nWitness");
    c.expect_end();
  }
  const std::string where = f.where(2, "values");
  auto data = f.section(2, "values");
  if (data.size() != uint64_t(n) * kN8)
    throw Error(where + "size " + std::to_string(data.size()) +
                " bytes, expected nWitness·n8 = " + std::to_string(n) + "·" + std::to_string(kN8) +
                " = " + std::to_string(uint64_t(n) * kN8));
  if (out) out->resize(n);
  std::atomic<size_t> first_bad{std::numeric_limits<size_t>::max()};
  util::parallel_for(
      n,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          const auto v = load_le<Fr::N>(data.data() + i * kN8);
          if (ff::cmp_limbs(v, Fr::MOD) >= 0) {
            size_t cur = first_bad.load();
            while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
            }
            return;
          }
          if (out) (*out)[i] = Fr::from_canonical(v);
        }
      },
      4096);
  if (first_bad.load() != std::numeric_limits<size_t>::max())
    throw Error(where + "value " + std::to_string(first_bad.load()) + " is not below r");
  if (!out && n > 0) {
    const Fr w0 = Fr::from_canonical(load_le<Fr::N>(data.data()));
    if (!w0.is_one())
      throw Error(name + ": witness value 0 (the constant wire) is " + w0.to_decimal() + ", not 1");
  }
  return n;
}

}  // namespace

template <class E>
Witness<E> parse_wtns(std::span<const uint8_t> bytes, const std::string& name) {
  Witness<E> w;
  w.source = name;
  scan_wtns<E>(bytes, name, &w.values);
  return w;
}

template <class E>
uint32_t validate_wtns(const std::string& path, uint64_t expected, const std::string& other_name,
                       const char* other_what) {
  MappedFile m(path);
  const uint32_t n = scan_wtns<E>(m.bytes(), path, nullptr);
  if (n != expected)
    throw Error(path + ": witness has " + std::to_string(n) + " values, but " + other_name + " has " +
                std::to_string(expected) + " " + other_what);
  return n;
}

template <class E>
Witness<E> read_wtns(const std::string& path) {
  MappedFile m(path);
  return parse_wtns<E>(m.bytes(), path);
}

template <class E>
std::vector<uint8_t> encode_wtns(std::span<const typename E::Fr> values) {
  using Fr = typename E::Fr;
  constexpr uint32_t kN8 = 8 * Fr::N;
  VectorSink s;
  s.out.reserve(12 + 12 + 8 + kN8 + 12 + values.size() * kN8);
  write_container_header(s, "wtns", 2, 2);
  write_section_header(s, 1, 4 + kN8 + 4);
  s.u32(kN8);
  s.write(Fr::MOD.data(), kN8);
  s.u32(uint32_t(values.size()));
  write_section_header(s, 2, uint64_t(values.size()) * kN8);
  for (const auto& v : values) {
    uint8_t buf[kN8];
    store_le(v.to_canonical(), buf);
    s.write(buf, kN8);
  }
  return std::move(s.out);
}

template <class E>
void check_witness_length(const Witness<E>& w, uint64_t expected, const std::string& other_name,
                          const char* other_what) {
  if (w.values.size() != expected)
    throw Error(w.source + ": witness has " + std::to_string(w.values.size()) + " values, but " +
                other_name + " has " + std::to_string(expected) + " " + other_what);
  if (!w.values.empty() && !w.values[0].is_one())
    throw Error(w.source + ": witness value 0 (the constant wire) is " + w.values[0].to_decimal() +
                ", not 1");
}

// One line per curve of SPLITPROVE_FOR_EACH_ENGINE (ec/curves.hpp).
#define SPLITPROVE_IO_WTNS_INSTANTIATE(E) \
  template Witness<E> parse_wtns<E>(std::span<const uint8_t>, const std::string&);             \
  template Witness<E> read_wtns<E>(const std::string&);                                       \
  template uint32_t validate_wtns<E>(const std::string&, uint64_t, const std::string&, const char*); \
  template std::vector<uint8_t> encode_wtns<E>(std::span<const typename E::Fr>);              \
  template void check_witness_length<E>(const Witness<E>&, uint64_t, const std::string&,      \
                                        const char*);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_WTNS_INSTANTIATE)
#undef SPLITPROVE_IO_WTNS_INSTANTIATE

}  // namespace splitprove::io
