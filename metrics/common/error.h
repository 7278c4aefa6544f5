#pragma once

#include <stdexcept>
#include <string>

namespace vmafexact {

// Thrown for input the metrics cannot score (bad sizes, unknown names, broken
// model files). The message names the problem and, where there is one, the fix.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace vmafexact
