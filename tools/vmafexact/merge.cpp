#include "merge.h"

#include "errors.h"

namespace vmafexact::cli {

int merge_command(int, char**) {
  throw CliError(kExitUsage, "vmafexact merge is not built yet");
}

}  // namespace vmafexact::cli
