#pragma once
// The native constraint-system API: circuits written in C++ as one function template over the
// constraint-system type, run in two modes.
// (Over 600 lines on purpose: the recorder and the synthesizer are the two implementations of the
// one interface the circuits are written against, over the recorded form they share.)
//
//   template <class CS> void my_circuit(CS& cs, const Inputs& in) {
//     auto s = cs.scope("challenge", i);             // namespaces, for error messages
//     Variable x = cs.alloc(value);                   // private
//     Variable y = cs.alloc_public(value);            // public
//     cs.enforce("x*x=y", cs.lc(x), cs.lc(x), cs.lc(y));   // <A,z>·<B,z> = <C,z>
//   }
//
// - Recorder<Fr> (recording, once per circuit): keeps every linear combination, and finish()
//   compiles them into a ConstraintSystem<Fr>: the A, B, C matrices in CSR form, the shape, the
//   A/B densities and the namespace of every constraint. It also keeps the values it was run with,
//   so a recording doubles as a checked reference witness.
// - Synthesizer<Fr> (synthesis, once per partition): linear combinations are just their values,
//   enforce() and scopes do nothing; alloc() writes the value straight into z at its final wire
//   position. a and b are then sparse matrix-vector products over the recorded CSR matrices
//   (ConstraintSystem::evaluate), so per-partition work is witness generation + SpMV.
// The same circuit function must make the same allocations and constraints in both modes (its
// structure may not depend on values); Synthesizer::finish() checks the counts.
//
// Numbering is the snarkjs .zkey's (zk/types.hpp): wire 0 = the constant 1, wires 1..n_public the
// public variables in allocation order, then the private variables in allocation order. Rows:
// the constraints in enforce() order, then the public-binding rows m + j (A = 1 on wire j,
// j = 0..n_public), then zeros up to the domain size. A variable's wire is known only once all
// publics are counted, so a Variable names its kind and its index within the kind.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "circuit/source.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::circuit {

// A variable handle: the constant one, or the index-th public / private variable.
struct Variable {
  enum Kind : uint8_t { kOne = 0, kPublic = 1, kPrivate = 2 };
  uint32_t index = 0;
  Kind kind = kOne;

  static constexpr Variable one() { return {0, kOne}; }
  // Sorts as the final wires do (one < publics < privates, each in allocation order).
  constexpr uint64_t key() const { return uint64_t(kind) << 32 | index; }
  // The wire number once the number of publics is known.
  constexpr uint32_t wire(uint32_t n_public) const {
    return kind == kOne ? 0 : kind == kPublic ? 1 + index : 1 + n_public + index;
  }
  friend constexpr bool operator==(const Variable&, const Variable&) = default;
};

// One entry of a CSR matrix: coefficient coeffs[coeff] on wire `col`. Coefficient ids 0 and 1
// are reserved for 1 and -1 (most entries), which the evaluation turns into an add / subtract.
struct Entry {
  uint32_t col;
  uint32_t coeff;
};

template <class Fr>
struct CsrMatrix {
  std::vector<uint64_t> row_ptr;  // rows + 1 entries
  std::vector<Entry> entries;
  size_t rows() const { return row_ptr.empty() ? 0 : row_ptr.size() - 1; }
  std::span<const Entry> row(size_t i) const {
    return {entries.data() + row_ptr[i], entries.data() + row_ptr[i + 1]};
  }
};

inline constexpr uint32_t kCoeffOne = 0, kCoeffMinusOne = 1;

