// Unit tests of metrics/speed/: libvmaf's SpEED extractors speed_chroma and
// speed_temporal (speed.c at master f85a8536).
//
// The golden values (hex floats) are libvmaf's: the pictures of
// synthetic_sample() below were written to raw files by a throwaway script
// with the same integer formula and scored with libvmaf's C path,
//   vmaf -r REF -d DIS -w 352 -h 320 -p 420 -b 8 --cpumask 255 -n --json
//        --feature speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:
//                  speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0
//        --feature speed_temporal
//        --feature speed_temporal=speed_use_ref_diff=true:speed_kernelscale=0.5
// and 272x272 4:4:4 10-bit with the same speed_chroma options plus
// speed_prescale=0.6:speed_prescale_method=bilinear, and
// speed_temporal=speed_prescale=0.75:speed_prescale_method=lanczos4,
// reading the %.17g log (its output.c patched to print all digits).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "error_of.h"
#include "registry.h"
#include "scorer.h"
#include "speed/speed.h"
#include "speed/speed_extractor.h"
#include "speed/speed_linalg.h"

using namespace vmafexact;
using vmafexact::test::error_of;

namespace {

constexpr const char* kV1Options =
    "speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:"
    "speed_max_val=45.0";

FeatureOptions options_of(const std::string& text) {
  FeatureOptions options;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    const std::string pair = text.substr(start, end - start);
    const std::size_t eq = pair.find('=');
    options.push_back({pair.substr(0, eq), pair.substr(eq + 1)});
    start = end + 1;
  }
  return options;
}

// ---- The synthetic pictures ------------------------------------------------------

std::uint64_t mix(std::uint64_t a) {
  a = (a ^ (a >> 33)) * 0xff51afd7ed558ccdull;
  a = (a ^ (a >> 33)) * 0xc4ceb9fe1a85ec53ull;
  return a ^ (a >> 33);
}

// Blocks of 6x6 of random levels with per-sample noise; the distorted picture
// adds more noise; the reference's U plane is flat in frame 2 (a singular
// covariance on one side only). 10-bit: times 4 plus a ramp in the low bits.
unsigned synthetic_sample(bool distorted, unsigned plane, unsigned x, unsigned y, unsigned frame,
                          unsigned bpc) {
  const std::uint64_t key = (std::uint64_t{plane} * 131 + frame) * 4099;
  const std::uint64_t coarse = mix((key + y / 6) * 65537 + x / 6) % 120;
  const std::uint64_t fine = mix(((key + y) * 65537 + x) * 3 + 1) % 40;
  long value = static_cast<long>(40 + coarse + fine);
  if (distorted) value += static_cast<long>(mix(((key + y) * 65537 + x) * 3 + 2) % 31) - 15;
  if (!distorted && plane == 1 && frame == 2) value = 128;
  if (bpc == 10) value = value * 4 + static_cast<long>((x + 2 * y + frame) % 4);
  return static_cast<unsigned>(value);
}

// Three planes in libvmaf's layout (chroma rounded down), owned by the test.
struct Picture {
  Picture(unsigned w, unsigned h, unsigned bpc_, ChromaFormat chroma_) : bpc(bpc_), chroma(chroma_) {
    sizes[0] = {w, h};
    sizes[1] = sizes[2] = {chroma_plane_width(w, chroma), chroma_plane_height(h, chroma)};
    for (unsigned p = 0; p < 3; ++p)
      data[p].assign(std::size_t{sizes[p].first} * sizes[p].second * (bpc > 8 ? 2 : 1), 0);
  }
  void set(unsigned p, unsigned x, unsigned y, unsigned value) {
    const std::size_t i = std::size_t{y} * sizes[p].first + x;
    if (bpc == 8) {
      data[p][i] = static_cast<std::uint8_t>(value);
    } else {
      const auto v = static_cast<std::uint16_t>(value);
      std::memcpy(&data[p][i * 2], &v, 2);
    }
  }
  void fill(unsigned value) {
    for (unsigned p = 0; p < 3; ++p)
      for (unsigned y = 0; y < sizes[p].second; ++y)
        for (unsigned x = 0; x < sizes[p].first; ++x) set(p, x, y, value);
  }
  PictureView view() const {
    PictureView v;
    v.bpc = bpc;
    v.chroma = chroma;
    v.width = sizes[0].first;
    v.height = sizes[0].second;
    const unsigned bytes = bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < 3; ++p)
      v.planes[p] = {data[p].data(), static_cast<std::ptrdiff_t>(sizes[p].first * bytes),
                     sizes[p].first, sizes[p].second};
    return v;
  }
  unsigned bpc;
  ChromaFormat chroma;
  std::pair<unsigned, unsigned> sizes[3];
  std::vector<std::uint8_t> data[3];
};

