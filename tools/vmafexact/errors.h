// How vmafexact ends: its exit codes (docs/tool.md lists them) and the error
// that carries one up to main(), which prints it and exits with its code.
#pragma once

#include <stdexcept>
#include <string>

namespace vmafexact::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,  // a bad option or option value (the element's settings too)
  kExitInput = 2,  // an input cannot be read or decoded
  kExitNothingToCompare =
      3,  // no frame pair scored, or inputs that --no-scale / --no-rate-conversion refuse
  kExitScoring = 4,        // the pipeline or the scoring failed, or the element is missing
  kExitOutput = 5,         // an output file cannot be written
  kExitBatchFailed = 6,    // batch/merge: one or more rows failed (or are missing)
  kExitInterrupted = 130,  // SIGINT (143: SIGTERM); outputs hold what was scored
};

// `message` says what is wrong, `advice` (may be empty) how to fix it.
class CliError : public std::runtime_error {
 public:
  CliError(ExitCode code, const std::string& message, std::string advice = {})
      : std::runtime_error(message), code_(code), advice_(std::move(advice)) {}
  ExitCode code() const { return code_; }
  const std::string& advice() const { return advice_; }

 private:
  ExitCode code_;
  std::string advice_;
};

}  // namespace vmafexact::cli
