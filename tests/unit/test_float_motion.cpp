// Unit tests of metrics/float_motion/: libvmaf 3.2.0's "float_motion".
//
// The golden values (golden/float_motion.inc) are libvmaf's own, printed with
// %.17g from its portable C build on float_clip.h's clips: 8, 10, 12 and 16
// bits, odd sizes, the smallest pictures, one and two frames, and every option.

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "common/thread_pool.h"
#include "float_golden.h"
#include "float_motion/float_motion.h"
#include "float_motion/float_motion_extractor.h"
#include "registry.h"
#include "scorer.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> cases = {
#include "golden/float_motion.inc"
  };
  return cases;
}

}  // namespace

TEST(FloatMotion, EveryGoldenValueIsLibvmafs) {
  expect_every_golden("float_motion", golden_cases(), 20);
}

TEST(FloatMotion, WritesInLibvmafsOrder) {
  // Frame 0: motion2 and motion; frame 1: motion, then frame 0's motion3.
  const Clip clip = make_float_clip({16, 16, 8, ChromaFormat::k420}, 3, 1);
  auto extractor = make_feature_extractor("float_motion");
  extractor->init(clip.format);
  FeatureCollector scores;
  for (unsigned i = 0; i < 3; ++i)
    extractor->extract(clip.ref_view(i), clip.dist_view(i), i, scores);
  EXPECT_EQ(scores.names(), (std::vector<std::string>{"motion2", "motion", "motion3"}));
  EXPECT_FALSE(scores.score("motion2", 2));  // needs frame 3 or the flush
  extractor->flush(scores);
  EXPECT_TRUE(scores.score("motion2", 2));
  EXPECT_EQ(extractor->latency_frames(), 1u);
  EXPECT_TRUE(extractor->sees_every_frame());
}

TEST(FloatMotion, RefusesPicturesItWouldReadOutside) {
  EXPECT_EQ(init_error("float_motion", {3, 3, 8, ChromaFormat::k420}), "");
  const std::string small = init_error("float_motion", {2, 9, 8, ChromaFormat::k420});
  EXPECT_NE(small.find("float_motion"), std::string::npos) << small;
  EXPECT_NE(small.find("at least 3x3"), std::string::npos) << small;
  EXPECT_NE(small.find("2x9"), std::string::npos) << small;
  EXPECT_EQ(init_error("float_motion", {2, 2, 8, ChromaFormat::k444}, {{"motion_filter_size", "3"}}), "");
  EXPECT_NE(
      init_error("float_motion", {1, 4, 8, ChromaFormat::k444}, {{"motion_filter_size", "3"}}).find("at least 2x2"),
      std::string::npos);
  // The chroma planes too, with motion_add_uv: 5x5 4:2:0 has 2x2 chroma.
  EXPECT_NE(init_error("float_motion", {5, 5, 8, ChromaFormat::k420}, {{"motion_add_uv", "true"}}).find("chroma"),
            std::string::npos);
  EXPECT_EQ(init_error("float_motion", {6, 6, 8, ChromaFormat::k420}, {{"motion_add_uv", "true"}}), "");
  EXPECT_NE(init_error("float_motion", {6, 6, 8, ChromaFormat::k400}, {{"motion_add_uv", "true"}}), "");
  // Nothing is read with motion_force_zero.
  EXPECT_EQ(init_error("float_motion", {1, 1, 8, ChromaFormat::k444}, {{"motion_force_zero", "true"}}), "");
}

TEST(FloatMotion, RefusesChromaHalvingOverUnwrittenSamples) {
  const std::string error = init_error("float_motion", {24, 18, 8, ChromaFormat::k420},
                                       {{"motion_add_uv", "true"}, {"motion_add_scale1", "true"}});
  EXPECT_NE(error.find("motion_add_uv with motion_add_scale1"), std::string::npos) << error;
  // libvmaf's bilinear limit: (int)(w * 0.5 + 0.5) <= 7680.
  EXPECT_NE(init_error("float_motion", {15361, 4, 8, ChromaFormat::k400}, {{"motion_add_scale1", "true"}}), "");
  EXPECT_EQ(init_error("float_motion", {15360, 4, 8, ChromaFormat::k400}, {{"motion_add_scale1", "true"}}), "");
}