Picture synthetic_picture(bool distorted, unsigned w, unsigned h, unsigned bpc, ChromaFormat chroma,
                          unsigned frame) {
  Picture picture(w, h, bpc, chroma);
  for (unsigned p = 0; p < 3; ++p)
    for (unsigned y = 0; y < picture.sizes[p].second; ++y)
      for (unsigned x = 0; x < picture.sizes[p].first; ++x)
        picture.set(p, x, y, synthetic_sample(distorted, p, x, y, frame, bpc));
  return picture;
}

// Every feature of `features` (the element's list syntax) on the synthetic
// clip of `frames` frames.
FeatureCollector score_clip(const std::string& features, unsigned w, unsigned h, unsigned bpc,
                            ChromaFormat chroma, unsigned frames, ScorerOptions options = {}) {
  const PictureFormat format{w, h, bpc, chroma};
  std::vector<Picture> refs, dists;
  for (unsigned f = 0; f < frames; ++f) {
    refs.push_back(synthetic_picture(false, w, h, bpc, chroma, f));
    dists.push_back(synthetic_picture(true, w, h, bpc, chroma, f));
  }
  Scorer scorer({}, parse_feature_list(features), format, options);
  for (unsigned f = 0; f < frames; ++f) scorer.push(refs[f].view(), dists[f].view());
  scorer.finish();
  return scorer.scores();
}

void expect_column(const FeatureCollector& scores, const std::string& key,
                   const std::vector<double>& expected) {
  const auto column = scores.column(key);
  ASSERT_TRUE(column) << key;
  ASSERT_EQ(column->size(), expected.size()) << key;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE((*column)[i].has_value()) << key << " frame " << i;
    EXPECT_EQ(*(*column)[i], expected[i]) << key << " frame " << i;
  }
}

// ---- Options and score names -------------------------------------------------------

