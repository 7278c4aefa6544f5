#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/feature_collector.h"
#include "registry.h"
#include "scorer.h"
#include "synthetic_clip.h"

using namespace vmafexact;

namespace {
ScorerOptions subsample_options(unsigned subsample) {
  ScorerOptions options;
  options.subsample = subsample;
  return options;
}
ScorerOptions overlap_options() {
  ScorerOptions options;
  options.overlap_frames = 1;
  return options;
}
}  // namespace

TEST(FeatureCollector, KeepsFirstWrittenOrder) {
  FeatureCollector scores;
  scores.append("b", 1, 2.0);
  scores.append("a", 0, 1.0);
  scores.append("b", 0, 3.0);
  EXPECT_EQ(scores.names(), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(scores.frame_count(), 2u);
  const auto frame0 = scores.frame_scores(0);
  ASSERT_EQ(frame0.size(), 2u);
  EXPECT_EQ(frame0[0].first, "b");
  EXPECT_EQ(frame0[1].first, "a");
  EXPECT_EQ(scores.frame_scores(1).size(), 1u);
  EXPECT_FALSE(scores.score("a", 1));
}

TEST(FeatureCollector, RejectsASecondWrite) {
  FeatureCollector scores;
  scores.append("a", 0, 1.0);
  EXPECT_THROW(scores.append("a", 0, 1.0), Error);
}

// libvmaf flushes its extractors in the order it registered them, so the
// names first written at flush follow that order whenever they were written.
TEST(FeatureCollector, FlushNamesFollowTheWritersOrder) {
  FeatureCollector scores;
  scores.set_writer(0);
  scores.append("sad_a", 0, 1.0);
  scores.set_writer(1);
  scores.append("sad_b", 0, 1.0);
  scores.append("motion2_b", 0, 2.0, WritePhase::kFlush);  // b's first: it waits less
  scores.append("model", 0, 3.0, WritePhase::kModel);
  scores.set_writer(0);
  scores.append("motion2_a", 0, 2.0, WritePhase::kFlush);
  scores.append("motion3_a", 0, 2.0, WritePhase::kFlush);
  scores.set_writer(1);
  scores.append("motion3_b", 0, 2.0, WritePhase::kFlush);
  scores.set_writer(0);
  scores.append("late_a", 1, 4.0);  // a name first written later goes last of its phase
  EXPECT_EQ(scores.names(), (std::vector<std::string>{"sad_a", "sad_b", "late_a", "motion2_a",
                                                      "motion3_a", "motion2_b", "motion3_b",
                                                      "model"}));
}

// Found by tests/fixtures/tools/differential.py: vmaf_v1.0.16_hfr_3d0h's motion
// (motion_five_frame_window, a frame more latency) and a plain motion as an
// extra feature; vmafexact wrote the plain one's motion2/motion3 first, as its
// scores came first, where libvmaf's flush writes the model's first.
TEST(Scorer, FlushPhaseScoresFollowTheExtractorsOrderAtAnyThreadCount) {
  const auto clip = test::make_clip({64, 48, 8, ChromaFormat::k420}, 6, 3);
  for (const auto& [threads, in_flight] : {std::pair{1u, 1u}, {3u, 0u}, {2u, 1u}}) {
    ScorerOptions options;
    options.threads = threads;
    options.frames_in_flight = in_flight;
    Scorer scorer({}, parse_feature_list("motion=motion_five_frame_window=true,motion"),
                  clip.format, options);
    for (unsigned f = 0; f < clip.frames(); ++f) scorer.push(clip.ref_view(f), clip.dist_view(f));
    scorer.finish();
    EXPECT_EQ(scorer.scores().names(),
              (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score_mffw",
                                        "VMAF_integer_feature_motion_sad_score",
                                        "integer_motion2_mffw", "integer_motion3_mffw",
                                        "integer_motion2", "integer_motion3"}))
        << threads << " threads";
  }
}

TEST(FeatureList, ParsesAndDeduplicates) {
  const std::vector<FeatureRequest> psnr = {{"psnr", {}}};
  EXPECT_EQ(parse_feature_list("psnr"), psnr);
  EXPECT_EQ(parse_feature_list(" psnr , psnr,"), psnr);
  EXPECT_TRUE(parse_feature_list("").empty());
}

TEST(FeatureList, MalformedOptionIsAClearError) {
  try {
    parse_feature_list("psnr=enable_chroma");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("malformed option 'enable_chroma'"),
              std::string::npos)
        << error.what();
  }
}

