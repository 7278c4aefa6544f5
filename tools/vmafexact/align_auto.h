// --align auto: how many frames the distorted video's start is off from the
// reference's, found from the pictures themselves (docs/tool.md, "Lining up
// automatically").
//
// The core (estimate_offset) compares two sequences of small luma thumbnails
// and needs no GStreamer, so that it is unit-tested on synthetic sequences;
// the front (align_automatically) decodes the first seconds of both inputs
// into such thumbnails and turns the offset found into a --dist-delay.
#pragma once

#include <gst/gst.h>

#include <span>
#include <string>
#include <vector>

#include "inputs.h"
#include "options.h"

namespace vmafexact::cli {

// One frame's luma, shrunk to a few thousand samples (the front makes them
// kThumbnailWidth x kThumbnailHeight, row by row), in 8-bit levels (0-255)
// whatever the input's bit depth.
using Thumbnail = std::vector<double>;

inline constexpr int kThumbnailWidth = 64;
inline constexpr int kThumbnailHeight = 36;

// What estimate_offset() found.
struct OffsetEstimate {
  // Distorted frame i shows reference frame i + offset: > 0, the distorted
  // video lacks the reference's first `offset` frames; < 0, it has -offset
  // frames more than the reference at its start.
  int offset = 0;
  // In [0, 1]: how much better the offset fits than the best one more than a
  // frame away from it, lowered when the pictures hardly change (then every
  // offset fits alike).
  double confidence = 0;
  int bound = 0;   // offsets tried: -bound..bound (the bound asked for, or less
                   // where the sequences are too short for it)
  int window = 0;  // frame pairs compared at every offset
  // The mean change between consecutive thumbnails, in levels per sample, of
  // the less moving of the two sequences (the smaller, the less certain).
  double motion = 0;
  bool static_content = false;  // motion below kStaticMotion
  bool at_bound = false;        // the offset is ±bound: the true one may lie beyond
  // The cost of every offset tried (costs[offset + bound]), in [0, 1]: lower
  // fits better.
  std::vector<double> costs;
};

// Below this mean change between consecutive thumbnails (levels per sample),
// the content counts as static.
inline constexpr double kStaticMotion = 0.25;

// The fewest frame pairs an offset is judged on.
inline constexpr int kMinAlignWindow = 8;

// Finds the offset in -bound..bound at which `dist` fits `ref` best. Every
// offset is judged on the same number of frame pairs (the window: the shorter
// sequence's length less the bound), by two measures that encoding loss and a
// brightness or contrast change leave alone: the mean absolute difference of
// the thumbnails after each is brought to mean 0 and deviation 1, and the
// correlation of the changes from frame to frame. The bound is lowered where
// the sequences are shorter than bound + kMinAlignWindow. Deterministic: ties
// go to the smaller |offset|, then to the negative one. Throws
// std::invalid_argument when the thumbnails are empty or differ in size.
OffsetEstimate estimate_offset(std::span<const Thumbnail> ref, std::span<const Thumbnail> dist,
                               int bound);

// Below this confidence the offset is reported with a warning.
inline constexpr double kLowAlignConfidence = 0.5;

// The seconds of each input decoded (besides the range) to judge an offset.
inline constexpr double kAlignWindowSeconds = 5.0;

// The offset found for one distorted video, and how it is applied.
struct AutoAlignment {
  OffsetEstimate estimate;
  Fraction rate;  // the offset's frames are the reference's, at its rate
  // The offset as --dist-delay takes it (seconds; the opposite sign of
  // `estimate.offset`): exactly the reference's timestamp of that frame, so
  // that the same frames are dropped as by --dist-delay with that value.
  double dist_delay = 0;
};

// Lines distorted videos up with one reference, whose thumbnails are decoded
// once, on the first align(), for all of them (as align_automatically() says).
class AutoAligner {
 public:
  // Throws CliError(kExitUsage) when the reference's frame rate is unknown.
  AutoAligner(const VideoInput& ref, double range_seconds, GstClockTime timeout = 60 * GST_SECOND);
  AutoAlignment align(const VideoInput& dist);

 private:
  const VideoInput& ref_;
  GstClockTime timeout_;
  int bound_ = 0;           // frames searched either way
  std::size_t frames_ = 0;  // frames decoded of each input
  bool ref_read_ = false;
  std::vector<Thumbnail> ref_thumbnails_;
};

// Decodes the first kAlignWindowSeconds + `range_seconds` of both inputs into
// thumbnails (the distorted video's frames picked to the reference's rate by
// their timestamps when the rates differ) and estimates the offset within
// ±`range_seconds`. Throws CliError: kExitUsage when the reference's frame
// rate is unknown (variable), kExitInput when an input cannot be decoded or
// gives no frame for `timeout`, kExitNothingToCompare when either holds
// fewer than kMinAlignWindow + 1 frames.
AutoAlignment align_automatically(const VideoInput& ref, const VideoInput& dist,
                                  double range_seconds, GstClockTime timeout = 60 * GST_SECOND);

// "DIST starts 5 frames (0.208 s) later than REF (REF's first 5 frames are
// not in it), confidence 0.97; scored as with --dist-delay -0.208333333".
std::string alignment_summary(const AutoAlignment& alignment);

// "" when the offset is certain; else what to check, e.g. "automatic alignment
// is unsure (confidence 0.12): different content? a scene with little motion?
// ...".
std::string alignment_warning(const AutoAlignment& alignment, double range_seconds);

// For the logs' provenance (key `alignment`): "dist-delay -5 frames
// (-0.208 s), auto, confidence 0.97".
std::string alignment_provenance(const AutoAlignment& alignment);

}  // namespace vmafexact::cli
