// Text from a Report as it goes into a document: made valid, escaped, and
// numbers printed one way for the plot and the HTML page.
#pragma once

#include <string>
#include <string_view>

namespace vmafexact::report::detail {

// Valid UTF-8 (bad bytes become U+FFFD) without control characters (each becomes
// U+FFFD too, since XML 1.0 cannot hold most of them even as references): file
// names and score names may hold anything.
std::string clean_text(std::string_view text);

// clean_text, then &, <, >, " and ' escaped: safe in XML/HTML text and in an
// attribute value between double quotes.
std::string escape_markup(std::string_view text);

// %.6g, "—" for NaN ("inf" and "-inf" as printf writes them).
std::string format_number(double value);

}  // namespace vmafexact::report::detail