TEST(FeatureList, UnknownOptionIsAClearError) {
  try {
    parse_feature_list("psnr=no_such_option=1");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("unknown option 'no_such_option'"),
              std::string::npos)
        << error.what();
  }
}

TEST(FeatureNames, OptionsNameScoresLikeLibvmaf) {
  EXPECT_EQ(feature_name_with_options("VMAF_integer_feature_adm2_score", {}), "integer_adm2");
  EXPECT_EQ(feature_name_with_options("VMAF_integer_feature_motion_sad_score", {}),
            "VMAF_integer_feature_motion_sad_score");
  EXPECT_EQ(feature_name_with_options("VMAF_integer_feature_adm2_score",
                                      {{"adm_enhn_gain_limit", "egl", format_option_double(1.0)}}),
            "integer_adm2_egl_1");
  // Sorted by option name; booleans add their alias only.
  EXPECT_EQ(feature_name_with_options("VMAF_integer_feature_vif_scale0_score",
                                      {{"vif_kernelscale", "vks", format_option_double(0.5)},
                                       {"debug", "debug", "true", true},
                                       {"vif_enhn_gain_limit", "egl", format_option_double(1.25)}}),
            "integer_vif_scale0_debug_egl_1.25_vks_0.5");
}

TEST(FeatureList, UnknownNameIsAClearError) {
  try {
    parse_feature_list("psnr,ssimulacra");
    FAIL() << "no error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("ssimulacra"), std::string::npos) << message;
    EXPECT_NE(message.find("available: adm, motion, cambi, "), std::string::npos) << message;
  }
}

TEST(Scorer, FramesArePostedInOrder) {
  Scorer scorer({{"psnr", {}}}, {4, 4, 8, ChromaFormat::k400});
  std::vector<std::uint8_t> a(16, 1), b(16, 2);
  PictureView ref, dist;
  ref.bpc = dist.bpc = 8;
  ref.chroma = dist.chroma = ChromaFormat::k400;
  ref.width = dist.width = ref.height = dist.height = 4;
  ref.planes[0] = {a.data(), 4, 4, 4};
  dist.planes[0] = {b.data(), 4, 4, 4};
  EXPECT_EQ(scorer.push(ref, dist), (std::vector<unsigned>{0}));
  EXPECT_EQ(scorer.push(ref, ref), (std::vector<unsigned>{1}));
  EXPECT_TRUE(scorer.finish().empty());
  EXPECT_EQ(scorer.frames_pushed(), 2u);
  EXPECT_EQ(*scorer.scores().score("psnr_y", 1), 60.0);
}

namespace {

// Every score of every frame and every aggregate of a run over the clip,
// "name frame value" (%.17g), with the chroma planes left out (null) or not.
std::vector<std::string> scores_of_run(const std::vector<FeatureRequest>& features,
                                       const test::Clip& clip, bool chroma) {
  Scorer scorer(features, clip.format);
  const auto without_chroma = [&](PictureView view) {
    if (!chroma)
      for (unsigned p = 1; p < view.plane_count(); ++p) view.planes[p].data = nullptr;
    return view;
  };
  for (unsigned f = 0; f < clip.frames(); ++f)
    scorer.push(without_chroma(clip.ref_view(f)), without_chroma(clip.dist_view(f)));
  scorer.finish();
  std::vector<std::string> lines;
  char value[64];
  for (unsigned f = 0; f < scorer.scores().frame_count(); ++f)
    for (const auto& [name, score] : scorer.scores().frame_scores(f)) {
      std::snprintf(value, sizeof value, "%.17g", score);
      lines.push_back(name + " " + std::to_string(f) + " " + value);
    }
  for (const auto& [name, score] : scorer.scores().aggregates()) {
    std::snprintf(value, sizeof value, "%.17g", score);
    lines.push_back(name + " " + value);
  }
  return lines;
}

}  // namespace

