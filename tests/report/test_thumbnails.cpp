// Thumbnails of the worst frames (tools/vmafexact/thumbnails.h): the selector
// keeps the N lowest scores, the ring the latest pictures, and a capture on an
// element with ref_sink and dist_sink pads keeps, over a long run, at most
// N + ring size pictures per input, each the right frame's.
#include <cairo.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "thumbnails.h"

namespace {

using vmafexact::cli::encode_png;
using vmafexact::cli::Picture;
using vmafexact::cli::PictureRing;
using vmafexact::cli::ThumbnailCapture;
using vmafexact::cli::WorstFrameSelector;

// A PNG's pixels as packed RGB (cairo); empty when it does not decode.
Picture decode_png(const std::string& png) {
  struct Reader {
    const std::string* bytes;
    std::size_t at = 0;
  } reader{&png};
  cairo_surface_t* image = cairo_image_surface_create_from_png_stream(
      [](void* closure, unsigned char* data, unsigned int length) {
        auto* source = static_cast<Reader*>(closure);
        if (source->at + length > source->bytes->size()) return CAIRO_STATUS_READ_ERROR;
        std::copy_n(source->bytes->data() + source->at, length, data);
        source->at += length;
        return CAIRO_STATUS_SUCCESS;
      },
      &reader);
  Picture picture;
  if (cairo_surface_status(image) == CAIRO_STATUS_SUCCESS) {
    cairo_surface_flush(image);
    picture.width = cairo_image_surface_get_width(image);
    picture.height = cairo_image_surface_get_height(image);
    const int stride = cairo_image_surface_get_stride(image);
    const unsigned char* data = cairo_image_surface_get_data(image);
    for (int row = 0; row < picture.height; ++row) {
      const auto* pixels = reinterpret_cast<const std::uint32_t*>(data + row * stride);
      for (int column = 0; column < picture.width; ++column) {
        picture.rgb.push_back(static_cast<std::uint8_t>(pixels[column] >> 16));
        picture.rgb.push_back(static_cast<std::uint8_t>(pixels[column] >> 8));
        picture.rgb.push_back(static_cast<std::uint8_t>(pixels[column]));
      }
    }
  }
  cairo_surface_destroy(image);
  return picture;
}

Picture grey(int value) {
  return {4, 2, std::vector<std::uint8_t>(4 * 2 * 3, static_cast<std::uint8_t>(value))};
}

TEST(Thumbnails, SelectorKeepsTheLowestScores) {
  WorstFrameSelector selector(5);
  std::mt19937 random(41);
  std::uniform_real_distribution<double> scores(0, 100);
  std::vector<std::pair<double, std::uint64_t>> all;
  for (std::uint64_t frame = 0; frame < 20000; ++frame) {
    const double score = frame % 1000 == 7 ? 12.5 : scores(random);  // ties, early frames win
    all.emplace_back(score, frame);
    if (selector.wants(frame, score)) selector.offer({frame, score, grey(1), grey(2)});
    ASSERT_LE(selector.kept(), 5U);
  }
  selector.offer({99999, NAN, {}, {}});  // never kept
  std::sort(all.begin(), all.end());
  const auto worst = selector.worst();
  ASSERT_EQ(worst.size(), 5U);
  for (std::size_t at = 0; at < worst.size(); ++at) {
    EXPECT_EQ(worst[at].score, all[at].first);
    EXPECT_EQ(worst[at].frame, all[at].second);
    EXPECT_EQ(worst[at].reference.rgb.size(), 24U);
  }
  WorstFrameSelector none(0);
  EXPECT_FALSE(none.wants(0, 1));
}

TEST(Thumbnails, RingHoldsTheLatestAndFindsTheNearest) {
  PictureRing ring(3);
  for (int frame = 0; frame < 10; ++frame) ring.put(frame * 40'000'000ULL, grey(frame));
  EXPECT_EQ(ring.size(), 3U);
  EXPECT_FALSE(ring.nearest(6 * 40'000'000ULL, 20'000'000));  // gone
  const auto found = ring.nearest(8 * 40'000'000ULL + 15'000'000, 20'000'000);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->rgb[0], 8);
  EXPECT_FALSE(ring.nearest(20 * 40'000'000ULL, 20'000'000));
}

