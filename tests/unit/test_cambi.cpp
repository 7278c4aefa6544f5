// Unit tests of metrics/cambi/: libvmaf 3.2.0's CAMBI ("cambi").
//
// The golden values written as %.17g literals come from libvmaf's tool
// (/work/libvmaf-build/tools/vmaf, master f85a8536, its portable C path:
// --cpumask 255, output printed with %.17g) scoring the pictures that
// golden_picture() below makes, written to raw .yuv files (luma as made here,
// chroma constant at mid grey) by a Python copy of the same generator, e.g.
//   vmaf -r r1.yuv -d d1.yuv -w 256 -h 216 -p 420 -b 8 --cpumask 255 -n --json
//        -o out.json --feature cambi=full_ref=true

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cambi/cambi.h"
#include "cambi/cambi_dsp.h"
#include "cambi/cambi_extractor.h"
#include "common/cpu.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "error_of.h"
#include "registry.h"
#include "test_pictures.h"

using namespace vmafexact;
using vmafexact::test::error_of;
using namespace vmafexact::cambi;

namespace {

// The picture kinds of the golden values: one-level steps every 16 samples,
// four-level steps every 64, noise beside steps, and a slow descending slope;
// one sample in 16 raised by one (an LCG decides which).
test::TestPlane golden_picture(unsigned w, unsigned h, unsigned bpc, int kind, unsigned frame) {
  test::TestPlane plane(w, h, bpc);
  std::uint64_t state = std::uint64_t{w} * 7919 + std::uint64_t{h} * 104729 +
                        std::uint64_t{bpc} * 1299709 + std::uint64_t(kind) * 15485863 +
                        std::uint64_t{frame} * 32452843;
  const int max = (1 << bpc) - 1;
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const int noise = (state >> 33) % 16 == 0 ? 1 : 0;
      const int t = static_cast<int>(x + (y >> 1) + 3 * frame);
      int v = 0;
      switch (kind) {
        case 0: v = (30 << (bpc - 8)) + (t >> 4); break;
        case 1: v = (30 << (bpc - 8)) + ((t >> 6) << 2); break;
        case 2:
          v = (x / 40) % 2 ? static_cast<int>((x * 5 + y * 3) % static_cast<unsigned>(max + 1))
                           : (60 << (bpc - 8)) + (t >> 5);
          break;
        default: v = (200 << (bpc - 8)) - (t >> 3); break;
      }
      plane.set(x, y, static_cast<std::uint32_t>(std::clamp(v + noise, 0, max)));
    }
  return plane;
}

struct Golden {
  const char* options;
  unsigned w, h, bpc;
  int ref_kind, dist_kind;
  std::vector<std::pair<const char*, std::vector<double>>> scores;  // per frame
};

const std::vector<Golden>& goldens() {
  static const std::vector<Golden> cases = {
      {"full_ref=true", 256, 216, 8, 0, 1,
       {{"cambi", {2.9327908626227592, 2.9881667780886558}},
        {"cambi_source", {15.619081181905084, 15.488151696221605}},
        {"cambi_full_reference", {0, 0}}}},
      {"cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17", 320, 240, 10,
       2, 1,
       {{"cambi_hrs_1080_cmxv_17_vlt_0.06", {8.569856436487683, 8.5686678082299945}}}},
      {"window_size=31:max_log_contrast=3:full_ref=true", 320, 240, 10, 2, 1,
       {{"cambi_mlc_3_ws_31", {4.1529455018034316, 4.12359998655264}},
        {"cambi_source", {0.031740627709178279, 0.024190549784696397}},
        {"cambi_full_reference", {4.1212048740942535, 4.0994094367679432}}}},
      {"enc_bitdepth=8:eotf=pq:topk=0.2", 300, 216, 12, 3, 0,
       {{"cambi_encbd_8_eotf_pq_topk_0.2", {3.7863834725651397, 3.7702664354483941}}}},
  };
  return cases;
}

FeatureOptions parse_options(const std::string& text) {
  FeatureOptions options;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(':', at), text.size());
    const std::string pair = text.substr(at, end - at);
    const std::size_t eq = pair.find('=');
    options.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    at = end + 1;
  }
  return options;
}

