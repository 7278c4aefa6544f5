// What the two inputs hold, learnt before anything is scored: size, sample
// format, frame rate and duration, from GstDiscoverer for files GStreamer can
// read, from the options and the file size for raw files.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "options.h"
#include "support/nvdec.h"
#include "support/y4m.h"

namespace vmafexact::cli {

struct VideoInput {
  std::string role;  // "reference" or "distorted"
  std::string path;
  std::string uri;  // files GStreamer reads (not raw)
  bool raw = false;
  // A YUV4MPEG2 file (read by vmafexact, not GStreamer): its reader, header
  // read and frames counted at discovery, positioned at the first frame.
  std::shared_ptr<tools::Y4mReader> y4m;
  int width = 0;
  int height = 0;
  // The sample format the decoder (or the raw file) delivers; UNKNOWN when
  // it could not be learnt (then I420 is assumed for the reference).
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  Fraction framerate{0, 1};  // 0/1: unknown or variable
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  std::string codec;       // what the file holds, e.g. "H.264 (High Profile)"; raw: "raw"
  guint64 raw_frames = 0;  // raw and y4m: whole frames in the file
  // The compressed stream's caps as the discoverer reports them (e.g.
  // "video/x-h264, profile=high, ..."); empty for raw video, raw and y4m files.
  std::string stream_caps;
  // --backend cuda: the NVDEC decoder chosen for it (see choose_decoders), or why none.
  tools::NvdecChoice nvdec;

  // "640x360 I420, 24 fps, 1.00 s".
  std::string description() const;
};

// Learns what the input holds. Throws CliError(kExitInput) when it cannot be
// read (missing, unreadable, not a video, no video stream, a plugin missing).
// A raw input's frame rate is left unset when not given (see
// settle_raw_framerates).
VideoInput discover_input(const InputOptions& options, const std::string& role);

// A raw input without --framerate takes the other input's rate when that is
// known, else 24/1; its duration follows.
void settle_raw_framerates(VideoInput& ref, VideoInput& dist, const InputOptions& ref_options,
                           const InputOptions& dist_options);

// The format both inputs are scored in: the planar format with the
// reference's bit depth and chroma subsampling (NV12 and I420 score alike;
// RGB becomes 4:4:4).
GstVideoFormat scoring_format(const VideoInput& ref);

// The formats the distorted video may reach vmafexact in, given the
// reference's scoring format: that format; and, as vmafexact pairs a gray
// input with a YUV one of the same bit depth by luma, a gray one too
// (videoconvert keeps a gray or YUV input on its side: converting between
// gray and YUV would change the luma's range or matrix). Throws
// CliError(kExitNothingToCompare) for a gray input that cannot be paired
// so (no gray format at the other's bit depth).
std::vector<GstVideoFormat> dist_scoring_formats(GstVideoFormat ref_format, const VideoInput& dist);

// With --backend cuda, each encoded input's NVDEC decoder (tools/support/nvdec.h),
// decided before anything plays; where none takes an input, a note (unless
// --quiet) says why and that the CPU decodes it. Nothing for other backends.
void choose_decoders(const Options& options, VideoInput& input);

// The provenance's `reference_decoder` / `distorted_decoder`: "nvh264dec
// (NVDEC)", "GStreamer's choice (CPU)", "rawvideoparse" or "vmafexact's y4m reader".
std::string decoder_description(const VideoInput& input);

// "1:23.456" or "unknown".
std::string duration_text(GstClockTime duration);

}  // namespace vmafexact::cli