// A recorded circuit: immutable once built, shared by every partition (thread-safe to read).
template <class Fr>
class ConstraintSystem {
 public:
  std::string name;                 // for messages ("porep-2^16")
  uint32_t n_public = 0;            // public wires, not counting wire 0
  uint32_t n_private = 0;
  uint32_t n_constraints = 0;
  CsrMatrix<Fr> a, b, c;            // constraint rows only (n_constraints rows each)
  std::vector<Fr> coeffs;           // coefficient table; [0] = 1, [1] = -1
  std::vector<bool> a_density;      // wire occurs in A (public-binding rows included)
  std::vector<bool> b_density;      // wire occurs in B (the G2 MSM's scalars)
  // binary[w]: wire w is 0 or 1 in every satisfying assignment, as the rows themselves say: the
  // constant wire, a boolean-constrained wire (w·(1 - w) = 0 either way round, or w·w = w) and
  // the XOR of two binary wires ((2x)·y = x + y - w, gadgets.hpp). Found by finish(). The MSMs
  // skip 0s and 1s, so the pipeline bounds the G2 MSM's tail, and its scratch, by the B-dense
  // wires that are not binary.
  std::vector<bool> binary;
  // Namespaces: scope nodes (parent, name id, index or -1) and per constraint its node and name.
  struct Node {
    uint32_t parent;
    uint32_t name;
    int64_t index;
  };
  std::vector<std::string> names;   // interned scope / constraint names
  std::vector<Node> nodes;          // nodes[0] is the root (the circuit itself)
  std::vector<uint32_t> row_node, row_name;

  uint32_t n_vars() const { return 1 + n_public + n_private; }
  size_t domain_size() const {
    size_t n = 1;
    while (n < size_t(n_constraints) + n_public + 1) n <<= 1;
    return n;
  }
  Shape shape() const {
    Shape s;  // no scratch, no binary flags (NativeSource adds what it knows)
    s.n_vars = n_vars();
    s.n_public = n_public;
    s.n_constraints = n_constraints;
    s.domain_size = domain_size();
    return s;
  }
  size_t b_dense_count() const { return size_t(std::count(b_density.begin(), b_density.end(), true)); }

