#pragma once
// The daemon's log: one structured line per event on stderr,
//   2026-12-05T07:40:00.123Z info event=partition_done job=0193... partition=3 attempt=1 seconds=0.412
// (UTC time, level, then key=value pairs; a value with spaces, quotes, '=' or control bytes is
// quoted, with \" and \\ escaped and control bytes as \n, \r, \t or \xNN), so `grep event=` and log
// shippers read it without a parser of ours, and no value can start a line of its own.
#include <spdlog/spdlog.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace splitprove::service {

using Field = std::pair<std::string_view, std::string>;

// Logs `event` with its fields at `level`.
void log_event(spdlog::level::level_enum level, std::string_view event, std::initializer_list<Field> fields);

// "key=value", the value quoted when it needs to be.
std::string log_field(std::string_view key, std::string_view value);

}  // namespace splitprove::service
