// `vmafexact merge DIR`: the rows a batch wrote into DIR gathered into one
// CSV and JSON summary and the HTML report (docs/tool.md, "Merge").
#pragma once

namespace vmafexact::cli {

// argv[0] is "merge". Returns the exit code; throws CliError.
int merge_command(int argc, char** argv);

}  // namespace vmafexact::cli