TEST(SpeedOptions, ScoreKeysAsLibvmafNamesThem) {
  const auto& chroma = speed::chroma_descriptor();
  EXPECT_EQ(chroma.parse({}).score_key("Speed_chroma_feature_speed_chroma_u_score"), "speed_chroma_u");
  const OptionValues v1 = chroma.parse(options_of(kV1Options));
  EXPECT_EQ(v1.score_key("Speed_chroma_feature_speed_chroma_u_score"),
            "speed_chroma_u_mxv_45_nnf_0.1_snn_0.19_wvm_5");
  EXPECT_EQ(v1.score_key("Speed_chroma_feature_speed_chroma_uv_score"),
            "speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5");
  // VMAF v1's 5d0h and 2160 models: prescaled, with the method as given.
  const OptionValues prescaled = chroma.parse(
      options_of(std::string(kV1Options) + ":speed_prescale=0.6:speed_prescale_method=bilinear"));
  EXPECT_EQ(prescaled.score_key("Speed_chroma_feature_speed_chroma_v_score"),
            "speed_chroma_v_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5");
  EXPECT_EQ(chroma.parse(options_of("speed_prescale=0.5:speed_prescale_method=bilinear")).identity(),
            "speed_chroma_ps_0.5_psm_bilinear");
  // The default method and the default kernel scale name nothing.
  EXPECT_EQ(chroma.parse(options_of("speed_prescale_method=nearest:speed_kernelscale=1")).identity(),
            "speed_chroma");
  EXPECT_EQ(chroma.parse(options_of("speed_kernelscale=2")).identity(), "speed_chroma_ks_2");

  const auto& temporal = speed::temporal_descriptor();
  EXPECT_EQ(temporal.parse({}).score_key("Speed_temporal_feature_speed_temporal_score"),
            "speed_temporal");
  EXPECT_EQ(temporal.parse(options_of("speed_use_ref_diff=true:speed_max_val=45"))
                .score_key("Speed_temporal_feature_speed_temporal_score"),
            "speed_temporal_mxv_45_urd");

  const auto extractor = make_feature_extractor("speed_chroma", options_of(kV1Options));
  EXPECT_EQ(extractor->provided_features(),
            (std::vector<std::string>{"Speed_chroma_feature_speed_chroma_u_score",
                                      "Speed_chroma_feature_speed_chroma_v_score",
                                      "Speed_chroma_feature_speed_chroma_uv_score"}));
  EXPECT_FALSE(extractor->sees_every_frame());
  const auto temporal_extractor = make_feature_extractor("speed_temporal");
  EXPECT_TRUE(temporal_extractor->sees_every_frame());
  // Scores written at once, but state kept: one instance, frames in order.
  EXPECT_EQ(temporal_extractor->latency_frames(), 0u);
  EXPECT_TRUE(temporal_extractor->keeps_state());
  EXPECT_FALSE(extractor->keeps_state());
}

TEST(SpeedOptions, TablesAsLibvmafs) {
  const auto names = [](const FeatureDescriptor& d) {
    std::vector<std::string> out;
    for (const auto& option : d.options) out.emplace_back(option.name);
    return out;
  };
  EXPECT_EQ(names(speed::chroma_descriptor()),
            (std::vector<std::string>{"speed_kernelscale", "speed_prescale", "speed_prescale_method",
                                      "speed_sigma_nn", "speed_nn_floor", "speed_max_val",
                                      "speed_weight_var_mode"}));
  EXPECT_EQ(names(speed::temporal_descriptor()),
            (std::vector<std::string>{"speed_kernelscale", "speed_prescale", "speed_prescale_method",
                                      "speed_sigma_nn", "speed_nn_floor", "speed_max_val",
                                      "speed_use_ref_diff"}));
  const OptionValues defaults = speed::chroma_descriptor().parse({});
  EXPECT_EQ(defaults.get_double("speed_sigma_nn"), 0.29);
  EXPECT_EQ(defaults.get_double("speed_max_val"), 1000.0);
  EXPECT_EQ(defaults.get_string("speed_prescale_method"), "nearest");
  EXPECT_EQ(defaults.get_int("speed_weight_var_mode"), 0);
  const speed::SpeedParams params = speed::params_of(speed::temporal_descriptor().parse({}));
  EXPECT_EQ(params.weight_var_mode, 0);  // speed_temporal has none: libvmaf leaves 0
  EXPECT_EQ(params.prescale_method, speed::ScaleMethod::kNearest);
}

