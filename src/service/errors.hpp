#pragma once
// The service's errors: each maps to one gRPC status code (service/grpc_service.cpp).
#include <cstdio>
#include <string>
#include <string_view>

#include "splitprove/error.hpp"

namespace splitprove::service {

// What a client sent, fit to quote back in an error: at most kEchoBytes of it, control bytes and
// bytes above 0x7e as \xNN, and past the cap "…(N bytes)". A status message must stay small (a
// 131 KB id quoted whole makes the status too large for the client's metadata limit).
inline constexpr std::size_t kEchoBytes = 128;
inline std::string echo(std::string_view s) {
  std::string out;
  const std::size_t n = s.size() < kEchoBytes ? s.size() : kEchoBytes;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c <= 0x7e) {
      out += char(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (n < s.size()) out += "\u2026(" + std::to_string(s.size()) + " bytes)";
  return out;
}

// INVALID_ARGUMENT is plain splitprove::Error.
struct NotFound : Error {            // NOT_FOUND
  using Error::Error;
};
// A registered key whose file this daemon does not have (or has with other bytes): on a shared
// store its partitions are left to the daemons that have it.
struct KeyUnavailable : Error {      // NOT_FOUND
  using Error::Error;
};
struct Conflict : Error {            // FAILED_PRECONDITION
  using Error::Error;
};
struct Exhausted : Error {           // RESOURCE_EXHAUSTED
  using Error::Error;
};
struct Denied : Error {              // PERMISSION_DENIED
  using Error::Error;
};
struct Unavailable : Error {         // UNAVAILABLE
  using Error::Error;
};
struct StreamCut : Error {           // CANCELLED: the client's stream ended by cancel or deadline
  using Error::Error;
};
struct Unimplemented : Error {       // UNIMPLEMENTED
  using Error::Error;
};
struct ConstraintError : Error {     // a UNIQUE or CHECK constraint of the store (internal)
  using Error::Error;
};
struct StoreError : Error {          // INTERNAL: the store or the spool failed
  using Error::Error;
};

}  // namespace splitprove::service
