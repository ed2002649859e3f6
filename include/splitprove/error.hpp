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

}  // namespace splitprove
