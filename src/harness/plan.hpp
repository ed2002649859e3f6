#pragma once
// `splitprove plan`: the model's answer for one configuration, before anything runs: the predicted
// peak, and the largest concurrency (synthesis workers, jobs in flight) that fits the budget.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "mem/model.hpp"

namespace splitprove::harness {

using mem::PipelineConfig;
using mem::Policy;
using mem::Prediction;

struct Plan {
  PipelineConfig config;
  Policy policy = Policy::splitprove;
  Prediction prediction;  // of `config` as given (capped by the budget if there is one)
  // With the budget (config.budget > 0); 0: not even 1 fits; kPlanNoLimit: no limit up to it.
  std::uint32_t largest_pw = 0;
  std::uint32_t largest_jobs = 0;
};
inline constexpr std::uint32_t kPlanNoLimit = 1024;

Plan make_plan(const PipelineConfig& c, Policy policy);
std::string format_plan(const Plan& p);
nlohmann::json to_json(const Plan& p);

}  // namespace splitprove::harness
