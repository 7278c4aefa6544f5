// vmafexactscale (gst/swscale_element.h) against `ffmpeg -vf scale=W:H` on
// this machine: every frame's bytes equal (==) for each format, odd sizes up
// and down, bicubic (the default) and lanczos, and the same size (passthrough);
// its negotiation and its flags. Then the vmafexact element's extra-provenance
// (gst/settings.h, gst/provenance.h): in the logs and the messages, after the
// built-in entries; a key of the built-in ones refused.
#include <glib.h>
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/pipeline_end.h"
#include "common/scratch_files.h"
#include "element_harness.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

namespace {

struct HarnessTeardown {
  void operator()(GstHarness* harness) const { gst_harness_teardown(harness); }
};
using HarnessPtr = std::unique_ptr<GstHarness, HarnessTeardown>;

struct CapsUnref {
  void operator()(GstCaps* caps) const { gst_caps_unref(caps); }
};
using CapsPtr = std::unique_ptr<GstCaps, CapsUnref>;

struct BufferUnref {
  void operator()(GstBuffer* buffer) const { gst_buffer_unref(buffer); }
};
using BufferPtr = std::unique_ptr<GstBuffer, BufferUnref>;

// Runs a program (argv[0] looked up in PATH); "" when it exits 0, else what
// it said on stderr.
std::string run_program(const std::vector<std::string>& arguments) {
  std::vector<gchar*> argv;
  for (const std::string& argument : arguments)
    argv.push_back(const_cast<gchar*>(argument.c_str()));
  argv.push_back(nullptr);
  gchar* error_text = nullptr;
  gint status = 0;
  GError* error = nullptr;
  const gboolean spawned =
      g_spawn_sync(nullptr, argv.data(), nullptr,
                   static_cast<GSpawnFlags>(G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL),
                   nullptr, nullptr, nullptr, &error_text, &status, &error);
  std::string problem;
  if (!spawned) {
    problem = std::string("cannot run ") + arguments[0] + ": " + error->message;
    g_error_free(error);
  } else if (!g_spawn_check_wait_status(status, nullptr)) {
    problem = arguments[0] + " failed: " + (error_text ? error_text : "");
  }
  g_free(error_text);
  return problem;
}

struct Format {
  GstVideoFormat gst;
  const char* ffmpeg;  // FFmpeg's pix_fmt of the same layout
};

// Each plane's visible rows: bytes a row and rows (FFmpeg's rawvideo packs
// exactly these, one plane after the other; GStreamer pads rows to 4 bytes).
std::vector<std::pair<std::size_t, std::size_t>> plane_rows(const GstVideoInfo& info) {
  std::vector<std::pair<std::size_t, std::size_t>> rows(GST_VIDEO_INFO_N_PLANES(&info));
  for (guint component = GST_VIDEO_INFO_N_COMPONENTS(&info); component-- > 0;) {
    const guint plane = GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, component);
    rows[plane] = {static_cast<std::size_t>(GST_VIDEO_INFO_COMP_WIDTH(&info, component)) *
                       GST_VIDEO_INFO_COMP_PSTRIDE(&info, component),
                   GST_VIDEO_INFO_COMP_HEIGHT(&info, component)};
  }
  return rows;
}

std::size_t packed_size(const GstVideoInfo& info) {
  std::size_t size = 0;
  for (const auto& [row_bytes, rows] : plane_rows(info)) size += row_bytes * rows;
  return size;
}

// A buffer of `info`'s layout holding one packed frame.
BufferPtr unpacked(const GstVideoInfo& info, const char* packed, GstClockTime pts) {
  BufferPtr buffer(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
  GstVideoInfo layout = info;
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &layout, buffer.get(), GST_MAP_WRITE)) return nullptr;
  const auto rows = plane_rows(info);
  for (guint plane = 0; plane < rows.size(); ++plane)
    for (std::size_t row = 0; row < rows[plane].second; ++row) {
      std::memcpy(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane)) +
                      row * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane),
                  packed, rows[plane].first);
      packed += rows[plane].first;
    }
  gst_video_frame_unmap(&frame);
  GST_BUFFER_PTS(buffer.get()) = pts;
  GST_BUFFER_DURATION(buffer.get()) = GST_SECOND / 25;
  return buffer;
}