// An extractor that says it reads luma only is handed pictures without chroma
// (the element's frame sources leave NV12's and P010's chroma unrepacked):
// it must score them exactly as with chroma. Each extractor with its default
// options, and psnr without chroma; one that read a null plane would crash.
TEST(Scorer, ExtractorsThatReadNoChromaScoreTheSameWithoutIt) {
  // The smallest size every extractor takes (as in HeldMemoryDoesNotGrow...).
  const auto clip = test::make_clip({224, 176, 8, ChromaFormat::k420}, 3, 11);
  std::vector<std::string> luma_only, with_chroma;
  std::vector<std::string> lists;
  for (const FeatureEntry& entry : feature_registry()) lists.emplace_back(entry.name());
  lists.emplace_back("psnr=enable_chroma=false");
  for (const auto& list : lists) {
    const auto features = parse_feature_list(list);
    const Scorer probe(features, clip.format);
    (probe.reads_chroma() ? with_chroma : luma_only).push_back(list);
    if (probe.reads_chroma()) continue;
    const auto with = scores_of_run(features, clip, true);
    ASSERT_FALSE(with.empty()) << list;
    EXPECT_EQ(scores_of_run(features, clip, false), with) << list;
  }
  // The ones that read chroma say so (a false here would hand them null planes).
  EXPECT_EQ(with_chroma, (std::vector<std::string>{"speed_chroma", "psnr", "psnr_hvs", "ciede"}));
  EXPECT_EQ(luma_only.size(), lists.size() - 4);
  // The VMAF models read luma only: the element repacks no chroma for them.
  EXPECT_FALSE(Scorer(load_models(parse_model_list("vmaf_v0.6.1")), {}, clip.format).reads_chroma());
  EXPECT_TRUE(Scorer(load_models(parse_model_list("vmaf_v0.6.1")), parse_feature_list("psnr"),
                     clip.format)
                  .reads_chroma());
}

TEST(Scorer, RejectsUnsupportedBitDepth) {
  EXPECT_THROW(Scorer({{"psnr", {}}}, {4, 4, 14, ChromaFormat::k420}), Error);
}

// With frames side by side the extractors are initialised on the lanes, on
// the workers: a format one of them refuses still fails the constructor with
// its message, as on one thread.
TEST(Scorer, AFormatAnExtractorRefusesFailsTheConstructorAtAnyThreadCount) {
  for (const unsigned threads : {1u, 2u, 4u}) {
    ScorerOptions options;
    options.threads = threads;
    try {
      Scorer scorer({}, {{"psnr", {}}, {"adm", {}}}, {8, 8, 8, ChromaFormat::k420}, options);
      ADD_FAILURE() << "an 8x8 picture was taken for adm on " << threads << " threads";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("adm: pictures must be at least"), std::string::npos)
          << error.what();
    }
  }
}

TEST(ModelList, ParsesBuiltInsPathsAndOptions) {
  const auto specs = parse_model_list(
      "vmaf_v0.6.1, version=vmaf_v0.6.1neg:name=vmaf_neg, /models/mine.json:disable_clip,"
      "path=relative.json:enable_transform:name=phone");
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(specs[0].source, "vmaf_v0.6.1");
  EXPECT_FALSE(specs[0].is_path);
  EXPECT_TRUE(specs[0].key.empty());
  EXPECT_EQ(specs[1].source, "vmaf_v0.6.1neg");
  EXPECT_EQ(specs[1].key, "vmaf_neg");
  EXPECT_TRUE(specs[2].is_path);
  EXPECT_TRUE(specs[2].predict.disable_clip);
  EXPECT_FALSE(specs[2].predict.enable_transform);
  EXPECT_EQ(specs[3].source, "relative.json");
  EXPECT_TRUE(specs[3].is_path);
  EXPECT_TRUE(specs[3].predict.enable_transform);
  EXPECT_EQ(specs[3].key, "phone");
  EXPECT_TRUE(parse_model_list(" , ").empty());
}

TEST(ModelList, UnknownOptionIsAClearError) {
  EXPECT_THROW(parse_model_list("vmaf_v0.6.1:clip_off"), Error);
  EXPECT_THROW(parse_model_list("version=:name=x"), Error);
}

TEST(Scorer, SubsampleScoresEveryNthFrameButTemporalFeaturesSeeAll) {
  Scorer scorer({}, {{"psnr", {}}}, {4, 4, 8, ChromaFormat::k400}, subsample_options(2));
  std::vector<std::uint8_t> a(16, 1), b(16, 2);
  PictureView ref, dist;
  ref.bpc = dist.bpc = 8;
  ref.chroma = dist.chroma = ChromaFormat::k400;
  ref.width = dist.width = ref.height = dist.height = 4;
  ref.planes[0] = {a.data(), 4, 4, 4};
  dist.planes[0] = {b.data(), 4, 4, 4};
  EXPECT_EQ(scorer.push(ref, dist), (std::vector<unsigned>{0}));
  EXPECT_TRUE(scorer.push(ref, dist).empty());
  EXPECT_EQ(scorer.push(ref, dist), (std::vector<unsigned>{2}));
  EXPECT_TRUE(scorer.finish().empty());
  // psnr is temporal in libvmaf, so it is computed on frame 1 as well.
  EXPECT_TRUE(scorer.scores().score("psnr_y", 1));
  EXPECT_THROW(Scorer({}, {{"psnr", {}}}, {4, 4, 8, ChromaFormat::k400}, subsample_options(0)), Error);
}

