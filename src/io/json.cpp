#include "io/json.hpp"

#include <nlohmann/json.hpp>

#include "io/binfile.hpp"
#include "splitprove/error.hpp"

namespace splitprove::io {
namespace {

// ---- writing: a tiny tree printed the way bfj prints with {space: 1} --------------------------

struct JVal {
  enum Kind { kStr, kNum, kArr, kObj } kind = kStr;
  std::string text;               // string content or number literal
  std::vector<JVal> items;        // array elements, or object values
  std::vector<std::string> keys;  // object keys, in order

  static JVal str(std::string s) { return {kStr, std::move(s), {}, {}}; }
  static JVal num(uint64_t n) { return {kNum, std::to_string(n), {}, {}}; }
  static JVal arr(std::vector<JVal> v) { return {kArr, {}, std::move(v), {}}; }
  struct Field;
  static JVal obj(std::initializer_list<Field> f);
};

struct JVal::Field {
  std::string key;
  JVal value;
};

JVal JVal::obj(std::initializer_list<Field> f) {
  JVal v{kObj, {}, {}, {}};
  for (const auto& e : f) {
    v.keys.push_back(e.key);
    v.items.push_back(e.value);
  }
  return v;
}

// Strings here are decimal digits and fixed ASCII names: nothing needs escaping, but escape the
// two characters that could break the syntax anyway.
void emit_string(const std::string& s, std::string& out) {
  out.push_back('"');
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    out.push_back(ch);
  }
  out.push_back('"');
}

void emit(const JVal& v, size_t depth, std::string& out) {
  switch (v.kind) {
    case JVal::kStr:
      emit_string(v.text, out);
      return;
    case JVal::kNum:
      out += v.text;
      return;
    case JVal::kArr:
      out += "[\n";
      for (size_t i = 0; i < v.items.size(); ++i) {
        out.append(depth + 1, ' ');
        emit(v.items[i], depth + 1, out);
        if (i + 1 < v.items.size()) out.push_back(',');
        out.push_back('\n');
      }
      out.append(depth, ' ');
      out.push_back(']');
      return;
    case JVal::kObj:
      out += "{\n";
      for (size_t i = 0; i < v.items.size(); ++i) {
        out.append(depth + 1, ' ');
        emit_string(v.keys[i], out);
        out += ": ";
        emit(v.items[i], depth + 1, out);
        if (i + 1 < v.items.size()) out.push_back(',');
        out.push_back('\n');
      }
      out.append(depth, ' ');
      out.push_back('}');
      return;
  }
}

std::string print(const JVal& v) {
  std::string out;
  emit(v, 0, out);
  return out;
}

template <class F>
JVal dec(const F& x) {
  return JVal::str(x.to_decimal());
}

template <class E>
JVal g1_json(const typename E::G1Affine& p) {
  if (p.is_identity()) return JVal::arr({JVal::str("0"), JVal::str("1"), JVal::str("0")});
  return JVal::arr({dec(p.x), dec(p.y), JVal::str("1")});
}

template <class E>
JVal fp2_json(const typename E::Fp2& x) {
  return JVal::arr({dec(x.c0), dec(x.c1)});
}

template <class E>
JVal g2_json(const typename E::G2Affine& p) {
  using Fp2 = typename E::Fp2;
  if (p.is_identity())
    return JVal::arr({fp2_json<E>(Fp2::zero()), fp2_json<E>(Fp2::one()), fp2_json<E>(Fp2::zero())});
  return JVal::arr({fp2_json<E>(p.x), fp2_json<E>(p.y), fp2_json<E>(Fp2::one())});
}

// ---- reading -------------------------------------------------------------------------------

using Json = nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  Json parse(std::string_view text) const {
    try {
      return Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
      throw Error(name_ + ": not valid JSON: byte " + std::to_string(e.byte) + ": " +
                  short_reason(e.what()));
    } catch (const Json::exception& e) {  // e.g. out_of_range: a number literal overflows a double
      throw Error(name_ + ": not valid JSON: " + short_reason(e.what()));
    }
  }

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw Error(name_ + ": " + (path.empty() ? "" : path + ": ") + msg);
  }

  const Json& member(const Json& obj, const std::string& key, const std::string& path) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(path.empty() ? key : path + "." + key, "missing");
    return *it;
  }

  const Json& array(const Json& v, const std::string& path, size_t n) const {
    if (!v.is_array()) fail(path, "expected an array of " + std::to_string(n));
    if (v.size() != n)
      fail(path, "expected an array of " + std::to_string(n) + ", got " + std::to_string(v.size()));
    return v;
  }

  template <class F>
  F field(const Json& v, const std::string& path, const char* modulus_name) const {
    if (!v.is_string()) fail(path, "expected a decimal string");
    const auto& s = v.get_ref<const std::string&>();
    ff::Limbs<F::N> x;
    if (!ff::from_decimal<F::N>(s, x)) {
      for (char ch : s)
        if (ch < '0' || ch > '9') fail(path, "not a decimal integer");
      if (s.empty()) fail(path, "not a decimal integer (empty)");
      fail(path, std::string("value is not below ") + modulus_name);
    }
    auto f = F::from_canonical_checked(x);
    if (!f) fail(path, std::string("value is not below ") + modulus_name);
    return *f;
  }

  template <class E>
  typename E::Fp2 fp2(const Json& v, const std::string& path) const {
    array(v, path, 2);
    return {field<typename E::Fp>(v[0], path + "[0]", "q"),
            field<typename E::Fp>(v[1], path + "[1]", "q")};
  }

  template <class E>
  typename E::G1Affine g1(const Json& v, const std::string& path) const {
    using Fp = typename E::Fp;
    array(v, path, 3);
    typename E::G1Jacobian j{field<Fp>(v[0], path + "[0]", "q"), field<Fp>(v[1], path + "[1]", "q"),
                             field<Fp>(v[2], path + "[2]", "q")};
    return check_point<E>(j, path);
  }

  template <class E>
  typename E::G2Affine g2(const Json& v, const std::string& path) const {
    array(v, path, 3);
    typename E::G2Jacobian j{fp2<E>(v[0], path + "[0]"), fp2<E>(v[1], path + "[1]"),
                             fp2<E>(v[2], path + "[2]")};
    return check_point<E>(j, path);
  }

  // snarkjs/ffjavascript points are Jacobian (x = X/Z², y = Y/Z³); Z = 0 is the identity.
  template <class E, class J>
  auto check_point(const J& j, const std::string& path) const {
    auto a = j.to_affine();
    if (!a.on_curve()) fail(path, "not on the curve");
    if (!E::in_subgroup(j)) fail(path, "not in the prime-order subgroup");
    return a;
  }

  void expect_string(const Json& obj, const std::string& key, std::string_view want,
                     bool required) const {
    if (!obj.contains(key)) {
      if (required) fail(key, "missing");
      return;
    }
    const Json& v = obj[key];
    if (!v.is_string() || v.get_ref<const std::string&>() != want)
      fail(key, "is " + v.dump() + ", expected \"" + std::string(want) + "\"");
  }

  template <class E>
  void expect_curve(const Json& obj, bool required) const {
    if (!obj.contains("curve")) {
      if (required) fail("curve", "missing");
      return;
    }
    const Json& v = obj["curve"];
    if (!v.is_string()) fail("curve", "expected a string");
    const auto& s = v.get_ref<const std::string&>();
    if (curve_name_matches(s, E::kId)) return;
    for (auto other : {ec::CurveId::kBn254, ec::CurveId::kBls12_381})
      if (curve_name_matches(s, other))
        fail("curve", "\"" + s + "\" is " + std::string(ec::curve_name(other)) + ", expected " +
                          std::string(E::kName));
    fail("curve", "unknown curve \"" + s + "\", expected \"" + std::string(E::kSnarkjsName) + "\"");
  }

 private:
  static std::string short_reason(const std::string& what) {
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    const auto p = what.find("]");
    return p == std::string::npos ? what : what.substr(p + 2);
  }
  std::string name_;
};

}  // namespace

