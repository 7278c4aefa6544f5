// --align auto: the offset estimate (tools/vmafexact/align_auto.h) on
// synthetic thumbnail sequences (every offset in -7..+7, noise, a brightness
// and contrast change, static or unrelated content), the thumbnails decoded
// from ffmpeg-made files in this process, and the tool lining up encodes whose
// start was cut or padded, with the same scores as --dist-delay.

#include <gst/gst.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "../common/scratch_files.h"
#include "align_auto.h"
#include "errors.h"
#include "support/y4m.h"

using vmafexact::test::kCliPath;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using vmafexact::cli::align_automatically;
using vmafexact::cli::alignment_provenance;
using vmafexact::cli::alignment_summary;
using vmafexact::cli::alignment_warning;
using vmafexact::cli::AutoAlignment;
using vmafexact::cli::CliError;
using vmafexact::cli::estimate_offset;
using vmafexact::cli::kLowAlignConfidence;
using vmafexact::cli::kThumbnailHeight;
using vmafexact::cli::kThumbnailWidth;
using vmafexact::cli::OffsetEstimate;
using vmafexact::cli::Thumbnail;
using vmafexact::cli::VideoInput;

constexpr int kWidth = kThumbnailWidth;
constexpr int kHeight = kThumbnailHeight;

// A scene of `frames` thumbnails: a fixed smooth texture and three bright
// blobs each on a path of its own, all drawn from `seed`.
std::vector<Thumbnail> moving_scene(int frames, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Thumbnail texture(kWidth * kHeight, 100.0);
  for (int wave = 0; wave < 4; ++wave) {
    const double fx = 0.05 + 0.3 * unit(random), fy = 0.05 + 0.3 * unit(random);
    const double phase = 6.28 * unit(random), amplitude = 10 + 15 * unit(random);
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x)
        texture[y * kWidth + x] += amplitude * std::sin(fx * x + fy * y + phase);
  }
  struct Blob {
    double x0, y0, ax, ay, wx, wy, brightness;
  };
  std::vector<Blob> blobs;
  for (int i = 0; i < 3; ++i)
    blobs.push_back({kWidth * unit(random), kHeight * unit(random), 8 + 20 * unit(random),
                     4 + 10 * unit(random), 0.1 + 0.3 * unit(random), 0.1 + 0.3 * unit(random),
                     60 + 60 * unit(random)});
  std::vector<Thumbnail> scene;
  for (int t = 0; t < frames; ++t) {
    Thumbnail frame = texture;
    for (const Blob& blob : blobs) {
      const double cx = blob.x0 + blob.ax * std::sin(blob.wx * t);
      const double cy = blob.y0 + blob.ay * std::cos(blob.wy * t);
      for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
          const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
          frame[y * kWidth + x] += blob.brightness * std::exp(-d2 / 18.0);
        }
    }
    scene.push_back(std::move(frame));
  }
  return scene;
}

// Every sample changed as an encoder and a level change would: times `gain`,
// plus `shift`, plus noise of deviation `noise`, clipped to 0-255.
std::vector<Thumbnail> distorted(std::vector<Thumbnail> frames, double gain, double shift,
                                 double noise, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal(0.0, noise > 0 ? noise : 1.0);
  for (Thumbnail& frame : frames)
    for (double& value : frame)
      value = std::clamp(gain * value + shift + (noise > 0 ? normal(random) : 0.0), 0.0, 255.0);
  return frames;
}

// REF: `frames` frames of the scene from its 8th; DIST: the same count, its
// frame i showing REF's frame i + offset (|offset| <= 7).
struct Pair {
  std::vector<Thumbnail> ref, dist;
};
Pair offset_pair(const std::vector<Thumbnail>& scene, int frames, int offset) {
  Pair pair;
  for (int i = 0; i < frames; ++i) {
    pair.ref.push_back(scene.at(7 + i));
    pair.dist.push_back(scene.at(7 + i + offset));
  }
  return pair;
}

