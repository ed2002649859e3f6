#pragma once
// The daemon's records as the v1 API's messages (proto/splitprove/v1/prover.proto): jobs, keys and
// GetStatus, filled from the daemon (service/grpc_messages.cpp). Internal to the service layer: the
// gRPC service (service/grpc_service.cpp) and the HTTP /status page use them.
#include <google/protobuf/timestamp.pb.h>

#include "service/daemon.hpp"
#include "service/store.hpp"
#include "splitprove/v1/prover.pb.h"

namespace splitprove::service::grpc_messages {

void set_time(google::protobuf::Timestamp* t, Millis ms);
::splitprove::v1::JobState to_proto(JobState s);
// A partition's stage: its store state, and for a claimed partition the engine stage it is in.
::splitprove::v1::Stage stage_of(PartState s, const std::string* stage);
// A job, with its partitions (and their results) when asked.
void fill_job(::splitprove::v1::Job* out, const JobRecord& j, Daemon& d, bool partitions, bool results);
void fill_key(::splitprove::v1::Key* out, const KeyInfo& k);
void fill_status(Daemon& d, ::splitprove::v1::GetStatusResponse* resp);

}  // namespace splitprove::service::grpc_messages