TEST(SpeedOptions, RefusesWhatLibvmafCrashesOnOrRejects) {
  EXPECT_NE(error_of([] { make_feature_extractor("speed_chroma", options_of("speed_kernelscale=0.3")); })
                .find("speed_chroma: speed_kernelscale=0.3 is not one of libvmaf's kernel scales"),
            std::string::npos);
  // Within 1e-3 (in float) of a table entry is accepted, as libvmaf's check does.
  EXPECT_NO_THROW(make_feature_extractor("speed_chroma", options_of("speed_kernelscale=0.6671")));
  EXPECT_NO_THROW(make_feature_extractor("speed_temporal", options_of("speed_kernelscale=3.7113")));
  EXPECT_EQ(error_of([] { make_feature_extractor("speed_temporal", options_of("speed_prescale_method=area")); }),
            "speed_temporal: speed_prescale_method=area is not one of nearest, bilinear, bicubic, "
            "lanczos4; libvmaf crashes with it");
  EXPECT_EQ(error_of([] { make_feature_extractor("speed_chroma", options_of("speed_weight_var_mode=7")); }),
            "speed_chroma: option speed_weight_var_mode=7 is not an integer in [0, 6]");
  EXPECT_EQ(error_of([] { make_feature_extractor("speed_chroma", options_of("speed_prescale=4.5")); }),
            "speed_chroma: option speed_prescale=4.5 is not a number in [0.1, 4]");
  EXPECT_NE(error_of([] { make_feature_extractor("speed_temporal", options_of("speed_weight_var_mode=1")); })
                .find("speed_temporal: unknown option 'speed_weight_var_mode'"),
            std::string::npos);
  EXPECT_NE(error_of([] { make_feature_extractor("speed_chroma", options_of("ps=0.5")); })
                .find("only the score-name suffix of speed_prescale"),
            std::string::npos);
}

// ---- Sizes ------------------------------------------------------------------------

TEST(SpeedFormat, TheSmallestPicturesHaveOneBlockAfterDecimation) {
  const auto init = [](const char* name, const std::string& options, unsigned w, unsigned h,
                       ChromaFormat chroma, unsigned bpc = 8) {
    return error_of([&] {
      make_feature_extractor(name, options_of(options))->init(PictureFormat{w, h, bpc, chroma});
    });
  };
  // Chroma planes of 80x80: 160x160 at 4:2:0, 160x80 at 4:2:2, 80x80 at 4:4:4.
  EXPECT_EQ(init("speed_chroma", "", 160, 160, ChromaFormat::k420), "");
  EXPECT_EQ(init("speed_chroma", "", 161, 161, ChromaFormat::k420), "");
  EXPECT_EQ(init("speed_chroma", "", 160, 80, ChromaFormat::k422), "");
  EXPECT_EQ(init("speed_chroma", "", 80, 80, ChromaFormat::k444), "");
  EXPECT_EQ(init("speed_chroma", "", 159, 160, ChromaFormat::k420),
            "speed_chroma: the 4:2:0 chroma planes of 79x80 are smaller than libvmaf's minimum of "
            "80x80 samples (one 5x5 block after 16x decimation); libvmaf logs \"SpEED: image too "
            "small\" and crashes on them; unscaled, a 4:2:0 picture needs at least 160x160 (this "
            "one is 159x160)");
  EXPECT_NE(init("speed_chroma", "", 160, 79, ChromaFormat::k422).find("80x79"), std::string::npos);
  EXPECT_NE(init("speed_chroma", "", 64, 48, ChromaFormat::k420).find("32x24"), std::string::npos);
  // The prescale counts: 134 * 0.6 rounds to 80, 133 * 0.6 to 80 too, 132 * 0.6 to 79.
  EXPECT_EQ(init("speed_chroma", "speed_prescale=0.6", 133, 133, ChromaFormat::k444), "");
  EXPECT_NE(init("speed_chroma", "speed_prescale=0.6", 132, 133, ChromaFormat::k444)
                .find("(79x80 with speed_prescale=0.6)"),
            std::string::npos);
  EXPECT_EQ(init("speed_chroma", "speed_prescale=2", 40, 40, ChromaFormat::k444), "");
  EXPECT_EQ(init("speed_chroma", "", 640, 360, ChromaFormat::k400),
            "speed_chroma: gray (4:0:0) pictures have no chroma planes; libvmaf refuses them too");
  EXPECT_NE(init("speed_chroma", "", 640, 360, ChromaFormat::k420, 9).find("unsupported bit depth 9"),
            std::string::npos);

  // speed_temporal reads luma: 80x80 at any chroma format, gray included.
  EXPECT_EQ(init("speed_temporal", "", 80, 80, ChromaFormat::k400), "");
  EXPECT_EQ(init("speed_temporal", "", 80, 80, ChromaFormat::k420), "");
  EXPECT_NE(init("speed_temporal", "", 80, 79, ChromaFormat::k420).find("luma planes of 80x79"),
            std::string::npos);
}

