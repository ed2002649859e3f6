#pragma once
// Template bodies of pipeline/engine.hpp, part 2: the workers of the four stages and what happens
// when a device faults (pipeline/device.hpp). Part 1, the engine's state and books, is
// pipeline/engine_impl.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "pipeline/engine_impl.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::pipeline {

// ---- devices ----------------------------------------------------------------------------------

template <class E>
std::string Engine<E>::devices_down() const {
  std::string down;
  for (const auto& d : devices_) {
    if (d.state->healthy()) return {};
    down += fmt::format("{}{}: {}", down.empty() ? "" : "; ", d.state->name(), d.state->error());
  }
  return down;
}

template <class E>
void Engine<E>::check_devices() {
  const std::string down = devices_down();
  if (down.empty()) return;
  std::vector<std::shared_ptr<Job>> running;
  {
    std::lock_guard lk(mu_);
    for (auto& [id, j] : jobs_)
      if (!j->done) running.push_back(j);
  }
  for (auto& j : running) fail(*j, fmt::format("every device is out of service ({})", down), true);
}

template <class E>
void Engine<E>::prove_again(ItemPtr it, const DeviceStages<E>* dev, const std::string& why) {
  // Held here: once the item dies the job may end, and wait() may let it go.
  const std::shared_ptr<Job> keep = it->job;
  Job& job = *keep;
  const std::size_t index = it->index;
  const std::string down = devices_down();  // "" while a device serves
  std::uint32_t faults = 0;
  bool again = false;
  {
    std::lock_guard lk(mu_);
    if (dev) {
      faults = ++job.device_faults[index];
      ++job.faults;
      ++stats_.devices[std::size_t(dev - devices_.data())].faults;
    }
    if (!job.failed && down.empty() && faults <= cfg_.device_retries) {
      job.retry.insert(std::upper_bound(job.retry.begin(), job.retry.end(), index), index);
      it->retried = true;
      again = true;
      if (!dev) ++stats_.partitions_rerouted;
    }
  }
  it.reset();  // every byte the partition held goes back (item_gone)
  if (again) {
    work_cv_.notify_all();
  } else if (!down.empty()) {
    fail(job, fmt::format("every device is out of service ({})", down), true);
  } else if (dev) {
    fail(job,
         fmt::format("partition {}: device faults on {} devices (the last, on {}: {})", index,
                     faults, dev->state->name(), why),
         true);
  }
  check_devices();
}

// ---- workers ----------------------------------------------------------------------------------

// Admission with recycled pages (EngineConfig::recycle_buffers). One partition at a time is
// admitted (admit_mu_): it subscribes to the pool, leases the idle pages its buffers can use (they
// stay paid by their own reservations) and reserves only the rest of its life; while it waits for
// those bytes, each buffer that dies elsewhere is kept for it and wakes it to top its lease up.
// So under a tight budget the dead partitions' pages pass straight to the next one (no unmap, no
// fresh mapping, no new pinning). No deadlock: the one admitting partition waits only for what
// partitions already admitted give back, and their progress needs no admission; pages it cannot
// use are unmapped when its wait begins (the budget's reclaim).
template <class E>
mem::Reservation Engine<E>::admit(Job& job, mem::BufferPool::Lease& lease) {
  const auto stop = job.stop.get_token();
  if (!job.prover->recycles()) return budget_.reserve(job.cost.life(), mem::Tag::synthesis, stop);
  std::lock_guard turn(admit_mu_);
  for (;;) {
    auto wake = std::make_shared<std::stop_source>();
    std::stop_callback on_stop(stop, [&wake] { wake->request_stop(); });
    auto sub = job.prover->pool()->subscribe(wake);
    job.prover->top_up_lease(lease, job.shape);
    try {
      return budget_.reserve(job.cost.life() - lease.bytes(), mem::Tag::synthesis,
                             wake->get_token());
    } catch (const mem::ReserveCancelled&) {
      if (stop.stop_requested()) throw;  // the job ended; the lease dies with this frame's caller
      // else: a buffer died into the pool while we waited; take it and try again
    }
  }
}

template <class E>
void Engine<E>::synthesis_worker() {
  for (;;) {
    ItemPtr it;
    {
      std::unique_lock lk(mu_);
      std::shared_ptr<Job> job;
      work_cv_.wait(lk, [&] {
        if (shutting_down_) return true;
        for (auto& [id, j] : jobs_)  // oldest job first
          if (!j->failed && (!j->retry.empty() || j->claimed < j->spec.partitions))
            return job = j, true;
        return false;
      });
      if (shutting_down_) return;
      ++job->live;
      std::size_t index;
      if (!job->retry.empty()) {  // a partition to prove again comes before the job's next one
        index = job->retry.front();
        job->retry.pop_front();
      } else {
        index = job->claimed++;
      }
      it = std::make_unique<Item>(this, job, index);
    }
    Job& job = *it->job;
    try {
      // Admission: the partition's whole life before anything is allocated (FIFO under a budget).
      mem::BufferPool::Lease lease;
      mem::Reservation adm = admit(job, lease);
      mark("start", "synthesis", *it);
      const auto t0 = std::chrono::steady_clock::now();
      util::PoolRank rank(it->pool_rank());
      it->synth.emplace(job.prover->synthesize(*job.spec.source, it->index, job.cost,
                                               std::move(adm), job.stop.get_token(),
                                               std::move(lease)));
      const double dt = detail::since(t0);
      mark("end", "synthesis", *it);
      {
        std::lock_guard lk(mu_);
        ++stats_.synthesis.items;
        stats_.synthesis.busy_s += dt;
      }
      if (it->stopped()) continue;  // the item dies here, with everything it holds
      if (!gpu_q_->push(it, false)) return;
    } catch (const mem::ReserveCancelled&) {
      // the job failed or was cancelled while this partition waited for memory
    } catch (const std::exception& e) {
      fail(job, fmt::format("partition {}: {}", it->index, e.what()));
    }
  }
}