TEST(AlignCore, FindsEveryOffsetFromMinus7ToPlus7) {
  const auto scene = moving_scene(60, 1);
  for (int offset = -7; offset <= 7; ++offset) {
    const Pair pair = offset_pair(scene, 40, offset);
    const OffsetEstimate estimate = estimate_offset(pair.ref, pair.dist, 10);
    EXPECT_EQ(estimate.offset, offset);
    EXPECT_GT(estimate.confidence, 0.9) << "offset " << offset;
    EXPECT_EQ(estimate.bound, 10);
    EXPECT_EQ(estimate.window, 30);
    EXPECT_EQ(estimate.costs.size(), 21u);
    EXPECT_FALSE(estimate.static_content);
    EXPECT_FALSE(estimate.at_bound);
  }
}

TEST(AlignCore, EncodingNoiseAndABrightnessAndContrastChangeKeepTheOffset) {
  const auto scene = moving_scene(60, 2);
  for (const int offset : {-5, 0, 3}) {
    Pair pair = offset_pair(scene, 40, offset);
    pair.dist = distorted(pair.dist, 0.8, 30, 4.0, 7);
    const OffsetEstimate estimate = estimate_offset(pair.ref, pair.dist, 10);
    EXPECT_EQ(estimate.offset, offset);
    EXPECT_GT(estimate.confidence, kLowAlignConfidence) << "offset " << offset;
  }
}

TEST(AlignCore, ABrightnessAndContrastChangeAloneLeavesTheFitExact) {
  const auto scene = moving_scene(60, 12);
  Pair pair = offset_pair(scene, 40, -2);
  pair.dist = distorted(pair.dist, 0.6, 50, 0.5, 13);
  const OffsetEstimate estimate = estimate_offset(pair.ref, pair.dist, 10);
  EXPECT_EQ(estimate.offset, -2);
  EXPECT_GT(estimate.confidence, 0.99);
}

TEST(AlignCore, LittleMotionLowersTheConfidence) {
  // The scene's changes shrunk to about 0.35 levels per sample: between
  // static (0.25) and plenty (0.5); the offset still fits exactly.
  const auto scene = distorted(moving_scene(60, 14), 0.25, 80, 0, 0);
  const Pair pair = offset_pair(scene, 40, 4);
  const OffsetEstimate estimate = estimate_offset(pair.ref, pair.dist, 10);
  EXPECT_EQ(estimate.offset, 4);
  EXPECT_FALSE(estimate.static_content);
  ASSERT_GT(estimate.motion, vmafexact::cli::kStaticMotion);
  ASSERT_LT(estimate.motion, 2 * vmafexact::cli::kStaticMotion);
  EXPECT_DOUBLE_EQ(estimate.confidence, estimate.motion / (2 * vmafexact::cli::kStaticMotion));
}

TEST(AlignCore, StaticContentHasALowConfidence) {
  // One picture, repeated, with encoding noise on both sides.
  const auto scene = moving_scene(1, 3);
  const std::vector<Thumbnail> still(40, scene.front());
  const auto ref = distorted(still, 1, 0, 0.2, 11);
  const auto dist = distorted(still, 1, 0, 0.2, 12);
  const OffsetEstimate estimate = estimate_offset(ref, dist, 10);
  EXPECT_LT(estimate.confidence, kLowAlignConfidence);
  EXPECT_TRUE(estimate.static_content);
  EXPECT_EQ(estimate.offset, 0);  // chance would pick any: none is applied

  // Noiseless: every offset fits alike; the tie goes to 0.
  const OffsetEstimate exact = estimate_offset(still, still, 10);
  EXPECT_EQ(exact.offset, 0);
  EXPECT_EQ(exact.confidence, 0.0);
  EXPECT_TRUE(exact.static_content);
}

TEST(AlignCore, UnrelatedContentHasALowConfidence) {
  const auto ref = moving_scene(40, 4);
  const auto dist = moving_scene(40, 5);
  const OffsetEstimate estimate = estimate_offset(ref, dist, 10);
  EXPECT_LT(estimate.confidence, kLowAlignConfidence) << "offset " << estimate.offset;
  EXPECT_FALSE(estimate.static_content);
}

