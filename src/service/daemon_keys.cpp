// The daemon's keys: registration (a .zkey under the key directory, or the native circuit),
// loading into host memory booked in the budget, preload and eviction.
#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "io/curve_id.hpp"
#include "io/zkey.hpp"
#include "service/daemon_parts.hpp"
#include "service/errors.hpp"
#include "service/log.hpp"
#include "service/store_shared.hpp"
#include "zk/setup_impl.hpp"

namespace splitprove::service {
namespace fs = std::filesystem;
using daemon_detail::record_native;

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the file", path));
  spool::Sha256 sha;
  std::vector<char> buf(std::size_t(1) << 20);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    if (in.gcount() > 0)
      sha.update({reinterpret_cast<const std::uint8_t*>(buf.data()), std::size_t(in.gcount())});
  }
  if (in.bad()) throw Error(fmt::format("{}: read error", path));
  return sha.hex();
}

void Daemon::refresh_claimable() {
  const auto keys = store_->list_keys();
  std::lock_guard lk(keys_mu_);
  for (const auto& k : keys) {
    if (claimable_.count(k.key_id)) continue;
    std::error_code ec;
    const auto size = fs::file_size(fs::path(cfg_.key_dir) / k.zkey_path, ec);
    if (!ec && size == k.file_bytes) claimable_.insert(k.key_id);
  }
}

std::vector<std::string> Daemon::claimable() {
  std::lock_guard lk(keys_mu_);
  return {claimable_.begin(), claimable_.end()};
}

std::shared_ptr<Daemon::Loaded> Daemon::load(const std::string& key_id) {
  std::lock_guard lk(keys_mu_);
  if (auto it = keys_.find(key_id); it != keys_.end()) return it->second;
  auto rec = store_->get_key(key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", key_id));
  const auto local = local_path_.find(key_id);
  const std::string path = (fs::path(cfg_.key_dir) / (local != local_path_.end() ? local->second : rec->zkey_path)).string();
  if (shared_store_ && !verified_.count(key_id)) {
    // Another daemon registered it: the file here must be the same bytes.
    std::string got;
    try {
      got = sha256_file(path);
    } catch (const Error& e) {
      claimable_.erase(key_id);
      throw KeyUnavailable(fmt::format("key {}: {}", key_id, e.what()));
    }
    if (got != key_id) {
      claimable_.erase(key_id);
      throw KeyUnavailable(fmt::format("key {}: {} in this daemon's key directory holds other bytes (sha256 {})",
                                       key_id, rec->zkey_path, got));
    }
    verified_.insert(key_id);
  }
  auto l = std::make_shared<Loaded>();
  l->rec = *rec;
  l->curve = io::detect_curve(path);
  ec::with_engine(l->curve, [&](auto e) {
    using E = decltype(e);
    io::ZkeyReadOptions ro;
    ro.check_subgroup = false;  // every proof is verified before it is committed
    auto pk = std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(path, ro));
    l->key<E>() = pipeline::Key<E>::prepare(pk);
    l->pk<E>() = std::move(pk);
    if (rec->native_log2) l->cs<E>() = record_native<typename E::Fr>(*rec->native_log2);
  });
  l->host_bytes = rec->file_bytes;
  // The key is booked in its engine's budget (tag srs) for as long as it is resident, so the
  // budget bounds keys and work together.
  ec::with_engine(l->curve, [&](auto e) {
    using E = decltype(e);
    auto& budget = engines_->get<E>().budget();
    std::optional<mem::Reservation> r;
    try {
      r = budget.try_reserve(l->host_bytes, mem::Tag::srs);
    } catch (const mem::BudgetError&) {
    }
    if (!r) {
      const auto b = budget.books();
      throw Exhausted(fmt::format("key {} needs {} bytes resident; the {} budget holds {} of {} now: "
                                  "evict a key or raise --budget",
                                  key_id, l->host_bytes, ec::curve_name(l->curve), b.used, b.capacity));
    }
    l->booked = std::move(*r);
  });
  keys_[key_id] = l;
  return l;
}