// Every golden case with every DSP table the CPU runs (scalar, AVX2, AVX-512).
TEST(CambiGolden, EqualsLibvmafWithEveryTable) {
  const unsigned saved_mask = cpu::cpu_mask();
  for (unsigned mask : {0u, unsigned{cpu::kAvx2}, unsigned{cpu::kAllFlags}}) {
    cpu::set_cpu_mask(mask);
    for (const Golden& g : goldens()) {
      auto extractor = make_feature_extractor("cambi", parse_options(g.options));
      extractor->init(PictureFormat{g.w, g.h, g.bpc, ChromaFormat::k400});
      FeatureCollector scores;
      for (unsigned frame = 0; frame < 2; ++frame) {
        const auto ref = golden_picture(g.w, g.h, g.bpc, g.ref_kind, frame);
        const auto dist = golden_picture(g.w, g.h, g.bpc, g.dist_kind, frame);
        extractor->extract(ref.view(), dist.view(), frame, scores);
      }
      extractor->flush(scores);
      std::vector<std::string> names;
      for (const auto& [name, values] : g.scores) {
        names.push_back(name);
        for (unsigned frame = 0; frame < 2; ++frame) {
          const auto score = scores.score(name, frame);
          ASSERT_TRUE(score.has_value()) << g.options << " " << name;
          EXPECT_EQ(*score, values[frame]) << g.options << " " << name << " frame " << frame
                                           << " isa " << cpu::best_isa_name(cpu::flags());
        }
      }
      EXPECT_EQ(scores.names(), names) << g.options;  // libvmaf's order of the keys
    }
  }
  cpu::set_cpu_mask(saved_mask);
}

TEST(CambiOptions, ScoreKeysAndIdentity) {
  auto key = [](const std::string& options) {
    return make_feature_extractor("cambi", parse_options(options))
        ->score_key("Cambi_feature_cambi_score");
  };
  EXPECT_EQ(make_feature_extractor("cambi")->score_key("Cambi_feature_cambi_score"), "cambi");
  EXPECT_EQ(key("cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"),
            "cambi_hrs_1080_cmxv_17_vlt_0.06");
  EXPECT_EQ(key("cambi_max_val=17:cambi_vis_lum_threshold=0.06:cambi_high_res_speedup=1080"),
            "cambi_hrs_1080_cmxv_17_vlt_0.06");
  EXPECT_EQ(key("topk=0.25:window_size=40"), "cambi_topk_0.25_ws_40");
  EXPECT_EQ(key("eotf=pq:cambi_eotf=pq"), "cambi_ceot_pq_eotf_pq");
  EXPECT_EQ(key("enc_width=1280:enc_height=720:enc_bitdepth=8"), "cambi_encbd_8_ench_720_encw_1280");
  EXPECT_EQ(key("src_width=1920:src_height=1080:tvi_threshold=0.02:max_log_contrast=3"),
            "cambi_mlc_3_srch_1080_srcw_1920_tvit_0.02");
  EXPECT_EQ(key("cambi_topk=0.5"), "cambi_ctpk_0.5");
  // Defaults given explicitly, and full_ref (not a feature parameter), add nothing.
  EXPECT_EQ(key("window_size=65:eotf=bt1886:cambi_max_val=1000:full_ref=true"), "cambi");
  const auto extractor = make_feature_extractor("cambi");
  EXPECT_EQ(extractor->provided_features(), std::vector<std::string>{"Cambi_feature_cambi_score"});
  EXPECT_FALSE(extractor->sees_every_frame());  // libvmaf does not flag cambi TEMPORAL
  EXPECT_EQ(extractor->latency_frames(), 0u);
}

TEST(CambiOptions, RefusedAsLibvmafRefusesThem) {
  auto make = [](const std::string& options) {
    return error_of([&] { make_feature_extractor("cambi", parse_options(options)); });
  };
  EXPECT_NE(make("cmxv=17").find("score-name suffix of cambi_max_val"), std::string::npos);
  EXPECT_NE(make("enc_width=0").find("enc_width=0 is not an integer in [180, 7680]"), std::string::npos);
  EXPECT_NE(make("window_size=13").find("[15, 127]"), std::string::npos);
  EXPECT_NE(make("cambi_high_res_speedup=2161").find("[0, 2160]"), std::string::npos);
  EXPECT_NE(make("topk=0").find("topk=0"), std::string::npos);
  EXPECT_NE(make("heatmaps_path=/tmp/x").find("heatmaps_path is not supported"), std::string::npos);
  EXPECT_EQ(make("eotf=pq:cambi_eotf=bt1886:max_log_contrast=5"), "");
  // An EOTF libvmaf does not know fails at init, as in libvmaf.
  auto extractor = make_feature_extractor("cambi", {{"eotf", "srgb"}});
  EXPECT_NE(error_of([&] { extractor->init(PictureFormat{640, 360, 8, ChromaFormat::k420}); })
                .find("unknown EOTF 'srgb' (libvmaf takes bt1886 or pq)"),
            std::string::npos);
}