std::optional<ec::CurveId> curve_of_json(std::string_view text, const std::string& name) {
  Reader r(name);
  const Json j = r.parse(text);
  if (!j.is_object()) r.fail("", "expected a JSON object");
  if (!j.contains("curve")) return std::nullopt;
  const Json& v = j["curve"];
  if (!v.is_string()) r.fail("curve", "expected a string");
  const auto& s = v.get_ref<const std::string&>();
  for (auto id : {ec::CurveId::kBn254, ec::CurveId::kBls12_381})
    if (curve_name_matches(s, id)) return id;
  r.fail("curve", "unknown curve \"" + s + "\" (expected \"bn128\" or \"bls12381\")");
}

std::optional<ec::CurveId> read_curve_of_json(const std::string& path) {
  return curve_of_json(read_text_file(path), path);
}

bool curve_name_matches(std::string_view name, ec::CurveId id) {
  std::string n;
  for (char ch : name) {
    if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) n.push_back(ch);
  }
  if (id == ec::CurveId::kBls12_381) return n == "bls12381";
  return n == "bn128" || n == "bn254" || n == "altbn128";
}

template <class E>
std::string proof_to_json(const zk::Proof<E>& p) {
  return print(JVal::obj({{"pi_a", g1_json<E>(p.a)},
                          {"pi_b", g2_json<E>(p.b)},
                          {"pi_c", g1_json<E>(p.c)},
                          {"protocol", JVal::str("groth16")},
                          {"curve", JVal::str(std::string(E::kSnarkjsName))}}));
}