TEST(SpeedFormat, RefusesPrescalesThatMakeLibvmafReadOrWriteOutsideItsData) {
  const auto init = [](const char* name, const std::string& options, unsigned w, unsigned h) {
    return error_of([&] {
      make_feature_extractor(name, options_of(options))
          ->init(PictureFormat{w, h, 8, ChromaFormat::k444});
    });
  };
  // Within 1e-3 of 1 libvmaf does not scale, but sizes the picture with the
  // prescale: 1920 * 1.0005 rounds to 1921, a column it never wrote.
  EXPECT_EQ(init("speed_chroma", "speed_prescale=1.0005", 1920, 1080),
            "speed_chroma: speed_prescale=1.0005 is within 1e-3 of 1, so libvmaf does not scale, "
            "but it rounds 1920x1080 up to 1921x1081 and filters samples it never wrote. Use "
            "speed_prescale=1 or one at least 1e-3 away from it");
  EXPECT_EQ(init("speed_chroma", "speed_prescale=1.0005", 640, 360), "");  // rounds to 640x360
  EXPECT_EQ(init("speed_chroma", "speed_prescale=0.9995", 1920, 1080), "");  // cut to 1919x1079
  // speed_temporal's frame buffers have the picture's rows only.
  EXPECT_NE(init("speed_temporal", "speed_prescale=1.5", 640, 360)
                .find("libvmaf's speed_temporal then writes beyond its frame buffers"),
            std::string::npos);
  EXPECT_EQ(init("speed_temporal", "speed_prescale=0.5", 640, 360), "");
  EXPECT_EQ(init("speed_chroma", "speed_prescale=1.5", 640, 360), "");
}

// ---- The arithmetic -----------------------------------------------------------------

TEST(SpeedFilters, LibvmafsKernels) {
  // vif_get_filter_size(1, ks) taps, sigma sqrt(4) * taps / 5, and
  // vif_get_filter_size(4, ks) taps, sigma taps / 5.
  EXPECT_EQ(speed::antialias_filter(1.0).size(), 9u);
  EXPECT_EQ(speed::local_mean_filter(1.0).size(), 3u);
  EXPECT_EQ(speed::antialias_filter(1.5).size(), 15u);  // 9 * 1.5 = 13.5 -> 14 -> 15
  EXPECT_EQ(speed::local_mean_filter(3.0).size(), 7u);
  EXPECT_EQ(speed::local_mean_filter(0.5).size(), 3u);  // at least 3
  const auto filter = speed::antialias_filter(1.0);
  for (std::size_t k = 0; k < filter.size(); ++k) EXPECT_EQ(filter[k], filter[filter.size() - 1 - k]);
  EXPECT_TRUE(speed::is_valid_kernelscale(360.0 / 97.0));
  EXPECT_FALSE(speed::is_valid_kernelscale(0.25));
}

TEST(SpeedGeometryTest, AsLibvmafsDimensions) {
  const auto g = speed::SpeedGeometry::of(960, 540, 1.0);
  EXPECT_EQ(g.low_width, 60u);
  EXPECT_EQ(g.low_height, 33u);
  EXPECT_EQ(g.blocks_x, 12u);
  EXPECT_EQ(g.blocks_y, 6u);
  EXPECT_EQ(g.region_width, 56u);
  EXPECT_EQ(g.region_height, 26u);
  EXPECT_FALSE(g.rescaled);
  const auto p = speed::SpeedGeometry::of(960, 540, 0.6);
  EXPECT_EQ(p.scaled_width, 576u);
  EXPECT_EQ(p.scaled_height, 324u);
  EXPECT_TRUE(p.rescaled);
  EXPECT_FALSE(speed::SpeedGeometry::of(79, 200, 1.0).has_blocks());
}

