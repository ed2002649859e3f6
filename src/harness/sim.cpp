#include "harness/sim.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "mem/buffer.hpp"
#include "mem/plot.hpp"
#include "mem/sampler.hpp"
#include "mem/units.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"

namespace splitprove::harness {
using namespace mem;
namespace {

using Clock = std::chrono::steady_clock;
using Word = std::uint64_t;  // buffers hold 8-byte words; sizes are page multiples

// "Unlimited": the books are kept, nothing ever waits.
constexpr std::uint64_t kNoBudget = std::uint64_t(1) << 50;

// One partition in flight. Owned by exactly one stage at a time (moved through the queues as a
// unique_ptr); every buffer dies with the item at the latest, earlier where the policy says so.
struct Item {
  std::uint32_t job = 0, index = 0;
  // What is left of the admission reservation: the share of buffers not yet made. Each buffer
  // carves its share from here when it is created.
  Reservation life;
  Buffer<Word> a, b, c;   // constraint evaluations: die after the GPU stage (splitprove policy)
  Buffer<Word> z;         // assignment: same; under `held` it lives until finalize
  Buffer<Word> g2_input;  // compact copy of the B-dense scalars (splitprove policy only)
  Buffer<Word> result;    // the stage results (small)

  void retag(Tag t) {
    life.retag(t);
    for (Buffer<Word>* buf : {&a, &b, &c, &z, &g2_input, &result}) buf->retag(t);
  }
};
using ItemPtr = std::unique_ptr<Item>;

// The queue in front of a stage. `capacity` bounds the items waiting in it (0: unbounded, only for
// the held policy's backlogs). Slots can be taken ahead (`acquire_slot`), so that a GPU worker
// does not start a partition whose output would have nowhere to go.
// Books: an item entering the queue has been taken by the next stage (the hand-off succeeded), so
// from that moment its reservations count under that stage's tag: a stage's books are its
// workers' items plus the items waiting in front of it, as in the model.
class StageQueue {
 public:
  StageQueue(std::size_t capacity, Tag stage) : capacity_(capacity), stage_(stage) {}