TEST(AlignCore, AnOffsetAtTheBoundIsFlagged) {
  const auto scene = moving_scene(60, 6);
  const Pair pair = offset_pair(scene, 40, 5);
  const OffsetEstimate estimate = estimate_offset(pair.ref, pair.dist, 5);
  EXPECT_EQ(estimate.offset, 5);
  EXPECT_TRUE(estimate.at_bound);
}

TEST(AlignCore, TheBoundShrinksToLeaveAWindowOfEightPairs) {
  const auto scene = moving_scene(30, 7);
  const Pair pair = offset_pair(scene, 12, 2);
  const OffsetEstimate estimate = estimate_offset(pair.ref, pair.dist, 10);
  EXPECT_EQ(estimate.bound, 4);
  EXPECT_EQ(estimate.window, 8);
  EXPECT_EQ(estimate.offset, 2);
}

TEST(AlignCore, TheSameInputsGiveTheSameEstimate) {
  const auto scene = moving_scene(60, 8);
  Pair pair = offset_pair(scene, 40, -4);
  pair.dist = distorted(pair.dist, 1, 0, 3.0, 9);
  const OffsetEstimate first = estimate_offset(pair.ref, pair.dist, 10);
  const OffsetEstimate second = estimate_offset(pair.ref, pair.dist, 10);
  EXPECT_EQ(first.offset, second.offset);
  EXPECT_EQ(first.confidence, second.confidence);
  EXPECT_EQ(first.costs, second.costs);
}

TEST(AlignCore, EmptyOrMismatchedThumbnailsAreRefused) {
  const auto scene = moving_scene(10, 9);
  EXPECT_THROW(estimate_offset({}, scene, 2), std::invalid_argument);
  std::vector<Thumbnail> smaller = scene;
  smaller[3].pop_back();
  EXPECT_THROW(estimate_offset(scene, smaller, 2), std::invalid_argument);
  const std::vector<Thumbnail> empty(10);
  EXPECT_THROW(estimate_offset(empty, empty, 2), std::invalid_argument);
}

TEST(AlignCore, SummaryWarningAndProvenanceSayTheOffsetBothWays) {
  AutoAlignment later;
  later.rate = {24, 1};
  later.estimate.offset = 5;
  later.estimate.confidence = 0.97;
  later.dist_delay = -0.208333333;
  EXPECT_EQ(alignment_summary(later),
            "DIST starts 5 frames (0.208 s) later than REF (REF's first 5 frames are not in "
            "it), confidence 0.97; scored as with --dist-delay -0.208333333");
  EXPECT_EQ(alignment_provenance(later), "dist-delay -5 frames (-0.208 s), auto, confidence 0.97");
  EXPECT_EQ(alignment_warning(later, 2.0), "");

  AutoAlignment earlier = later;
  earlier.estimate.offset = -3;
  earlier.estimate.confidence = 0.2;
  earlier.dist_delay = 0.125;
  EXPECT_EQ(alignment_summary(earlier),
            "DIST starts 3 frames (0.125 s) earlier than REF (it has 3 frames before REF's "
            "first), confidence 0.20; scored as with --dist-delay 0.125");
  EXPECT_EQ(alignment_provenance(earlier), "dist-delay 3 frames (0.125 s), auto, confidence 0.20");
  const std::string warning = alignment_warning(earlier, 2.0);
  EXPECT_NE(warning.find("unsure (confidence 0.20)"), std::string::npos) << warning;
  EXPECT_NE(warning.find("different content?"), std::string::npos) << warning;
  EXPECT_NE(warning.find("--dist-delay"), std::string::npos) << warning;

  // The delay printed to the nanosecond, as applied (%g would round 12.345678901
  // to 12.3456789, and a delay rounded up drops the frame it starts at).
  AutoAlignment long_delay = earlier;
  long_delay.estimate.offset = -296;
  long_delay.dist_delay = 12.345678901;
  EXPECT_NE(alignment_summary(long_delay).find("--dist-delay 12.345678901"), std::string::npos)
      << alignment_summary(long_delay);

  earlier.estimate.at_bound = true;
  earlier.estimate.bound = 48;
  EXPECT_NE(alignment_warning(earlier, 2.0)
                .find("at the edge of the range searched (48 frames, 2.000 s either way): the true "
                      "one may be larger; try a larger --align-range"),
            std::string::npos)
      << alignment_warning(earlier, 2.0);
  // Short videos: the bound was lowered to leave a window.
  earlier.estimate.bound = 12;
  EXPECT_NE(alignment_warning(earlier, 2.0)
                .find("(12 frames, 0.500 s either way): the true one may be larger; the videos are "
                      "too short to search all of --align-range 2 s: give the offset with "
                      "--dist-delay"),
            std::string::npos)
      << alignment_warning(earlier, 2.0);
}