// One frame of `info`'s layout, packed as FFmpeg's rawvideo.
std::string packed(const GstVideoInfo& info, GstBuffer* buffer) {
  GstVideoInfo layout = info;
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &layout, buffer, GST_MAP_READ)) return "<not mapped>";
  std::string bytes;
  const auto rows = plane_rows(info);
  for (guint plane = 0; plane < rows.size(); ++plane)
    for (std::size_t row = 0; row < rows[plane].second; ++row)
      bytes.append(static_cast<const char*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane)) +
                       row * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane),
                   rows[plane].first);
  gst_video_frame_unmap(&frame);
  return bytes;
}

GstVideoInfo info_of(GstVideoFormat format, int width, int height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  return info;
}

std::string caps_text(GstVideoFormat format, int width, int height) {
  return std::string("video/x-raw, format=") + gst_video_format_to_string(format) +
         ", width=" + std::to_string(width) + ", height=" + std::to_string(height) +
         ", framerate=25/1, pixel-aspect-ratio=1/1";
}

constexpr int kFrames = 2;

// The test's inputs: made once for the binary by ffmpeg (testsrc2 with noise,
// so that every sample and both chroma planes differ), kept in one scratch folder.
class Inputs {
 public:
  static Inputs& get() {
    static Inputs inputs;
    return inputs;
  }
  const ScratchFolder& folder() const { return folder_; }
  // The raw file of `kFrames` frames of `format` at width x height.
  std::filesystem::path input(const Format& format, int width, int height) {
    const std::string name = std::string(format.ffmpeg) + "-" + std::to_string(width) + "x" +
                             std::to_string(height) + ".raw";
    const auto path = folder_ / name;
    if (made_.emplace(name, true).second) {
      const std::string problem =
          run_program({"ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                       "testsrc2=size=" + std::to_string(width + width % 2) + "x" +
                           std::to_string(height + height % 2) + ":rate=25",
                       "-frames:v", std::to_string(kFrames), "-vf",
                       "noise=alls=40:allf=t,scale=" + std::to_string(width) + ":" +
                           std::to_string(height) + ",format=" + format.ffmpeg,
                       "-f", "rawvideo", path.string()});
      EXPECT_EQ(problem, "");
    }
    return path;
  }

 private:
  Inputs() : folder_("vmafexact-scale") {}
  ScratchFolder folder_;
  std::map<std::string, bool> made_;
};

// ffmpeg's frames: `ffmpeg -i IN -vf scale=W:H[:flags=F] -f rawvideo OUT`.
// `color_range`: the input's, as -color_range marks it (tv, pc), or "" (unspecified).
std::string ffmpeg_scaled(const Format& format, int width, int height, int out_width,
                          int out_height, const std::string& flags,
                          const std::string& color_range = "") {
  const auto input = Inputs::get().input(format, width, height);
  const auto output = Inputs::get().folder() /
                      ("ffmpeg-" + input.stem().string() + "-" + std::to_string(out_width) + "x" +
                       std::to_string(out_height) + "-" + flags + color_range + ".raw");
  std::string filter = "scale=" + std::to_string(out_width) + ":" + std::to_string(out_height);
  if (flags != "bicubic") filter += ":flags=" + flags;  // bicubic: the command line's default
  std::vector<std::string> command = {"ffmpeg",
                                      "-nostdin",
                                      "-v",
                                      "error",
                                      "-y",
                                      "-f",
                                      "rawvideo",
                                      "-pix_fmt",
                                      format.ffmpeg,
                                      "-s",
                                      std::to_string(width) + "x" + std::to_string(height),
                                      "-r",
                                      "25"};
  if (!color_range.empty()) command.insert(command.end(), {"-color_range", color_range});
  command.insert(command.end(), {"-i", input.string(), "-vf", filter, "-f", "rawvideo", "-pix_fmt",
                                 format.ffmpeg, output.string()});
  const std::string problem = run_program(command);
  EXPECT_EQ(problem, "");
  return read_file(output);
}

struct Scaled {
  std::vector<std::string> frames;  // packed
  bool passthrough = false;
  GstVideoColorRange range = GST_VIDEO_COLOR_RANGE_UNKNOWN;  // the output caps'
};