std::string init_error(const std::string& options, unsigned w, unsigned h, unsigned bpc = 8) {
  auto extractor = make_feature_extractor("cambi", parse_options(options));
  return error_of([&] { extractor->init(PictureFormat{w, h, bpc, ChromaFormat::k420}); });
}

TEST(CambiSetup, MinimumSizeIsLibvmafs) {
  // Both sides below 216 fail (libvmaf: -EINVAL, the 64x48 fixture's xfail log).
  EXPECT_NE(init_error("", 64, 48).find("picture 64x48 is smaller than libvmaf's minimum"),
            std::string::npos);
  EXPECT_NE(init_error("", 215, 215).find("at least 216"), std::string::npos);
  EXPECT_EQ(init_error("", 216, 215), "");
  EXPECT_EQ(init_error("", 215, 216), "");
  EXPECT_EQ(init_error("", 216, 1), "");  // libvmaf scores it (checked)
  EXPECT_NE(init_error("enc_width=200:enc_height=200", 1920, 1080).find("encoding size"),
            std::string::npos);
  // An encoding size larger than the picture is the picture's.
  EXPECT_EQ(init_error("enc_width=3840:enc_height=2160", 640, 360), "");
  EXPECT_NE(init_error("src_width=3840:src_height=200", 1920, 1080).find("larger in one dimension"),
            std::string::npos);
  // The window must fit libvmaf's reciprocal table: at 4K window_size 127 gives 127.
  EXPECT_NE(init_error("window_size=127", 3840, 2160).find("too large for libvmaf's reciprocal table"),
            std::string::npos);
  EXPECT_EQ(init_error("window_size=127", 1920, 1080), "");
  EXPECT_EQ(init_error("", 1, 216), "");  // 1 column, a window of 3: every scale fits
}

TEST(CambiSetup, RefusesWhereLibvmafReadsOutsideItsBuffers) {
  EXPECT_NE(init_error("", 4, 1000).find("too thin for its window of 11"), std::string::npos);
  EXPECT_NE(init_error("", 1000, 6).find("at scale 1 it is 500x3"), std::string::npos);
  EXPECT_EQ(init_error("", 1000, 70), "");  // scale 4 exactly half a window high: libvmaf matches
  // A band of counted values below zero: libvmaf crashes (84.3 nits); zero is fine.
  EXPECT_NE(init_error("cambi_vis_lum_threshold=84.3", 640, 360).find("libvmaf crashes there"),
            std::string::npos);
  EXPECT_EQ(init_error("cambi_vis_lum_threshold=83.9", 640, 360), "");
  // full_ref at 10 bits with a source wider than the picture's padded rows.
  EXPECT_NE(init_error("full_ref=true:src_width=1920:src_height=1080", 1280, 720, 10)
                .find("wrong stride"),
            std::string::npos);
  EXPECT_EQ(init_error("full_ref=true:src_width=1920:src_height=1080", 1280, 720, 8), "");
  EXPECT_EQ(init_error("full_ref=true:src_width=1280:src_height=720", 1277, 719, 10), "");
  // libvmaf's float map of 7680 columns to 5993 ends at 7680, outside the row.
  EXPECT_EQ(nearest_map(7680, 5993).back(), 7680u);
  EXPECT_EQ(nearest_map(7680, 5992).back(), 7679u);
  EXPECT_NE(init_error("window_size=15:enc_width=5993:enc_height=216", 7680, 216)
                .find("scaling 7680 columns to 5993 reads sample 7680"),
            std::string::npos);
  EXPECT_EQ(init_error("window_size=15:enc_width=5992:enc_height=216", 7680, 216), "");
}