  // Blocks while full. False (and the item dies here) if the queue was closed by an abort.
  bool push(ItemPtr item, bool slot_taken = false) {
    std::unique_lock lk(mu_);
    if (!slot_taken) not_full_.wait(lk, [&] { return closed_ || !full_locked(); });
    if (slot_taken) --slots_;
    if (closed_ && aborted_) return false;
    item->retag(stage_);
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }
  // Takes a slot now, so that a later push cannot block. False if the queue was aborted.
  bool acquire_slot() {
    std::unique_lock lk(mu_);
    not_full_.wait(lk, [&] { return closed_ || !full_locked(); });
    if (aborted_) return false;
    ++slots_;
    return true;
  }
  void release_slot() {
    std::lock_guard lk(mu_);
    --slots_;
    not_full_.notify_one();
  }
  // Blocks while empty; nullopt once closed and drained.
  ItemPtr pop() {
    std::unique_lock lk(mu_);
    not_empty_.wait(lk, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return nullptr;
    ItemPtr it = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return it;
  }
  // No more pushes (producers are done); consumers drain what is there.
  void close() {
    std::lock_guard lk(mu_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }
  void abort() {
    std::lock_guard lk(mu_);
    closed_ = aborted_ = true;
    items_.clear();
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  bool full_locked() const { return capacity_ != 0 && items_.size() + slots_ >= capacity_; }
  const std::size_t capacity_;
  const Tag stage_;
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<ItemPtr> items_;
  std::size_t slots_ = 0;
  bool closed_ = false, aborted_ = false;
};

// Jobs in flight: at most `in_flight` jobs are admitted at once; synthesis takes partitions from
// the oldest admitted job first; a job leaves when its last partition is finalized.
class Jobs {
 public:
  Jobs(std::uint32_t total, std::uint32_t in_flight, std::uint32_t per_job, MemorySampler& s)
      : total_(total), in_flight_(in_flight), per_job_(per_job), sampler_(s) {
    claimed_.assign(total, 0);
    done_.assign(total, 0);
    admit_locked();
  }
  struct Claim {
    std::uint32_t job, index;
  };
  // Blocks until a partition of an admitted job is free; nullopt when every partition is claimed.
  std::optional<Claim> claim() {
    std::unique_lock lk(mu_);
    for (;;) {
      if (aborted_) return std::nullopt;
      for (std::uint32_t j = first_open_; j < admitted_; ++j)
        if (claimed_[j] < per_job_) return Claim{j, claimed_[j]++};
      if (admitted_ == total_) return std::nullopt;
      cv_.wait(lk);
    }
  }
  void finalized(std::uint32_t job) {
    std::lock_guard lk(mu_);
    if (++done_[job] == per_job_) {
      sampler_.mark(fmt::format("job_end:{}", job));
      --running_;
      admit_locked();
      cv_.notify_all();
    }
  }
  void abort() {
    std::lock_guard lk(mu_);
    aborted_ = true;
    cv_.notify_all();
  }

 private:
  void admit_locked() {
    while (running_ < in_flight_ && admitted_ < total_) {
      sampler_.mark(fmt::format("job_start:{}", admitted_));
      ++admitted_;
      ++running_;
    }
    while (first_open_ < admitted_ && claimed_[first_open_] == per_job_) ++first_open_;
  }
  const std::uint32_t total_, in_flight_, per_job_;
  MemorySampler& sampler_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::uint32_t> claimed_, done_;
  std::uint32_t admitted_ = 0, running_ = 0, first_open_ = 0;
  bool aborted_ = false;
};

// Makes every page resident (one write per page), as synthesis filling the vectors would.
void touch(Buffer<Word>& b, Word seed) {
  constexpr std::size_t kStride = kPageSize / sizeof(Word);
  for (std::size_t i = 0; i < b.size(); i += kStride) b[i] = seed + i;
}

std::size_t words(std::uint64_t bytes) { return std::size_t(bytes / sizeof(Word)); }

}  // namespace

std::string describe(const SimConfig& c) {
  const PipelineConfig& p = c.pipeline;
  return fmt::format(
      "policy={} partition={} pw={} gw={} g2w={} fin={} gpu_q={} g2_q={} final_q={} jobs={}/{} "
      "partitions/job={} budget={} t_synth={}ms t_gpu={}ms t_g2={}ms t_final={}ms",
      policy_name(c.policy), format_bytes(p.partition.abc + p.partition.z), p.synthesis_workers,
      p.gpu_workers, p.g2_workers, p.finalizers, p.gpu_queue, p.g2_queue, p.final_queue, p.jobs,
      c.total_jobs, p.partitions_per_job, p.budget ? format_bytes(p.budget) : "none",
      c.t_synth.count(), c.t_gpu.count(), c.t_g2.count(), c.t_final.count());
}

SimResult run_simulation(const SimConfig& c) {
  const PipelineConfig& p = c.pipeline;
  if (!p.synthesis_workers || !p.gpu_workers || !p.g2_workers || !p.finalizers || !p.jobs ||
      !p.partitions_per_job || !c.total_jobs)
    throw Error("memsim: worker counts, jobs and partitions must all be at least 1");
  if (c.policy == Policy::splitprove && (!p.g2_queue || !p.final_queue || !p.gpu_queue))
    throw Error("memsim: the splitprove policy needs bounded queues of at least 1");
  if (!p.gpu_queue) throw Error("memsim: --gpu-queue must be at least 1");
  const PartitionBytes& sz = p.partition;
  if (sz.abc % (3 * kPageSize) || sz.z % kPageSize || sz.g2_input % kPageSize ||
      sz.result % kPageSize || sz.g2_input > sz.z)
    throw Error("memsim: partition parts must be whole pages (a, b, c: whole pages each)");
  const Policy policy = c.policy;
  const std::uint64_t life = life_cost(sz, policy);
  if (p.budget && life > p.budget)
    throw Error(fmt::format(
        "memsim: one partition's life cost {} exceeds the budget {}: nothing could ever run",
        format_bytes(life), format_bytes(p.budget)));

  BufferOptions bo;
  bo.huge_pages = c.huge_pages;
  MemoryBudget budget(p.budget ? p.budget : kNoBudget, "host");
  MemorySampler sampler(&budget, SamplerOptions{c.sample_interval, true});

  // Queue bounds: see the policy notes in sim.hpp. Held: the GPU worker hands over and moves on.
  const bool held = policy == Policy::held_until_finalize;
  StageQueue gpu_q(p.gpu_queue, Tag::gpu);
  StageQueue g2_q(held ? 0 : p.g2_queue, Tag::g2);
  StageQueue final_q(held ? 0 : p.final_queue, Tag::finalize);

  std::mutex err_mu;
  std::exception_ptr first_error;
  std::stop_source abort_all;
  std::optional<Jobs> jobs;
  auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard lk(err_mu);
      if (!first_error) first_error = std::move(e);
    }
    abort_all.request_stop();
    jobs->abort();
    for (StageQueue* q : {&gpu_q, &g2_q, &final_q}) q->abort();
  };
  auto guarded = [&](auto body) {
    return [&, body] {
      try {
        body();
      } catch (const ReserveCancelled&) {
        // another worker failed and cancelled us
      } catch (...) {
        fail(std::current_exception());
      }
    };
  };