  // "porep/challenge 3/merkle level 7/round 12/x^2" for constraint `row`.
  std::string where(size_t row) const {
    if (row >= n_constraints) return fmt::format("public-binding row {}", row);
    std::vector<std::string> parts;
    if (row_name[row] != kNoName) parts.push_back(names[row_name[row]]);
    for (uint32_t n = row_node[row]; n != 0; n = nodes[n].parent) {
      const Node& nd = nodes[n];
      parts.push_back(nd.index < 0 ? names[nd.name] : fmt::format("{} {}", names[nd.name], nd.index));
    }
    std::string s = name;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) s += "/" + *it;
    return s;
  }

  // <M_row, z>.
  Fr dot(const CsrMatrix<Fr>& m, size_t row, std::span<const Fr> z) const {
    Fr acc = Fr::zero();
    for (const Entry& e : m.row(row)) {
      const Fr& x = z[e.col];
      if (x.is_zero()) continue;  // most witness values are 0 or 1
      if (e.coeff == kCoeffOne) acc += x;
      else if (e.coeff == kCoeffMinusOne) acc -= x;
      else if (x.is_one()) acc += coeffs[e.coeff];
      else acc += coeffs[e.coeff] * x;
    }
    return acc;
  }

  // x·y, skipping the multiplication when either is 0 or 1 (most rows: booleans, XORs, packings).
  static Fr times(const Fr& x, const Fr& y) {
    if (y.is_zero() || x.is_one()) return y;
    if (x.is_zero() || y.is_one()) return x;
    return x * y;
  }

  // a = A·z, b = B·z on every row < a.size() (constraint rows, public-binding rows, zeros). The
  // spans are domain_size() long (Error otherwise). There is no c: for a satisfying assignment
  // c = a∘b on every row of the domain, so the GPU stage forms it where it is used. Multithreaded;
  // checks `stop` between chunks.
  void evaluate(std::span<const Fr> z, std::span<Fr> av, std::span<Fr> bv,
                const std::stop_token& stop = {}) const {
    check_sizes(z, av, bv);
    const size_t n = av.size(), m = n_constraints;
    util::parallel_for(n, [&](size_t lo, size_t hi) {
      if (stop.stop_requested()) return;
      for (size_t i = lo; i < hi; ++i) {
        if (i < m) {
          av[i] = dot(a, i, z);
          bv[i] = dot(b, i, z);
        } else {
          av[i] = i <= m + n_public ? z[i - m] : Fr::zero();
          bv[i] = Fr::zero();
        }
      }
    }, 1024);
  }

  // The first constraint row whose C·z differs from a·b (a, b as evaluate() left them).
  std::optional<size_t> first_unsatisfied(std::span<const Fr> z, std::span<const Fr> av,
                                          std::span<const Fr> bv) const {
    if (z.size() != n_vars() || av.size() < n_constraints || bv.size() < n_constraints)
      throw Error(fmt::format("{}: a check of {} values of z and {}, {} of a, b for {} variables "
                              "and {} constraints", name, z.size(), av.size(), bv.size(), n_vars(),
                              n_constraints));
    std::atomic<size_t> first{std::numeric_limits<size_t>::max()};
    util::parallel_for(n_constraints, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi && i < first.load(std::memory_order_relaxed); ++i) {
        if (!(dot(c, i, z) == times(av[i], bv[i]))) {
          size_t cur = first.load();
          while (i < cur && !first.compare_exchange_weak(cur, i)) {
          }
          return;
        }
      }
    }, 1024);
    size_t f = first.load();
    if (f == std::numeric_limits<size_t>::max()) return std::nullopt;
    return f;
  }

  // The same from z alone (computes a, b per row; for recordings and tests).
  std::optional<size_t> first_unsatisfied(std::span<const Fr> z) const {
    if (z.size() != n_vars())
      throw Error(fmt::format("{}: an assignment of {} values for {} variables", name, z.size(),
                              n_vars()));
    for (size_t i = 0; i < n_constraints; ++i)
      if (!(dot(a, i, z) * dot(b, i, z) == dot(c, i, z))) return i;
    return std::nullopt;
  }

  // Throws Error "<context>: porep/challenge 3/...: constraint 123 unsatisfied" when z does not
  // satisfy every constraint.
  void check(std::span<const Fr> z, std::span<const Fr> av, std::span<const Fr> bv,
             const std::string& context) const {
    if (auto row = first_unsatisfied(z, av, bv)) throw unsatisfied(*row, context);
  }
  Error unsatisfied(size_t row, const std::string& context) const {
    return Error(fmt::format("{}{}{}: constraint {} unsatisfied", context,
                             context.empty() ? "" : ": ", where(row), row));
  }

  static constexpr uint32_t kNoName = std::numeric_limits<uint32_t>::max();

  // Fills `binary` from the rows (see there): a row marks a wire only in the exact forms the
  // gadgets write, so a wire is marked only when a row really forces it to {0, 1}. XORs may come
  // before their inputs are known binary, so the scan repeats until nothing changes.
  void find_binary_wires() {
    binary.assign(n_vars(), false);
    if (!binary.empty()) binary[0] = true;
    const Fr two = Fr::from_u64(2);
    auto single = [](std::span<const Entry> r) {
      return r.size() == 1 && r[0].coeff == kCoeffOne && r[0].col != 0;
    };
    auto one_minus = [](std::span<const Entry> r, uint32_t w) {  // 1 - w (entries sorted by wire)
      return r.size() == 2 && r[0].col == 0 && r[0].coeff == kCoeffOne && r[1].col == w &&
             r[1].coeff == kCoeffMinusOne;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < n_constraints; ++i) {
        const auto ra = a.row(i), rb = b.row(i), rc = c.row(i);
        std::optional<uint32_t> w;
        if (rc.empty()) {
          if (single(ra) && one_minus(rb, ra[0].col)) w = ra[0].col;
          else if (single(rb) && one_minus(ra, rb[0].col)) w = rb[0].col;
        } else if (single(ra) && single(rb) && single(rc) && ra[0].col == rb[0].col &&
                   rb[0].col == rc[0].col) {
          w = ra[0].col;
        } else if (ra.size() == 1 && rb.size() == 1 && rc.size() == 3 &&
                   coeffs[ra[0].coeff] == two && rb[0].coeff == kCoeffOne) {
          const uint32_t x = ra[0].col, y = rb[0].col;
          if (x != y && binary[x] && binary[y]) {
            size_t plus = 0, minus = 0;
            uint32_t out = 0;
            for (const Entry& e : rc) {
              if (e.coeff == kCoeffOne && (e.col == x || e.col == y)) ++plus;
              else if (e.coeff == kCoeffMinusOne && e.col != x && e.col != y) ++minus, out = e.col;
            }
            if (plus == 2 && minus == 1) w = out;
          }
        }
        if (w && !binary[*w]) binary[*w] = true, changed = true;
      }
    }
  }

 private:
  void check_sizes(std::span<const Fr> z, std::span<Fr> av, std::span<Fr> bv) const {
    const size_t n = domain_size();
    if (z.size() != n_vars() || av.size() != n || bv.size() != n)
      throw Error(fmt::format("{}: evaluate needs z of {} and a, b of {} values (got {}, {}, {})",
                              name, n_vars(), n, z.size(), av.size(), bv.size()));
  }
};