TEST(Thumbnails, PngOfAPicture) {
  const std::string png = encode_png(grey(200));
  ASSERT_GT(png.size(), 8U);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_TRUE(encode_png({}).empty());
  EXPECT_TRUE(encode_png({4, 2, {1, 2, 3}}).empty());  // too few bytes: none, not a crash
}

// A bin standing in for the vmafexact element: ref_sink and dist_sink (ghost
// pads to fakesinks), fed by the test's own source pads frame by frame, and
// the element's frame messages made by the test.
struct FakeElement {
  GstElement* bin = gst_bin_new("scorer");
  GstPad* sources[2] = {gst_pad_new("ref_src", GST_PAD_SRC), gst_pad_new("dist_src", GST_PAD_SRC)};
  GstVideoInfo info;

  FakeElement() {
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 64, 36);
    info.fps_n = 25;
    info.fps_d = 1;
    const char* names[2] = {"ref_sink", "dist_sink"};
    for (int at = 0; at < 2; ++at) {
      GstElement* sink = gst_element_factory_make("fakesink", nullptr);
      // No preroll wait: the test pushes both inputs from one thread.
      g_object_set(sink, "sync", FALSE, "async", FALSE, nullptr);
      gst_bin_add(GST_BIN(bin), sink);
      GstPad* target = gst_element_get_static_pad(sink, "sink");
      gst_element_add_pad(bin, gst_ghost_pad_new(names[at], target));
      gst_object_unref(target);
    }
  }
  const char* memory = nullptr;  // a caps feature, e.g. "memory:CUDAMemory"; none: system
  void start() {
    gst_element_set_state(bin, GST_STATE_PLAYING);
    const char* names[2] = {"ref_sink", "dist_sink"};
    for (int at = 0; at < 2; ++at) {
      GstPad* sink = gst_element_get_static_pad(bin, names[at]);
      gst_pad_set_active(sources[at], TRUE);
      gst_pad_link(sources[at], sink);
      gst_object_unref(sink);
      gst_pad_push_event(sources[at], gst_event_new_stream_start(names[at]));
      GstCaps* caps = gst_video_info_to_caps(&info);
      if (memory != nullptr)
        gst_caps_set_features(caps, 0, gst_caps_features_new(memory, nullptr));
      gst_pad_push_event(sources[at], gst_event_new_caps(caps));
      gst_caps_unref(caps);
      GstSegment segment;
      gst_segment_init(&segment, GST_FORMAT_TIME);
      gst_pad_push_event(sources[at], gst_event_new_segment(&segment));
    }
  }
  // Frame `frame`: luma `luma` over the whole picture, grey.
  void push(int input, std::uint64_t frame, int luma) {
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, info.size, nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    std::fill_n(map.data, GST_VIDEO_INFO_PLANE_OFFSET(&info, 1), static_cast<guint8>(luma));
    std::fill(map.data + GST_VIDEO_INFO_PLANE_OFFSET(&info, 1), map.data + map.size, 128);
    gst_buffer_unmap(buffer, &map);
    push(input, frame, buffer);
  }
  void push(int input, std::uint64_t frame, GstBuffer* buffer) {
    GST_BUFFER_PTS(buffer) = frame * 40 * GST_MSECOND;
    GST_BUFFER_DURATION(buffer) = 40 * GST_MSECOND;
    ASSERT_EQ(gst_pad_push(sources[input], buffer), GST_FLOW_OK);
  }
  GstMessage* frame_message(std::uint64_t frame, double vmaf) const {
    return gst_message_new_element(
        GST_OBJECT(bin),
        gst_structure_new("vmafexact-frame", "index", G_TYPE_UINT64, frame, "pts",
                          GST_TYPE_CLOCK_TIME, frame * 40 * GST_MSECOND, "running-time",
                          GST_TYPE_CLOCK_TIME, frame * 40 * GST_MSECOND, "duration",
                          GST_TYPE_CLOCK_TIME, 40 * GST_MSECOND, "vmaf", G_TYPE_DOUBLE, vmaf,
                          nullptr));
  }
  ~FakeElement() {
    for (GstPad* source : sources) gst_object_unref(source);
    gst_element_set_state(bin, GST_STATE_NULL);
    gst_object_unref(bin);
  }
};

