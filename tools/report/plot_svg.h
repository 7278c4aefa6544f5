// The plot's SVG as elements, for the HTML page to hold inline.
#pragma once

#include <string>

#include "report.h"

namespace vmafexact::report::detail {

// The <svg> element of render_svg without the XML declaration before it.
std::string render_svg_element(const Report& report);

// The page's two figures: the scores per frame without the title (the page has
// it once) and without the rate-quality chart; the rate-quality chart alone
// (empty when there are fewer than two encodes with a bitrate and no ladder).
std::string render_scores_svg_element(const Report& report);
std::string render_rate_quality_svg_element(const Report& report);

}  // namespace vmafexact::report::detail
