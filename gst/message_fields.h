// The fields of the element's messages besides the scores: a score of one of
// these names would overwrite the field, so such a score name is refused at
// start (settings.cpp) and the messages (reporter.h, monitor.h) set them.
#pragma once

#include <algorithm>
#include <iterator>
#include <string_view>

namespace vmafexact::gst {

inline constexpr std::string_view kMessageFields[] = {
    "index",           "pts",
    "running-time",    "stream-time",
    "duration",        "frames-scored",
    "frames-unpaired", "frames-unpaired-ref",
    "frames-unpaired-dist", "frames-paired-by-arrival-order",
    "frames-skipped-late",
    "threads",         "frames-in-flight",
    // vmafexact-window (gst/monitor.h).
    "window-start",    "window-end",      "frames",          "partial",
    "truncated",
    // Provenance: where the scores come from.
    "vmafexact-version", "libvmaf-version", "models", "backend",
    // libvmaf's aggregate metrics, summary fields of their own (psnr's apsnr).
    "apsnr_y",         "apsnr_cb",
    "apsnr_cr"};

inline bool is_message_field(std::string_view name) {
  return std::find(std::begin(kMessageFields), std::end(kMessageFields), name) !=
         std::end(kMessageFields);
}

}  // namespace vmafexact::gst