TEST(Scorer, OverlappingFramesChangesNothingButWhenFramesAreFinal) {
  // (also run below with extractors on threads)
  // 6 frames of 64x48 gray noise with a moving bar, scored with the default
  // model and psnr, once frame by frame and once with frames overlapping.
  const unsigned w = 64, h = 48, frames = 6;
  std::vector<std::vector<std::uint8_t>> ref(frames), dist(frames);
  std::uint32_t seed = 7;
  for (unsigned f = 0; f < frames; ++f) {
    ref[f].resize(w * h);
    dist[f].resize(w * h);
    for (unsigned i = 0; i < w * h; ++i) {
      seed = seed * 1664525u + 1013904223u;
      const unsigned x = i % w;
      ref[f][i] = static_cast<std::uint8_t>((x / 8 == f ? 220 : 40) + (seed >> 28));
      dist[f][i] = static_cast<std::uint8_t>(ref[f][i] ^ ((seed >> 20) & 3));
    }
  }
  auto view = [&](std::vector<std::uint8_t>& plane) {
    PictureView v;
    v.bpc = 8;
    v.chroma = ChromaFormat::k400;
    v.width = w;
    v.height = h;
    v.planes[0] = {plane.data(), static_cast<std::ptrdiff_t>(w), w, h};
    return v;
  };
  const PictureFormat format{w, h, 8, ChromaFormat::k400};
  Scorer plain(load_models(parse_model_list("vmaf_v0.6.1")), {{"psnr", {}}}, format);
  ScorerOptions threaded_options;
  threaded_options.threads = 3;
  Scorer threaded(load_models(parse_model_list("vmaf_v0.6.1")), {{"psnr", {}}}, format,
                  threaded_options);
  std::vector<unsigned> plain_final;
  for (unsigned f = 0; f < frames; ++f) {
    for (unsigned i : plain.push(view(ref[f]), view(dist[f]))) plain_final.push_back(i);
    threaded.push(view(ref[f]), view(dist[f]));
  }
  threaded.finish();
  for (unsigned i : plain.finish()) plain_final.push_back(i);
  ASSERT_EQ(plain.scores().names(), threaded.scores().names()) << "threads changed the key order";
  for (const auto& name : plain.scores().names())
    for (unsigned f = 0; f < frames; ++f)
      EXPECT_EQ(plain.scores().score(name, f), threaded.scores().score(name, f)) << name << " " << f;
  // 1 to more frames ahead than the clip has: each frame's pictures are read
  // until frames_released() passes it, no longer.
  for (const unsigned ahead : {1u, 2u, 3u, 7u}) {
    ScorerOptions options = overlap_options();
    options.overlap_frames = ahead;
    Scorer overlapped(load_models(parse_model_list("vmaf_v0.6.1")), {{"psnr", {}}}, format, options);
    EXPECT_EQ(overlapped.latency_frames(), plain.latency_frames() + ahead);
    std::vector<unsigned> overlapped_final;
    for (unsigned f = 0; f < frames; ++f) {
      for (unsigned i : overlapped.push(view(ref[f]), view(dist[f]))) overlapped_final.push_back(i);
      EXPECT_EQ(overlapped.frames_released(), f + 1 > ahead ? f + 1 - ahead : 0u) << ahead;
    }
    EXPECT_LT(overlapped_final.size(), plain_final.size()) << ahead;
    for (unsigned i : overlapped.finish()) overlapped_final.push_back(i);
    EXPECT_EQ(overlapped.frames_released(), frames);
    EXPECT_EQ(plain_final, overlapped_final) << ahead;
    ASSERT_EQ(plain.scores().names(), overlapped.scores().names()) << ahead;
    for (const auto& name : plain.scores().names())
      for (unsigned f = 0; f < frames; ++f)
        EXPECT_EQ(plain.scores().score(name, f), overlapped.scores().score(name, f))
            << name << " " << f << " " << ahead << " ahead";
  }
}