KeyInfo Daemon::info_of(const KeyRecord& k) {
  KeyInfo i;
  i.record = k;
  {
    std::lock_guard lk(keys_mu_);
    if (auto it = keys_.find(k.key_id); it != keys_.end()) {
      i.resident = true;
      i.host_bytes = it->second->host_bytes;
    }
    if (auto it = last_used_.find(k.key_id); it != last_used_.end()) i.last_used_at = it->second;
  }
  return i;
}

std::pair<KeyInfo, bool> Daemon::register_key(const std::string& rel, bool preload) {
  if (rel.empty()) throw Error("RegisterKey: an empty path");
  const fs::path p(rel);
  if (p.is_absolute()) throw Denied(fmt::format("key path '{}' is absolute: give it relative to the key directory", echo(rel)));
  for (const auto& part : p)
    if (part == "..") throw Denied(fmt::format("key path '{}' contains '..'", echo(rel)));
  std::error_code ec;
  const fs::path dir = fs::canonical(cfg_.key_dir, ec);
  const fs::path full = fs::path(cfg_.key_dir) / p;
  if (!fs::exists(full, ec)) throw NotFound(fmt::format("key path '{}': no such file in the key directory", echo(rel)));
  const fs::path real = fs::canonical(full, ec);
  if (ec) throw NotFound(fmt::format("key path '{}': {}", echo(rel), ec.message()));
  const auto rs = real.string(), ds = dir.string() + "/";
  if (rs.compare(0, ds.size(), ds) != 0)
    throw Denied(fmt::format("key path '{}' resolves outside the key directory (to {})", echo(rel), echo(rs)));
  if (!fs::is_regular_file(real)) throw Error(fmt::format("key path '{}': not a regular file", echo(rel)));
  const std::string id = sha256_file(rs);
  {
    std::lock_guard lk(keys_mu_);
    verified_.insert(id);
  }
  if (auto known = store_->get_key(id)) {
    {
      std::lock_guard lk(keys_mu_);
      claimable_.insert(id);
      if (const auto here = fs::relative(real, dir).string(); here != known->zkey_path) local_path_[id] = here;
    }
    if (preload) load_onto_devices(id);
    return {info_of(*known), true};
  }
  // Read it once to check it (and learn its shape); keep it when asked to preload.
  KeyRecord k;
  k.key_id = id;
  k.zkey_path = fs::relative(real, dir).string();
  k.file_bytes = fs::file_size(real);
  k.registered_at = now_ms();
  const ec::CurveId curve = io::detect_curve(rs);
  k.curve = std::string(ec::curve_name(curve));
  ec::with_engine(curve, [&](auto e) {
    using E = decltype(e);
    io::ZkeyReadOptions ro;
    ro.check_subgroup = false;
    const auto pk = io::read_zkey<E>(rs, ro);
    k.variables = pk.n_vars;
    k.public_signals = pk.n_public;
    std::uint32_t log2 = 0;
    while ((std::uint64_t(1) << log2) < pk.domain_size) ++log2;
    k.log2_domain = log2;
    k.constraints = pk.domain_size;  // the domain bounds the constraints (+ public inputs)
  });
  store_->put_key(k);
  {
    std::lock_guard lk(keys_mu_);
    claimable_.insert(id);
  }
  if (preload) load_onto_devices(id);
  return {info_of(*store_->get_key(id)), false};
}