template <class E>
zk::Proof<E> proof_from_json(std::string_view text, const std::string& name) {
  Reader r(name);
  const Json j = r.parse(text);
  if (!j.is_object()) r.fail("", "expected a JSON object with pi_a, pi_b, pi_c");
  r.expect_string(j, "protocol", "groth16", false);
  r.template expect_curve<E>(j, false);
  zk::Proof<E> p;
  p.a = r.template g1<E>(r.member(j, "pi_a", ""), "pi_a");
  p.b = r.template g2<E>(r.member(j, "pi_b", ""), "pi_b");
  p.c = r.template g1<E>(r.member(j, "pi_c", ""), "pi_c");
  return p;
}

template <class E>
std::string public_to_json(std::span<const typename E::Fr> signals) {
  std::vector<JVal> v;
  v.reserve(signals.size());
  for (const auto& s : signals) v.push_back(dec(s));
  return print(JVal::arr(std::move(v)));
}

template <class E>
std::vector<typename E::Fr> public_from_json(std::string_view text, const std::string& name) {
  Reader r(name);
  const Json j = r.parse(text);
  if (!j.is_array()) r.fail("", "expected a JSON array of decimal strings");
  std::vector<typename E::Fr> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i)
    out.push_back(r.template field<typename E::Fr>(j[i], "[" + std::to_string(i) + "]", "r"));
  return out;
}

template <class E>
std::string vkey_to_json(const zk::VerifyingKey<E>& vk) {
  if (vk.ic.size() != uint64_t(vk.n_public) + 1)
    throw Error("vkey_to_json: IC has " + std::to_string(vk.ic.size()) +
                " points, expected nPublic + 1 = " + std::to_string(uint64_t(vk.n_public) + 1));
  const auto e = E::Pairing::pairing(vk.alpha1, vk.beta2);
  auto fp6 = [](const auto& x) {
    return JVal::arr({fp2_json<E>(x.c0), fp2_json<E>(x.c1), fp2_json<E>(x.c2)});
  };
  std::vector<JVal> ic;
  for (const auto& p : vk.ic) ic.push_back(g1_json<E>(p));
  return print(JVal::obj({{"protocol", JVal::str("groth16")},
                          {"curve", JVal::str(std::string(E::kSnarkjsName))},
                          {"nPublic", JVal::num(vk.n_public)},
                          {"vk_alpha_1", g1_json<E>(vk.alpha1)},
                          {"vk_beta_2", g2_json<E>(vk.beta2)},
                          {"vk_gamma_2", g2_json<E>(vk.gamma2)},
                          {"vk_delta_2", g2_json<E>(vk.delta2)},
                          {"vk_alphabeta_12", JVal::arr({fp6(e.c0), fp6(e.c1)})},
                          {"IC", JVal::arr(std::move(ic))}}));
}

