#include "svg_embed.h"

#include <glib.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace vmafexact::report::detail {
namespace {

struct Writer {
  std::string& out;
  std::string_view id_prefix;
  std::string root_geometry;  // x, y, width and height of the nested root
  int depth = 0;
  bool start_tag_open = false;  // "<name attrs" written, ">" or "/>" not yet

  void close_start_tag() {
    if (start_tag_open) out.push_back('>');
    start_tag_open = false;
  }
  void append_escaped(std::string_view text) {
    const std::unique_ptr<gchar, decltype(&g_free)> escaped(
        g_markup_escape_text(text.data(), static_cast<gssize>(text.size())), &g_free);
    out.append(escaped.get());
  }
  // An attribute value with its references to ids renamed.
  std::string renamed(std::string_view name, std::string_view value) const {
    std::string result;
    if (name == "id") {
      result.append(id_prefix).append(value);
      return result;
    }
    const bool is_href = name == "href" || name == "xlink:href";
    if (is_href && value.starts_with('#')) {
      result.append("#").append(id_prefix).append(value.substr(1));
      return result;
    }
    // url(#id) in style, clip-path, mask, fill, ...
    constexpr std::string_view kUrl = "url(#";
    std::size_t from = 0;
    for (std::size_t at; (at = value.find(kUrl, from)) != std::string_view::npos;
         from = at + kUrl.size()) {
      result.append(value.substr(from, at + kUrl.size() - from)).append(id_prefix);
    }
    result.append(value.substr(from));
    return result;
  }
};

void on_start_element(GMarkupParseContext*, const gchar* element, const gchar** names,
                      const gchar** values, gpointer data, GError**) {
  auto& writer = *static_cast<Writer*>(data);
  writer.close_start_tag();
  writer.out.append("<").append(element);
  const bool root = writer.depth == 0;
  if (root) writer.out.append(writer.root_geometry);
  for (; *names != nullptr; ++names, ++values) {
    const std::string_view name = *names;
    // The root's size and position are the page's, given above.
    if (root &&
        (name == "x" || name == "y" || name == "width" || name == "height" || name == "version")) {
      continue;
    }
    writer.out.append(" ").append(name).append("=\"");
    writer.append_escaped(writer.renamed(name, *values));
    writer.out.append("\"");
  }
  writer.start_tag_open = true;
  ++writer.depth;
}

void on_end_element(GMarkupParseContext*, const gchar* element, gpointer data, GError**) {
  auto& writer = *static_cast<Writer*>(data);
  --writer.depth;
  if (writer.start_tag_open) {
    writer.out.append("/>");
    writer.start_tag_open = false;
  } else {
    writer.out.append("</").append(element).append(">");
  }
}

void on_text(GMarkupParseContext*, const gchar* text, gsize length, gpointer data, GError**) {
  auto& writer = *static_cast<Writer*>(data);
  if (writer.depth == 0) return;  // whitespace around the root
  writer.close_start_tag();
  writer.append_escaped(std::string_view(text, length));
}

}  // namespace

void append_nested_svg(std::string& out, std::string_view document, std::string_view id_prefix,
                       double x, double y, double width, double height) {
  char geometry[160];
  std::snprintf(geometry, sizeof geometry, " x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"", x, y,
                width, height);
  Writer writer{out, id_prefix, geometry};
  // The XML declaration and comments come as passthrough: dropped.
  const GMarkupParser parser{on_start_element, on_end_element, on_text, nullptr, nullptr};
  const std::unique_ptr<GMarkupParseContext, decltype(&g_markup_parse_context_free)> context(
      g_markup_parse_context_new(&parser, static_cast<GMarkupParseFlags>(0), &writer, nullptr),
      &g_markup_parse_context_free);
  GError* error = nullptr;
  if (!g_markup_parse_context_parse(context.get(), document.data(),
                                    static_cast<gssize>(document.size()), &error) ||
      !g_markup_parse_context_end_parse(context.get(), &error)) {
    std::string message = "cairo's SVG could not be read back: ";
    message.append(error != nullptr ? error->message : "unknown error");
    g_clear_error(&error);
    throw std::runtime_error(message);
  }
}

}  // namespace vmafexact::report::detail