int luma_of(std::uint64_t frame, int input) { return 40 + static_cast<int>(frame % 150) + input * 20; }

TEST(Thumbnails, LongRunKeepsAtMostWorstPlusRingPicturesOfTheRightFrames) {
  gst_init(nullptr, nullptr);
  FakeElement element;
  constexpr std::size_t kWorst = 5;
  ThumbnailCapture capture(element.bin, "vmaf", kWorst);
  element.start();
  constexpr std::uint64_t kFrames = 3000;
  // The element reports a frame some frames after it arrived (frames in flight).
  constexpr std::uint64_t kLag = 8;
  std::size_t most_held = 0;
  const auto score_of = [](std::uint64_t frame) {
    return frame == 1234 ? 5.0 : frame == 2999 ? 7.0 : frame == 17 ? 9.0 : frame == 600 ? 11.0
           : frame == 2500 ? 13.0 : 60 + 30 * std::sin(static_cast<double>(frame));
  };
  for (std::uint64_t frame = 0; frame < kFrames + kLag; ++frame) {
    if (frame < kFrames) {
      element.push(0, frame, luma_of(frame, 0));
      element.push(1, frame, luma_of(frame, 1));
    }
    if (frame >= kLag) {
      const std::uint64_t reported = frame - kLag;
      GstMessage* message = element.frame_message(reported, score_of(reported));
      capture.on_message(message);
      gst_message_unref(message);
    }
    most_held = std::max(most_held, capture.pictures_held());
  }
  EXPECT_LE(most_held, 2 * (kWorst + ThumbnailCapture::kRingSize));
  EXPECT_GE(most_held, 2 * ThumbnailCapture::kRingSize);  // the ring was in use

  const auto worst = capture.worst_frames(25);
  ASSERT_EQ(worst.size(), kWorst);
  const std::uint64_t expected[] = {1234, 2999, 17, 600, 2500};
  for (std::size_t at = 0; at < kWorst; ++at) {
    SCOPED_TRACE(expected[at]);
    EXPECT_EQ(worst[at].frame, expected[at]);
    EXPECT_DOUBLE_EQ(worst[at].time_s, expected[at] / 25.0);
    EXPECT_EQ(worst[at].reference.width, ThumbnailCapture::kWidth);
    EXPECT_EQ(worst[at].reference.height, 90);  // 64x36 is 16:9
    // The pictures are that frame's: their grey level is the frame's luma
    // (RGB from limited-range luma: (Y - 16) * 255 / 219).
    for (int input = 0; input < 2; ++input) {
      const auto& thumbnail = input == 0 ? worst[at].reference : worst[at].distorted;
      ASSERT_FALSE(thumbnail.png.empty());
      const Picture picture = decode_png(thumbnail.png);
      ASSERT_FALSE(picture.rgb.empty());
      const int green = picture.rgb[1];
      const int expected_grey =
          static_cast<int>(std::lround((luma_of(expected[at], input) - 16) * 255.0 / 219));
      EXPECT_NEAR(green, expected_grey, 3) << (input == 0 ? "reference" : "distorted");
    }
  }
}

// A frame larger than its thumbnail: only every step-th row is read (4 of
// 360 here, 12 of 1080 at 1080p). Its rows come in blocks of 8 (chroma: 4) of
// one colour each, so that nearest sampling of the whole picture and of the
// rows read must give the same thumbnail, to the byte, if luma and chroma rows
// are read from the same blocks.
class ThumbnailRows : public ::testing::TestWithParam<GstVideoFormat> {};

