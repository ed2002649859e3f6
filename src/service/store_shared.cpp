// A Submit's witnesses streaming into a job directory (service/store_shared.hpp).
#include "service/store_shared.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "service/errors.hpp"
#include "util/output.hpp"

namespace splitprove::service::store_sql {

PageToken PageToken::parse(std::optional<JobState> state, std::string_view token) {
  const std::string filter = state ? to_string(*state) : "all";
  PageToken t;
  if (token.empty()) return t;
  const auto a = token.find('/'), b = token.rfind('/');
  bool ok = a != std::string_view::npos && b != a && token.substr(0, a) == filter;
  if (ok) {
    try {
      t.created_at = std::stoll(std::string(token.substr(a + 1, b - a - 1)));
    } catch (...) {
      ok = false;
    }
    t.job_id = std::string(token.substr(b + 1));
    ok = ok && valid_job_id(t.job_id);
  }
  if (!ok)
    throw Error(fmt::format("page token '{}' was not issued by this daemon for state filter '{}'", echo(token), filter));
  return t;
}

void PageToken::cut(JobPage& page, std::optional<JobState> state, std::size_t page_size) {
  if (page.jobs.size() <= page_size) return;
  page.jobs.resize(page_size);
  const auto& last = page.jobs.back();
  page.next_page_token = fmt::format("{}/{}/{}", state ? to_string(*state) : "all", last.created_at, last.job_id);
}

}  // namespace splitprove::service::store_sql

namespace splitprove::service::spool {
namespace fs = std::filesystem;

fs::path prepare(const StoreConfig& cfg) {
  if (cfg.state_dir.empty()) throw Error("job store: no state directory configured");
  const fs::path spool = cfg.spool_dir.empty() ? fs::path(cfg.state_dir) / "spool" : fs::path(cfg.spool_dir);
  std::error_code ec;
  fs::create_directories(cfg.state_dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the state directory: {}", cfg.state_dir, ec.message()));
  fs::create_directories(spool, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the spool directory: {}", spool.string(), ec.message()));
  return spool;
}

void fsync_dir(const fs::path& dir) {
  try {
    util::fsync_dir(dir.string(), dir.string());
  } catch (const Error& e) {
    throw StoreError(e.what());
  }
}

fs::path make_job_dir(const fs::path& spool, const std::string& job_id) {
  const fs::path dir = spool / job_id;
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) throw StoreError(fmt::format("{}: cannot create the job's spool directory: {}", dir.string(), ec.message()));
  ::chmod(dir.c_str(), 0700);
  fsync_dir(spool);
  return dir;
}

Writer::~Writer() {
  file_.reset();  // removes its temporary file
  if (kept_ || dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string Writer::path_of(std::uint32_t p) const { return (dir_ / fmt::format("{}.wtns", p)).string(); }

void Writer::append(std::uint32_t partition, std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  const auto n = job_.witness_bytes.size();
  if (partition != next_ || partition >= n)
    throw Error(fmt::format("witness chunk for partition {} out of order: partition {} is next{}",
                            partition, next_, next_ >= n ? " (all are complete)" : ""));
  const std::uint64_t have = file_ ? file_->bytes_written() : 0;
  if (offset != have)
    throw Error(fmt::format("witness chunk for partition {} at offset {}: {} bytes of it have arrived",
                            partition, offset, have));
  const std::uint64_t want = job_.witness_bytes[partition];
  if (bytes.empty() || have + bytes.size() > want)
    throw Error(fmt::format("witness chunk for partition {} of {} bytes at offset {}: the partition's "
                            "declared size is {} bytes",
                            partition, bytes.size(), offset, want));
  if (!file_) file_ = std::make_unique<util::AtomicFile>(path_of(partition), 0600);
  file_->write(bytes.data(), bytes.size());
  if (file_->bytes_written() == want) {
    file_->commit();
    file_.reset();
    ++next_;
  }
}

void Writer::require_complete() const {
  if (!complete())
    throw Error(fmt::format("the witness stream ended at partition {} of {} before every witness was "
                            "complete",
                            next_, job_.witness_bytes.size()));
}

}  // namespace splitprove::service::spool