std::pair<KeyInfo, bool> Daemon::register_native_key(const std::string& curve_name, std::uint32_t log2,
                                                    bool preload) {
  if (log2 < 10 || log2 > 28) throw Error(fmt::format("native circuit of 2^{} rows: 2^10..2^28", log2));
  ec::CurveId curve;
  if (curve_name == ec::curve_name(ec::CurveId::kBn254)) curve = ec::CurveId::kBn254;
  else if (curve_name == ec::curve_name(ec::CurveId::kBls12_381)) curve = ec::CurveId::kBls12_381;
  else throw Error(fmt::format("unknown curve '{}' (BN254 or BLS12-381)", curve_name));
  std::lock_guard lk(native_mu_);  // one native setup at a time
  if (auto known = store_->get_native_key(curve_name, log2)) {
    if (preload) load_onto_devices(known->key_id);
    return {info_of(*known), true};
  }
  const std::string rel = fmt::format("native/{}-2^{}.zkey", curve_name == "BN254" ? "bn254" : "bls12-381", log2);
  const fs::path path = fs::path(cfg_.key_dir) / rel;
  fs::create_directories(path.parent_path());
  KeyRecord k;
  ec::with_engine(curve, [&](auto e) {
    using E = decltype(e);
    const auto cs = record_native<typename E::Fr>(log2);
    const auto pk = zk::dev_setup<E>(circuit::setup_rows(*cs));
    io::write_zkey<E>(path.string(), pk);  // atomically (util::AtomicFile)
    k.variables = pk.n_vars;
    k.public_signals = pk.n_public;
    k.constraints = pk.domain_size;
    std::uint32_t d = 0;
    while ((std::uint64_t(1) << d) < pk.domain_size) ++d;
    k.log2_domain = d;
  });
  k.key_id = sha256_file(path.string());
  k.zkey_path = rel;
  k.curve = curve_name;
  k.file_bytes = fs::file_size(path);
  k.registered_at = now_ms();
  k.native_log2 = log2;
  store_->put_key(k);
  {
    std::lock_guard lk(keys_mu_);
    verified_.insert(k.key_id);
    claimable_.insert(k.key_id);
  }
  log_event(spdlog::level::info, "native_key_made",
            {{"curve", curve_name}, {"log2", std::to_string(log2)}, {"key", k.key_id}});
  if (preload) load_onto_devices(k.key_id);
  return {info_of(*store_->get_key(k.key_id)), false};
}

std::vector<KeyInfo> Daemon::list_keys() {
  std::vector<KeyInfo> out;
  for (const auto& k : store_->list_keys()) out.push_back(info_of(k));
  return out;
}

void Daemon::load_onto_devices(const std::string& key_id) {
  const auto l = load(key_id);
  // Outside keys_mu_: a large key's points take seconds to reach (or be made on) a device.
  ec::with_engine(l->curve, [&](auto e) {
    using E = decltype(e);
    engines_->get<E>().prepare(*l->key<E>());
  });
}

KeyInfo Daemon::preload_key(const std::string& key_id, const std::vector<std::uint32_t>& gpus) {
  auto rec = store_->get_key(key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", key_id));
  if (!gpus.empty()) {
    // Every GPU named must be one of the engine's devices, checked before the key is read.
    auto lower = [](std::string s) {
      for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    const bool bn = lower(rec->curve) == lower(std::string(ec::curve_name(ec::CurveId::kBn254)));
    std::vector<pipeline::DeviceStatus> devices;
    if (bn) (void)engines_->get<ec::Bn254>(); else (void)engines_->get<ec::Bls12_381>();
    {
      std::lock_guard lk(engines_->mu);
      if (engines_->devices) devices = engines_->devices();
    }
    std::set<std::uint32_t> known;
    for (const auto& d : devices) known.insert(d.index);
    for (const auto g : gpus)
      if (!known.count(g)) {
        std::string have;
        for (const auto k : known) have += (have.empty() ? "" : ", ") + std::to_string(k);
        throw Error(fmt::format("PreloadKey: gpu {} is not a device of this daemon ({})", g,
                                have.empty() ? "it has none" : "its devices: " + have));
      }
  }
  load_onto_devices(key_id);
  return info_of(*rec);
}

std::pair<KeyInfo, std::uint64_t> Daemon::evict_key(const std::string& key_id) {
  auto rec = store_->get_key(key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", key_id));
  std::uint32_t users = 0;
  {
    std::lock_guard lk(mu_);
    for (const auto& [k, r] : running_) users += r.claim.key_id == key_id;
  }
  if (users)
    throw Conflict(fmt::format("key {} is used by {} partitions in flight: retry when they are done",
                               key_id, users));
  std::uint64_t freed = 0;
  {
    std::lock_guard lk(keys_mu_);
    if (auto it = keys_.find(key_id); it != keys_.end()) {
      freed = it->second->host_bytes;
      keys_.erase(it);
    }
  }
  return {info_of(*rec), freed};
}

}  // namespace splitprove::service
