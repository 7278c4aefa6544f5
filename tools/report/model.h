// Reading a Report the way every document drawn from it does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report.h"

namespace vmafexact::report::detail {

// The encodes in order.
std::vector<const Encode*> encodes_of(const Report& report);

// The score the summary, the rate-quality chart and the worst frames call VMAF:
// the first model's score of the encodes, else the first score; "vmaf" when none.
std::string quality_score(const std::vector<const Encode*>& encodes);

// nullptr when the encode has no score of that name.
const Series* find_series(const Encode& encode, std::string_view name);
const Pooled* find_pooled(const Encode& encode, std::string_view name);

}  // namespace vmafexact::report::detail