// ---- recording ---------------------------------------------------------------------------------

// A linear combination with its value (recording mode keeps both).
template <class Fr>
class RecLc {
 public:
  RecLc() = default;
  RecLc(Variable v, const Fr& value) : terms_{{v, Fr::one()}}, value_(value) {}
  static RecLc constant(const Fr& k) {
    RecLc r;
    if (!k.is_zero()) r.terms_.push_back({Variable::one(), k});
    r.value_ = k;
    return r;
  }
  const Fr& value() const { return value_; }
  const std::vector<std::pair<Variable, Fr>>& terms() const { return terms_; }
  std::vector<std::pair<Variable, Fr>> take_terms() && { return std::move(terms_); }

  RecLc& operator+=(const RecLc& o) {
    terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
    value_ += o.value_;
    return *this;
  }
  RecLc& operator-=(const RecLc& o) {
    for (const auto& [v, k] : o.terms_) terms_.push_back({v, -k});
    value_ -= o.value_;
    return *this;
  }
  RecLc& operator*=(const Fr& k) {
    for (auto& t : terms_) t.second *= k;
    value_ *= k;
    return *this;
  }
  friend RecLc operator+(RecLc a, const RecLc& b) { return a += b; }
  friend RecLc operator-(RecLc a, const RecLc& b) { return a -= b; }
  friend RecLc operator*(RecLc a, const Fr& k) { return a *= k; }
  friend RecLc operator*(const Fr& k, RecLc a) { return a *= k; }

 private:
  std::vector<std::pair<Variable, Fr>> terms_;
  Fr value_ = Fr::zero();
};

// Scope guard: pops the namespace when it goes out of scope.
template <class CS>
class [[nodiscard]] Scope {
 public:
  explicit Scope(CS* cs) : cs_(cs) {}
  Scope(Scope&& o) noexcept : cs_(std::exchange(o.cs_, nullptr)) {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  Scope& operator=(Scope&&) = delete;
  ~Scope() {
    if (cs_) cs_->pop_scope();
  }

 private:
  CS* cs_;
};

template <class Fr>
struct Recording;

template <class Fr>
class Recorder {
 public:
  using Field = Fr;
  using Lc = RecLc<Fr>;
  static constexpr bool kRecording = true;

  explicit Recorder(std::string_view name) {
    cs_.name = std::string(name);
    cs_.nodes.push_back({0, intern(cs_.name), -1});
    stack_.push_back(0);
    for (auto* m : {&cs_.a, &cs_.b, &cs_.c}) m->row_ptr.push_back(0);
    cs_.coeffs = {Fr::one(), -Fr::one()};
    coeff_ids_[key(Fr::one())] = kCoeffOne;
    coeff_ids_[key(-Fr::one())] = kCoeffMinusOne;
  }

  // Room for about `rows` constraints and as many variables, when the caller knows its size:
  // growing by doubling to 2^27 rows copies every array once more and faults in its pages twice.
  // Space reserved and never written is never resident.
  void reserve(size_t rows) {
    for (auto* m : {&cs_.a, &cs_.b, &cs_.c}) {
      m->row_ptr.reserve(rows + 1);
      m->entries.reserve(2 * rows);
    }
    for (auto* v : {&vars_a_, &vars_b_, &vars_c_}) v->reserve(2 * rows);
    cs_.row_node.reserve(rows);
    cs_.row_name.reserve(rows);
    private_.reserve(rows);
  }

