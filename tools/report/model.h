// Reading a Report the way every document drawn from it does.
#pragma once

#include <string_view>
#include <vector>

#include "report.h"

namespace vmafexact::report::detail {

// The encodes in order.
std::vector<const Encode*> encodes_of(const Report& report);

// nullptr when the encode has no score of that name.
const Series* find_series(const Encode& encode, std::string_view name);
const Pooled* find_pooled(const Encode& encode, std::string_view name);

}  // namespace vmafexact::report::detail