TEST_P(ThumbnailRows, ThumbnailFromTheRowsReadEqualsTheWholePictureSampled) {
  gst_init(nullptr, nullptr);
  FakeElement element;
  gst_video_info_set_format(&element.info, GetParam(), 640, 360);
  element.info.fps_n = 25;
  element.info.fps_d = 1;
  ThumbnailCapture capture(element.bin, "vmaf", 1);
  element.start();
  GstBuffer* frame = gst_buffer_new_allocate(nullptr, element.info.size, nullptr);
  {
    gst_buffer_memset(frame, 0, 0, element.info.size);
    GstVideoFrame pixels;
    ASSERT_TRUE(gst_video_frame_map(&pixels, &element.info, frame, GST_MAP_WRITE));
    // Each component sample by sample (planar, interleaved chroma, 8 or 16
    // bits alike): blocks of 8 picture rows, whatever the subsampling.
    const GstVideoFormatInfo* format = pixels.info.finfo;
    for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&pixels); ++c) {
      const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&pixels, c);
      const int columns = GST_VIDEO_FRAME_COMP_WIDTH(&pixels, c);
      const int pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE(&pixels, c);
      const int y_shift = GST_VIDEO_FORMAT_INFO_H_SUB(format, c);
      const int x_shift = GST_VIDEO_FORMAT_INFO_W_SUB(format, c);
      const int depth = GST_VIDEO_FORMAT_INFO_DEPTH(format, c);
      const int shift = GST_VIDEO_FORMAT_INFO_SHIFT(format, c);
      // The sample's bytes within a pixel: after the plane's earlier components
      // (not COMP_POFFSET, which GStreamer 1.22 gives as 1 for P010's V).
      const guint plane = GST_VIDEO_FRAME_COMP_PLANE(&pixels, c);
      int offset = 0;
      for (guint earlier = 0; earlier < c; ++earlier)
        if (GST_VIDEO_FRAME_COMP_PLANE(&pixels, earlier) == plane) offset += depth <= 8 ? 1 : 2;
      for (int row = 0; row < rows; ++row) {
        auto* line = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&pixels, plane)) + offset +
                     row * GST_VIDEO_FRAME_PLANE_STRIDE(&pixels, plane);
        const int block = (row << y_shift) / 8;
        for (int column = 0; column < columns; ++column) {
          const int x = column << x_shift;
          const int value8 = c == 0 ? 20 + (block * 37 + x / 8) % 200
                                    : 64 + (block * (c == 1 ? 11 : 23)) % 128;
          guint8* sample = line + column * pixel_stride;
          if (depth <= 8) {
            *sample = static_cast<guint8>(value8);
          } else {
            const auto value = static_cast<guint16>((value8 << (depth - 8)) << shift);
            sample[0] = static_cast<guint8>(value & 0xff);  // the formats here are LE
            sample[1] = static_cast<guint8>(value >> 8);
          }
        }
      }
    }
    gst_video_frame_unmap(&pixels);
  }
  // The expected thumbnail: the whole picture, with the capture's converter settings.
  std::vector<std::uint8_t> expected;
  {
    GstVideoInfo out;
    gst_video_info_set_format(&out, GST_VIDEO_FORMAT_RGB, ThumbnailCapture::kWidth, 90);
    out.fps_n = 25;
    out.fps_d = 1;
    GstVideoConverter* converter =
        gst_video_converter_new(&element.info, &out, vmafexact::cli::thumbnail_converter_config());
    ASSERT_NE(converter, nullptr);
    GstBuffer* rgb = gst_buffer_new_allocate(nullptr, out.size, nullptr);
    GstVideoFrame in_frame, out_frame;
    ASSERT_TRUE(gst_video_frame_map(&in_frame, &element.info, frame, GST_MAP_READ));
    ASSERT_TRUE(gst_video_frame_map(&out_frame, &out, rgb, GST_MAP_WRITE));
    gst_video_converter_frame(converter, &in_frame, &out_frame);
    for (int row = 0; row < 90; ++row) {
      const auto* line = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&out_frame, 0)) +
                         row * GST_VIDEO_FRAME_PLANE_STRIDE(&out_frame, 0);
      expected.insert(expected.end(), line, line + ThumbnailCapture::kWidth * 3);
    }
    gst_video_frame_unmap(&out_frame);
    gst_video_frame_unmap(&in_frame);
    gst_buffer_unref(rgb);
    gst_video_converter_free(converter);
  }
  element.push(0, 0, gst_buffer_copy(frame));
  element.push(1, 0, frame);
  GstMessage* message = element.frame_message(0, 1.0);
  capture.on_message(message);
  gst_message_unref(message);
  const auto worst = capture.worst_frames(25);
  ASSERT_EQ(worst.size(), 1U);
  for (const auto* thumbnail : {&worst[0].reference, &worst[0].distorted}) {
    const Picture picture = decode_png(thumbnail->png);
    ASSERT_EQ(picture.width, ThumbnailCapture::kWidth);
    ASSERT_EQ(picture.height, 90);
    EXPECT_TRUE(picture.rgb == expected);
    // Not one colour: the blocks are in it.
    EXPECT_NE(std::count(picture.rgb.begin(), picture.rgb.end(), picture.rgb[0]),
              static_cast<std::ptrdiff_t>(picture.rgb.size()));
  }
}