  Variable alloc(const Fr& value) {
    private_.push_back(value);
    return {uint32_t(private_.size() - 1), Variable::kPrivate};
  }
  Variable alloc_public(const Fr& value) {
    public_.push_back(value);
    return {uint32_t(public_.size() - 1), Variable::kPublic};
  }
  Fr value(Variable v) const {
    return v.kind == Variable::kOne ? Fr::one() : v.kind == Variable::kPublic ? public_[v.index]
                                                                              : private_[v.index];
  }
  Lc lc(Variable v) const { return Lc(v, value(v)); }
  Lc constant(const Fr& k) const { return Lc::constant(k); }
  Lc zero() const { return Lc(); }

  // a, b, c are linear combinations, or callables returning one (the synthesizer never calls
  // them, so big combinations cost nothing there).
  template <class A, class B, class C>
  void enforce(const char* name, A&& a, B&& b, C&& c) {
    push_row(cs_.a, vars_a_, materialize(a));
    push_row(cs_.b, vars_b_, materialize(b));
    push_row(cs_.c, vars_c_, materialize(c));
    cs_.row_node.push_back(stack_.back());
    cs_.row_name.push_back(name ? intern(name) : ConstraintSystem<Fr>::kNoName);
    ++cs_.n_constraints;
  }

  Scope<Recorder> scope(const char* name, int64_t index = -1) {
    cs_.nodes.push_back({stack_.back(), intern(name), index});
    stack_.push_back(uint32_t(cs_.nodes.size() - 1));
    return Scope<Recorder>(this);
  }
  void pop_scope() { stack_.pop_back(); }

  size_t n_constraints() const { return cs_.n_constraints; }

  // Compiles the recording: wires numbered, densities computed. The Recorder is spent.
  Recording<Fr> finish() &&;

 private:
  template <class X>
  static Lc materialize(X&& x) {
    if constexpr (std::is_invocable_v<X>) return x();
    else return Lc(std::forward<X>(x));
  }
  static std::array<uint64_t, 4> key(const Fr& k) {
    std::array<uint64_t, 4> r{};
    const auto& m = k.mont();
    for (size_t i = 0; i < m.size() && i < 4; ++i) r[i] = m[i];
    static_assert(sizeof(m) <= sizeof(r), "coefficient key holds at most 4 limbs");
    return r;
  }
  struct KeyHash {
    size_t operator()(const std::array<uint64_t, 4>& k) const {
      return size_t(k[0] ^ (k[1] * 0x9e3779b97f4a7c15ull) ^ (k[2] >> 7) ^ (k[3] << 11));
    }
  };
  uint32_t coeff_id(const Fr& k) {
    auto [it, fresh] = coeff_ids_.try_emplace(key(k), uint32_t(cs_.coeffs.size()));
    if (fresh) cs_.coeffs.push_back(k);
    return it->second;
  }
  uint32_t intern(std::string_view s) {
    auto [it, fresh] = name_ids_.try_emplace(std::string(s), uint32_t(cs_.names.size()));
    if (fresh) cs_.names.emplace_back(s);
    return it->second;
  }
  // Terms sorted by variable, equal variables merged, zero coefficients dropped. The entries'
  // columns are filled by finish(), when the wires are known; until then `vars` holds them.
  void push_row(CsrMatrix<Fr>& m, std::vector<Variable>& vars, Lc lc) {
    auto t = std::move(lc).take_terms();
    std::sort(t.begin(), t.end(),
              [](const auto& x, const auto& y) { return x.first.key() < y.first.key(); });
    for (size_t i = 0; i < t.size();) {
      Fr k = t[i].second;
      size_t j = i + 1;
      for (; j < t.size() && t[j].first == t[i].first; ++j) k += t[j].second;
      if (!k.is_zero()) {
        vars.push_back(t[i].first);
        m.entries.push_back({0, coeff_id(k)});
      }
      i = j;
    }
    m.row_ptr.push_back(m.entries.size());
  }