TEST(SpeedChroma, MatchesLibvmafWithVmafV1sOptions) {
  for (unsigned mask : {0u, unsigned{cpu::kAllFlags}}) {
    const unsigned previous = cpu::set_cpu_mask(mask);
    const FeatureCollector scores = score_clip("speed_chroma=" + std::string(kV1Options), 352, 320, 8,
                                               ChromaFormat::k420, 3);
    cpu::set_cpu_mask(previous);
    const std::string suffix = "_mxv_45_nnf_0.1_snn_0.19_wvm_5";
    expect_column(scores, "speed_chroma_u" + suffix, {0x1.ea8e8p+0, 0x1.74fa8p+1, 0.0});
    expect_column(scores, "speed_chroma_v" + suffix, {0x1.8e2e8p+0, 0x1.d1afp-1, 0x1.12a74p+1});
    // Frame 2: the reference U plane is flat, so U scores 0 and UV takes V's.
    expect_column(scores, "speed_chroma_uv" + suffix, {0x1.bc5e8p+0, 0x1.e9664p+0, 0x1.12a74p+1});
    EXPECT_EQ(scores.names().front(), "speed_chroma_u" + suffix);  // libvmaf's order: u, v, uv
  }
}

TEST(SpeedChroma, MatchesLibvmafPrescaledBilinearAt10Bit444) {
  for (unsigned mask : {0u, unsigned{cpu::kAllFlags}}) {
    const unsigned previous = cpu::set_cpu_mask(mask);
    const FeatureCollector scores =
        score_clip("speed_chroma=" + std::string(kV1Options) +
                       ":speed_prescale=0.6:speed_prescale_method=bilinear",
                   272, 272, 10, ChromaFormat::k444, 3);
    cpu::set_cpu_mask(previous);
    const std::string suffix = "_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5";
    expect_column(scores, "speed_chroma_u" + suffix, {0x1.4f1ep+1, 0x1.9fac8p+0, 0.0});
    expect_column(scores, "speed_chroma_v" + suffix, {0x1.2bbf8p+0, 0x1.e2eccp+0, 0x1.3f38p+0});
    expect_column(scores, "speed_chroma_uv" + suffix, {0x1.e4fdcp+0, 0x1.c14cap+0, 0x1.3f38p+0});
  }
}

TEST(SpeedChroma, ClipsToMaxValAsLibvmafsMin) {
  const FeatureCollector scores =
      score_clip("speed_chroma=" + std::string(kV1Options) + ":speed_max_val=1.8", 352, 320, 8,
                 ChromaFormat::k420, 2);
  const std::string suffix = "_mxv_1.8_nnf_0.1_snn_0.19_wvm_5";
  expect_column(scores, "speed_chroma_u" + suffix, {1.8, 1.8});
  expect_column(scores, "speed_chroma_v" + suffix, {0x1.8e2e8p+0, 0x1.d1afp-1});
}

TEST(SpeedTemporal, MatchesLibvmafFromTheFirstFrame) {
  for (unsigned mask : {0u, unsigned{cpu::kAllFlags}}) {
    const unsigned previous = cpu::set_cpu_mask(mask);
    const FeatureCollector scores =
        score_clip("speed_temporal,speed_temporal=speed_use_ref_diff=true:speed_kernelscale=0.5", 352,
                   320, 8, ChromaFormat::k420, 3);
    cpu::set_cpu_mask(previous);
    // Frame 0 has no previous frame: 0.
    expect_column(scores, "speed_temporal", {0.0, 0x1.918b4p+1, 0x1.3eadc4p+2});
    expect_column(scores, "speed_temporal_ks_0.5_urd", {0.0, 0x1.1214p+2, 0x1.20a738p+2});
  }
}