// The element's frames for the same input, through a harness whose
// downstream asks for out_width x out_height.
// `colorimetry`: the input caps' (e.g. "1:4:0:0", full range), or "" (none).
Scaled element_scaled(const Format& format, int width, int height, int out_width, int out_height,
                      const std::string& flags, const std::string& colorimetry = "",
                      bool yuvj = true) {
  Scaled scaled;
  const std::string input = read_file(Inputs::get().input(format, width, height));
  const GstVideoInfo in_info = info_of(format.gst, width, height);
  EXPECT_EQ(input.size(), packed_size(in_info) * kFrames);
  if (input.size() != packed_size(in_info) * kFrames) return scaled;
  // The flags before the harness starts the element: they are read at start.
  GstElement* element = gst_element_factory_make("vmafexactscale", nullptr);
  EXPECT_TRUE(element);
  if (!element) return scaled;
  g_object_set(element, "flags", flags.c_str(), "yuvj", yuvj, nullptr);
  HarnessPtr harness(gst_harness_new_with_element(element, "sink", "src"));
  gst_object_unref(element);
  std::string in_caps = caps_text(format.gst, width, height);
  if (!colorimetry.empty()) in_caps += ", colorimetry=" + colorimetry;
  gst_harness_set_src_caps_str(harness.get(), in_caps.c_str());
  gst_harness_set_sink_caps_str(harness.get(),
                                (std::string("video/x-raw, width=") + std::to_string(out_width) +
                                 ", height=" + std::to_string(out_height))
                                    .c_str());
  for (int i = 0; i < kFrames; ++i) {
    BufferPtr buffer =
        unpacked(in_info, input.data() + i * packed_size(in_info), i * GST_SECOND / 25);
    EXPECT_EQ(gst_harness_push(harness.get(), buffer.release()), GST_FLOW_OK);
    BufferPtr out(gst_harness_pull(harness.get()));
    if (!out) break;
    CapsPtr caps(gst_pad_get_current_caps(harness->sinkpad));
    GstVideoInfo out_info;
    if (!caps || !gst_video_info_from_caps(&out_info, caps.get())) break;
    scaled.range = out_info.colorimetry.range;
    scaled.frames.push_back(packed(out_info, out.get()));
  }
  scaled.passthrough = gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(harness->element));
  return scaled;
}

// Format, in size, out size, flags.
using ScaleCase = std::tuple<Format, std::pair<int, int>, std::pair<int, int>, std::string>;

class ScaleLikeFfmpeg : public ::testing::TestWithParam<ScaleCase> {};

// Every frame the same bytes as ffmpeg's.
TEST_P(ScaleLikeFfmpeg, EveryFrameIsFfmpegsBytes) {
  const auto& [format, in_size, out_size, flags] = GetParam();
  const std::string expected =
      ffmpeg_scaled(format, in_size.first, in_size.second, out_size.first, out_size.second, flags);
  const Scaled scaled =
      element_scaled(format, in_size.first, in_size.second, out_size.first, out_size.second, flags);
  const GstVideoInfo out_info = info_of(format.gst, out_size.first, out_size.second);
  ASSERT_EQ(expected.size(), packed_size(out_info) * kFrames);
  ASSERT_EQ(scaled.frames.size(), static_cast<std::size_t>(kFrames));
  EXPECT_FALSE(scaled.passthrough);
  for (int i = 0; i < kFrames; ++i) {
    const std::string want = expected.substr(i * packed_size(out_info), packed_size(out_info));
    const std::string& got = scaled.frames[i];
    ASSERT_EQ(got.size(), want.size()) << "frame " << i;
    std::size_t first_difference = 0;
    while (first_difference < got.size() && got[first_difference] == want[first_difference])
      ++first_difference;
    EXPECT_TRUE(got == want) << "frame " << i << ": first different byte at " << first_difference
                             << " of " << got.size();
  }
}

constexpr Format kI420{GST_VIDEO_FORMAT_I420, "yuv420p"};
constexpr Format kI420_10{GST_VIDEO_FORMAT_I420_10LE, "yuv420p10le"};
constexpr Format kFormats[] = {
    kI420,
    kI420_10,
    {GST_VIDEO_FORMAT_Y42B, "yuv422p"},
    {GST_VIDEO_FORMAT_I422_10LE, "yuv422p10le"},
    {GST_VIDEO_FORMAT_Y444, "yuv444p"},
    {GST_VIDEO_FORMAT_Y444_10LE, "yuv444p10le"},
    {GST_VIDEO_FORMAT_GRAY8, "gray"},
    {GST_VIDEO_FORMAT_NV12, "nv12"},
    {GST_VIDEO_FORMAT_P010_10LE, "p010le"},
};
const std::pair kDown{std::pair{1277, 719}, std::pair{640, 360}};
const std::pair kUp{std::pair{639, 359}, std::pair{1280, 720}};

