#include "sws_scaler.h"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
}

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace vmafexact::gst {

namespace {

struct FormatPair {
  GstVideoFormat gst;
  AVPixelFormat av;
};

// Same plane order and sample layout on both sides (I420 is yuv420p: Y, Cb,
// Cr; P010_10LE is p010le: samples in the high bits).
constexpr std::array kFormats = {
    FormatPair{GST_VIDEO_FORMAT_I420, AV_PIX_FMT_YUV420P},
    FormatPair{GST_VIDEO_FORMAT_Y42B, AV_PIX_FMT_YUV422P},
    FormatPair{GST_VIDEO_FORMAT_Y444, AV_PIX_FMT_YUV444P},
    FormatPair{GST_VIDEO_FORMAT_I420_10LE, AV_PIX_FMT_YUV420P10LE},
    FormatPair{GST_VIDEO_FORMAT_I422_10LE, AV_PIX_FMT_YUV422P10LE},
    FormatPair{GST_VIDEO_FORMAT_Y444_10LE, AV_PIX_FMT_YUV444P10LE},
    FormatPair{GST_VIDEO_FORMAT_I420_12LE, AV_PIX_FMT_YUV420P12LE},
    FormatPair{GST_VIDEO_FORMAT_I422_12LE, AV_PIX_FMT_YUV422P12LE},
    FormatPair{GST_VIDEO_FORMAT_Y444_12LE, AV_PIX_FMT_YUV444P12LE},
    FormatPair{GST_VIDEO_FORMAT_NV12, AV_PIX_FMT_NV12},
    FormatPair{GST_VIDEO_FORMAT_P010_10LE, AV_PIX_FMT_P010LE},
    FormatPair{GST_VIDEO_FORMAT_GRAY8, AV_PIX_FMT_GRAY8},
    FormatPair{GST_VIDEO_FORMAT_GRAY16_LE, AV_PIX_FMT_GRAY16LE},
};

AVPixelFormat av_format_of(GstVideoFormat format) {
  for (const FormatPair& pair : kFormats)
    if (pair.gst == format) return pair.av;
  return AV_PIX_FMT_NONE;
}

// libswscale's option table: the `sws_flags` option and its words.
const AVClass* sws_class() { return sws_get_class(); }

const AVOption* flags_option() {
  const AVClass* klass = sws_class();
  return av_opt_find(&klass, "sws_flags", nullptr, 0, AV_OPT_SEARCH_FAKE_OBJ);
}

bool is_number(const std::string& word) {
  char* end = nullptr;
  errno = 0;
  std::strtol(word.c_str(), &end, 0);
  return errno == 0 && end && *end == '\0' && !word.empty();
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

struct FrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;

void free_nothing(void*, uint8_t*) {}

// An AVFrame over a mapped GstVideoFrame's planes, no copy. sws_scale_frame()
// takes a reference of both frames: a frame without a buffer it would copy (the
// source) or allocate anew (the destination), so a buffer that frees nothing
// stands for the GstBuffer, which stays mapped for the whole call.
FramePtr wrap(const GstVideoFrame& frame, int av_format) {
  FramePtr wrapped(av_frame_alloc());
  if (!wrapped) return nullptr;
  wrapped->format = av_format;
  wrapped->width = GST_VIDEO_FRAME_WIDTH(&frame);
  wrapped->height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(&frame); ++plane) {
    wrapped->data[plane] = static_cast<uint8_t*>(frame.data[plane]);
    wrapped->linesize[plane] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane);
  }
  wrapped->buf[0] = av_buffer_create(wrapped->data[0], GST_VIDEO_INFO_SIZE(&frame.info),
                                     free_nothing, nullptr, 0);
  if (!wrapped->buf[0]) return nullptr;
  return wrapped;
}

// The SWS_CS_ matrix of the caps' matrix, as vf_scale's parse_yuv_type()
// takes a frame's colorspace (unknown and the rest: BT.601).
int sws_colorspace(GstVideoColorMatrix matrix) {
  switch (matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709:
      return SWS_CS_ITU709;
    case GST_VIDEO_COLOR_MATRIX_FCC:
      return SWS_CS_FCC;
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M:
      return SWS_CS_SMPTE240M;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      return SWS_CS_BT2020;
    default:
      return SWS_CS_DEFAULT;
  }
}

}  // namespace

