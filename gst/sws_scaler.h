// libswscale as FFmpeg 5.1's command line and `scale` filter (libavfilter/
// vf_scale.c) drive it for `ffmpeg -i IN -vf scale=W:H OUT`: the same options
// on the context (flags, param0/param1 at libswscale's defaults, the MPEG-2
// vertical chroma position that vf_scale forces for yuv420p, slice threads),
// so that the pictures are the same bytes. The vmafexactscale element's
// scaling, without GStreamer's element machinery.
#pragma once

#include <gst/video/video.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct SwsContext;

namespace vmafexact::gst {

// The words of FFmpeg's sws flags ("bicubic", "lanczos", "accurate_rnd", ...),
// as this libswscale names them, in its order.
std::vector<std::string> sws_flag_words();

// FFmpeg's sws flags syntax, as the scale filter's `flags` option takes it
// ("bicubic", "lanczos+accurate_rnd+full_chroma_int"): the flags' value, or
// nullopt and `error` saying which word is wrong and which words are valid.
std::optional<int> parse_sws_flags(const std::string& text, std::string& error);

// libswscale's version as the library loaded says it: "6.7.100".
std::string libswscale_version();

// How provenance names this scaler: "vmafexactscale flags=bicubic (libswscale 6.7.100)",
// with " yuvj=false" after the flags when it is.
std::string describe_scaler(const std::string& flags, bool yuvj = true);

// Whether the element scales this format (a planar or semi-planar YUV or
// gray format that libswscale reads and writes); the caps' format list.
bool sws_supports(GstVideoFormat format);
// The formats above, as a caps format list: "{ I420, Y42B, ... }".
const char* sws_caps_formats();

// The colorimetry the caps say, as FFmpeg's frame would carry it: the caps'
// string as it is (`info`'s where there is none or it does not parse).
GstVideoColorimetry caps_colorimetry(const GstCaps* caps, const GstVideoInfo& info);

// Whether an input is FFmpeg's yuvj420p, yuvj422p or yuvj444p: 8-bit I420,
// Y42B or Y444 in full range, with `yuvj` (the element's property) set. FFmpeg's
// H.264, HEVC and MJPEG decoders give full-range 8-bit video in these formats,
// which libswscale scales full range to full range; its VP9 and AV1 decoders
// (and -color_range pc on raw input) give yuv420p marked full range, which
// vf_scale makes limited.
bool is_yuvj(GstVideoFormat format, GstVideoColorRange in_range, bool yuvj);

// The range of the scaled pictures for an input of `format` in `in_range`:
// as vf_scale leaves it, libswscale's output range for the format (limited for
// YUV, full for gray and yuvj), the input converted to it where it differs;
// unknown stays unknown (nothing converted). Same size: the input's (no
// scaling, no conversion, as vf_scale passes such frames on).
GstVideoColorRange scaled_range(GstVideoFormat format, GstVideoColorRange in_range, bool yuvj);

struct SwsContextDeleter {
  void operator()(SwsContext* context) const;
};
using SwsContextPtr = std::unique_ptr<SwsContext, SwsContextDeleter>;

// One libswscale context from `in` to `out` (same format, other size).
class SwsScaler {
 public:
  // nullptr and `error` when libswscale refuses the sizes or the format.
  // `colorimetry` (caps_colorimetry()) gives the input's range and matrix, as
  // a frame's color_range and colorspace give them to vf_scale.
  static std::unique_ptr<SwsScaler> create(const GstVideoInfo& in, const GstVideoInfo& out,
                                           const GstVideoColorimetry& colorimetry, int flags,
                                           bool yuvj, std::string& error);

  // Scales one picture; false and `error` when libswscale fails.
  bool scale(const GstVideoFrame& in, GstVideoFrame& out, std::string& error) const;

  // An initialised context (create() makes them).
  SwsScaler(SwsContextPtr context, int av_format)
      : context_(std::move(context)), av_format_(av_format) {}

 private:
  SwsContextPtr context_;
  int av_format_;  // the AVPixelFormat of both sides
};

}  // namespace vmafexact::gst
