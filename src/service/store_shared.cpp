// A Submit's witnesses streaming into a job directory (service/store_shared.hpp).
#include "service/store_shared.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <fmt/format.h>

#include "service/errors.hpp"
#include "util/output.hpp"

namespace splitprove::service {

namespace {
constexpr std::string_view kContentMark = ";witnesses_sha256=";
}

std::string with_content_hash(std::string_view header_fingerprint, std::string_view sha256_hex) {
  return fmt::format("{}{}{}", header_fingerprint, kContentMark, sha256_hex);
}

void check_same_submission(const JobRecord& existing, std::string_view fingerprint, bool header_only) {
  if (existing.fingerprint == fingerprint) return;
  auto header = [](std::string_view fp) { return fp.substr(0, fp.find(kContentMark)); };
  const bool hashed = existing.fingerprint.find(kContentMark) != std::string::npos;
  const std::string key = echo(existing.idempotency_key.value_or(""));
  if (header(existing.fingerprint) != header(fingerprint))
    throw Conflict(fmt::format("idempotency key '{}' names job {}, submitted with another header (key, "
                               "priority, partitions or witness sizes differ)",
                               key, existing.job_id));
  if (hashed && !header_only)
    throw Conflict(fmt::format("idempotency key '{}' names job {}, submitted with other witness bytes "
                               "(their sha256 differs)",
                               key, existing.job_id));
}

}  // namespace splitprove::service

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

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
    throw StoreError("sha256: cannot initialise OpenSSL's digest");
  }
}
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::update(std::span<const std::uint8_t> bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size());
}
std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len);
  std::string out;
  for (unsigned i = 0; i < len; ++i) out += fmt::format("{:02x}", md[i]);
  return out;
}

void ChunkOrder::take(std::uint32_t partition, std::uint64_t offset, std::size_t bytes) {
  const auto n = sizes_.size();
  if (partition != next_ || partition >= n)
    throw Error(fmt::format("witness chunk for partition {} out of order: partition {} is next{}",
                            partition, next_, next_ >= n ? " (all are complete)" : ""));
  if (offset != have_)
    throw Error(fmt::format("witness chunk for partition {} at offset {}: {} bytes of it have arrived",
                            partition, offset, have_));
  const std::uint64_t want = sizes_[partition];
  // want - have_ never wraps (have_ < want); have_ + bytes could, for a declared size near 2^64.
  if (bytes == 0 || bytes > want - have_)
    throw Error(fmt::format("witness chunk for partition {} of {} bytes at offset {}: the partition's "
                            "declared size is {} bytes",
                            partition, bytes, offset, want));
  have_ += bytes;
  if (have_ == want) {
    ++next_;
    have_ = 0;
  }
}

void ChunkOrder::require_complete() const {
  if (!complete())
    throw Error(fmt::format("the witness stream ended at partition {} of {} before every witness was "
                            "complete",
                            next_, sizes_.size()));
}

void Writer::append(std::uint32_t partition, std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  order_.take(partition, offset, bytes.size());
  if (!file_) file_ = std::make_unique<util::AtomicFile>(path_of(partition), 0600);
  file_->write(bytes.data(), bytes.size());
  hash_.update(bytes);
  if (order_.have() == 0) {  // the partition's declared bytes are all here
    file_->commit();
    file_.reset();
  }
}

void Writer::require_complete() const { order_.require_complete(); }

const NewJob& Writer::sealed() {
  require_complete();
  if (!sealed_ && !job_.witness_bytes.empty()) job_.fingerprint = with_content_hash(job_.fingerprint, hash_.hex());
  sealed_ = true;
  return job_;
}

}  // namespace splitprove::service::spool