  ConstraintSystem<Fr> cs_;
  std::vector<Fr> public_, private_;
  std::vector<uint32_t> stack_;
  std::vector<Variable> vars_a_, vars_b_, vars_c_;
  std::unordered_map<std::array<uint64_t, 4>, uint32_t, KeyHash> coeff_ids_;
  std::unordered_map<std::string, uint32_t> name_ids_;
};

// A finished recording: the circuit and the assignment it was recorded with (wire order).
template <class Fr>
struct Recording {
  ConstraintSystem<Fr> cs;
  std::vector<Fr> z;
};

template <class Fr>
Recording<Fr> Recorder<Fr>::finish() && {
  if (stack_.size() != 1) throw Error(fmt::format("{}: a scope is still open at finish()", cs_.name));
  if (public_.size() >= std::numeric_limits<uint32_t>::max() / 2 ||
      private_.size() >= std::numeric_limits<uint32_t>::max() / 2)
    throw Error(fmt::format("{}: too many variables", cs_.name));
  cs_.n_public = uint32_t(public_.size());
  cs_.n_private = uint32_t(private_.size());
  const uint32_t np = cs_.n_public, nv = cs_.n_vars();
  cs_.a_density.assign(nv, false);
  cs_.b_density.assign(nv, false);
  auto number = [&](CsrMatrix<Fr>& m, const std::vector<Variable>& vars, std::vector<bool>* dens) {
    for (size_t k = 0; k < m.entries.size(); ++k) {
      m.entries[k].col = vars[k].wire(np);
      if (dens) (*dens)[m.entries[k].col] = true;
    }
  };
  number(cs_.a, vars_a_, &cs_.a_density);
  number(cs_.b, vars_b_, &cs_.b_density);
  number(cs_.c, vars_c_, nullptr);
  for (uint32_t j = 0; j <= np; ++j) cs_.a_density[j] = true;  // the public-binding rows
  cs_.find_binary_wires();
  Recording<Fr> r;
  r.z.reserve(nv);
  r.z.push_back(Fr::one());
  r.z.insert(r.z.end(), public_.begin(), public_.end());
  r.z.insert(r.z.end(), private_.begin(), private_.end());
  r.cs = std::move(cs_);
  return r;
}

// ---- synthesis -----------------------------------------------------------------------------------

// A linear combination reduced to its value (synthesis mode).
template <class Fr>
class ValLc {
 public:
  ValLc() = default;
  explicit ValLc(const Fr& v) : value_(v) {}
  static ValLc constant(const Fr& k) { return ValLc(k); }
  const Fr& value() const { return value_; }
  ValLc& operator+=(const ValLc& o) { value_ += o.value_; return *this; }
  ValLc& operator-=(const ValLc& o) { value_ -= o.value_; return *this; }
  ValLc& operator*=(const Fr& k) { value_ *= k; return *this; }
  friend ValLc operator+(ValLc a, const ValLc& b) { return a += b; }
  friend ValLc operator-(ValLc a, const ValLc& b) { return a -= b; }
  friend ValLc operator*(ValLc a, const Fr& k) { return a *= k; }
  friend ValLc operator*(const Fr& k, ValLc a) { return a *= k; }

 private:
  Fr value_ = Fr::zero();
};

template <class Fr>
class Synthesizer {
 public:
  using Field = Fr;
  using Lc = ValLc<Fr>;
  static constexpr bool kRecording = false;

  // z: n_vars values (the recorded circuit's shape); z[0] is set to 1 here.
  Synthesizer(std::span<Fr> z, uint32_t n_public) : z_(z), n_public_(n_public) {
    if (z.size() < size_t(n_public) + 1)
      throw Error(fmt::format("synthesis: z has {} values for {} publics", z.size(), n_public));
    z_[0] = Fr::one();
    pub_end_ = n_public;
    priv_end_ = uint32_t(z.size() - 1 - n_public);
  }