// The GPU and G2 stages share one worker loop: take a slot in the next queue first (never start
// a partition whose result would have nowhere to go), pop the oldest partition, run the stage on
// the device pick() names (null: none is left for this worker, which ends), count its time, hand
// the partition on. A device fault takes the device out of service and sends the partition back
// to be proved again; any other failure fails the partition's job, naming the stage.
template <class E>
template <class Pick, class Work>
void Engine<E>::stage_worker(Queue& in, Queue& out, const char* stage, StageStats EngineStats::*stats,
                             Pick&& pick, Work&& work) {
  const bool gpu_stage = std::string_view(stage) == "gpu";
  auto stage_name = [&](const DeviceStages<E>& d) {
    return fmt::format("{} stage ({}){}", gpu_stage ? "GPU" : "G2",
                       gpu_stage ? d.gpu->name() : d.g2->name(),
                       devices_.size() > 1 ? " on " + d.state->name() : std::string());
  };
  for (;;) {
    if (!pick()) {
      check_devices();
      // Others serve: this worker's device is out, and so is the worker. None serves: every job
      // has failed, and the worker stays to drop what still reaches its queue (a partition whose
      // synthesis ended as its job failed), so that every job's items die and wait() returns.
      if (serving()) return;
    }
    if (!out.acquire_slot()) return;
    ItemPtr it = in.pop();
    if (!it) {
      out.release_slot();
      return;
    }
    if (it->stopped()) {
      out.release_slot();
      continue;
    }
    DeviceStages<E>* dev = pick();
    if (!dev) {  // the device went out of service while this worker waited (another engine saw it)
      out.release_slot();
      prove_again(std::move(it), nullptr, "");
      continue;
    }
    Job& job = *it->job;
    try {
      mark("start", stage, *it);
      const auto t0 = std::chrono::steady_clock::now();
      util::PoolRank rank(it->pool_rank());
      work(*it, *dev);
      const double dt = detail::since(t0);
      mark("end", stage, *it);
      if (gpu_stage) dev->state->ran(dt);
      {
        std::lock_guard lk(mu_);
        ++(stats_.*stats).items;
        (stats_.*stats).busy_s += dt;
        auto& ds = stats_.devices[std::size_t(dev - devices_.data())];
        if (gpu_stage)
          ++ds.gpu_items;
        else if (dev->g2_on_device)  // a G2 stage on host threads is no device's
          ++ds.g2_items;
      }
      if (it->stopped()) {
        out.release_slot();
        continue;
      }
      if (!out.push(it, true)) return;
    } catch (const DeviceFault& e) {
      out.release_slot();
      const std::string why = fmt::format("{}: {}", stage_name(*dev), e.what());
      dev->state->fail(why);
      prove_again(std::move(it), dev, why);
    } catch (const std::exception& e) {
      out.release_slot();
      fail(job, fmt::format("partition {}: {}: {}", it->index, stage_name(*dev), e.what()));
    }
  }
}

template <class E>
void Engine<E>::gpu_worker(std::size_t device) {
  DeviceStages<E>& d = devices_[device];
  stage_worker(
      *gpu_q_, *g2_q_, "gpu", &EngineStats::gpu,
      [&]() -> DeviceStages<E>* { return d.state->healthy() ? &d : nullptr; },
      [&](Item& it, DeviceStages<E>& on) {
        Job& job = *it.job;
        it.pending.emplace(job.prover->start(std::move(*it.synth), job.cost, on.gpu.get()));
        it.synth.reset();
        // Unsplit: G2 in this worker's time, on its device.
        if (!cfg_.split_g2) job.prover->run_g2(*it.pending, on.g2.get());
      });
}

// A G2 worker runs the G2 stage of device (worker mod n) while it serves (a G2 stage on host
// threads always does), else of the first device still in service.
template <class E>
void Engine<E>::g2_worker(std::size_t worker) {
  const std::size_t n = devices_.size();
  stage_worker(
      *g2_q_, *final_q_, "g2", &EngineStats::g2,
      [&, worker]() -> DeviceStages<E>* {
        for (std::size_t k = 0; k < n; ++k) {
          DeviceStages<E>& d = devices_[(worker + k) % n];
          if (d.state->healthy() || (k == 0 && !d.g2_on_device)) return &d;
        }
        return nullptr;
      },
      [&](Item& it, DeviceStages<E>& on) { it.job->prover->run_g2(*it.pending, on.g2.get()); });
}

template <class E>
void Engine<E>::finalizer() {
  for (;;) {
    ItemPtr it = final_q_->pop();
    if (!it) return;
    if (it->stopped()) continue;
    Job& job = *it->job;
    try {
      mark("start", "finalize", *it);
      const auto t0 = std::chrono::steady_clock::now();
      util::PoolRank rank(it->pool_rank());
      std::vector<Fr> pub = it->pending->publics;
      auto proof = job.prover->finish(
          std::move(*it->pending),
          fmt::format("{}: partition {}", job.spec.source->describe(), it->index));
      it->pending.reset();
      const double dt = detail::since(t0);
      mark("end", "finalize", *it);
      {
        std::lock_guard lk(mu_);
        ++stats_.finalize.items;
        stats_.finalize.busy_s += dt;
        job.proofs[it->index] = proof;
        job.publics[it->index] = std::move(pub);
      }
      it->finalized = true;
    } catch (const std::exception& e) {
      fail(job, e.what());
    }
  }
}

}  // namespace splitprove::pipeline
