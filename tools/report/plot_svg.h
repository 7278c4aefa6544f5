// The plot's SVG as an element, for the HTML page to hold inline.
#pragma once

#include <string>

#include "report.h"

namespace vmafexact::report::detail {

// The <svg> element of render_svg without the XML declaration before it.
std::string render_svg_element(const Report& report);

}  // namespace vmafexact::report::detail