TEST(SpeedTemporal, MatchesLibvmafPrescaledLanczosAt10Bit) {
  const FeatureCollector scores = score_clip(
      "speed_temporal=speed_prescale=0.75:speed_prescale_method=lanczos4", 272, 272, 10,
      ChromaFormat::k444, 3);
  expect_column(scores, "speed_temporal_ps_0.75_psm_lanczos4", {0.0, 0x1.09bbcp+3, 0x1.ff714p+1});
}

TEST(SpeedTemporal, SameScoresWithThreadsFramesInFlightAndSubsampling) {
  const std::string features = "speed_temporal,speed_chroma=" + std::string(kV1Options);
  const FeatureCollector serial = score_clip(features, 352, 320, 8, ChromaFormat::k420, 3);
  ScorerOptions threaded;
  threaded.threads = 3;
  threaded.frames_in_flight = 3;
  const FeatureCollector parallel = score_clip(features, 352, 320, 8, ChromaFormat::k420, 3, threaded);
  ASSERT_EQ(serial.names(), parallel.names());
  for (const auto& name : serial.names())
    for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(serial.score(name, i), parallel.score(name, i)) << name;
  // Under subsampling speed_temporal still sees every frame (libvmaf flags it
  // TEMPORAL): frame 2 compares with frame 1.
  ScorerOptions subsampled;
  subsampled.subsample = 2;
  const FeatureCollector sub = score_clip(features, 352, 320, 8, ChromaFormat::k420, 3, subsampled);
  EXPECT_EQ(sub.score("speed_temporal", 2), serial.score("speed_temporal", 2));
}

TEST(SpeedTemporal, FramesMustArriveInOrder) {
  auto extractor = make_feature_extractor("speed_temporal");
  extractor->init(PictureFormat{96, 96, 8, ChromaFormat::k444});
  const Picture picture = synthetic_picture(false, 96, 96, 8, ChromaFormat::k444, 0);
  FeatureCollector scores;
  extractor->extract(picture.view(), picture.view(), 0, scores);
  EXPECT_NE(error_of([&] { extractor->extract(picture.view(), picture.view(), 2, scores); })
                .find("frames must arrive in order"),
            std::string::npos);
}

TEST(SpeedScoreTest, FlatPicturesAreSingularOnBothSides) {
  // Both pictures flat: both covariances singular, the solutions taken as 0,
  // every block's entropy the same on both sides, so the score is 0 (computed,
  // not imputed).
  speed::SpeedParams params;
  const speed::SpeedGeometry g = speed::SpeedGeometry::of(96, 96, 1.0);
  speed::SpeedKernel kernel(g, params, speed::speed_dsp_scalar());
  Picture flat(96, 96, 8, ChromaFormat::k444);
  flat.fill(77);
  speed::PlaneRows a(flat.view().planes[0], 8, speed::speed_dsp_scalar());
  speed::PlaneRows b(flat.view().planes[0], 8, speed::speed_dsp_scalar());
  const speed::SpeedScore score = kernel.score(a, b);
  EXPECT_TRUE(score.singular);
  EXPECT_EQ(score.score, 0.0f);
}

