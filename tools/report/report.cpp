#include "report.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "output/output_file.h"

namespace vmafexact::report {
namespace {

bool equals_ignoring_case(std::string_view text, std::string_view lower) {
  return std::ranges::equal(
      text, lower, [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// Renders first, so that a failure to draw leaves no file, then writes whole.
template <typename Render>
void write_rendered(const std::string& path, Render render) {
  std::string bytes;
  try {
    bytes = render();
  } catch (const std::exception& error) {
    throw std::runtime_error("cannot write " + path + ": " + error.what());
  }
  // Through the project's output writer: a file replaced whole, a device or
  // FIFO written in place (vmafexact::Error, a std::runtime_error).
  output::write_output(path, bytes);
}

}  // namespace

std::optional<PlotFormat> plot_format_for(std::string_view path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (equals_ignoring_case(extension, ".svg")) return PlotFormat::svg;
  if (equals_ignoring_case(extension, ".png")) return PlotFormat::png;
  return std::nullopt;
}

void write_plot(const Report& report, const std::string& path) {
  const std::optional<PlotFormat> format = plot_format_for(path);
  if (!format) {
    throw std::runtime_error("cannot write " + path +
                             ": unknown plot format; name the file .svg or .png");
  }
  write_rendered(
      path, [&] { return *format == PlotFormat::svg ? render_svg(report) : render_png(report); });
}

void write_html(const Report& report, const std::string& path) {
  write_rendered(path, [&] { return render_html(report); });
}

}  // namespace vmafexact::report