  Variable alloc(const Fr& value) {
    if (n_private_ >= priv_end_) overflow("private");
    z_[1 + size_t(n_public_) + n_private_] = value;
    return {n_private_++, Variable::kPrivate};
  }
  Variable alloc_public(const Fr& value) {
    if (n_pub_seen_ >= pub_end_) overflow("public");
    z_[1 + n_pub_seen_] = value;
    return {n_pub_seen_++, Variable::kPublic};
  }

  // Parallel synthesis of independent parts of a circuit. fork() gives a Synthesizer over the same
  // z that allocates publics [pub_begin, pub_end) and privates [priv_begin, priv_end) (indices
  // within their kind; the caller knows from the circuit's structure where each part's variables
  // fall, as the recording numbered them); its finish() checks that it allocated exactly those.
  // Forks of disjoint ranges may run on different threads. skip_to() then moves this synthesizer
  // past the variables its forks allocated.
  Synthesizer fork(uint32_t pub_begin, uint32_t pub_end, uint32_t priv_begin, uint32_t priv_end) const {
    if (pub_begin < n_pub_seen_ || pub_end < pub_begin || pub_end > pub_end_ ||
        priv_begin < n_private_ || priv_end < priv_begin || priv_end > priv_end_)
      throw Error(fmt::format("synthesis: fork of publics [{}, {}) and privates [{}, {}) outside the "
                              "free ranges [{}, {}) and [{}, {})", pub_begin, pub_end, priv_begin,
                              priv_end, n_pub_seen_, pub_end_, n_private_, priv_end_));
    Synthesizer f(*this);
    f.n_pub_seen_ = pub_begin;
    f.pub_end_ = pub_end;
    f.n_private_ = priv_begin;
    f.priv_end_ = priv_end;
    return f;
  }
  void skip_to(uint32_t publics, uint32_t privates) {
    if (publics < n_pub_seen_ || publics > pub_end_ || privates < n_private_ || privates > priv_end_)
      throw Error(fmt::format("synthesis: skip to {} publics and {} privates from {} and {} (ends {}, {})",
                              publics, privates, n_pub_seen_, n_private_, pub_end_, priv_end_));
    n_pub_seen_ = publics;
    n_private_ = privates;
  }
  uint32_t publics_allocated() const { return n_pub_seen_; }
  uint32_t privates_allocated() const { return n_private_; }

  Fr value(Variable v) const { return z_[v.wire(n_public_)]; }
  Lc lc(Variable v) const { return Lc(value(v)); }
  Lc constant(const Fr& k) const { return Lc(k); }
  Lc zero() const { return Lc(); }
  template <class A, class B, class C>
  void enforce(const char*, A&&, B&&, C&&) {}
  Scope<Synthesizer> scope(const char*, int64_t = -1) { return Scope<Synthesizer>(nullptr); }
  void pop_scope() {}

  // Overwrites a value after the fact (tests: a tampered witness).
  void set(Variable v, const Fr& value) { z_[v.wire(n_public_)] = value; }

  // Every variable of the recorded shape (of a fork: of its ranges) was allocated, no more, no
  // fewer.
  void finish() const {
    if (n_pub_seen_ != pub_end_ || n_private_ != priv_end_)
      throw Error(fmt::format(
          "synthesis allocated {} public and {} private variables, the recorded circuit has {} and {}",
          n_pub_seen_, n_private_, pub_end_, priv_end_));
  }

 private:
  [[noreturn]] void overflow(const char* kind) const {
    throw Error(fmt::format("synthesis allocates more {} variables than the recorded circuit ({} "
                            "publics, {} privates{})", kind, pub_end_, priv_end_,
                            pub_end_ == n_public_ ? "" : " in this fork"));
  }
  std::span<Fr> z_;
  uint32_t n_public_;
  uint32_t n_pub_seen_ = 0, pub_end_ = 0;  // next public index, end of this synthesizer's range
  uint32_t n_private_ = 0, priv_end_ = 0;
};

}  // namespace splitprove::circuit
