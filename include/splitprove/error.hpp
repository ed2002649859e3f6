#pragma once
// The one exception type of splitprove. Messages name the input and the place ("proof.json: pi_a[1]:
// not a decimal integer"), so the CLI can print `what()` as one line and exit non-zero.
#include <stdexcept>
#include <string>

namespace splitprove {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// A command that ran to the end but whose verdict failed (a memory report of a leak, a benchmark
// whose acceptance checks fail under --check): the CLI exits with status 3, not 1, so scripts
// tell "the check failed" from "the command failed".
class VerdictFailed : public Error {
 public:
  explicit VerdictFailed(const std::string& what) : Error(what) {}
};

// A device (a GPU, or a logical device of the pipeline) failed while it ran a stage: a CUDA
// error, a lost device, an injected fault. The pipeline takes the device out of service and proves
// the partition again on another one; other errors are the partition's own and fail its job.
class DeviceFault : public Error {
 public:
  explicit DeviceFault(const std::string& what) : Error(what) {}
};

}  // namespace splitprove