TEST(Scorer, FramesInFlightAndBandsChangeNothingButWhenFramesAreFinal) {
  // 8 frames of 640x360 (big enough for the stages to be cut into bands) with
  // moving structure and noise, 10-bit, the default model plus psnr and the
  // debug outputs: with every mix of threads and frames in flight, the same
  // scores in the same order as one thread, and every frame returned once.
  const unsigned w = 640, h = 360, frames = 8;
  std::vector<std::vector<std::uint16_t>> ref(frames), dist(frames);
  std::uint32_t seed = 11;
  for (unsigned f = 0; f < frames; ++f) {
    ref[f].resize(w * h);
    dist[f].resize(w * h);
    for (unsigned i = 0; i < w * h; ++i) {
      seed = seed * 1664525u + 1013904223u;
      const unsigned x = i % w, y = i / w;
      const unsigned base = ((x + 9 * f) / 16 + y / 24) % 2 ? 800 : 200;
      ref[f][i] = static_cast<std::uint16_t>(base + (seed >> 26) + (x * y) % 37);
      dist[f][i] = static_cast<std::uint16_t>(ref[f][i] + ((seed >> 20) % 9) - 4);
    }
  }
  auto view = [&](std::vector<std::uint16_t>& plane) {
    PictureView v;
    v.bpc = 10;
    v.chroma = ChromaFormat::k400;
    v.width = w;
    v.height = h;
    v.planes[0] = {reinterpret_cast<const std::uint8_t*>(plane.data()),
                   static_cast<std::ptrdiff_t>(2 * w), w, h};
    return v;
  };
  const PictureFormat format{w, h, 10, ChromaFormat::k400};
  // The model with psnr, and the features alone with their debug outputs.
  for (const bool with_model : {true, false}) {
    const auto features = parse_feature_list(
        with_model ? "psnr" : "vif=debug=true,adm=debug=true,motion=debug=true");
    const auto models = [&] { return load_models(parse_model_list(with_model ? "vmaf_v0.6.1" : "")); };
    Scorer plain(models(), features, format);
    std::vector<unsigned> plain_final;
    for (unsigned f = 0; f < frames; ++f)
      for (unsigned i : plain.push(view(ref[f]), view(dist[f]))) plain_final.push_back(i);
    for (unsigned i : plain.finish()) plain_final.push_back(i);

    for (const auto& [threads, in_flight] :
         {std::pair{2u, 1u}, {4u, 1u}, {3u, 0u}, {4u, 2u}, {5u, 3u}}) {
      ScorerOptions options;
      options.threads = threads;
      options.frames_in_flight = in_flight;
      Scorer threaded(models(), features, format, options);
      const unsigned expected_in_flight = in_flight == 0 ? threads : in_flight;
      EXPECT_EQ(threaded.frames_in_flight(), expected_in_flight);
      // With a worker per frame in flight (the default), one more frame waits
      // queued, so that a worker never waits for the next push().
      const unsigned queued = in_flight == 0 ? 1 : 0;
      EXPECT_EQ(threaded.latency_frames(),
                plain.latency_frames() + expected_in_flight - 1 + queued);
      std::vector<unsigned> finals;
      for (unsigned f = 0; f < frames; ++f) {
        const auto now = threaded.push(view(ref[f]), view(dist[f]));
        // One frame at a time: scored before push() returns.
        if (expected_in_flight == 1) {
          EXPECT_EQ(threaded.frames_released(), f + 1);
        }
        finals.insert(finals.end(), now.begin(), now.end());
      }
      for (unsigned i : threaded.finish()) finals.push_back(i);
      EXPECT_EQ(finals, plain_final) << threads << " threads, " << in_flight << " in flight";
      ASSERT_EQ(plain.scores().names(), threaded.scores().names());
      for (const auto& name : plain.scores().names())
        for (unsigned f = 0; f < frames; ++f)
          ASSERT_EQ(plain.scores().score(name, f), threaded.scores().score(name, f))
              << name << " frame " << f << ", " << threads << " threads, " << in_flight
              << " in flight";
    }
  }
}

TEST(Scorer, AnExtractorErrorOnAWorkerComesBackFromPush) {
  // A picture smaller than the format it was declared with cannot be read:
  // the extractor's error reaches the caller, whichever thread ran it.
  const PictureFormat format{64, 48, 8, ChromaFormat::k400};
  for (const unsigned in_flight : {1u, 2u}) {
    ScorerOptions options;
    options.threads = 2;
    options.frames_in_flight = in_flight;
    Scorer scorer({}, parse_feature_list("vif"), format, options);
    std::vector<std::uint8_t> plane(32 * 24, 0);
    PictureView bad;
    bad.bpc = 8;
    bad.chroma = ChromaFormat::k400;
    bad.width = 32;
    bad.height = 24;
    bad.planes[0] = {plane.data(), 32, 32, 24};
    EXPECT_THROW(
        {
          scorer.push(bad, bad);
          scorer.push(bad, bad);
          scorer.finish();
        },
        Error)
        << in_flight;
  }
}