  // ---- stages ---------------------------------------------------------------------------------
  auto synthesis = [&] {
    while (auto cl = jobs->claim()) {
      // Admission: the whole life cost, before anything is allocated. Blocks (FIFO) under a budget.
      Reservation r = budget.reserve(life, Tag::synthesis, abort_all.get_token());
      auto start = Clock::now();
      auto it = std::make_unique<Item>();
      it->job = cl->job;
      it->index = cl->index;
      it->life = std::move(r);
      const std::size_t abc_words = words(sz.abc / 3);
      it->a = Buffer<Word>::carve(it->life, abc_words, bo);
      it->b = Buffer<Word>::carve(it->life, abc_words, bo);
      it->c = Buffer<Word>::carve(it->life, abc_words, bo);
      it->z = Buffer<Word>::carve(it->life, words(sz.z), bo);
      for (Buffer<Word>* buf : {&it->a, &it->b, &it->c, &it->z}) touch(*buf, cl->index);
      std::this_thread::sleep_until(start + c.t_synth);
      // Hand-off: once the push returns, the item (and every reservation in it) belongs to the GPU
      // stage. While the push waits for room, this worker still owns it (books: synthesis).
      if (!gpu_q.push(std::move(it))) return;
    }
  };

  auto gpu = [&] {
    for (;;) {
      // splitprove: do not start a partition while the G2 backlog is full.
      if (!held && !g2_q.acquire_slot()) return;
      ItemPtr it = gpu_q.pop();
      if (!it) {
        if (!held) g2_q.release_slot();
        return;
      }
      auto start = Clock::now();
      if (!held) {
        // The compact G2 input: a copy of only what G2 reads, owned by the item, so that a, b, c
        // and z can die when this stage ends.
        it->g2_input = Buffer<Word>::carve(it->life, words(sz.g2_input), bo);
        std::memcpy(it->g2_input.data(), it->z.data(), it->g2_input.size_bytes());
      }
      std::this_thread::sleep_until(start + c.t_gpu);
      it->result = Buffer<Word>::carve(it->life, words(sz.result), bo);
      touch(it->result, 1);
      if (!held) {
        // Last use of a, b, c, z: munmap now; the budget gets the bytes back right after.
        it->a.reset();
        it->b.reset();
        it->c.reset();
        it->z.reset();
      }
      // held: the pending item keeps everything and goes to an unbounded backlog.
      if (!g2_q.push(std::move(it), /*slot_taken=*/!held)) return;
    }
  };

  auto g2 = [&] {
    while (ItemPtr it = g2_q.pop()) {
      auto start = Clock::now();
      // Reads it->g2_input (splitprove) or it->z in place (held).
      std::this_thread::sleep_until(start + c.t_g2);
      if (!held) it->g2_input.reset();  // last use of the compact copy
      if (!final_q.push(std::move(it))) return;
    }
  };

  auto finalize = [&] {
    while (ItemPtr it = final_q.pop()) {
      auto start = Clock::now();
      std::this_thread::sleep_until(start + c.t_final);
      std::uint32_t job = it->job;
      it.reset();  // every remaining buffer munmaps, then its bytes return to the budget
      jobs->finalized(job);
    }
  };

