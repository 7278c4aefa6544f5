// The rate-quality section of the HTML page: the ladders' points and their
// BD-rates (Report::rate_quality). Implemented in rate_quality.cpp (the --ladder
// code); the page (html.cpp) calls it after the rate-quality chart.
#pragma once

#include <string>

#include "report.h"

namespace vmafexact::report::detail {

// Appends the section's markup (polyglot XHTML, as the rest of the page: every
// text through escape_markup) to `out`; nothing when report.rate_quality is empty.
void append_rate_quality_section(std::string& out, const Report& report);

}  // namespace vmafexact::report::detail
