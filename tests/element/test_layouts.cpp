// The vmafexact element through GstHarness: the layouts and buffers it reads.
// Every supported format's planes score as the metrics do on the same planes,
// chroma is read only when an extractor reads it, and frames of buffer pools
// are held or copied so that upstream never runs dry.
#include <gst/allocators/gstfdmemory.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../../gst/frame_source.h"
#include "../../gst/video_picture.h"
#include "element_harness.h"
#include "element_info_log.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

struct LayoutCase {
  GstVideoFormat ref_format, dist_format;
  unsigned bpc;
  ChromaFormat chroma;
  unsigned width, height;
};

class ElementLayouts : public ::testing::TestWithParam<LayoutCase> {
 protected:
  // Three pairs of the case's frames (frames_) through an element with
  // `properties`, to EOS without an error: the frame messages posted, which
  // live as long as messages_.
  std::vector<const GstStructure*> frame_messages(const char* properties = nullptr) {
    const LayoutCase& c = GetParam();
    ElementHarness harness(properties);
    harness.set_caps(caps_string(c.ref_format, c.width, c.height), caps_string(c.dist_format, c.width, c.height));
    frames_ = make_frames(3, c.width, c.height, c.bpc, c.chroma);
    run_pairs(harness, frames_, c.ref_format, c.dist_format);
    harness.push_eos_ref();
    harness.push_eos_dist();
    EXPECT_TRUE(harness.wait_for_eos());
    messages_ = harness.drain_messages();
    EXPECT_TRUE(message_texts(messages_, GST_MESSAGE_ERROR).empty())
        << joined(message_texts(messages_, GST_MESSAGE_ERROR));
    return element_messages(messages_, "vmafexact-frame");
  }
  Frames frames_;
  std::vector<MessagePtr> messages_;
};

