#include "batch.h"

#include "errors.h"

namespace vmafexact::cli {

int batch_command(int, char**) {
  throw CliError(kExitUsage, "vmafexact batch is not built yet");
}

}  // namespace vmafexact::cli