  // ---- run ------------------------------------------------------------------------------------
  sampler.start();
  std::this_thread::sleep_for(c.settle);  // baseline samples
  sampler.mark(kWorkStart);
  const auto t_start = Clock::now();
  jobs.emplace(c.total_jobs, p.jobs, p.partitions_per_job, sampler);
  {
    auto spawn = [&](std::uint32_t n, auto body) {
      std::vector<std::jthread> ts;
      for (std::uint32_t i = 0; i < n; ++i) ts.emplace_back(guarded(body));
      return ts;
    };
    auto ts_fin = spawn(p.finalizers, finalize);
    auto ts_g2 = spawn(p.g2_workers, g2);
    auto ts_gpu = spawn(p.gpu_workers, gpu);
    auto ts_syn = spawn(p.synthesis_workers, synthesis);
    // Drain stage by stage: when all producers of a queue are done, close it.
    ts_syn.clear();
    gpu_q.close();
    ts_gpu.clear();
    g2_q.close();
    ts_g2.clear();
    final_q.close();
    ts_fin.clear();
  }
  const double work = std::chrono::duration<double>(Clock::now() - t_start).count();
  sampler.mark(kWorkEnd);
  std::this_thread::sleep_for(c.settle);  // after-drain samples
  sampler.stop();
  if (first_error) std::rethrow_exception(first_error);

  SimResult res;
  res.partitions = std::uint64_t(c.total_jobs) * p.partitions_per_job;
  res.work_seconds = work;
  res.throughput = double(res.partitions) / work;
  res.books_peak = budget.books().peak;
  res.needs = predict(pipeline_model(p, Policy::splitprove));
  res.policy_bound = predict(pipeline_model(p, policy));
  res.timeline = sampler.timeline();
  res.timeline.set_meta("source", "memsim");
  res.timeline.set_meta("config", describe(c));
  res.timeline.set_meta("title",
                        fmt::format("memsim: policy {} — pw={} gw={} jobs in flight={}{}",
                                    policy_name(policy), p.synthesis_workers, p.gpu_workers, p.jobs,
                                    p.budget ? ", budget " + format_bytes(p.budget) : ""));
  res.timeline.set_meta(std::string(kMetaModelWorkBytes), std::to_string(res.needs.work_bytes));
  if (p.budget) res.timeline.set_meta(std::string(kMetaBudgetBytes), std::to_string(p.budget));
  res.verdict = analyze(res.timeline);
  return res;
}

void write_sim_outputs(const SimConfig& c, const SimResult& r, const std::string& dir,
                       std::size_t max_csv_samples, bool jsonl) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir, ec.message()));
  save_csv(downsample(r.timeline, max_csv_samples), dir + "/timeline.csv");
  if (jsonl) save_jsonl(r.timeline, dir + "/timeline.jsonl");
  save_svg(downsample(r.timeline, max_csv_samples), r.verdict, dir + "/memory.svg");
  util::write_file_atomic(dir + "/verdict.txt", format_report(r.verdict));
  util::write_file_atomic(dir + "/verdict.json", to_json(r.verdict).dump(2) + "\n");
  nlohmann::json s = {{"config", describe(c)},
                      {"policy", policy_name(c.policy)},
                      {"pw", c.pipeline.synthesis_workers},
                      {"gw", c.pipeline.gpu_workers},
                      {"jobs_in_flight", c.pipeline.jobs},
                      {"budget_bytes", c.pipeline.budget},
                      {"partitions", r.partitions},
                      {"work_seconds", r.work_seconds},
                      {"throughput_partitions_per_s", r.throughput},
                      {"peak_rss_bytes", r.verdict.peak},
                      {"baseline_bytes", r.verdict.baseline},
                      {"books_peak_bytes", r.books_peak},
                      {"model_needs_work_bytes", r.needs.work_bytes},
                      {"model_policy_work_bytes", r.policy_bound.work_bytes},
                      {"verdict", to_json(r.verdict)}};
  util::write_file_atomic(dir + "/summary.json", s.dump(2) + "\n");
}

}  // namespace splitprove::harness