TEST(CambiSetup, SpeedupThresholds) {
  const PictureFormat p1080{1920, 1080, 8, ChromaFormat::k420};
  CambiParams params;
  params.high_res_speedup = 1080;
  EXPECT_TRUE(resolve_setup(params, p1080).high_res_speedup);
  EXPECT_EQ(resolve_setup(params, p1080).enc.window, 17u);
  EXPECT_FALSE(resolve_setup(params, PictureFormat{1920, 1079, 8, ChromaFormat::k420}).high_res_speedup);
  params.high_res_speedup = 1440;
  EXPECT_FALSE(resolve_setup(params, p1080).high_res_speedup);
  params.high_res_speedup = 1000;  // not one of libvmaf's values: off
  EXPECT_FALSE(resolve_setup(params, p1080).high_res_speedup);
  params.high_res_speedup = 0;
  EXPECT_EQ(resolve_setup(params, p1080).enc.window, 33u);
}

// With the high-resolution speed-up CambiPicture sizes its c-value and
// histogram buffers for its first scale (half the picture's size); a call of
// compute_c_values at the whole picture's size (as the CUDA twin's emulation
// makes) grows them, and gives the c-values a picture without the speed-up
// gives (run under ASan, a buffer not grown shows as an overflow).
TEST(CambiPicture, CValuesAtTheWholeSizeWithTheSpeedup) {
  const PictureFormat p1080{1920, 1080, 8, ChromaFormat::k420};
  CambiParams params;
  params.high_res_speedup = 1080;
  const CambiSetup fast = resolve_setup(params, p1080);
  params.high_res_speedup = 0;
  CambiSetup plain = resolve_setup(params, p1080);
  ASSERT_TRUE(fast.high_res_speedup);
  ASSERT_FALSE(plain.high_res_speedup);
  plain.enc.window = fast.enc.window;  // the same windows: the same c-values
  const test::TestPlane picture = golden_picture(1920, 1080, 8, 2, 0);
  const CambiDsp& dsp = cambi_dsp(cpu::flags());
  CambiPicture fast_picture(fast, dsp), plain_picture(plain, dsp);
  std::vector<std::vector<float>> values;
  for (CambiPicture* cambi : {&fast_picture, &plain_picture}) {
    cambi->preprocess(picture.plane(), fast.enc);
    cambi->spatial_mask(1920, 1080);
    cambi->compute_c_values(1920, 1080, fast.enc.window);
    values.emplace_back(cambi->c_values(), cambi->c_values() + std::size_t{1920} * 1080);
  }
  EXPECT_TRUE(values[0] == values[1]);
  EXPECT_GT(std::count_if(values[0].begin(), values[0].end(), [](float v) { return v > 0; }), 0);
}

