#pragma once
// The service's errors: each maps to one gRPC status code (service/grpc_service.cpp).
#include "splitprove/error.hpp"

namespace splitprove::service {

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
