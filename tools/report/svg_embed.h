// Places SVG documents that cairo drew inside another SVG document.
#pragma once

#include <string>
#include <string_view>

namespace vmafexact::report::detail {

// Appends `document` (a whole SVG document, e.g. from cairo's SVG surface) to
// `out` as a nested <svg> element at (x, y), `width` x `height` user units. It is
// parsed with GLib's GMarkup and written out again: its XML declaration dropped,
// its root's size replaced, and every id (and every reference to one: href="#id",
// url(#id)) prefixed with `id_prefix`, so that several documents from cairo, each
// numbering its glyphs and clips from 1, can share one page.
// std::runtime_error when `document` is not well-formed.
void append_nested_svg(std::string& out, std::string_view document, std::string_view id_prefix,
                       double x, double y, double width, double height);

}  // namespace vmafexact::report::detail