// ---- Decoded inputs, in this process ----

// Media made once with ffmpeg: 3 s of mandelbrot (moving everywhere) at 24
// fps, 320x180; encodes of it with their start cut or padded.
class AlignMedia : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = std::make_unique<vmafexact::test::ScratchFolder>("vmafexact-align-test");
    const std::string ff = "ffmpeg -nostdin -loglevel error -y ";
    const std::string f = folder_->path().string() + "/";
    const std::string x264 = " -c:v libx264 -preset veryfast -pix_fmt yuv420p ";
    const std::vector<std::string> commands = {
        // 3 s and 3 frames, lossless.
        ff + "-f lavfi -i mandelbrot=size=320x180:rate=24 -frames:v 75 -pix_fmt yuv420p " + f +
            "source.y4m",
        // REF: the source from its 4th frame; DIST cut: its first 5 frames
        // cut; DIST padded: the source whole, 3 frames before REF's first.
        ff + "-i " + f + "source.y4m -vf trim=start_frame=3,setpts=PTS-STARTPTS" + x264 +
            "-crf 18 " + f + "ref.mp4",
        ff + "-i " + f + "source.y4m -vf trim=start_frame=8,setpts=PTS-STARTPTS" + x264 +
            "-crf 32 " + f + "cut5.mp4",
        ff + "-i " + f + "source.y4m" + x264 + "-crf 32 " + f + "padded3.mp4",
        // The same cut, 10-bit (its luma read as decoded, 16 bits a sample).
        ff + "-i " + f + "source.y4m -vf trim=start_frame=8,setpts=PTS-STARTPTS" +
            " -c:v libx264 -preset veryfast -pix_fmt yuv420p10le -crf 32 " + f + "cut5_10bit.mp4",
        // The same cut, at 30 fps (frames picked to it by ffmpeg's fps filter).
        ff + "-i " + f + "source.y4m -vf trim=start_frame=8,setpts=PTS-STARTPTS,fps=30" + x264 +
            "-crf 32 " + f + "cut5_30fps.mp4",
        // The source at 10 bits, y4m (C420p10: two bytes a sample).
        ff + "-i " + f + "source.y4m -pix_fmt yuv420p10le -strict -1 " + f + "source10.y4m",
        // The source raw, tightly packed.
        ff + "-i " + f + "source.y4m -f rawvideo -pix_fmt yuv420p " + f + "source.yuv",
        // Static content: one picture held for 3 s, encoded twice.
        ff + "-f lavfi -i mandelbrot=size=320x180:rate=24 -frames:v 1 -pix_fmt yuv420p " + f +
            "still.png",
        ff + "-loop 1 -framerate 24 -i " + f + "still.png -frames:v 72" + x264 + "-crf 18 " + f +
            "still_ref.mp4",
        ff + "-loop 1 -framerate 24 -i " + f + "still.png -frames:v 67" + x264 + "-crf 32 " + f +
            "still_dist.mp4",
    };
    for (const auto& command : commands)
      if (std::system(command.c_str()) != 0) {
        setup_error_ = "ffmpeg failed: " + command;
        return;
      }
  }
  static void TearDownTestSuite() { folder_.reset(); }

  void SetUp() override {
    if (!setup_error_.empty()) GTEST_FAIL() << setup_error_;
  }

  static std::string in(const std::string& name) { return (folder_->path() / name).string(); }

  // What discovery would say of an ffmpeg-made file: its rate; the front
  // reads the rest from the frames.
  static VideoInput file_input(const std::string& name, const std::string& role, int fps) {
    VideoInput input;
    input.role = role;
    input.path = in(name);
    gchar* uri = gst_filename_to_uri(input.path.c_str(), nullptr);
    input.uri = uri ? uri : "";
    g_free(uri);
    input.width = 320;
    input.height = 180;
    input.framerate = {fps, 1};
    return input;
  }

  static std::unique_ptr<vmafexact::test::ScratchFolder> folder_;
  static std::string setup_error_;
};