std::string case_name(const ::testing::TestParamInfo<ScaleCase>& info) {
  const auto& [format, in_size, out_size, flags] = info.param;
  return std::string(gst_video_format_to_string(format.gst)) + "_" + std::to_string(in_size.first) +
         "x" + std::to_string(in_size.second) + "_to_" + std::to_string(out_size.first) + "x" +
         std::to_string(out_size.second) + "_" + flags;
}

// Every format down and up; NV12 and P010_10LE (beyond the list) down only,
// for time.
std::vector<ScaleCase> bicubic_cases() {
  std::vector<ScaleCase> cases;
  for (const Format& format : kFormats)
    for (const auto& [in_size, out_size] : {kDown, kUp})
      if (in_size == kDown.first ||
          GST_VIDEO_FORMAT_INFO_N_PLANES(gst_video_format_get_info(format.gst)) != 2)
        cases.emplace_back(format, in_size, out_size, "bicubic");
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Bicubic, ScaleLikeFfmpeg, ::testing::ValuesIn(bicubic_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Lanczos, ScaleLikeFfmpeg,
                         ::testing::Values(ScaleCase{kI420, kDown.first, kDown.second, "lanczos"},
                                           ScaleCase{kI420, kUp.first, kUp.second, "lanczos"},
                                           ScaleCase{kI420_10, kDown.first, kDown.second,
                                                     "lanczos"}),
                         case_name);

// Same size: the buffers pass through untouched, as ffmpeg's scale filter
// passes such frames on.
TEST(Scale, SameSizeIsPassthroughAndFfmpegsBytes) {
  const std::string expected = ffmpeg_scaled(kI420, 1277, 719, 1277, 719, "bicubic");
  const Scaled scaled = element_scaled(kI420, 1277, 719, 1277, 719, "bicubic");
  EXPECT_TRUE(scaled.passthrough);
  ASSERT_EQ(scaled.frames.size(), static_cast<std::size_t>(kFrames));
  EXPECT_TRUE(scaled.frames[0] + scaled.frames[1] == expected);
  EXPECT_TRUE(expected == read_file(Inputs::get().input(kI420, 1277, 719)));
}

// A range in the caps is the range a frame carries in FFmpeg: as vf_scale does,
// a full-range YUV input comes out limited (yuvj=false: yuv420p marked full
// range; 10 bits), a limited-range gray one full, and a yuvj one (8-bit
// full-range I420 with yuvj=true) full, the output caps saying so; the bytes
// are ffmpeg's.
TEST(Scale, RangeOfTheInputIsFfmpegsFramesRange) {
  struct RangeCase {
    Format format;            // ffmpeg's pix_fmt: yuvj420p for yuvj
    const char* colorimetry;  // the input caps'
    const char* color_range;  // ffmpeg's -color_range for the same
    bool yuvj;
    GstVideoColorRange out_range;
  };
  for (const RangeCase& test :
       {RangeCase{kI420, "1:4:0:0", "pc", false, GST_VIDEO_COLOR_RANGE_16_235},
        RangeCase{
            {GST_VIDEO_FORMAT_I420, "yuvj420p"}, "1:4:0:0", "", true, GST_VIDEO_COLOR_RANGE_0_255},
        RangeCase{
            {GST_VIDEO_FORMAT_Y444, "yuvj444p"}, "1:4:0:0", "", true, GST_VIDEO_COLOR_RANGE_0_255},
        RangeCase{kI420_10, "1:4:0:0", "pc", true, GST_VIDEO_COLOR_RANGE_16_235},
        RangeCase{kI420, "2:4:0:0", "tv", true, GST_VIDEO_COLOR_RANGE_16_235},
        RangeCase{{GST_VIDEO_FORMAT_GRAY8, "gray"},
                  "2:0:0:0",
                  "tv",
                  true,
                  GST_VIDEO_COLOR_RANGE_0_255}}) {
    const std::string name = std::string(test.format.ffmpeg) + " " + test.colorimetry;
    const std::string expected =
        ffmpeg_scaled(test.format, 1277, 719, 640, 360, "bicubic", test.color_range);
    const Scaled scaled =
        element_scaled(test.format, 1277, 719, 640, 360, "bicubic", test.colorimetry, test.yuvj);
    ASSERT_EQ(scaled.frames.size(), static_cast<std::size_t>(kFrames)) << name;
    EXPECT_TRUE(scaled.frames[0] + scaled.frames[1] == expected) << name;
    EXPECT_EQ(scaled.range, test.out_range) << name;
  }
  // Unmarked (-color_range left out) and limited are the same pictures.
  EXPECT_EQ(ffmpeg_scaled(kI420, 1277, 719, 640, 360, "bicubic", "tv"),
            ffmpeg_scaled(kI420, 1277, 719, 640, 360, "bicubic"));
}

// Decoded full-range encodes, as FFmpeg decodes them: H.264 as yuvj420p
// (scaled full range to full range: yuvj=true, the default), VP9 as yuv420p
// marked full range (made limited: yuvj=false). decodebin's caps carry the
// range without a matrix ("1:0:0:0"), which GstVideoInfo would replace by the
// default limited range.
TEST(Scale, FullRangeEncodesAsFfmpegDecodesAndScalesThem) {
  const ScratchFolder folder("vmafexact-scale-range");
  struct Encode {
    const char* file;
    std::vector<std::string> codec;
    bool yuvj;  // that matches ffmpeg
  };
  for (const Encode& encode :
       {Encode{"full.mp4", {"-pix_fmt", "yuvj420p", "-c:v", "libx264", "-crf", "20"}, true},
        Encode{"full.webm",
               {"-pix_fmt", "yuv420p", "-color_range", "pc", "-c:v", "libvpx-vp9", "-deadline",
                "realtime", "-cpu-used", "8", "-b:v", "300k"},
               false}}) {
    const auto file = folder / encode.file;
    std::vector<std::string> command = {"ffmpeg",    "-nostdin", "-v",
                                        "error",     "-y",       "-f",
                                        "lavfi",     "-i",       "testsrc2=size=320x180:rate=25",
                                        "-frames:v", "3"};
    command.insert(command.end(), encode.codec.begin(), encode.codec.end());
    command.push_back(file.string());
    ASSERT_EQ(run_program(command), "");
    // 160x90 I420: GStreamer's rows are FFmpeg's (no padding), so a filesink's
    // file is ffmpeg's rawvideo.
    const auto expected = folder / (std::string(encode.file) + ".ffmpeg.raw");
    ASSERT_EQ(run_program({"ffmpeg", "-nostdin", "-v", "error", "-y", "-i", file.string(), "-vf",
                           "scale=160:90", "-f", "rawvideo", expected.string()}),
              "");
    for (const bool yuvj : {true, false}) {
      const auto scaled = folder / (std::string(encode.file) + (yuvj ? ".yuvj.raw" : ".raw"));
      // In this process, not gst-launch-1.0's: under ASan the plugin can only
      // be loaded by an instrumented program.
      const vmafexact::test::PipelineEnd end = vmafexact::test::run_to_end(
          "filesrc location=\"" + file.string() + "\" ! decodebin ! vmafexactscale yuvj=" +
              (yuvj ? "true" : "false") + " ! video/x-raw,width=160,height=90 ! filesink location=\"" +
              scaled.string() + "\"",
          60 * GST_SECOND);
      ASSERT_EQ(end.message + end.details, "") << encode.file << " yuvj=" << yuvj;
      const std::string got = read_file(scaled);
      EXPECT_EQ(got.size(), 160u * 90 * 3 / 2 * 3) << encode.file;
      EXPECT_EQ(got == read_file(expected), yuvj == encode.yuvj) << encode.file << " yuvj=" << yuvj;
    }
  }
}

// ---- negotiation -----------------------------------------------------------

// The caps downstream gets for a 1280x720 1/1 I420 input when it asks for `wanted`.
std::string negotiated(const std::string& wanted, GstFlowReturn* pushed = nullptr) {
  HarnessPtr harness(gst_harness_new("vmafexactscale"));
  gst_harness_set_src_caps_str(harness.get(), caps_text(GST_VIDEO_FORMAT_I420, 1280, 720).c_str());
  gst_harness_set_sink_caps_str(harness.get(), wanted.c_str());
  const GstVideoInfo info = info_of(GST_VIDEO_FORMAT_I420, 1280, 720);
  const std::string black(packed_size(info), '\0');
  const GstFlowReturn result =
      gst_harness_push(harness.get(), unpacked(info, black.data(), 0).release());
  if (pushed) *pushed = result;
  if (result != GST_FLOW_OK) return "";
  BufferPtr out(gst_harness_pull(harness.get()));
  CapsPtr caps(gst_pad_get_current_caps(harness->sinkpad));
  if (!caps) return "";
  GstStructure* structure = gst_caps_get_structure(caps.get(), 0);
  gint width = 0, height = 0, par_n = 0, par_d = 0;
  gst_structure_get_int(structure, "width", &width);
  gst_structure_get_int(structure, "height", &height);
  gst_structure_get_fraction(structure, "pixel-aspect-ratio", &par_n, &par_d);
  return std::string(gst_structure_get_string(structure, "format")) + " " + std::to_string(width) +
         "x" + std::to_string(height) + " " + std::to_string(par_n) + "/" + std::to_string(par_d);
}

// One size given: the other keeps the display aspect ratio (as videoscale).
TEST(Scale, OneSizeFromDownstreamKeepsTheAspectRatio) {
  EXPECT_EQ(negotiated("video/x-raw, width=640"), "I420 640x360 1/1");
  EXPECT_EQ(negotiated("video/x-raw, height=540"), "I420 960x540 1/1");
}

// Both sizes given: the pixel-aspect-ratio that keeps the display aspect
// ratio (FFmpeg's output sample aspect ratio); a fixed one is kept.
TEST(Scale, BothSizesFromDownstreamSetThePixelAspectRatio) {
  EXPECT_EQ(negotiated("video/x-raw, width=640, height=480"), "I420 640x480 4/3");
  EXPECT_EQ(negotiated("video/x-raw, width=640, height=480, pixel-aspect-ratio=1/1"),
            "I420 640x480 1/1");
}

// Nothing asked: the input's size, passed through.
TEST(Scale, NoSizeFromDownstreamIsTheInputsSize) {
  EXPECT_EQ(negotiated("video/x-raw"), "I420 1280x720 1/1");
}

// The format is kept: a downstream that wants another one does not link.
TEST(Scale, AnotherFormatDownstreamIsNotNegotiated) {
  GstFlowReturn pushed = GST_FLOW_OK;
  EXPECT_EQ(negotiated("video/x-raw, format=Y444, width=640, height=360", &pushed), "");
  EXPECT_EQ(pushed, GST_FLOW_NOT_NEGOTIATED);
}

// CUDA memory (or any memory but the system's) is not taken: caps refused.
TEST(Scale, CudaMemoryIsRefusedAtCaps) {
  GstElement* element = gst_element_factory_make("vmafexactscale", nullptr);
  ASSERT_TRUE(element);
  gst_object_ref_sink(element);
  GstPad* sink = gst_element_get_static_pad(element, "sink");
  GstPad* src = gst_element_get_static_pad(element, "src");
  CapsPtr cuda(gst_caps_from_string(
      "video/x-raw(memory:CUDAMemory), format=I420, width=64, height=48, framerate=25/1"));
  CapsPtr system(
      gst_caps_from_string("video/x-raw, format=I420, width=64, height=48, framerate=25/1"));
  EXPECT_FALSE(gst_pad_query_accept_caps(sink, cuda.get()));
  EXPECT_TRUE(gst_pad_query_accept_caps(sink, system.get()));
  CapsPtr offered(gst_pad_query_caps(src, cuda.get()));
  EXPECT_TRUE(gst_caps_is_empty(offered.get()));
  gst_object_unref(sink);
  gst_object_unref(src);
  gst_object_unref(element);
}

// ---- flags -----------------------------------------------------------------

// The errors an element of `factory` posts when it goes to PAUSED after
// `configure`, and whether it got there.
std::pair<std::vector<std::string>, bool> start_errors(
    const char* factory, const std::function<void(GstElement*)>& configure) {
  GstElement* element = gst_element_factory_make(factory, nullptr);
  EXPECT_TRUE(element);
  if (!element) return {};
  gst_object_ref_sink(element);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  configure(element);
  const bool started = gst_element_set_state(element, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE;
  std::vector<std::string> errors;
  while (GstMessage* message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError* error = nullptr;
    gst_message_parse_error(message, &error, nullptr);
    errors.emplace_back(error->message);
    g_error_free(error);
    gst_message_unref(message);
  }
  gst_element_set_state(element, GST_STATE_NULL);
  gst_element_set_bus(element, nullptr);
  gst_object_unref(bus);
  gst_object_unref(element);
  return {errors, started};
}

std::pair<std::vector<std::string>, bool> start_with_flags(const char* flags) {
  return start_errors("vmafexactscale", [flags](GstElement* element) {
    g_object_set(element, "flags", flags, nullptr);
  });
}

// A wrong word fails the start with an error naming it and the valid words.
TEST(Scale, BadFlagsFailTheStartNamingTheWordAndTheValidOnes) {
  for (const auto& [flags, word] :
       {std::pair{"bicubik", "bicubik"}, std::pair{"lanczos+accurate_rnd+nope", "nope"},
        std::pair{"bicubic+lanczos", "bicubic+lanczos"}, std::pair{"", ""}}) {
    const auto [errors, started] = start_with_flags(flags);
    EXPECT_FALSE(started) << flags;
    ASSERT_EQ(errors.size(), 1u) << flags;
    EXPECT_NE(errors[0].find(std::string("\"") + word + "\""), std::string::npos) << errors[0];
    for (const char* valid : {"bicubic", "lanczos", "accurate_rnd", "full_chroma_int"})
      EXPECT_NE(errors[0].find(valid), std::string::npos) << errors[0];
  }
}

TEST(Scale, FlagsInFfmpegsSyntaxStart) {
  for (const char* flags : {"bicubic", "lanczos+accurate_rnd+full_chroma_int", "+spline",
                            "area+bitexact-accurate_rnd"}) {
    const auto [errors, started] = start_with_flags(flags);
    EXPECT_TRUE(started) << flags;
    EXPECT_TRUE(errors.empty()) << flags << ": " << (errors.empty() ? "" : errors[0]);
  }
}

// The read-only scaler property names the flags and libswscale's version.
TEST(Scale, ScalerPropertyNamesFlagsAndLibswscaleVersion) {
  GstElement* element = gst_element_factory_make("vmafexactscale", nullptr);
  ASSERT_TRUE(element);
  gst_object_ref_sink(element);
  const auto scaler = [element] {
    gchar* text = nullptr;
    g_object_get(element, "scaler", &text, nullptr);
    std::string scaler = text ? text : "";
    g_free(text);
    return scaler;
  };
  EXPECT_TRUE(
      g_regex_match_simple("^vmafexactscale flags=bicubic \\(libswscale \\d+\\.\\d+\\.\\d+\\)$",
                           scaler().c_str(), GRegexCompileFlags(0), GRegexMatchFlags(0)))
      << scaler();
  g_object_set(element, "flags", "lanczos", nullptr);
  EXPECT_TRUE(scaler().starts_with("vmafexactscale flags=lanczos (libswscale ")) << scaler();
  g_object_set(element, "yuvj", FALSE, nullptr);
  EXPECT_TRUE(scaler().starts_with("vmafexactscale flags=lanczos yuvj=false (libswscale "))
      << scaler();
  gst_object_unref(element);
}

// ---- extra-provenance (the vmafexact element) --------------------------------

constexpr unsigned kWidth = 64, kHeight = 48;

GstStructure* run_provenance() {
  return gst_structure_new("run", "date", G_TYPE_STRING, "2026-01-02T03:04:05Z", "scaler",
                           G_TYPE_STRING, "vmafexactscale flags=bicubic (libswscale 6.7.100)",
                           "reference_size_bytes", G_TYPE_UINT64, G_GUINT64_CONSTANT(123456),
                           nullptr);
}

// Scores 4 pairs with `properties`, extra-provenance set to `provenance`;
// the messages posted.
std::vector<MessagePtr> score_with(const std::string& properties, GstStructure* provenance) {
  ElementHarness harness(properties.c_str(), [provenance](GstElement* element) {
    g_object_set(element, "extra-provenance", provenance, nullptr);
  });
  gst_structure_free(provenance);
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, kWidth, kHeight),
                   caps_string(GST_VIDEO_FORMAT_I420, kWidth, kHeight));
  const Frames frames = make_frames(4, kWidth, kHeight, 8, ChromaFormat::k420);
  for (unsigned i = 0; i < 4; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  EXPECT_TRUE(harness.wait_for_eos());
  return harness.drain_messages();
}

const std::vector<std::pair<std::string, std::string>> kExtra = {
    {"date", "2026-01-02T03:04:05Z"},
    {"scaler", "vmafexactscale flags=bicubic (libswscale 6.7.100)"},
    {"reference_size_bytes", "123456"}};

// In order after the built-in entries, in the JSON log; as strings in the
// summary and window messages.
TEST(ExtraProvenance, FollowsTheBuiltinEntriesInTheLogAndTheMessages) {
  const ScratchFolder folder("vmafexact-provenance");
  const auto log = folder / "scores.json";
  const auto messages =
      score_with("threads=1 window=2f log-location=" + log.string(), run_provenance());
  EXPECT_TRUE(message_texts(messages, GST_MESSAGE_ERROR).empty())
      << joined(message_texts(messages, GST_MESSAGE_ERROR));
  const auto parsed = nlohmann::ordered_json::parse(read_file(log));
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [key, value] : parsed.at("provenance").items())
    entries.emplace_back(key, value.get<std::string>());
  ASSERT_EQ(entries.size(), 5u + kExtra.size());
  EXPECT_EQ(entries[0].first, "vmafexact-version");
  EXPECT_EQ(entries[4].first, "threads");
  EXPECT_EQ(std::vector(entries.begin() + 5, entries.end()), kExtra);

  const auto summary = element_messages(messages, "vmafexact-summary");
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_EQ(summary.size(), 1u);
  ASSERT_FALSE(windows.empty());
  for (const GstStructure* message : {summary[0], windows[0]})
    for (const auto& [key, text] : kExtra) {
      const gchar* field = gst_structure_get_string(message, key.c_str());
      EXPECT_EQ(field ? field : "<none>", text) << gst_structure_get_name(message) << " " << key;
    }
}