namespace {

std::string model_error(const std::string& list) {
  try {
    load_models(parse_model_list(list));
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

}  // namespace

TEST(ModelList, ParsesFeatureOverloads) {
  const auto specs = parse_model_list(
      "vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0,"
      "version=vmaf_v0.6.1neg:name=neg:adm.adm_enhn_gain_limit=1.2:motion.motion_force_zero=true");
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].overloads, (std::vector<ModelOverload>{{"vif", "vif_enhn_gain_limit", "1.0"}}));
  EXPECT_EQ(specs[1].key, "neg");
  EXPECT_EQ(specs[1].overloads,
            (std::vector<ModelOverload>{{"adm", "adm_enhn_gain_limit", "1.2"},
                                        {"motion", "motion_force_zero", "true"}}));
}

TEST(ModelList, OverloadsChangeTheModelsExtractorsAsLibvmafMergesThem) {
  // vmaf_v0.6.1 sets no options: the overload is added to each vif input.
  const PictureFormat format{64, 48, 8, ChromaFormat::k420};
  Scorer scorer(load_models(parse_model_list("vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0")), {}, format);
  const auto clip = test::make_lcg_clip(format, 2, false);
  for (unsigned i = 0; i < 2; ++i) scorer.push(clip.view(clip.ref_planes, i), clip.view(clip.dist_planes, i));
  scorer.finish();
  EXPECT_EQ(scorer.scores().names(),
            (std::vector<std::string>{"integer_adm2", "integer_aim", "integer_adm3",
                                      "integer_adm_scale0", "integer_adm_scale1",
                                      "integer_adm_scale2", "integer_adm_scale3",
                                      "VMAF_integer_feature_motion_sad_score",
                                      "integer_vif_scale0_egl_1", "integer_vif_scale1_egl_1",
                                      "integer_vif_scale2_egl_1", "integer_vif_scale3_egl_1",
                                      "integer_motion2", "integer_motion3", "vmaf"}));
  // vmaf_v0.6.1neg sets adm_enhn_gain_limit=1 itself: the overload replaces it.
  const auto neg = load_models(parse_model_list("vmaf_v0.6.1neg:adm.adm_enhn_gain_limit=1.2"));
  for (const auto& request : model_feature_requests(neg[0].model)) {
    if (request.name != "adm") continue;
    const auto values = feature_entry("adm").descriptor.parse(request.options);
    EXPECT_EQ(values.get_double("adm_enhn_gain_limit"), 1.2);
    EXPECT_EQ(values.identity(), "adm_egl_1.2");
  }
  // Several overloads of one extractor, the last value of an option winning.
  const auto twice = load_models(parse_model_list(
      "vmaf_v0.6.1:motion.motion_force_zero=true:motion.motion_blend_factor=0.5:"
      "motion.motion_blend_factor=0.25"));
  for (const auto& request : model_feature_requests(twice[0].model)) {
    if (request.name == "motion") {
      EXPECT_EQ(feature_entry("motion").descriptor.parse(request.options).identity(),
                "motion_mbf_0.25_force_0");  // sorted by option name
    }
  }
}