std::unique_ptr<vmafexact::test::ScratchFolder> AlignMedia::folder_;
std::string AlignMedia::setup_error_;

TEST_F(AlignMedia, FindsACutStartInAnEncode) {
  const AutoAlignment found = align_automatically(
      file_input("ref.mp4", "reference", 24), file_input("cut5.mp4", "distorted video", 24), 2.0);
  EXPECT_EQ(found.estimate.offset, 5);
  EXPECT_GT(found.estimate.confidence, kLowAlignConfidence);
  // Frame 5's timestamp at 24 fps, rounded down as timestamps are.
  EXPECT_EQ(found.dist_delay, -0.208333333);
  EXPECT_EQ(found.estimate.bound, 48);
}

TEST_F(AlignMedia, FindsExtraFramesAtTheStart) {
  const AutoAlignment found =
      align_automatically(file_input("ref.mp4", "reference", 24),
                          file_input("padded3.mp4", "distorted video", 24), 2.0);
  EXPECT_EQ(found.estimate.offset, -3);
  EXPECT_GT(found.estimate.confidence, kLowAlignConfidence);
  EXPECT_EQ(found.dist_delay, 0.125);
}

TEST_F(AlignMedia, ReadsA10BitEncodeAsDecoded) {
  const AutoAlignment found =
      align_automatically(file_input("ref.mp4", "reference", 24),
                          file_input("cut5_10bit.mp4", "distorted video", 24), 2.0);
  EXPECT_EQ(found.estimate.offset, 5);
  EXPECT_GT(found.estimate.confidence, kLowAlignConfidence);
}

TEST_F(AlignMedia, ComparesAnotherFrameRateByTime) {
  const AutoAlignment found =
      align_automatically(file_input("ref.mp4", "reference", 24),
                          file_input("cut5_30fps.mp4", "distorted video", 30), 1.0);
  EXPECT_EQ(found.estimate.offset, 5);
}

TEST_F(AlignMedia, ReadsY4mItself) {
  VideoInput source = file_input("source.y4m", "distorted video", 24);
  source.y4m = std::make_shared<vmafexact::tools::Y4mReader>(source.path);
  const AutoAlignment found =
      align_automatically(file_input("ref.mp4", "reference", 24), source, 2.0);
  EXPECT_EQ(found.estimate.offset, -3);
  EXPECT_GT(found.estimate.confidence, kLowAlignConfidence);
}

TEST_F(AlignMedia, ReadsA10BitY4m) {
  VideoInput source = file_input("source10.y4m", "distorted video", 24);
  source.y4m = std::make_shared<vmafexact::tools::Y4mReader>(source.path);
  ASSERT_EQ(source.y4m->header().format, GST_VIDEO_FORMAT_I420_10LE);
  const AutoAlignment found =
      align_automatically(file_input("ref.mp4", "reference", 24), source, 2.0);
  EXPECT_EQ(found.estimate.offset, -3);
  EXPECT_GT(found.estimate.confidence, kLowAlignConfidence);
}

TEST_F(AlignMedia, ReadsRawFilesThroughRawvideoparse) {
  VideoInput source = file_input("source.yuv", "distorted video", 24);
  source.raw = true;
  source.uri.clear();
  source.format = GST_VIDEO_FORMAT_I420;
  const AutoAlignment found =
      align_automatically(file_input("ref.mp4", "reference", 24), source, 2.0);
  EXPECT_EQ(found.estimate.offset, -3);
  EXPECT_GT(found.estimate.confidence, kLowAlignConfidence);
}

TEST_F(AlignMedia, AStillPictureIsUnsure) {
  const AutoAlignment found =
      align_automatically(file_input("still_ref.mp4", "reference", 24),
                          file_input("still_dist.mp4", "distorted video", 24), 1.0);
  EXPECT_LT(found.estimate.confidence, kLowAlignConfidence);
  EXPECT_TRUE(found.estimate.static_content);
  EXPECT_EQ(found.estimate.offset, 0);
  EXPECT_NE(alignment_warning(found, 1.0).find("hardly move"), std::string::npos);
}