TEST_P(ElementLayouts, ScoresEqualTheMetricsOnTheSamePlanes) {
  const auto posted = frame_messages();
  expect_frame_scores(posted, frames_);
  if (GetParam().chroma == ChromaFormat::k400) {
    ASSERT_FALSE(posted.empty());
    EXPECT_FALSE(gst_structure_has_field(posted[0], "psnr_cb"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ElementLayouts,
    ::testing::Values(
        LayoutCase{GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, 8, ChromaFormat::k420, 64, 48},
        LayoutCase{GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV21, 8, ChromaFormat::k420, 33, 17},
        // libvmaf's chroma of a picture one pixel wide is empty (rounded down).
        LayoutCase{GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, 8, ChromaFormat::k420, 1, 5},
        LayoutCase{GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE, 10, ChromaFormat::k420, 1, 4},
        LayoutCase{GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420, 8, ChromaFormat::k420, 17, 17},
        LayoutCase{GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_NV16, 8, ChromaFormat::k422, 35, 20},
        LayoutCase{GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_NV24, 8, ChromaFormat::k444, 30, 21},
        LayoutCase{GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 8, ChromaFormat::k400, 31, 9},
        LayoutCase{GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE, 10, ChromaFormat::k420, 64, 36},
        LayoutCase{GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_P012_LE, 12, ChromaFormat::k420, 41, 23},
        LayoutCase{GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_I422_10LE, 10, ChromaFormat::k422, 40, 22},
        LayoutCase{GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_I422_12LE, 12, ChromaFormat::k422, 19, 40},
        LayoutCase{GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_Y444_10LE, 10, ChromaFormat::k444, 24, 24},
        LayoutCase{GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_12LE, 12, ChromaFormat::k444, 24, 25},
        LayoutCase{GST_VIDEO_FORMAT_Y444_16LE, GST_VIDEO_FORMAT_Y444_16LE, 16, ChromaFormat::k444, 23, 24},
        LayoutCase{GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_P016_LE, 16, ChromaFormat::k420, 32, 18},
        LayoutCase{GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_LE, 16, ChromaFormat::k400, 20, 20}),
    [](const ::testing::TestParamInfo<LayoutCase>& info) {
      return std::string(gst_video_format_to_string(info.param.ref_format)) + "_" +
             gst_video_format_to_string(info.param.dist_format) + "_" +
             std::to_string(info.param.width) + "x" + std::to_string(info.param.height);
    });

// The same layouts with a feature that reads luma only (psnr without chroma;
// the VMAF models read luma only too): the element leaves the chroma out of
// the pictures, and the luma scores are those of the planar frames.
TEST_P(ElementLayouts, LumaOnlyScoresEqualTheMetricsOnTheSameLuma) {
  const auto posted = frame_messages("features=psnr=enable_chroma=false threads=2");
  ASSERT_EQ(posted.size(), frames_.ref.size());
  for (std::size_t i = 0; i < posted.size(); ++i) {
    EXPECT_EQ(field_double(posted[i], "psnr_y"), expected_psnr(frames_.ref[i], frames_.dist[i])[0])
        << "frame " << i;
    EXPECT_FALSE(gst_structure_has_field(posted[i], "psnr_cb"));
  }
}

// The session reads chroma only when an extractor does: the element says so
// when it starts scoring (the frame sources then leave the chroma out; see
// VideoPicture.ChromaLeftOutIsNeitherRepackedNorCopied).
TEST(Element, ChromaIsReadOnlyWhenAnExtractorReadsIt) {
  const auto start_line = [](const char* properties, unsigned size = 64) {
    ElementInfoLog log;
    {
      ElementHarness harness(properties);
      harness.set_caps(caps_string(GST_VIDEO_FORMAT_NV12, size, size),
                       caps_string(GST_VIDEO_FORMAT_NV12, size, size));
      const Frames frames = make_frames(2, size, size, 8, ChromaFormat::k420);
      run_pairs(harness, frames, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV12);
      harness.push_eos_ref();
      harness.push_eos_dist();
      EXPECT_TRUE(harness.wait_for_eos());
    }
    for (const std::string& line : log.finish())
      if (line.find("scoring on the CPU") != std::string::npos) return line;
    return std::string("no start line");
  };
  EXPECT_NE(start_line(nullptr).find("chroma read"), std::string::npos);  // psnr
  EXPECT_NE(start_line("features=psnr=enable_chroma=false").find("luma only"), std::string::npos);
  // Any one extractor that reads chroma is enough (speed_chroma takes 160x160).
  EXPECT_NE(start_line("features=psnr=enable_chroma=false,speed_chroma", 160).find("chroma read"),
            std::string::npos);
}

// picture_view_of without chroma: the chroma planes are null and nothing is
// written for them (NV12's would be deinterleaved, P010's shifted); luma is
// viewed in place or repacked as with chroma, and the sizes are set.
TEST(VideoPicture, ChromaLeftOutIsNeitherRepackedNorCopied) {
  for (const GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE,
                                      GST_VIDEO_FORMAT_I420}) {
    SCOPED_TRACE(gst_video_format_to_string(format));
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, 36, 20);
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    gst_buffer_memset(buffer, 0, 0x40, GST_VIDEO_INFO_SIZE(&info));
    GstVideoFrame frame;
    ASSERT_TRUE(gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ));
    const auto picture_format = vmafexact::gst::picture_format_from_info(info);
    ASSERT_TRUE(picture_format);
    for (const bool copy : {false, true}) {
      vmafexact::gst::ScratchPlanes scratch;
      const PictureView view =
          vmafexact::gst::picture_view_of(frame, *picture_format, scratch, copy, false);
      ASSERT_NE(view.planes[0].data, nullptr);
      const bool p010 = format == GST_VIDEO_FORMAT_P010_10LE;
      // P010's 0x4040 >> 6 = 0x101; the others' samples are 0x40.
      EXPECT_EQ(p010 ? view.planes[0].row<std::uint16_t>(19)[35] : view.planes[0].row<std::uint8_t>(19)[35],
                p010 ? 0x101 : 0x40);
      for (unsigned p = 1; p < 3; ++p) {
        EXPECT_EQ(view.planes[p].data, nullptr) << "plane " << p;
        EXPECT_EQ(view.planes[p].width, 18u);
        EXPECT_EQ(view.planes[p].height, 10u);
        EXPECT_TRUE(scratch.planes[p].empty()) << "plane " << p << " was written";
      }
      // With chroma, the same call fills them.
      const PictureView full = vmafexact::gst::picture_view_of(frame, *picture_format, scratch, copy);
      EXPECT_NE(full.planes[1].data, nullptr);
      EXPECT_NE(full.planes[2].data, nullptr);
    }
    gst_video_frame_unmap(&frame);
    gst_buffer_unref(buffer);
  }
}

TEST(Element, AllocationQueryOffersVideoMetaAndNoPoolForSystemMemory) {
  ElementHarness harness;
  const std::string caps_text = caps_string(GST_VIDEO_FORMAT_I420, 64, 48);
  harness.set_caps(caps_text, caps_text);
  GstCaps* caps = gst_caps_from_string(caps_text.c_str());
  GstQuery* query = gst_query_new_allocation(caps, TRUE);
  gst_caps_unref(caps);
  ASSERT_TRUE(gst_pad_peer_query(harness.ref()->srcpad, query));
  EXPECT_TRUE(gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr));
  EXPECT_EQ(gst_query_get_n_allocation_pools(query), 0u);
  gst_query_unref(query);
}

namespace {

struct PoolRelease {
  void operator()(GstBufferPool* pool) const {
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
  }
};
using PoolPtr = std::unique_ptr<GstBufferPool, PoolRelease>;

// An active video buffer pool for `caps_text` that hands out at most
// `max_buffers` buffers at once (0: no limit), as upstream elements make them.
PoolPtr make_pool(const std::string& caps_text, unsigned max_buffers) {
  GstCaps* caps = gst_caps_from_string(caps_text.c_str());
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) throw std::runtime_error("bad test caps");
  PoolPtr pool(gst_video_buffer_pool_new());
  GstStructure* config = gst_buffer_pool_get_config(pool.get());
  gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0,
                                    max_buffers);
  gst_caps_unref(caps);
  if (!gst_buffer_pool_set_config(pool.get(), config) || !gst_buffer_pool_set_active(pool.get(), TRUE))
    throw std::runtime_error("cannot set up the test pool");
  return pool;
}

