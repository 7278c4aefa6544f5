// --ladder NAME=DIST,DIST,...: encodes of one reference at several bitrates,
// each ladder compared with the first by BD-rate (tools/report/bd_rate.h) for
// VMAF and PSNR; the table printed after the summary, the figures on the page.
#pragma once

#include <cstdio>
#include <vector>

#include "options.h"
#include "outputs.h"
#include "report.h"

namespace vmafexact::cli {

// Before the run: each ladder has 4 or more encodes (CliError kExitUsage
// otherwise, naming the ladder), and psnr is added to the features when
// missing, so that PSNR's BD-rate is there too.
Options prepare_ladders(Options options);

// After the run: each ladder with its encodes' bitrates (size * 8 / duration)
// and pooled means (the first model's score, psnr_y) from their summaries,
// found among `encodes` by path (one missing gives a point without figures,
// which BD-rate refuses with a message naming it).
std::vector<report::Ladder> run_ladders(const Options& options,
                                        const std::vector<const Outputs*>& encodes);

// The BD-rate table (report::bd_rate_table_text) with a blank line before it;
// nothing without ladders.
void print_bd_rates(std::FILE* to, const std::vector<report::Ladder>& ladders);

}  // namespace vmafexact::cli