TEST_F(AlignMedia, AnUnreadableOrStalledInputOrAnUnknownRateIsAClearError) {
  vmafexact::test::write_file(folder_->path() / "text.mp4", "not a video\n");
  try {
    align_automatically(file_input("ref.mp4", "reference", 24),
                        file_input("text.mp4", "distorted video", 24), 2.0, 10 * GST_SECOND);
    ADD_FAILURE() << "no error";
  } catch (const CliError& error) {
    EXPECT_EQ(error.code(), vmafexact::cli::kExitInput);
    EXPECT_NE(std::string(error.what()).find("text.mp4"), std::string::npos) << error.what();
  }
  // A decoder that gives no frame for the timeout (here: 1 ns, shorter than
  // any frame takes) ends the run, its pipeline stopped.
  try {
    align_automatically(file_input("ref.mp4", "reference", 24),
                        file_input("cut5.mp4", "distorted video", 24), 2.0, 1);
    ADD_FAILURE() << "no error";
  } catch (const CliError& error) {
    EXPECT_EQ(error.code(), vmafexact::cli::kExitInput);
    EXPECT_NE(std::string(error.what()).find("the reference " + in("ref.mp4")), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("no frame for 0 s"), std::string::npos)
        << error.what();
  }
  try {
    align_automatically(file_input("ref.mp4", "reference", 0),
                        file_input("cut5.mp4", "distorted video", 24), 2.0);
    ADD_FAILURE() << "no error";
  } catch (const CliError& error) {
    EXPECT_EQ(error.code(), vmafexact::cli::kExitUsage);
    EXPECT_NE(std::string(error.what()).find("frame rate"), std::string::npos) << error.what();
  }
}

// ---- The tool ----

struct ToolRun {
  int status = -1;  // exit code, or 128 + signal
  std::string err;
};

ToolRun run_tool(const std::vector<std::string>& args) {
  std::vector<gchar*> argv{const_cast<gchar*>(kCliPath)};
  for (const auto& arg : args) argv.push_back(const_cast<gchar*>(arg.c_str()));
  argv.push_back(nullptr);
  gchar* err = nullptr;
  gint wait_status = 0;
  GError* error = nullptr;
  ToolRun run;
  if (!g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_STDOUT_TO_DEV_NULL, nullptr, nullptr,
                    nullptr, &err, &wait_status, &error)) {
    run.err = error ? error->message : "spawn failed";
    g_clear_error(&error);
    return run;
  }
  run.status = WIFEXITED(wait_status)     ? WEXITSTATUS(wait_status)
               : WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status)
                                          : -1;
  run.err = err ? err : "";
  g_free(err);
  return run;
}

std::string contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos ? "" : "no \"" + part + "\" in:\n" + text;
}

class AlignTool : public AlignMedia {
 protected:
  // The JSON log of the tool on REF and `dist` with `options`; its stderr in
  // `err`.
  Json scored(const std::string& dist, std::vector<std::string> options, std::string& err) {
    const std::string log =
        (folder_->path() / (dist + "-" + std::to_string(runs_++) + ".json")).string();
    options.insert(options.end(), {"--json", log, in("ref.mp4"), in(dist)});
    const ToolRun run = run_tool(options);
    err = run.err;
    if (run.status != 0) {
      ADD_FAILURE() << "exit " << run.status << ": " << run.err;
      return {};
    }
    return Json::parse(vmafexact::test::read_file(log));
  }
  int runs_ = 0;
};

