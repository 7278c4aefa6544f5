// vmafexact-monitor's /metrics: the figures (figures.h) as an OpenMetrics 1.0
// text exposition, the families and samples docs/live-monitoring.md lists.
#pragma once

#include <string>

#include "figures.h"

namespace vmafexact::monitor_tool {

// The whole exposition: each family's metadata, then its samples, contiguous;
// "# EOF" last.
std::string render_metrics(const Figures& figures);

}  // namespace vmafexact::monitor_tool