// libvmaf's own tests of its helpers (test/test_cambi.c), and its tables.
TEST(CambiTables, AsLibvmafsTests) {
  EXPECT_EQ(tvi_for_diff(1, 0.019, Eotf::kBt1886), 178);
  EXPECT_EQ(tvi_for_diff(2, 0.019, Eotf::kBt1886), 305);
  EXPECT_EQ(tvi_for_diff(3, 0.019, Eotf::kBt1886), 432);
  EXPECT_EQ(tvi_for_diff(4, 0.019, Eotf::kBt1886), 559);
  EXPECT_EQ(vlt_luma(0.0, Eotf::kBt1886), 0);
  EXPECT_EQ(vlt_luma(0.06, Eotf::kBt1886), 78);
  EXPECT_EQ(luminance(940, Eotf::kBt1886), 300.0);
  EXPECT_EQ(luminance(940, Eotf::kPq), 10000.0);
  EXPECT_EQ(adjusted_window(63, 3840, 2160, false), 63u);
  EXPECT_EQ(adjusted_window(63, 2560, 1440, false), 43u);
  EXPECT_EQ(adjusted_window(63, 1920, 1080, false), 31u);
  EXPECT_EQ(adjusted_window(63, 1280, 720, false), 21u);
  EXPECT_EQ(adjusted_window(63, 320, 180, false), 5u);
  EXPECT_EQ(adjusted_window(63, 6000, 4000, false), 105u);
  EXPECT_EQ(adjusted_window(31, 1280, 720, false), 11u);
  EXPECT_EQ(adjusted_window(63, 3840, 2160, true), 33u);
  EXPECT_EQ(adjusted_window(63, 6000, 4000, true), 53u);
  EXPECT_EQ(mask_index(3840, 2160), 24u);
  EXPECT_EQ(mask_index(1980, 1080), 21u);
  EXPECT_EQ(mask_index(1280, 720), 19u);
  EXPECT_EQ(mask_index(640, 360), 16u);
  EXPECT_EQ(mask_index(320, 180), 13u);
  EXPECT_EQ(mask_index(6000, 4000), 27u);
  EXPECT_EQ(pixels_in_window(62), 3969u);
  EXPECT_EQ(pixels_in_window(65), 4225u);
  // libvmaf's reciprocal table is its 9-digit decimals as floats: not always 1.0f / i.
  EXPECT_EQ(kReciprocal[0], 0.0f);
  EXPECT_EQ(kReciprocal[3], 1.0f / 3.0f);
  EXPECT_EQ(kReciprocal[82], 0x1.8f9c1ap-7f);
  EXPECT_NE(kReciprocal[82], 1.0f / 82.0f);
  EXPECT_EQ(kReciprocal[4225], 0x1.f05e0ap-13f);
  // The default contrast tables: band [0, 563], v1's [67, 563].
  const ContrastTables defaults = make_contrast_tables(2, 0.019, 0.0, Eotf::kBt1886);
  EXPECT_EQ(defaults.tvi[3], 563);
  EXPECT_EQ(defaults.band_base, 0);
  EXPECT_EQ(defaults.band_size, 564);
  const ContrastTables v1 = make_contrast_tables(2, 0.019, 0.06, Eotf::kBt1886);
  EXPECT_EQ(v1.band_base, 67);
  // value = v + 4 must be at most tvi[d] and value + d + 1 above vlt (78).
  EXPECT_EQ(v1.first_diff[60], 4);   // below the band
  EXPECT_EQ(v1.first_diff[67], 4);   // 71 + d + 1 > 78 needs d >= 7
  EXPECT_EQ(v1.first_diff[72], 2);
  EXPECT_EQ(v1.first_diff[74], 0);
  EXPECT_EQ(v1.first_diff[300], 1);  // 304 > tvi[0] = 182
  EXPECT_EQ(v1.first_diff[560], 4);  // in the band (a neighbour of smaller values), no diff
  EXPECT_EQ(v1.band_size, 497);
}

TEST(CambiPooling, AsLibvmafsTests) {
  const CambiDsp& dsp = cambi_dsp_scalar();
  auto pool = [&](double topk) {
    std::vector<float> buffer(2 * kReadAhead + 12, 0.0f);
    const float values[12] = {0, 1, 2, 3, 4, 5, 10, 7, 8, 9, 6, 11};
    std::copy(values, values + 12, buffer.begin() + kReadAhead);
    return spatial_pooling(buffer.data() + kReadAhead, 12, topk, dsp);
  };
  EXPECT_EQ(pool(0.0), 11);
  EXPECT_EQ(pool(0.1), 11);
  EXPECT_EQ(pool(0.2), 10.5);
  EXPECT_EQ(pool(1.0), 5.5);
  EXPECT_EQ(weighted_score({10000, 1000, 100, 10, 1}, 3), 168421.0 / 9);
}

TEST(CambiExtract, RefusesOutOfRangeSamplesAsLibvmaf) {
  auto extractor = make_feature_extractor("cambi");
  extractor->init(PictureFormat{256, 216, 10, ChromaFormat::k400});
  auto picture = golden_picture(256, 216, 10, 0, 0);
  FeatureCollector scores;
  EXPECT_EQ(error_of([&] { extractor->extract(picture.view(), picture.view(), 0, scores); }), "");
  picture.set(17, 100, 1024);
  EXPECT_NE(error_of([&] { extractor->extract(picture.view(), picture.view(), 1, scores); })
                .find("holds the sample 1024, above 1023"),
            std::string::npos);
  // 16-bit pictures are not checked: 65535 becomes 1024.
  auto wide = make_feature_extractor("cambi");
  wide->init(PictureFormat{256, 216, 16, ChromaFormat::k400});
  auto full = golden_picture(256, 216, 16, 0, 0);
  full.set(3, 3, 65535);
  FeatureCollector wide_scores;
  EXPECT_EQ(error_of([&] { wide->extract(full.view(), full.view(), 0, wide_scores); }), "");
}

}  // namespace
