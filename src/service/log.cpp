#include "service/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <fmt/format.h>

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
  // A value comes from clients too (a Cancel reason, an idempotency key): a control byte (CR, LF,
  // ESC, NUL, ...) is written as an escape, never raw, so no value can forge or hide a line.
  auto control = [](unsigned char c) { return c < 0x20 || c == 0x7f; };
  bool quote = value.empty();
  for (char c : value)
    quote = quote || c == ' ' || c == '"' || c == '=' || c == '\\' || control(static_cast<unsigned char>(c));
  std::string out(key);
  out += '=';
  if (!quote) return out + std::string(value);
  out += '"';
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (control(c)) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += ch;
    }
  }
  return out + '"';
}

void log_event(spdlog::level::level_enum level, std::string_view event, std::initializer_list<Field> fields) {
  std::string line = log_field("event", event);
  for (const auto& [k, v] : fields) line += ' ' + log_field(k, v);
  logger().log(level, line);
}

}  // namespace splitprove::service
