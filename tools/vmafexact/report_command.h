// `vmafexact report LOG.json [LOG.json ...] --html OUT.html [--plot OUT.svg]
// [--plot-scores LIST] [--worst-frames N] [--ladder NAME=LOG,LOG,...]`: the page
// (and plot) of earlier runs rebuilt from their JSON logs without scoring again
// (docs/report.md). The logs' provenance gives each input's size, duration,
// codec and bitrate; the worst frames are listed without pictures.
#pragma once

namespace vmafexact::cli {

// argv[0] is "report". Returns the exit code; throws CliError (usage: bad
// options; input: a log that cannot be read or is not a vmafexact JSON log;
// output: a file that cannot be written).
int report_command(int argc, char** argv);

}  // namespace vmafexact::cli
