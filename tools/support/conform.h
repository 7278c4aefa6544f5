// Bringing a distorted video to its reference, as vmafexact scores them: the
// scoring format from the reference's decoded format, the formats the
// distorted video may be scored in, the scaler (FFmpeg's libswscale through
// vmafexactscale, or videoscale), and the caps its branch ends in, with the
// input's own colorimetry pinned. Shared by the vmafexact tool, which knows
// both inputs' caps beforehand, and vmafexact-monitor, which learns them as
// live inputs arrive (tools/monitor/channel_pipeline.cpp).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "handles.h"

namespace vmafexact::tools {

// Two inputs that cannot be scored together. what(): the problem; fix(): what to do.
class ConformError : public std::runtime_error {
 public:
  ConformError(const std::string& problem, std::string fix)
      : std::runtime_error(problem), fix_(std::move(fix)) {}
  const std::string& fix() const { return fix_; }

 private:
  std::string fix_;
};

// The format both inputs are scored in, for the reference's decoded format:
// the planar format with its bit depth and chroma subsampling (NV12 and I420
// score alike; RGB becomes 4:4:4; gray stays gray). UNKNOWN: I420.
GstVideoFormat scoring_format(GstVideoFormat ref_decoded);

// The formats the distorted video may reach vmafexact in, given the
// reference's scoring format: that format; and, as vmafexact pairs a gray
// input with a YUV one of the same bit depth by luma, a gray one too
// (videoconvert keeps a gray or YUV input on its side: converting between
// gray and YUV would change the luma's range or matrix). Throws ConformError
// for a gray input that cannot be paired so (no gray format at the other's
// bit depth); `dist_name` names the distorted video in its message.
std::vector<GstVideoFormat> dist_scoring_formats(GstVideoFormat ref_format,
                                                 GstVideoFormat dist_decoded,
                                                 const std::string& dist_name);

// Sets the caps' format field to one format, or to a list of them.
void set_formats(GstCaps* caps, const std::vector<GstVideoFormat>& formats);

// video/x-raw with the size and the formats a distorted branch ends in.
CapsPtr dist_target_caps(int width, int height, const std::vector<GstVideoFormat>& formats);

// `target` with the colorimetry and chroma siting of the `decoded` caps
// (verbatim; where they are silent, what GStreamer assumes for that size),
// so that scaling and conversion never re-matrix the input; null when
// `decoded` is not YUV video (nothing to pin). GStreamer's videoscale and
// videoconvert would otherwise pick a size-dependent default (BT.601 below
// HD, BT.709 from HD) and convert the matrix, changing the samples.
CapsPtr pin_colour(const GstCaps* target, const GstCaps* decoded);

// Sets a videoconvert of a scoring branch to convert without dithering, so
// that samples pass bit for bit where the formats' depths match (NVDEC's NV12
// or P010 into I420 or I420_10LE; a 10-bit input whose caps do not name the
// colorimetry that pin_colour() pins, which videoconvert converts although
// it is the same). Its default dither (Bayer) moves 10-bit samples by one on
// their way through 16 bits; where the depth drops it rounds without noise.
void repack_exactly(GstElement* videoconvert);

// How a distorted video of another size is scaled: --scale-method (ffmpeg
// or a videoscale method) and --scale-flags (FFmpeg's sws flags).
struct ScalerChoice {
  std::string method = "ffmpeg";
  std::string flags = "bicubic";
};

// FFmpeg's sws_flags (vmafexactscale's flags): names joined by '+' (or '-'
// to clear one), e.g. "bicubic", "lanczos+accurate_rnd". Empty when fine,
// else what is wrong.
std::string sws_flags_problem(const std::string& flags);

// Whether vmafexactscale (FFmpeg's scaling) is registered.
bool ffmpeg_scaler_available();
// Whether `choice` scales with vmafexactscale (ffmpeg, and it is registered).
bool uses_ffmpeg_scaler(const ScalerChoice& choice);
// The videoscale method for `choice`: "ffmpeg" is catrom while vmafexactscale
// is not there.
std::string videoscale_method(const ScalerChoice& choice);
// The scaler, set up as `choice` says (videoscale stretches, as FFmpeg's
// scale filter does, rather than adding borders); null when its factory is
// missing. Both pass frames of the output's size through untouched.
GstObjectPtr<GstElement> make_scaler(const ScalerChoice& choice, const char* name);

}  // namespace vmafexact::tools