template <class E>
zk::VerifyingKey<E> vkey_from_json(std::string_view text, const std::string& name) {
  Reader r(name);
  const Json j = r.parse(text);
  if (!j.is_object()) r.fail("", "expected a JSON object (a Groth16 verification key)");
  r.expect_string(j, "protocol", "groth16", true);
  r.template expect_curve<E>(j, true);
  zk::VerifyingKey<E> vk;
  const Json& np = r.member(j, "nPublic", "");
  if (!np.is_number_unsigned() || np.get<uint64_t>() > 0xffffffffu)
    r.fail("nPublic", "expected a non-negative integer");
  vk.n_public = np.get<uint32_t>();
  vk.alpha1 = r.template g1<E>(r.member(j, "vk_alpha_1", ""), "vk_alpha_1");
  vk.beta2 = r.template g2<E>(r.member(j, "vk_beta_2", ""), "vk_beta_2");
  vk.gamma2 = r.template g2<E>(r.member(j, "vk_gamma_2", ""), "vk_gamma_2");
  vk.delta2 = r.template g2<E>(r.member(j, "vk_delta_2", ""), "vk_delta_2");
  const Json& ic = r.member(j, "IC", "");
  if (!ic.is_array()) r.fail("IC", "expected an array of G1 points");
  if (ic.size() != uint64_t(vk.n_public) + 1)
    r.fail("IC", "has " + std::to_string(ic.size()) + " points, expected nPublic + 1 = " +
                     std::to_string(uint64_t(vk.n_public) + 1));
  for (size_t i = 0; i < ic.size(); ++i)
    vk.ic.push_back(r.template g1<E>(ic[i], "IC[" + std::to_string(i) + "]"));
  if (j.contains("vk_alphabeta_12")) {
    const Json& ab = j["vk_alphabeta_12"];
    typename E::Fp12 got;
    auto fp6 = [&](const Json& v, const std::string& path) {
      r.array(v, path, 3);
      return typename E::Fp6{r.template fp2<E>(v[0], path + "[0]"),
                             r.template fp2<E>(v[1], path + "[1]"),
                             r.template fp2<E>(v[2], path + "[2]")};
    };
    r.array(ab, "vk_alphabeta_12", 2);
    got.c0 = fp6(ab[0], "vk_alphabeta_12[0]");
    got.c1 = fp6(ab[1], "vk_alphabeta_12[1]");
    if (!(got == E::Pairing::pairing(vk.alpha1, vk.beta2)))
      r.fail("vk_alphabeta_12", "does not equal e(vk_alpha_1, vk_beta_2)");
  }
  return vk;
}

template <class E>
zk::Proof<E> read_proof_json(const std::string& path) {
  return proof_from_json<E>(read_text_file(path), path);
}
template <class E>
std::vector<typename E::Fr> read_public_json(const std::string& path) {
  return public_from_json<E>(read_text_file(path), path);
}
template <class E>
zk::VerifyingKey<E> read_vkey_json(const std::string& path) {
  return vkey_from_json<E>(read_text_file(path), path);
}
template <class E>
void write_proof_json(const std::string& path, const zk::Proof<E>& proof) {
  write_file(path, proof_to_json<E>(proof));
}
template <class E>
void write_public_json(const std::string& path, std::span<const typename E::Fr> signals) {
  write_file(path, public_to_json<E>(signals));
}
template <class E>
void write_vkey_json(const std::string& path, const zk::VerifyingKey<E>& vk) {
  write_file(path, vkey_to_json<E>(vk));
}

#define SPLITPROVE_IO_JSON_INSTANTIATE(E)                                                \
  template std::string proof_to_json<E>(const zk::Proof<E>&);                            \
  template zk::Proof<E> proof_from_json<E>(std::string_view, const std::string&);        \
  template std::string public_to_json<E>(std::span<const E::Fr>);                        \
  template std::vector<E::Fr> public_from_json<E>(std::string_view, const std::string&); \
  template std::string vkey_to_json<E>(const zk::VerifyingKey<E>&);                      \
  template zk::VerifyingKey<E> vkey_from_json<E>(std::string_view, const std::string&);  \
  template zk::Proof<E> read_proof_json<E>(const std::string&);                          \
  template std::vector<E::Fr> read_public_json<E>(const std::string&);                   \
  template zk::VerifyingKey<E> read_vkey_json<E>(const std::string&);                    \
  template void write_proof_json<E>(const std::string&, const zk::Proof<E>&);            \
  template void write_public_json<E>(const std::string&, std::span<const E::Fr>);        \
  template void write_vkey_json<E>(const std::string&, const zk::VerifyingKey<E>&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_JSON_INSTANTIATE)

}  // namespace splitprove::io