// A bootstrap model collection given as a file: model "0" writes its score
// with the other models', then each bootstrap model its own (KEY_0001, ...)
// and the collection its statistics, as libvmaf's tool orders them.
TEST(ModelList, ABootstrapCollectionWritesItsModelsAndStatisticsAfterTheModels) {
  std::string json = "{";
  for (int i = 0; i < 4; ++i) {
    // 0.5 adm2 + 1.5 motion2 - rho, rho 0.25 - i: each model i above model 0.
    json += std::string(i ? "," : "") + "\"" + std::to_string(i) +
            R"(": {"model_dict": {"model_type": ")" +
            (i ? "BOOTSTRAP_LIBSVMNUSVR" : "LIBSVMNUSVR") +
            R"(", "norm_type": "none", "score_clip": [0.0, 100.0], "feature_names": )"
            R"(["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score"], )"
            R"("model": "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho )" +
            std::to_string(0.25 - i) + R"(\nSV\n2 1:0.25 2:1 \n-1 2:0.5 \n"}})";
  }
  json += "}";
  const std::string path = ::testing::TempDir() + "vmafexact_collection.json";
  {
    std::FILE* file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs(json.c_str(), file);
    std::fclose(file);
  }
  const PictureFormat format{64, 48, 8, ChromaFormat::k420};
  Scorer scorer(load_models(parse_model_list(path + ":name=b,vmaf_v0.6.1")), {}, format);
  const auto clip = test::make_lcg_clip(format, 3, false);
  for (unsigned i = 0; i < 3; ++i)
    scorer.push(clip.view(clip.ref_planes, i), clip.view(clip.dist_planes, i));
  scorer.finish();
  const auto names = scorer.scores().names();
  const std::vector<std::string> last(names.end() - 9, names.end());
  EXPECT_EQ(last,
            (std::vector<std::string>{"b", "vmaf_v0.6.1", "b_0001", "b_0002", "b_0003", "b_bagging",
                                      "b_stddev", "b_ci_p95_lo", "b_ci_p95_hi"}));
  for (unsigned i = 0; i < 3; ++i) {
    const double adm2 = *scorer.scores().score("integer_adm2", i);
    const double motion2 = *scorer.scores().score("integer_motion2", i);
    const double zero = 0.5 * adm2 + 1.5 * motion2 - 0.25;
    EXPECT_NEAR(*scorer.scores().score("b", i), zero, 1e-12);
    for (int m = 1; m <= 3; ++m)
      EXPECT_NEAR(*scorer.scores().score("b_000" + std::to_string(m), i), zero + m, 1e-12);
    EXPECT_NEAR(*scorer.scores().score("b_bagging", i), zero + 2.0, 1e-12);
    EXPECT_NEAR(*scorer.scores().score("b_stddev", i), std::sqrt(2.0 / 3.0), 1e-9);
    EXPECT_NEAR(*scorer.scores().score("b_ci_p95_lo", i), zero + 1.05, 1e-9);
    EXPECT_NEAR(*scorer.scores().score("b_ci_p95_hi", i), zero + 2.95, 1e-9);
  }
  // Two collections writing one name.
  try {
    load_models(parse_model_list(path + "," + path + ":name=vmaf"));
    ADD_FAILURE() << "two collections named vmaf were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two models would both write the score 'vmaf'"),
              std::string::npos)
        << e.what();
  }
  // A model named as one of the collection's statistics.
  EXPECT_THROW(load_models(parse_model_list(path + ":name=b,vmaf_v0.6.1:name=b_stddev")), Error);
  std::remove(path.c_str());
}

TEST(ModelList, BadOverloadsAreClearErrors) {
  const struct {
    const char* list;
    const char* message;
  } cases[] = {
      {"vmaf_v0.6.1:foo.bar=1", "model overload 'foo.bar=1' in 'vmaf_v0.6.1:foo.bar=1': unknown feature 'foo' (available: adm,"},
      {"vmaf_v0.6.1:vif.vif_kernelscale=1",
       "vif: unknown option 'vif_kernelscale' (options: debug, vif_enhn_gain_limit, "
       "vif_skip_scale0)"},
      {"vmaf_v0.6.1:vif.vif_enhn_gain_limit=0.5",
       "vif: option vif_enhn_gain_limit=0.5 is not a number in [1, 100]"},
      {"vmaf_v0.6.1:vif.vif_enhn_gain_limit", "no value (write EXTRACTOR.OPTION=VALUE"},
      {"vmaf_v0.6.1:vif.=1", "malformed (write EXTRACTOR.OPTION=VALUE"},
      {"vmaf_v0.6.1:.x=1", "malformed"},
      {"vmaf_v0.6.1:vif.a.b=1", "malformed"},
      {"vmaf_v0.6.1:vif.vif_enhn_gain_limit=1=2", "malformed"},
      {"vmaf_v0.6.1:psnr.min_sse=1",
       "model vmaf_v0.6.1: the overload psnr.min_sse=1 names an extractor none of its inputs uses "
       "(libvmaf would ignore it); overload one of adm, motion, vif, or ask for the feature "
       "itself with the features property"},
      {"vmaf_v0.6.1:clip=1", "unknown model option 'clip=1'"},
  };
  for (const auto& c : cases) {
    const std::string error = model_error(c.list);
    EXPECT_NE(error.find(c.message), std::string::npos) << c.list << "\n  " << error;
  }
}