GstVideoColorimetry caps_colorimetry(const GstCaps* caps, const GstVideoInfo& info) {
  // GstVideoInfo replaces a YUV colorimetry whose matrix is unknown by the
  // size's default, limited range included; decoders write such ones
  // (avdec_h264 gives a full-range stream without a matrix "1:0:0:0").
  GstVideoColorimetry colorimetry = info.colorimetry;
  const gchar* text = gst_caps_get_size(caps) > 0
                          ? gst_structure_get_string(gst_caps_get_structure(caps, 0), "colorimetry")
                          : nullptr;
  GstVideoColorimetry parsed;
  if (text && gst_video_colorimetry_from_string(&parsed, text)) colorimetry = parsed;
  return colorimetry;
}

bool is_yuvj(GstVideoFormat format, GstVideoColorRange in_range, bool yuvj) {
  return yuvj && in_range == GST_VIDEO_COLOR_RANGE_0_255 &&
         (format == GST_VIDEO_FORMAT_I420 || format == GST_VIDEO_FORMAT_Y42B ||
          format == GST_VIDEO_FORMAT_Y444);
}

GstVideoColorRange scaled_range(GstVideoFormat format, GstVideoColorRange in_range, bool yuvj) {
  if (in_range == GST_VIDEO_COLOR_RANGE_UNKNOWN) return in_range;
  return GST_VIDEO_FORMAT_INFO_IS_GRAY(gst_video_format_get_info(format)) ||
                 is_yuvj(format, in_range, yuvj)
             ? GST_VIDEO_COLOR_RANGE_0_255
             : GST_VIDEO_COLOR_RANGE_16_235;
}

std::vector<std::string> sws_flag_words() {
  std::vector<std::string> words;
  const AVOption* flags = flags_option();
  const AVClass* klass = sws_class();
  if (!flags || !flags->unit) return words;
  for (const AVOption* option = av_opt_next(&klass, nullptr); option;
       option = av_opt_next(&klass, option))
    if (option->type == AV_OPT_TYPE_CONST && option->unit &&
        std::strcmp(option->unit, flags->unit) == 0)
      words.emplace_back(option->name);
  return words;
}

