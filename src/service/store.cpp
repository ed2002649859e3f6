// What every job store shares: state names, job ids (UUIDv7) and their check, and the choice of
// backend by URL.
#include "service/store.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <random>

#include "service/errors.hpp"

namespace splitprove::service {

const char* to_string(JobState s) {
  switch (s) {
    case JobState::queued: return "queued";
    case JobState::running: return "running";
    case JobState::succeeded: return "succeeded";
    case JobState::failed: return "failed";
    case JobState::cancelled: return "cancelled";
  }
  return "?";
}
const char* to_string(PartState s) {
  switch (s) {
    case PartState::queued: return "queued";
    case PartState::running: return "running";
    case PartState::done: return "done";
    case PartState::failed: return "failed";
    case PartState::dropped: return "dropped";
  }
  return "?";
}
JobState job_state_from(std::string_view s) {
  for (auto st : {JobState::queued, JobState::running, JobState::succeeded, JobState::failed,
                  JobState::cancelled})
    if (s == to_string(st)) return st;
  throw Error(fmt::format("job store: unknown job state '{}'", s));
}
PartState part_state_from(std::string_view s) {
  for (auto st : {PartState::queued, PartState::running, PartState::done, PartState::failed,
                  PartState::dropped})
    if (s == to_string(st)) return st;
  throw Error(fmt::format("job store: unknown partition state '{}'", s));
}

Millis now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string host_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

std::string new_job_id() {
  // UUIDv7: 48 bits of Unix milliseconds, then (rand_a, 12 bits) a counter within the
  // millisecond, so ids made by one process sort in the order they were made; 62 random bits.
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  static std::uint64_t last_ms = 0, seq = 0;
  std::array<std::uint8_t, 16> b{};
  std::uint64_t ms = std::uint64_t(now_ms()), r = 0;
  {
    std::lock_guard lk(mu);
    if (ms <= last_ms) {
      ms = last_ms;
      if (++seq == 0x1000) {  // 4096 ids in one millisecond: borrow the next one
        ++ms;
        seq = 0;
      }
    } else {
      seq = rng() & 0x3ff;
    }
    last_ms = ms;
    r = rng();
  }
  for (int i = 0; i < 6; ++i) b[i] = std::uint8_t(ms >> (40 - 8 * i));
  b[6] = std::uint8_t(0x70 | (seq >> 8));  // version 7
  b[7] = std::uint8_t(seq);
  for (int i = 8; i < 16; ++i) b[i] = std::uint8_t(r >> (8 * (i - 8)));
  b[8] = std::uint8_t(0x80 | (b[8] & 0x3f));  // variant 10
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

LocalWitness::~LocalWitness() {
  if (!temporary_) return;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

std::unique_ptr<JobStore> open_store(const StoreConfig& cfg) {
  if (cfg.url.empty() || cfg.url == "sqlite") return open_sqlite_store(cfg);
  if (cfg.url.starts_with("postgresql://") || cfg.url.starts_with("postgres://"))
    return open_postgres_store(cfg);
  throw Error(fmt::format("store '{}': give \"sqlite\" (the default) or a postgresql:// URL",
                          cfg.url.substr(0, cfg.url.find('@') == std::string::npos ? cfg.url.size() : 16)));
}

bool valid_job_id(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  }
  return true;
}

}  // namespace splitprove::service