// The "done when": a DIST whose first 5 frames were cut is found 5
// frames off, and scored exactly as with the matching --dist-delay.
TEST_F(AlignTool, ACutStartIsFoundAndScoredAsWithDistDelay) {
  std::string auto_err, delay_err, plain_err;
  const Json aligned = scored("cut5.mp4", {"--align", "auto"}, auto_err);
  EXPECT_EQ(contains(auto_err,
                     "cut5.mp4: aligned automatically: DIST starts 5 frames (0.208 s) "
                     "later than REF"),
            "");
  EXPECT_EQ(contains(auto_err, "--dist-delay -0.208333333"), "");
  EXPECT_EQ(auto_err.find("warning"), std::string::npos) << auto_err;
  const Json delayed = scored("cut5.mp4", {"--dist-delay", "-0.208333333"}, delay_err);
  ASSERT_TRUE(aligned.contains("frames") && delayed.contains("frames"));
  EXPECT_EQ(aligned["frames"].size(), 67u);
  EXPECT_EQ(aligned["frames"], delayed["frames"]);
  EXPECT_EQ(aligned["pooled_metrics"], delayed["pooled_metrics"]);
  EXPECT_EQ(aligned["provenance"]["alignment"].get<std::string>().rfind(
                "dist-delay -5 frames (-0.208 s), auto, confidence ", 0),
            0u)
      << aligned["provenance"];
  // Unaligned, the scores differ: the comparison above can fail.
  const Json plain = scored("cut5.mp4", {}, plain_err);
  EXPECT_NE(plain["pooled_metrics"], aligned["pooled_metrics"]);
}

// Several encodes in one run: each is lined up on its own, the second (3
// frames before REF's first) the other way, each log as --dist-delay's.
TEST_F(AlignTool, EachEncodeOfARunIsLinedUpOnItsOwn) {
  const std::string logs = (folder_->path() / "{name}-both.json").string();
  const ToolRun run = run_tool(
      {"--align", "auto", "--json", logs, in("ref.mp4"), in("cut5.mp4"), in("padded3.mp4")});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(contains(run.err,
                     "padded3.mp4: aligned automatically: DIST starts 3 frames "
                     "(0.125 s) earlier than REF"),
            "");
  EXPECT_EQ(contains(run.err, "cut5.mp4: aligned automatically: DIST starts 5 frames"), "");
  for (const auto& [name, delay] : {std::pair{"padded3", "0.125"}, {"cut5", "-0.208333333"}}) {
    std::string err;
    const Json delayed = scored(std::string(name) + ".mp4", {"--dist-delay", delay}, err);
    const Json aligned = Json::parse(
        vmafexact::test::read_file(folder_->path() / (std::string(name) + "-both.json")));
    ASSERT_TRUE(aligned.contains("frames") && delayed.contains("frames")) << name;
    EXPECT_EQ(aligned["frames"], delayed["frames"]) << name;
    EXPECT_EQ(aligned["pooled_metrics"], delayed["pooled_metrics"]) << name;
  }
}

TEST_F(AlignTool, StaticContentIsScoredWithAWarningSayingWhatToCheck) {
  const std::string log = (folder_->path() / "still.json").string();
  const ToolRun run =
      run_tool({"--align", "auto", "--json", log, in("still_ref.mp4"), in("still_dist.mp4")});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(contains(run.err, "still_dist.mp4: automatic alignment is unsure"), "");
  EXPECT_EQ(contains(run.err, "hardly move"), "");
  EXPECT_EQ(contains(run.err, "--dist-delay"), "");
}

// 5 frames cut, 3 searched: the best offset lies at the edge, and the warning
// says to search further.
TEST_F(AlignTool, AnOffsetBeyondTheRangeIsWarnedAbout) {
  std::string err;
  scored("cut5.mp4", {"--align", "auto", "--align-range", "0.125"}, err);
  EXPECT_EQ(contains(err, "cut5.mp4: aligned automatically: DIST starts 3 frames"), "");
  EXPECT_EQ(contains(err,
                     "cut5.mp4: the offset found is at the edge of the range searched (3 "
                     "frames, 0.125 s either way): the true one may be larger; try a "
                     "larger --align-range"),
            "");
}

TEST_F(AlignTool, AlignAutoWithDistDelayIsAUsageError) {
  const ToolRun run =
      run_tool({"--align", "auto", "--dist-delay", "0.5", in("ref.mp4"), in("cut5.mp4")});
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_EQ(contains(run.err, "--dist-delay"), "");
  EXPECT_EQ(contains(run.err, "--align"), "");
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