std::optional<int> parse_sws_flags(const std::string& text, std::string& error) {
  const std::vector<std::string> words = sws_flag_words();
  const std::string valid =
      "valid words: " + joined(words) + ", joined with + (e.g. \"lanczos+accurate_rnd\")";
  // Each word checked here first: av_opt_eval_flags() would print its own
  // complaint on stderr and not name the valid words.
  std::size_t start = 0;
  bool any_word = false;
  while (start <= text.size()) {
    const std::size_t end = text.find_first_of("+-", start);
    const std::string word = text.substr(start, end == std::string::npos ? end : end - start);
    if (!word.empty()) {
      any_word = true;
      bool known = is_number(word);
      for (const std::string& candidate : words) known = known || candidate == word;
      if (!known) {
        error = "flags \"" + text + "\": \"" + word + "\" is not an sws flag; " + valid;
        return std::nullopt;
      }
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (!any_word) {
    error = "flags \"" + text + "\" names no sws flag; " + valid;
    return std::nullopt;
  }
  const AVClass* klass = sws_class();
  int value = 0;
  if (av_opt_eval_flags(&klass, flags_option(), text.c_str(), &value) < 0) {
    error = "flags \"" + text + "\" cannot be read by libswscale; " + valid;
    return std::nullopt;
  }
  // libswscale takes one scaling algorithm (none: bicubic); it would refuse
  // two only when the caps come.
  constexpr int kAlgorithms = SWS_FAST_BILINEAR | SWS_BILINEAR | SWS_BICUBIC | SWS_X | SWS_POINT |
                              SWS_AREA | SWS_BICUBLIN | SWS_GAUSS | SWS_SINC | SWS_LANCZOS |
                              SWS_SPLINE;
  const unsigned algorithms = static_cast<unsigned>(value & kAlgorithms);
  if ((algorithms & (algorithms - 1)) != 0) {
    error = "flags \"" + text +
            "\" name more than one scaling algorithm; choose one of fast_bilinear, bilinear, "
            "bicubic, experimental, neighbor, area, bicublin, gauss, sinc, lanczos, spline, "
            "and add others such as accurate_rnd; " +
            valid;
    return std::nullopt;
  }
  return value;
}

std::string libswscale_version() {
  const unsigned version = swscale_version();
  return std::to_string(AV_VERSION_MAJOR(version)) + "." +
         std::to_string(AV_VERSION_MINOR(version)) + "." +
         std::to_string(AV_VERSION_MICRO(version));
}

std::string describe_scaler(const std::string& flags, bool yuvj) {
  return "vmafexactscale flags=" + flags + (yuvj ? "" : " yuvj=false") + " (libswscale " +
         libswscale_version() + ")";
}

bool sws_supports(GstVideoFormat format) {
  const AVPixelFormat av_format = av_format_of(format);
  return av_format != AV_PIX_FMT_NONE && sws_isSupportedInput(av_format) &&
         sws_isSupportedOutput(av_format);
}

const char* sws_caps_formats() {
  return "{ I420, Y42B, Y444, I420_10LE, I422_10LE, Y444_10LE, I420_12LE, I422_12LE, "
         "Y444_12LE, NV12, P010_10LE, GRAY8, GRAY16_LE }";
}

void SwsContextDeleter::operator()(SwsContext* context) const { sws_freeContext(context); }

std::unique_ptr<SwsScaler> SwsScaler::create(const GstVideoInfo& in, const GstVideoInfo& out,
                                             const GstVideoColorimetry& colorimetry, int flags,
                                             bool yuvj, std::string& error) {
  const AVPixelFormat av_format = av_format_of(GST_VIDEO_INFO_FORMAT(&in));
  if (av_format == AV_PIX_FMT_NONE || GST_VIDEO_INFO_FORMAT(&out) != GST_VIDEO_INFO_FORMAT(&in)) {
    error = std::string("format ") + gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&in)) +
            " to " + gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&out)) +
            " is not scaled (same format in and out, one of " + sws_caps_formats() + ")";
    return nullptr;
  }
  SwsContextPtr context(sws_alloc_context());
  if (!context) {
    error = "libswscale could not allocate a context (out of memory)";
    return nullptr;
  }
  // The options vf_scale sets, in its order (FFmpeg 5.1, config_props()).
  // param0/param1: the filter's defaults, libswscale's "default" value.
  // threads 0: libswscale's slices on every CPU, as the filter graph's
  // threads=auto gives it; the slices change no byte (tests/element/test_scale.cpp).
  SwsContext* sws = context.get();
  bool set = av_opt_set_int(sws, "srcw", GST_VIDEO_INFO_WIDTH(&in), 0) >= 0 &&
             av_opt_set_int(sws, "srch", GST_VIDEO_INFO_HEIGHT(&in), 0) >= 0 &&
             av_opt_set_int(sws, "src_format", av_format, 0) >= 0 &&
             av_opt_set_int(sws, "dstw", GST_VIDEO_INFO_WIDTH(&out), 0) >= 0 &&
             av_opt_set_int(sws, "dsth", GST_VIDEO_INFO_HEIGHT(&out), 0) >= 0 &&
             av_opt_set_int(sws, "dst_format", av_format, 0) >= 0 &&
             av_opt_set_int(sws, "sws_flags", flags, 0) >= 0 &&
             av_opt_set_int(sws, "param0", SWS_PARAM_DEFAULT, 0) >= 0 &&
             av_opt_set_int(sws, "param1", SWS_PARAM_DEFAULT, 0) >= 0 &&
             av_opt_set_int(sws, "threads", 0, 0) >= 0;
  // vf_scale places yuv420p's chroma MPEG-2's way (vertically between the
  // lines: 128/256) and leaves every other format at libswscale's default
  // (-513); the horizontal position stays at the default. For progressive
  // 4:2:0 the default works out to the same 128; set as vf_scale sets it all
  // the same (the tests fail with 0 here, or with 0 for the horizontal one).
  // yuvj420p is another format to vf_scale: the default (-513) there.
  const bool as_yuvj = is_yuvj(GST_VIDEO_INFO_FORMAT(&in), colorimetry.range, yuvj);
  const int v_chroma_position = av_format == AV_PIX_FMT_YUV420P && !as_yuvj ? 128 : -513;
  set = set && av_opt_set_int(sws, "src_h_chr_pos", -513, 0) >= 0 &&
        av_opt_set_int(sws, "src_v_chr_pos", v_chroma_position, 0) >= 0 &&
        av_opt_set_int(sws, "dst_h_chr_pos", -513, 0) >= 0 &&
        av_opt_set_int(sws, "dst_v_chr_pos", v_chroma_position, 0) >= 0;
  if (!set) {
    error = "libswscale refused an option of the context";
    return nullptr;
  }
  // The input's range on the context before init too: set only afterwards
  // (below), libswscale 6.7 converts 8-bit input alone, while ffmpeg 5.1's
  // pictures of a full-range 10-bit input are limited too (measured; the
  // tests compare both).
  if (colorimetry.range != GST_VIDEO_COLOR_RANGE_UNKNOWN)
    av_opt_set_int(sws, "src_range", colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255, 0);
  // A yuvj format is libswscale's non-j format with both ranges full (what it
  // makes of yuvj420p itself, without its deprecation warning on stderr).
  if (as_yuvj) av_opt_set_int(sws, "dst_range", 1, 0);
  if (sws_init_context(sws, nullptr, nullptr) < 0) {
    error = "libswscale cannot scale " + std::to_string(GST_VIDEO_INFO_WIDTH(&in)) + "x" +
            std::to_string(GST_VIDEO_INFO_HEIGHT(&in)) + " to " +
            std::to_string(GST_VIDEO_INFO_WIDTH(&out)) + "x" +
            std::to_string(GST_VIDEO_INFO_HEIGHT(&out)) + " in " +
            gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&in));
    return nullptr;
  }
  // Colour, as vf_scale sets it before each frame (its in_color_matrix is
  // "auto"): the frame's matrix on both sides (no conversion between them), the
  // frame's range as the input's where the frame says one, the output's range
  // libswscale's for the format. A full-range YUV input thus comes out limited.
  int* inv_table = nullptr;
  int* table = nullptr;
  int in_full = 0, out_full = 0, brightness = 0, contrast = 0, saturation = 0;
  if (sws_getColorspaceDetails(sws, &inv_table, &in_full, &table, &out_full, &brightness, &contrast,
                               &saturation) >= 0) {
    const int* coefficients = sws_getCoefficients(sws_colorspace(colorimetry.matrix));
    if (colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255)
      in_full = 1;
    else if (colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235)
      in_full = 0;
    sws_setColorspaceDetails(sws, coefficients, in_full, coefficients, out_full, brightness,
                             contrast, saturation);
  }
  return std::make_unique<SwsScaler>(std::move(context), av_format);
}

bool SwsScaler::scale(const GstVideoFrame& in, GstVideoFrame& out, std::string& error) const {
  const FramePtr source = wrap(in, av_format_);
  const FramePtr destination = wrap(out, av_format_);
  if (!source || !destination) {
    error = "out of memory for a frame's description";
    return false;
  }
  const int result = sws_scale_frame(context_.get(), destination.get(), source.get());
  if (result < 0) {
    std::array<char, AV_ERROR_MAX_STRING_SIZE> text{};
    av_strerror(result, text.data(), text.size());
    error = std::string("libswscale failed to scale a frame: ") + text.data();
    return false;
  }
  return true;
}

}  // namespace vmafexact::gst