// The solver leaves out products with a zero factor; every bit must still be
// that of the dense steps libvmaf takes, with each table of routines: on
// covariances as SpEED makes them, on matrices full of exact zeros (where
// signed zeros meet), on near-singular ones and on a column of zeros (NaNs).
TEST(SpeedLinearSystem, EqualsTheDenseStepsBitForBit) {
  std::mt19937 random(44);
  std::vector<std::vector<float>> matrices;
  std::vector<unsigned> sizes;
  const auto add = [&](unsigned n, std::vector<float> m) {
    sizes.push_back(n);
    matrices.push_back(std::move(m));
  };
  for (unsigned n : {1u, 2u, 3u, 5u, 24u, 25u}) {
    // A covariance of random samples, as SpEED's compute_covariance.
    std::normal_distribution<float> sample(0.0f, 20.0f);
    std::vector<std::vector<float>> draws(4 * n, std::vector<float>(n));
    for (auto& d : draws)
      for (auto& x : d) x = sample(random);
    std::vector<float> cov(n * n);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j) {
        double sum = 0;
        for (const auto& d : draws) sum += double{d[i]} * d[j];
        cov[i * n + j] = static_cast<float>(sum / draws.size());
      }
    add(n, cov);
    // Diagonal and block-diagonal: most terms are signed zeros.
    std::vector<float> diagonal(n * n, 0.0f);
    for (unsigned i = 0; i < n; ++i) diagonal[i * n + i] = (i % 2 ? -1.0f : 1.0f) * (1.0f + i);
    add(n, diagonal);
    std::vector<float> blocks = diagonal;
    for (unsigned i = 0; i + 1 < n; i += 2) blocks[i * n + i + 1] = blocks[(i + 1) * n + i] = -0.5f;
    add(n, blocks);
    // Entries over many magnitudes, some exactly zero or negative zero.
    std::uniform_int_distribution<int> exponent(-20, 20), pick(0, 5);
    std::vector<float> wide(n * n);
    for (auto& x : wide) {
      const int p = pick(random);
      x = p == 0 ? 0.0f : p == 1 ? -0.0f : std::ldexp(sample(random), exponent(random));
    }
    add(n, wide);
    // Nearly singular: two rows almost equal.
    std::vector<float> near = cov;
    if (n > 1)
      for (unsigned j = 0; j < n; ++j) near[n + j] = near[j] * (1.0f + 1e-7f);
    add(n, near);
    // A column (and row) of zeros after the first: a reflection of no length.
    if (n > 2) {
      std::vector<float> hollow = cov;
      for (unsigned j = 0; j < n; ++j) hollow[j * n + 1] = hollow[n + j] = 0.0f;
      hollow[0] = 0.0f;
      for (unsigned j = 0; j < n; ++j) hollow[j * n] = hollow[j] = 0.0f;
      add(n, hollow);
    }
  }
  std::vector<const speed::SpeedDsp*> tables = {&speed::speed_dsp_scalar()};
  for (unsigned flag : {cpu::kAvx2, cpu::kAvx512})
    if (cpu::detected_flags() & flag)
      if (const speed::SpeedDsp* table = speed::speed_dsp_isa(flag)) tables.push_back(table);
  std::normal_distribution<float> rhs(0.0f, 50.0f);
  unsigned compared = 0;
  for (const speed::SpeedDsp* dsp : tables)
    for (std::size_t c = 0; c < matrices.size(); ++c)
      for (unsigned cols : {1u, 7u, 72u, 313u}) {
        const unsigned n = sizes[c];
        std::vector<float> b(std::size_t{n} * cols);
        for (auto& x : b) x = rhs(random);
        std::vector<float> fast(b.size(), 1.0f), dense(b.size(), 1.0f), work;
        const bool fast_ok =
            speed::solve_linear_system(matrices[c].data(), n, b.data(), cols, fast.data(), work, *dsp);
        const bool dense_ok = speed::solve_linear_system_dense(matrices[c].data(), n, b.data(), cols,
                                                               dense.data(), work, *dsp);
        ASSERT_EQ(fast_ok, dense_ok) << "matrix " << c << " (" << n << "x" << n << "), " << cols;
        ASSERT_EQ(0, std::memcmp(fast.data(), dense.data(), fast.size() * sizeof(float)))
            << "matrix " << c << " (" << n << "x" << n << "), " << cols << " columns";
        ++compared;
      }
  EXPECT_GE(compared, 4u * matrices.size());
}

}  // namespace
