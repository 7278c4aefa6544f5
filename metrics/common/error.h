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

// Thrown when the device that scores fails, not the input: a GPU's call or
// kernel (out of memory, a driver error, a fault). Callers report it as a
// resource's failure rather than as a video they cannot score.
class DeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace vmafexact