TEST(FloatMotion, NamesAndOptionsAreLibvmafs) {
  const auto& entry = feature_entry("float_motion");
  EXPECT_EQ(entry.make_cuda != nullptr, cuda_twins_built());
  auto extractor = make_feature_extractor("float_motion", {{"motion_fps_weight", "2"}});
  EXPECT_EQ(extractor->score_key("VMAF_feature_motion2_score"), "motion2_mfw_2");
  EXPECT_THROW(make_feature_extractor("float_motion", {{"mfs", "3"}}), Error);
  EXPECT_THROW(make_feature_extractor("float_motion", {{"motion_filter_size", "10"}}), Error);
}

TEST(FloatMotion, ScorerGivesTheSameBitsWithThreads) {
  const Clip clip = make_float_clip({40, 30, 8, ChromaFormat::k420}, 6, 21);
  const auto run = [&](unsigned threads, unsigned in_flight) {
    ScorerOptions options;
    options.threads = threads;
    options.frames_in_flight = in_flight;
    Scorer scorer({}, parse_feature_list("float_motion,psnr"), clip.format, options);
    for (unsigned i = 0; i < clip.frames(); ++i) scorer.push(clip.ref_view(i), clip.dist_view(i));
    scorer.finish();
    return scorer.scores();
  };
  const FeatureCollector one = run(1, 1);
  const FeatureCollector many = run(3, 2);
  EXPECT_EQ(one.names(), many.names());
  for (const auto& name : one.names())
    for (unsigned i = 0; i < clip.frames(); ++i) EXPECT_EQ(one.score(name, i), many.score(name, i));
}

TEST(FloatMotion, KeysTakeLibvmafsOrderBesideIntegerMotion) {
  // libvmaf writes motion3 first at frame 1 and integer motion's motion2 and
  // motion3 at its flush; vmafexact writes the latter earlier, in their phase.
  const Clip clip = make_float_clip({16, 16, 8, ChromaFormat::k420}, 4, 3);
  for (unsigned threads : {1u, 3u}) {
    ScorerOptions options;
    options.threads = threads;
    Scorer scorer({}, parse_feature_list("motion,float_motion,psnr"), clip.format, options);
    for (unsigned i = 0; i < clip.frames(); ++i) scorer.push(clip.ref_view(i), clip.dist_view(i));
    scorer.finish();
    EXPECT_EQ(scorer.scores().names(),
              (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score", "motion2",
                                        "motion", "psnr_y", "psnr_cb", "psnr_cr", "motion3",
                                        "integer_motion2", "integer_motion3"}));
  }
}

TEST(FloatMotion, CollectorPlacesNewNamesByWritePhase) {
  FeatureCollector scores;
  scores.append("extracted", 0, 1.0);
  scores.append("model", 0, 2.0, WritePhase::kModel);
  scores.append("flushed", 0, 3.0, WritePhase::kFlush);
  scores.append("extracted_later", 1, 4.0);
  scores.append("flushed_later", 1, 5.0, WritePhase::kFlush);
  EXPECT_EQ(scores.names(), (std::vector<std::string>{"extracted", "extracted_later", "flushed",
                                                      "flushed_later", "model"}));
  EXPECT_EQ(scores.phase("flushed"), WritePhase::kFlush);
  EXPECT_EQ(scores.phase("unknown"), WritePhase::kExtract);
  EXPECT_EQ(scores.score("flushed_later", 1), 5.0);
  EXPECT_EQ(scores.frame_scores(0).front().first, "extracted");
}