// 4:2:0 planar and interleaved, 4:2:2, 4:4:4, luma alone, 10 bits.
INSTANTIATE_TEST_SUITE_P(Formats, ThumbnailRows,
                         ::testing::Values(GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
                                           GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
                                           GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420_10LE,
                                           GST_VIDEO_FORMAT_P010_10LE),
                         [](const ::testing::TestParamInfo<GstVideoFormat>& info) {
                           return std::string(gst_video_format_to_string(info.param));
                         });

// Odd sizes, subsampled: the last rows read stay inside every plane (the
// sanitizer and valgrind runs of this test see any read beyond), and each
// frame still gets its pictures.
TEST(Thumbnails, OddSizesGiveThumbnails) {
  gst_init(nullptr, nullptr);
  for (const auto& [format, width, height] :
       {std::tuple{GST_VIDEO_FORMAT_I420, 1921, 1081}, std::tuple{GST_VIDEO_FORMAT_NV12, 33, 17},
        std::tuple{GST_VIDEO_FORMAT_P010_10LE, 719, 577}, std::tuple{GST_VIDEO_FORMAT_I420, 35, 1999}}) {
    SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height));
    FakeElement element;
    gst_video_info_set_format(&element.info, format, width, height);
    element.info.fps_n = 25;
    element.info.fps_d = 1;
    ThumbnailCapture capture(element.bin, "vmaf", 1);
    element.start();
    element.push(0, 0, 100);
    element.push(1, 0, 120);
    GstMessage* message = element.frame_message(0, 1.0);
    capture.on_message(message);
    gst_message_unref(message);
    const auto worst = capture.worst_frames(25);
    ASSERT_EQ(worst.size(), 1U);
    const Picture picture = decode_png(worst[0].distorted.png);
    EXPECT_EQ(picture.width, ThumbnailCapture::kWidth);
    EXPECT_GT(picture.height, 0);
  }
}

TEST(Thumbnails, FramesReportedTooLateHaveNoPictureButStillCount) {
  gst_init(nullptr, nullptr);
  FakeElement element;
  ThumbnailCapture capture(element.bin, "vmaf", 2);
  element.start();
  for (std::uint64_t frame = 0; frame < 200; ++frame) {
    element.push(0, frame, 50);
    element.push(1, frame, 60);
  }
  // Frame 3 left the ring long ago: listed, without pictures.
  GstMessage* message = element.frame_message(3, 1.0);
  capture.on_message(message);
  gst_message_unref(message);
  const auto worst = capture.worst_frames(25);
  ASSERT_EQ(worst.size(), 1U);
  EXPECT_EQ(worst[0].frame, 3U);
  EXPECT_TRUE(worst[0].reference.png.empty());
  EXPECT_TRUE(worst[0].distorted.png.empty());
}

}  // namespace

namespace {

// Caps of CUDA memory over buffers that are not (or a build without CUDA):
// nothing to copy back, no picture, the frames still listed.
TEST(Thumbnails, BuffersThatAreNotTheCapsMemoryGiveNoPicture) {
  gst_init(nullptr, nullptr);
  FakeElement element;
  element.memory = "memory:CUDAMemory";
  ThumbnailCapture capture(element.bin, "vmaf", 2);
  element.start();
  for (std::uint64_t frame = 0; frame < 10; ++frame) {
    element.push(0, frame, 50);
    element.push(1, frame, 60);
  }
  EXPECT_EQ(capture.pictures_held(), 0U);
  GstMessage* message = element.frame_message(5, 1.0);
  capture.on_message(message);
  gst_message_unref(message);
  const auto worst = capture.worst_frames(25);
  ASSERT_EQ(worst.size(), 1U);  // listed, without pictures
  EXPECT_TRUE(worst[0].reference.png.empty());
}

}  // namespace