// A buffer of `pool` with the bytes and timestamps of `filled` (taken), or
// nullptr when none came free within 10 s. While it waits it takes what
// the element passed on (the distorted buffers are the pool's too), as a
// sink would.
GstBuffer* pooled_copy(ElementHarness& harness, GstBufferPool* pool, GstBuffer* filled) {
  GstBufferPoolAcquireParams params{};
  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  GstBuffer* buffer = nullptr;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (gst_buffer_pool_acquire_buffer(pool, &buffer, &params) != GST_FLOW_OK) {
    while (GstBuffer* out = gst_harness_try_pull(harness.ref())) gst_buffer_unref(out);
    if (std::chrono::steady_clock::now() > give_up) {
      gst_buffer_unref(filled);
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  GstMapInfo map;
  gst_buffer_map(filled, &map, GST_MAP_READ);
  gst_buffer_fill(buffer, 0, map.data, map.size);
  gst_buffer_unmap(filled, &map);
  GST_BUFFER_PTS(buffer) = GST_BUFFER_PTS(filled);
  GST_BUFFER_DURATION(buffer) = GST_BUFFER_DURATION(filled);
  gst_buffer_unref(filled);
  return buffer;
}

// Pushes the pairs from pools of `max_buffers` each through three frames in
// flight, and checks every frame's scores.
void score_from_pools(unsigned max_buffers) {
  ElementHarness harness("model=\"\" features=psnr threads=3 frames-in-flight=3");
  const std::string caps = caps_string(GST_VIDEO_FORMAT_I420, 64, 48);
  harness.set_caps(caps, caps);
  const PoolPtr ref_pool = make_pool(caps, max_buffers), dist_pool = make_pool(caps, max_buffers);
  const Frames frames = make_frames(12, 64, 48, 8, ChromaFormat::k420);
  for (std::size_t i = 0; i < frames.ref.size(); ++i) {
    GstBuffer* ref = pooled_copy(harness, ref_pool.get(),
                                 make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    ASSERT_NE(ref, nullptr) << "the reference pool ran dry at pair " << i;
    ASSERT_EQ(harness.push_ref(ref), GST_FLOW_OK);
    GstBuffer* dist = pooled_copy(harness, dist_pool.get(),
                                  make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    ASSERT_NE(dist, nullptr) << "the distorted pool ran dry at pair " << i;
    ASSERT_EQ(harness.push_dist(dist), GST_FLOW_OK);
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  expect_frame_scores(element_messages(harness.drain_messages(), "vmafexact-frame"), frames);
}

}  // namespace

TEST(Element, FramesInFlightOfAPoolWithALimitAreCopiedSoItNeverRunsDry) {
  // Pools of one buffer each (as small as a hardware decoder's can get): a
  // frame held in flight past its push would keep upstream from the next
  // one for ever. Such frames are copied and their buffers let go at once.
  score_from_pools(1);
}

TEST(Element, FramesInFlightOfAPoolWithoutALimitAreHeldAndScoredTheSame) {
  // Software decoders', videotestsrc's and videoconvert's pools have no limit:
  // their frames are held in flight instead of copied (the pool grows).
  score_from_pools(0);
}

TEST(Element, OnlyBuffersOfAPoolWithALimitCouldStallUpstreamIfHeld) {
  const std::string caps = caps_string(GST_VIDEO_FORMAT_I420, 64, 48);
  for (const unsigned max_buffers : {0u, 1u, 8u}) {
    const PoolPtr pool = make_pool(caps, max_buffers);
    GstBuffer* buffer = nullptr;
    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), &buffer, nullptr), GST_FLOW_OK);
    EXPECT_EQ(vmafexact::gst::holding_could_stall_upstream(buffer), max_buffers != 0) << max_buffers;
    gst_buffer_unref(buffer);
  }
  GstBuffer* unpooled = gst_buffer_new_allocate(nullptr, 64 * 48 * 3 / 2, nullptr);
  EXPECT_FALSE(vmafexact::gst::holding_could_stall_upstream(unpooled));
  gst_buffer_unref(unpooled);

  // A pool without a limit whose buffer holds memory other than system memory
  // (here an fd's, as DMABuf's is): its buffers may be scarce surfaces.
  const PoolPtr pool = make_pool(caps, 0);
  GstBuffer* buffer = nullptr;
  ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), &buffer, nullptr), GST_FLOW_OK);
  EXPECT_FALSE(vmafexact::gst::holding_could_stall_upstream(buffer));
  const int fd = memfd_create("vmafexact-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  const gsize size = gst_buffer_get_size(buffer);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
  GstAllocator* fd_allocator = gst_fd_allocator_new();
  gst_buffer_replace_all_memory(buffer, gst_fd_allocator_alloc(fd_allocator, fd, size, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(fd_allocator);
  EXPECT_TRUE(vmafexact::gst::holding_could_stall_upstream(buffer));
  gst_buffer_unref(buffer);  // the pool drops a buffer whose memory was replaced
}