// In the XML log's <provenance> too, after threads.
TEST(ExtraProvenance, FollowsTheBuiltinEntriesInTheXmlLog) {
  const ScratchFolder folder("vmafexact-provenance");
  const auto log = folder / "scores.xml";
  const auto messages = score_with("threads=1 log-location=" + log.string(), run_provenance());
  EXPECT_TRUE(message_texts(messages, GST_MESSAGE_ERROR).empty());
  const std::string xml = read_file(log);
  const auto threads = xml.find(
      "threads=\"1\" date=\"2026-01-02T03:04:05Z\" scaler=\""
      "vmafexactscale flags=bicubic (libswscale 6.7.100)\" "
      "reference_size_bytes=\"123456\" />");
  EXPECT_NE(threads, std::string::npos) << xml.substr(0, 600);
}

// A key of the built-in provenance is refused at start, the error naming it.
TEST(ExtraProvenance, ABuiltinKeyIsRefusedNamingIt) {
  for (const char* key : {"models", "vmafexact-version", "threads"}) {
    const auto [errors, started] = start_errors("vmafexact", [key](GstElement* element) {
      GstStructure* provenance = gst_structure_new("run", key, G_TYPE_STRING, "mine", nullptr);
      g_object_set(element, "extra-provenance", provenance, nullptr);
      gst_structure_free(provenance);
    });
    EXPECT_FALSE(started) << key;
    ASSERT_EQ(errors.size(), 1u) << key;
    EXPECT_NE(
        errors[0].find("Invalid extra-provenance property: the key '" + std::string(key) + "'"),
        std::string::npos)
        << errors[0];
  }
  // A key of its own starts.
  const auto [errors, started] = start_errors("vmafexact", [](GstElement* element) {
    GstStructure* provenance = run_provenance();
    g_object_set(element, "extra-provenance", provenance, nullptr);
    gst_structure_free(provenance);
  });
  EXPECT_TRUE(started);
  EXPECT_TRUE(errors.empty());
}

// Read back: the same fields, in order, each as text.
TEST(ExtraProvenance, ReadsBackAsText) {
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  ASSERT_TRUE(element);
  gst_object_ref_sink(element);
  GstStructure* provenance = run_provenance();
  g_object_set(element, "extra-provenance", provenance, nullptr);
  gst_structure_free(provenance);
  GstStructure* read = nullptr;
  g_object_get(element, "extra-provenance", &read, nullptr);
  ASSERT_TRUE(read);
  EXPECT_STREQ(gst_structure_get_name(read), "run");
  ASSERT_EQ(gst_structure_n_fields(read), static_cast<gint>(kExtra.size()));
  for (std::size_t i = 0; i < kExtra.size(); ++i) {
    EXPECT_EQ(gst_structure_nth_field_name(read, static_cast<guint>(i)), kExtra[i].first);
    EXPECT_STREQ(gst_structure_get_string(read, kExtra[i].first.c_str()), kExtra[i].second.c_str());
  }
  gst_structure_free(read);
  gst_object_unref(element);
}

}  // namespace
