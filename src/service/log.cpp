#include "service/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

namespace splitprove::service {
namespace {

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> l = [] {
    auto lg = std::make_shared<spdlog::logger>("splitprove", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    lg->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
    lg->flush_on(spdlog::level::info);  // a line is on disk before the next event (crash tests read it)
    return lg;
  }();
  return *l;
}

}  // namespace

std::string log_field(std::string_view key, std::string_view value) {
  bool quote = value.empty();
  for (char c : value) quote = quote || c == ' ' || c == '"' || c == '=' || c == '\\' || c == '\n';
  std::string out(key);
  out += '=';
  if (!quote) return out + std::string(value);
  out += '"';
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + '"';
}

void log_event(spdlog::level::level_enum level, std::string_view event, std::initializer_list<Field> fields) {
  std::string line = log_field("event", event);
  for (const auto& [k, v] : fields) line += ' ' + log_field(k, v);
  logger().log(level, line);
}

}  // namespace splitprove::service
