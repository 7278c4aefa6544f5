// `vmafexact batch MANIFEST --output-dir DIR`: every row of a manifest (or one
// task's share of it) scored as its own run of this tool, side by side,
// resumable (docs/tool.md, "Batch").
#pragma once

namespace vmafexact::cli {

// argv[0] is "batch". Returns the exit code; throws CliError for bad options
// or a bad manifest.
int batch_command(int argc, char** argv);

}  // namespace vmafexact::cli
