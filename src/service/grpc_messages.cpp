// The daemon's records as the v1 API's messages (service/grpc_messages.hpp), and their JSON.
#include "service/grpc_messages.hpp"

#include <google/protobuf/util/json_util.h>

#include <fmt/format.h>

#include "service/grpc_service.hpp"

namespace splitprove::service {
namespace v1 = ::splitprove::v1;

namespace grpc_messages {

void set_time(google::protobuf::Timestamp* t, Millis ms) {
  t->set_seconds(ms / 1000);
  t->set_nanos(int((ms % 1000) * 1'000'000));
}

v1::JobState to_proto(JobState s) {
  switch (s) {
    case JobState::queued: return v1::JOB_STATE_QUEUED;
    case JobState::running: return v1::JOB_STATE_RUNNING;
    case JobState::succeeded: return v1::JOB_STATE_SUCCEEDED;
    case JobState::failed: return v1::JOB_STATE_FAILED;
    case JobState::cancelled: return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

namespace {

// The stage a partition is reported in: its store state, and for a claimed partition the engine
// stage it last started (claimed but not yet in a stage: queued, e.g. waiting for the budget).
v1::Stage engine_stage(std::string_view stage) {
  if (stage == "synthesis") return v1::STAGE_SYNTHESIS;
  if (stage == "gpu") return v1::STAGE_GPU;
  if (stage == "g2") return v1::STAGE_G2;
  if (stage == "finalize") return v1::STAGE_FINISH;
  return v1::STAGE_QUEUED;
}

}  // namespace

v1::Stage stage_of(PartState s, const std::string* stage) {
  switch (s) {
    case PartState::queued: return v1::STAGE_QUEUED;
    case PartState::running: return stage ? engine_stage(*stage) : v1::STAGE_QUEUED;
    case PartState::done: return v1::STAGE_DONE;
    case PartState::failed: return v1::STAGE_FAILED;
    case PartState::dropped: return v1::STAGE_QUEUED;
  }
  return v1::STAGE_UNSPECIFIED;
}

void fill_job(v1::Job* out, const JobRecord& j, Daemon& d, bool partitions, bool results) {
  out->set_job_id(j.job_id);
  out->set_key_id(j.key_id);
  out->set_idempotency_key(j.idempotency_key.value_or(""));
  out->set_priority(j.priority);
  out->set_state(to_proto(j.state));
  out->set_partition_count(j.partition_count);
  out->set_partitions_done(j.partitions_done);
  out->set_partitions_failed(j.partitions_failed);
  set_time(out->mutable_created_at(), j.created_at);
  if (j.started_at) set_time(out->mutable_started_at(), *j.started_at);
  if (j.finished_at) {
    set_time(out->mutable_finished_at(), *j.finished_at);
    set_time(out->mutable_expires_at(),
             *j.finished_at + Millis(d.config().job_retention_hours) * 3'600'000);
  }
  out->set_error(j.error);
  out->set_spool_bytes(j.spool_bytes);
  if (j.native_seed) {
    out->mutable_native()->set_seed(*j.native_seed);
  } else {
    auto* circom = out->mutable_circom();
    for (const auto& p : j.partitions) circom->add_witness_bytes(p.witness_bytes);
  }
  if (!partitions) return;
  const auto running = d.running_partitions(j.job_id);
  for (const auto& p : j.partitions) {
    auto* ps = out->add_partitions();
    ps->set_index(p.index);
    const auto it = running.find(p.index);
    ps->set_stage(stage_of(p.state, it == running.end() ? nullptr : &it->second.stage));
    ps->set_attempts(p.attempts);
    if (p.started_at) set_time(ps->mutable_started_at(), *p.started_at);
    if (p.finished_at) set_time(ps->mutable_finished_at(), *p.finished_at);
    ps->set_error(p.error);
    if (results && p.state == PartState::done) {
      ps->set_proof_json(p.proof_json);
      ps->set_public_json(p.public_json);
    }
  }
}

void fill_key(v1::Key* out, const KeyInfo& k) {
  out->set_key_id(k.record.key_id);
  const auto curve = k.record.curve == "BN254" ? v1::CURVE_BN254 : v1::CURVE_BLS12_381;
  if (k.record.native_log2) {
    out->mutable_source()->mutable_native()->set_curve(curve);
    out->mutable_source()->mutable_native()->set_log2_size(*k.record.native_log2);
    out->set_generated_zkey_path(k.record.zkey_path);
  } else {
    out->mutable_source()->set_zkey_path(k.record.zkey_path);
  }
  out->set_curve(curve);
  out->set_log2_domain_size(k.record.log2_domain);
  out->set_constraints(k.record.constraints);
  out->set_variables(k.record.variables);
  out->set_public_signals(k.record.public_signals);
  out->set_file_bytes(k.record.file_bytes);
  set_time(out->mutable_registered_at(), k.record.registered_at);
  out->set_residency(k.resident ? v1::RESIDENCY_RESIDENT : v1::RESIDENCY_NOT_LOADED);
  out->set_host_bytes(k.host_bytes);
  if (k.last_used_at) set_time(out->mutable_last_used_at(), *k.last_used_at);
  out->set_active_jobs(k.active_jobs);
}

void fill_status(Daemon& d_, v1::GetStatusResponse* resp) {
  const auto s = d_.status();
  resp->set_version("splitprove 0.1.0");
  set_time(resp->mutable_started_at(), s.started_at);
  set_time(resp->mutable_time(), now_ms());
  resp->set_accepting(s.accepting);
  auto* b = resp->mutable_host_budget();
  b->set_total_bytes(s.budget_total);
  b->set_used_bytes(s.budget_used);
  b->set_free_bytes(s.budget_total > s.budget_used ? s.budget_total - s.budget_used : 0);
  b->set_peak_used_bytes(s.budget_peak);
  for (const auto& [tag, bytes] : s.budget_by_tag) (*b->mutable_by_stage())[tag] = bytes;
  auto* q = resp->mutable_queues();
  q->set_queued_jobs(s.counts.queued_jobs);
  q->set_running_jobs(s.counts.running_jobs);
  q->set_pending_jobs(s.counts.queued_jobs + s.counts.running_jobs);
  q->set_max_pending_jobs(d_.config().max_pending_jobs);
  q->set_queued_partitions(s.counts.queued_partitions);
  q->set_spool_bytes(s.counts.spool_bytes);
  q->set_max_spool_bytes(d_.config().max_spool_bytes);
  for (const auto& p : s.partitions) {
    auto* f = resp->add_in_flight();
    f->set_job_id(p.job_id);
    f->set_partition(p.partition);
    f->set_stage(engine_stage(p.stage));
    f->set_waiting(p.stage.empty());
    set_time(f->mutable_since(), p.since);
    f->set_gpu(-1);
  }
  for (const auto& k : s.resident_keys) fill_key(resp->add_resident_keys(), k);
  for (const auto& g : s.gpus) {
    auto* o = resp->add_gpus();
    o->set_index(g.index);
    o->set_name(g.name);
    o->set_memory_total_bytes(g.total_bytes);
    o->set_memory_free_bytes(g.free_bytes);
    auto* b = o->mutable_budget();
    b->set_total_bytes(g.budget_capacity);
    b->set_used_bytes(g.budget_used);
    b->set_free_bytes(g.budget_capacity > g.budget_used ? g.budget_capacity - g.budget_used : 0);
    b->set_peak_used_bytes(g.budget_peak);
    if (g.key_bytes) (*b->mutable_by_stage())["srs"] = g.key_bytes;
    o->set_workers(d_.config().gpu_workers);
    o->set_healthy(g.healthy);
    o->set_error(g.error);
    o->set_logical(g.logical);
    o->set_partitions(g.partitions);
    o->set_faults(g.faults);
  }
  auto* cl = resp->mutable_cluster();
  cl->set_shared(s.cluster.shared);
  cl->set_store(s.cluster.store);
  for (const auto& d : s.cluster.daemons) {
    auto* o = cl->add_daemons();
    o->set_owner(d.owner);
    o->set_host(d.host);
    o->set_listen(d.listen);
    set_time(o->mutable_started_at(), d.started_at);
    set_time(o->mutable_heartbeat_at(), d.heartbeat_at);
    o->set_running_partitions(d.running);
    o->set_alive(d.alive);
  }
  for (const auto& k : s.cluster.queues) {
    auto* o = cl->add_queues();
    o->set_key_id(k.key_id);
    o->set_queued_partitions(k.queued);
    o->set_running_partitions(k.running);
  }
  auto* m = resp->mutable_memory();
  m->set_verdict(s.memory.verdict == "bounded"        ? v1::MEMORY_VERDICT_CLASS_BOUNDED
                 : s.memory.verdict == "accumulation" ? v1::MEMORY_VERDICT_CLASS_ACCUMULATING
                 : s.memory.verdict == "leak"         ? v1::MEMORY_VERDICT_CLASS_LEAK
                                                      : v1::MEMORY_VERDICT_CLASS_UNKNOWN);
  m->set_text(s.memory.text);
  m->set_rss_bytes(s.memory.rss);
  m->set_baseline_bytes(s.memory.baseline);
  m->set_peak_bytes(s.memory.peak);
  set_time(m->mutable_peak_at(), s.memory.peak_at);
  m->set_expected_peak_bytes(s.memory.expected_peak);
  m->set_unaccounted_at_peak_bytes(s.memory.unaccounted_at_peak);
  m->set_samples(s.memory.samples);
  resp->set_jobs_succeeded(s.jobs_succeeded);
  resp->set_jobs_failed(s.jobs_failed);
  resp->set_jobs_cancelled(s.jobs_cancelled);
  resp->set_partitions_done(s.partitions_done);
}

}  // namespace grpc_messages

std::string message_json(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

std::string status_json(Daemon& daemon) {
  v1::GetStatusResponse resp;
  grpc_messages::fill_status(daemon, &resp);
  return message_json(resp);
}

}  // namespace splitprove::service