// A run of months: with the final frames released after each push, as the
// element does, what the scorer holds on the heap must not grow with the
// frames. The heap in use is counted by malloc itself (all arenas and mmapped
// chunks), so a byte per frame shows. (Under ASan malloc is ASan's: skipped.)
// This found motion's sad scores kept for the whole run (8 bytes a frame).
namespace {

double heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

// Pushes `frames` pairs of `clip` (cycled) into `scorer`, releasing the final
// frames after each, and returns the heap in use every `every` frames.
std::vector<std::pair<double, double>> run_and_sample(Scorer& scorer, const test::Clip& clip,
                                                      unsigned& pushed, unsigned frames,
                                                      unsigned every) {
  std::vector<std::pair<double, double>> samples;  // frames pushed, heap bytes
  for (unsigned f = 1; f <= frames; ++f, ++pushed) {
    // Frames in flight read their pictures until released: the clip's
    // frames stay valid for the whole run.
    scorer.push(clip.ref_view(pushed % clip.frames()), clip.dist_view(pushed % clip.frames()));
    scorer.release_final_frames();
    if (f % every == 0) samples.emplace_back(pushed, heap_in_use());
  }
  return samples;
}

}  // namespace

// Every extractor, and motion in its other modes, with the default model, on
// one thread: the heap after 1,000 more frames is what it was.
TEST(Scorer, HeldMemoryDoesNotGrowWithTheFramesOfAnyExtractor) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "mallinfo2 does not see ASan's allocator";
#endif
  // ciede and psnr_hvs cost 20 to 100 times more per pixel than the others
  // (libm calls per pixel, serial sums): they run on a smaller clip.
  const std::vector<std::string> costly = {"ciede", "psnr_hvs"};
  std::string every_feature, costly_features;
  for (const FeatureEntry& entry : feature_registry()) {
    const std::string name(entry.name());
    std::string& list = std::find(costly.begin(), costly.end(), name) != costly.end()
                            ? costly_features
                            : every_feature;
    list += std::string(list.empty() ? "" : ",") + name;
  }
  every_feature += ",motion=motion_five_frame_window=true:motion_moving_average=true";
  EXPECT_EQ(costly_features, "psnr_hvs,ciede");
  // The smallest size every other extractor takes (float_ms_ssim 176x176,
  // 4:2:0 speed_chroma 160x160, cambi a side of 216).
  const auto clip = test::make_clip({224, 176, 8, ChromaFormat::k420}, 8, 5);
  const auto small_clip = test::make_clip({48, 40, 8, ChromaFormat::k420}, 8, 6);
  for (const auto& [features, frames] :
       {std::pair{every_feature, &clip}, std::pair{costly_features, &small_clip}}) {
    SCOPED_TRACE(features);
    Scorer scorer(load_models(parse_model_list("vmaf_v0.6.1")), parse_feature_list(features),
                  frames->format);
    unsigned pushed = 0;
    const double before = run_and_sample(scorer, *frames, pushed, 200, 200).back().second;
    constexpr unsigned kFrames = 1000;
    const double grown =
        run_and_sample(scorer, *frames, pushed, kFrames, kFrames).back().second - before;
    EXPECT_LT(grown, kFrames * 1.0) << grown / kFrames << " bytes per frame held on";
  }
}

// Frames side by side on a pool (lanes, jobs, the in-order merge): each lane
// allocates when it first scores and the frames in flight vary, so the heap
// steps; the median of the slopes between samples far apart (Theil-Sen) is
// what grows with every frame.
TEST(Scorer, HeldMemoryDoesNotGrowWithTheFramesScoredSideBySide) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "mallinfo2 does not see ASan's allocator";
#endif
  const auto clip = test::make_clip({64, 48, 8, ChromaFormat::k420}, 8, 9);
  ScorerOptions options;
  options.threads = 3;
  Scorer scorer(load_models(parse_model_list("vmaf_v0.6.1")),
                parse_feature_list("psnr,motion=motion_five_frame_window=true"), clip.format,
                options);
  ASSERT_GT(scorer.frames_in_flight(), 1u);
  unsigned pushed = 0;
  run_and_sample(scorer, clip, pushed, 500, 500);
  const auto samples = run_and_sample(scorer, clip, pushed, 60000, 1000);
  std::vector<double> slopes;
  for (std::size_t i = 0; i < samples.size(); ++i)
    for (std::size_t j = i + samples.size() / 3; j < samples.size(); ++j)
      slopes.push_back((samples[j].second - samples[i].second) /
                       (samples[j].first - samples[i].first));
  ASSERT_FALSE(slopes.empty());
  std::nth_element(slopes.begin(), slopes.begin() + slopes.size() / 2, slopes.end());
  const double slope = slopes[slopes.size() / 2];
  // Steps of tens of KiB (a thread's malloc cache) stay below 2 bytes per
  // frame over 60,000 frames; a leak of a pointer or a double per frame does not.
  EXPECT_LT(slope, 2.0) << "bytes per frame held on; heap " << samples.front().second << " -> "
                        << samples.back().second;
}
