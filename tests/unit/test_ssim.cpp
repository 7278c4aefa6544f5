// Unit tests of metrics/ssim/: libvmaf's float_ssim and float_ms_ssim
// (float_ssim.c, float_ms_ssim.c, ssim.c, ms_ssim.c and iqa/ at master f85a8536).
//
// The golden values (hex floats) are libvmaf's: the clips of synthetic_sample()
// below were written to raw files by a throwaway script with the same integer
// formula and scored with libvmaf's C path,
//   vmaf -r REF -d DIS -w W -h H -p 420|422|444 -b 8|10|12|16 --cpumask 255 -n
//        --feature float_ssim=enable_lcs=true (one option set per run) --json
// reading the log printed with %.17g (its output.c patched to print all digits).
// Identical pictures were scored with the reference file on both sides.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "error_of.h"
#include "registry.h"
#include "scorer.h"
#include "ssim/ssim.h"
#include "ssim/ssim_extractor.h"
#include "synthetic_clip.h"

using namespace vmafexact;
using vmafexact::test::error_of;

namespace {

// ---- The synthetic clips -----------------------------------------------------------

// Blocks of a coarse ramp with hashed noise, the distorted picture with more
// noise, and every fifth 16x16 block flat and identical on both sides (SSIM's
// zero-variance paths). Above 8 bits: shifted up, a ramp in the low bits.
unsigned synthetic_sample(bool distorted, unsigned plane, unsigned x, unsigned y, unsigned frame,
                          unsigned bpc) {
  unsigned value;
  if ((x / 16 + y / 16) % 5 == 0) {
    value = 100 + plane;
  } else {
    std::uint32_t h = (x * 73856093u) ^ (y * 19349663u) ^ (frame * 83492791u) ^ (plane * 2654435761u);
    h = (h ^ (h >> 13)) * 0x5bd1e995u;
    h ^= h >> 15;
    value = ((x / 5) * 37 + (y / 7) * 23 + frame * 11 + plane * 5) % 160 + 40 + h % 24;
    if (distorted) value = value + (h >> 8) % 17 - 8;
  }
  if (bpc > 8) value = (value << (bpc - 8)) + (x + 2 * y + frame) % (1u << (bpc - 8));
  return value;
}

struct ClipSpec {
  unsigned w, h, bpc;
  ChromaFormat chroma;
  unsigned frames;
  bool identical = false;  // the reference on both sides
};

// The clip of synthetic_sample() in libvmaf's layout (chroma rounded down).
test::Clip synthetic_clip(const ClipSpec& spec) {
  test::Clip clip;
  clip.format = {spec.w, spec.h, spec.bpc, spec.chroma};
  const unsigned sample = spec.bpc > 8 ? 2 : 1;
  const auto plane = [&](bool distorted, unsigned p, unsigned frame) {
    const unsigned w = p ? chroma_plane_width(spec.w, spec.chroma) : spec.w;
    const unsigned h = p ? chroma_plane_height(spec.h, spec.chroma) : spec.h;
    std::vector<std::uint8_t> bytes(std::size_t{w} * h * sample);
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) {
        const unsigned value = synthetic_sample(distorted, p, x, y, frame, spec.bpc);
        const std::size_t i = std::size_t{y} * w + x;
        if (sample == 1) {
          bytes[i] = static_cast<std::uint8_t>(value);
        } else {
          const auto v = static_cast<std::uint16_t>(value);
          std::memcpy(&bytes[i * 2], &v, 2);
        }
      }
    return bytes;
  };
  for (unsigned f = 0; f < spec.frames; ++f)
    for (unsigned p = 0; p < 3; ++p) {
      clip.ref_planes.push_back(plane(false, p, f));
      clip.dist_planes.push_back(plane(!spec.identical, p, f));
    }
  return clip;
}

FeatureCollector score_clip(const std::string& features, const ClipSpec& spec,
                            ScorerOptions options = {}) {
  const test::Clip clip = synthetic_clip(spec);
  Scorer scorer({}, parse_feature_list(features), clip.format, options);
  for (unsigned f = 0; f < clip.frames(); ++f) scorer.push(clip.ref_view(f), clip.dist_view(f));
  scorer.finish();
  return scorer.scores();
}

using Golden = std::vector<std::pair<std::string, std::vector<double>>>;

// Every golden column equal, and no other key written, with the scalar code
// and with every SIMD twin this CPU runs.
void expect_scores(const std::string& features, const ClipSpec& clip, const Golden& golden) {
  for (unsigned mask : {0u, unsigned{cpu::kAvx2}, unsigned{cpu::kAllFlags}}) {
    const unsigned previous = cpu::set_cpu_mask(mask);
    const FeatureCollector scores = score_clip(features, clip);
    cpu::set_cpu_mask(previous);
    std::vector<std::string> keys;
    for (const auto& [key, values] : golden) {
      keys.push_back(key);
      const auto column = scores.column(key);
      ASSERT_TRUE(column) << key;
      ASSERT_EQ(column->size(), values.size()) << key;
      for (std::size_t i = 0; i < values.size(); ++i) {
        ASSERT_TRUE((*column)[i].has_value()) << key << " frame " << i;
        EXPECT_EQ(*(*column)[i], values[i])
            << features << " " << key << " frame " << i << " cpu mask " << mask << ": "
            << std::hexfloat << *(*column)[i] << " libvmaf " << values[i];
      }
    }
    EXPECT_EQ(scores.names(), keys) << "keys or their order differ from libvmaf's";
  }
}

// ---- Options and score names -------------------------------------------------------

TEST(SsimOptions, TablesAsLibvmafs) {
  const auto& ssim = feature_entry("float_ssim").descriptor;
  ASSERT_EQ(ssim.options.size(), 4u);
  EXPECT_EQ(ssim.options[0].name, "enable_lcs");
  EXPECT_EQ(ssim.options[1].name, "enable_db");
  EXPECT_EQ(ssim.options[2].name, "clip_db");
  EXPECT_EQ(ssim.options[3].name, "scale");
  EXPECT_EQ(ssim.options[3].type, OptionType::kInt);
  EXPECT_EQ(ssim.options[3].min, 0);
  EXPECT_EQ(ssim.options[3].max, 10);
  const auto& ms = feature_entry("float_ms_ssim").descriptor;
  ASSERT_EQ(ms.options.size(), 3u);
  for (const auto* table : {&ssim, &ms})
    for (const auto& option : table->options) {
      EXPECT_FALSE(option.feature_param) << option.name << ": libvmaf names no score after it";
      if (option.type == OptionType::kBool) {
        EXPECT_EQ(option.default_value, 0) << option.name;
      }
    }
}

TEST(SsimOptions, OptionsDoNotRenameScores) {
  const auto extractor = make_feature_extractor(
      "float_ssim", {{"enable_lcs", "true"}, {"enable_db", "true"}, {"clip_db", "1"}, {"scale", "3"}});
  EXPECT_EQ(extractor->score_key("float_ssim"), "float_ssim");
  EXPECT_EQ(extractor->score_key("float_ssim_l"), "float_ssim_l");
  // One identity: libvmaf runs one of two float_ssim requests that differ in
  // these options (the first).
  EXPECT_EQ(parse_feature_list("float_ssim=scale=2,float_ssim=enable_lcs=true").size(), 1u);
}

TEST(SsimOptions, RefusesWhatLibvmafRejects) {
  EXPECT_NE(error_of([] { make_feature_extractor("float_ssim", {{"scale", "11"}}); }), "");
  EXPECT_NE(error_of([] { make_feature_extractor("float_ssim", {{"scale", "-1"}}); }), "");
  EXPECT_NE(error_of([] { make_feature_extractor("float_ms_ssim", {{"scale", "2"}}); }), "");
  EXPECT_NE(error_of([] { make_feature_extractor("float_ms_ssim", {{"enable_lcs", "maybe"}}); }), "");
}

// ---- Sizes -------------------------------------------------------------------------

TEST(SsimFormat, AutoScaleAsLibvmafRoundsIt) {
  EXPECT_EQ(ssim::auto_scale(576, 324), 1);    // 1.27
  EXPECT_EQ(ssim::auto_scale(640, 383), 1);    // 1.496
  EXPECT_EQ(ssim::auto_scale(640, 384), 2);    // 1.5: halves go up
  EXPECT_EQ(ssim::auto_scale(1280, 720), 3);   // 2.81
  EXPECT_EQ(ssim::auto_scale(1277, 719), 3);
  EXPECT_EQ(ssim::auto_scale(1920, 1080), 4);  // 4.22
  EXPECT_EQ(ssim::auto_scale(3840, 2160), 8);  // 8.44
  // Beyond the `scale` option's 10: the box kernel has factor^2 taps
  // (checktwins' DecimateRows runs the twins' decimation up to 24).
  EXPECT_EQ(ssim::auto_scale(7680, 4320), 17);  // 16.875
  EXPECT_EQ(ssim::auto_scale(4224, 4224), 17);  // 16.5
  EXPECT_EQ(ssim::auto_scale(4223, 8192), 16);  // 16.496
  EXPECT_EQ(ssim::auto_scale(16, 16), 1);
  EXPECT_EQ(ssim::decimated_size(1277, 3), 426);  // libvmaf adds the odd side's bit
  EXPECT_EQ(ssim::decimated_size(1920, 4), 480);
}

void init(const char* name, const FeatureOptions& options, PictureFormat format) {
  make_feature_extractor(name, options)->init(format);
}

TEST(SsimFormat, PicturesSmallerThanTheWindowAreRefused) {
  // 11x11 after downscaling is the least libvmaf scores (at 10x10 it writes
  // NaN, below 0; both meaningless).
  EXPECT_EQ(error_of([] { init("float_ssim", {}, {11, 11, 8, ChromaFormat::k420}); }), "");
  EXPECT_EQ(error_of([] { init("float_ssim", {{"scale", "2"}}, {21, 21, 8, ChromaFormat::k420}); }), "");
  const std::string small = error_of([] { init("float_ssim", {}, {10, 16, 8, ChromaFormat::k420}); });
  EXPECT_NE(small.find("float_ssim: picture 10x16 is smaller than SSIM's 11x11 window"),
            std::string::npos)
      << small;
  const std::string scaled =
      error_of([] { init("float_ssim", {{"scale", "2"}}, {20, 40, 8, ChromaFormat::k420}); });
  EXPECT_NE(scaled.find("picture 20x40 downscaled by 2 to 10x20"), std::string::npos) << scaled;
  EXPECT_NE(scaled.find("scale=1"), std::string::npos) << scaled;
}

TEST(SsimFormat, MsSsimNeeds176PixelsEachWayAsLibvmaf) {
  EXPECT_EQ(error_of([] { init("float_ms_ssim", {}, {176, 176, 8, ChromaFormat::k420}); }), "");
  for (const PictureFormat format : {PictureFormat{175, 300, 8, ChromaFormat::k420},
                                     PictureFormat{300, 175, 8, ChromaFormat::k420},
                                     PictureFormat{64, 48, 8, ChromaFormat::k420}}) {
    const std::string error = error_of([&] { init("float_ms_ssim", {}, format); });
    EXPECT_NE(error.find("is smaller than libvmaf's minimum of 176x176"), std::string::npos) << error;
  }
}

TEST(SsimFormat, OnlyLibvmafsBitDepths) {
  const std::string error = error_of([] { init("float_ssim", {}, {64, 64, 9, ChromaFormat::k420}); });
  EXPECT_NE(error.find("unsupported bit depth 9"), std::string::npos) << error;
  EXPECT_NE(error_of([] { init("float_ms_ssim", {}, {256, 256, 14, ChromaFormat::k420}); }), "");
}

// ---- Scores against libvmaf ----------------------------------------------------------

TEST(SsimScores, LcsAt8Bit420OddSize) {
  expect_scores("float_ssim=enable_lcs=true", {203, 157, 8, ChromaFormat::k420, 3},
                {{"float_ssim", {0x1.f69f5ap-1, 0x1.f69824p-1, 0x1.f697aep-1}},
                 {"float_ssim_l", {0x1.fffcacp-1, 0x1.fffcfp-1, 0x1.fffc7cp-1}},
                 {"float_ssim_c", {0x1.ff9baep-1, 0x1.ffa7b2p-1, 0x1.ff9b5cp-1}},
                 {"float_ssim_s", {0x1.f70448p-1, 0x1.f6f11p-1, 0x1.f6fd18p-1}}});
}

TEST(SsimScores, DbAndClippedDb) {
  const Golden db = {{"float_ssim", {0x1.15f2f2d5f358fp+4, 0x1.15bd988ec1f15p+4, 0x1.15ba30e279ce5p+4}}};
  expect_scores("float_ssim=enable_db=true", {203, 157, 8, ChromaFormat::k420, 3}, db);
  expect_scores("float_ssim=enable_db=true:clip_db=true", {203, 157, 8, ChromaFormat::k420, 3}, db);
  expect_scores("float_ssim=enable_db=true:clip_db=true", {181, 177, 16, ChromaFormat::k444, 2},
                {{"float_ssim", {0x1.1683aebf2ba3ep+4, 0x1.1617a1846319dp+4}}});
}

TEST(SsimScores, IdenticalPicturesAreInfiniteDbOrTheClip) {
  const ClipSpec same{181, 177, 16, ChromaFormat::k444, 2, true};
  const double inf = std::numeric_limits<double>::infinity();
  // libvmaf's log prints the infinite score as null; with clip_db it is
  // ceil(10 log10(65535^2 * 2 * 181 * 177)) = 145.
  expect_scores("float_ssim=enable_db=true", same, {{"float_ssim", {inf, inf}}});
  expect_scores("float_ssim=enable_db=true:clip_db=true", same, {{"float_ssim", {145, 145}}});
  expect_scores("float_ms_ssim=enable_db=true", same, {{"float_ms_ssim", {inf, inf}}});
  expect_scores("float_ms_ssim=enable_db=true:clip_db=true", same, {{"float_ms_ssim", {145, 145}}});
  expect_scores("float_ssim,float_ms_ssim", same, {{"float_ssim", {1, 1}}, {"float_ms_ssim", {1, 1}}});
  EXPECT_EQ(ssim::max_db(true, 8, 203, 157), std::ceil(10. * std::log10(65025. / (0.5 / (203 * 157)))));
}

TEST(SsimScores, ExplicitScales) {
  const ClipSpec clip{331, 251, 8, ChromaFormat::k444, 2};
  expect_scores("float_ssim=scale=2", clip, {{"float_ssim", {0x1.fe9f7cp-1, 0x1.fe9a6ep-1}}});
  expect_scores("float_ssim=scale=3", clip, {{"float_ssim", {0x1.ff898ap-1, 0x1.ff843ep-1}}});
  expect_scores("float_ssim=scale=7", clip, {{"float_ssim", {0x1.ffdc26p-1, 0x1.ffdc9cp-1}}});
  expect_scores("float_ssim=scale=10", clip, {{"float_ssim", {0x1.ffeccp-1, 0x1.ffef72p-1}}});
  // The least size: 21x11 at scale 1.
  expect_scores("float_ssim", {21, 11, 8, ChromaFormat::k420, 2},
                {{"float_ssim", {0x1.ff84f2p-1, 0x1.ff8566p-1}}});
}

TEST(SsimScores, AutoScaleAt10Bit422) {
  expect_scores("float_ssim=enable_lcs=true", {643, 389, 10, ChromaFormat::k422, 2},
                {{"float_ssim", {0x1.fe99d2p-1, 0x1.fe9c12p-1}},
                 {"float_ssim_l", {0x1.ffff46p-1, 0x1.ffff44p-1}},
                 {"float_ssim_c", {0x1.fff5f2p-1, 0x1.fff612p-1}},
                 {"float_ssim_s", {0x1.fea492p-1, 0x1.fea6b4p-1}}});
}

TEST(MsSsimScores, LcsAt10Bit422) {
  expect_scores("float_ms_ssim=enable_lcs=true", {643, 389, 10, ChromaFormat::k422, 2},
                {{"float_ms_ssim", {0x1.ff0bc217cf60cp-1, 0x1.ff0c5c6aa7fcap-1}},
                 {"float_ms_ssim_l_scale0", {0x1.fffcb4p-1, 0x1.fffcbep-1}},
                 {"float_ms_ssim_l_scale1", {0x1.ffff4cp-1, 0x1.ffff4ap-1}},
                 {"float_ms_ssim_l_scale2", {0x1.ffffd6p-1, 0x1.ffffd2p-1}},
                 {"float_ms_ssim_l_scale3", {0x1.fffff6p-1, 0x1.fffff2p-1}},
                 {"float_ms_ssim_l_scale4", {0x1.fffffep-1, 0x1.fffffcp-1}},
                 {"float_ms_ssim_c_scale0", {0x1.ff9e14p-1, 0x1.ffa2c6p-1}},
                 {"float_ms_ssim_c_scale1", {0x1.fff612p-1, 0x1.fff65ap-1}},
                 {"float_ms_ssim_c_scale2", {0x1.fffddp-1, 0x1.fffd98p-1}},
                 {"float_ms_ssim_c_scale3", {0x1.ffff1ep-1, 0x1.ffff24p-1}},
                 {"float_ms_ssim_c_scale4", {0x1.fffea2p-1, 0x1.fffef8p-1}},
                 {"float_ms_ssim_s_scale0", {0x1.f6fc68p-1, 0x1.f6eb86p-1}},
                 {"float_ms_ssim_s_scale1", {0x1.fe99cp-1, 0x1.fe9b52p-1}},
                 {"float_ms_ssim_s_scale2", {0x1.ffbd2cp-1, 0x1.ffbf9p-1}},
                 {"float_ms_ssim_s_scale3", {0x1.ffe954p-1, 0x1.ffe9fep-1}},
                 {"float_ms_ssim_s_scale4", {0x1.ffe1d6p-1, 0x1.ffe026p-1}}});
}

TEST(MsSsimScores, LcsAt16Bit444OddSize) {
  expect_scores("float_ms_ssim=enable_lcs=true", {181, 177, 16, ChromaFormat::k444, 2},
                {{"float_ms_ssim", {0x1.ff0758290781bp-1, 0x1.ff12582fff2edp-1}},
                 {"float_ms_ssim_l_scale0", {0x1.fffcbp-1, 0x1.fffd02p-1}},
                 {"float_ms_ssim_l_scale1", {0x1.ffff38p-1, 0x1.ffff54p-1}},
                 {"float_ms_ssim_l_scale2", {0x1.ffffc8p-1, 0x1.ffffd4p-1}},
                 {"float_ms_ssim_l_scale3", {0x1.fffff2p-1, 0x1.fffff2p-1}},
                 {"float_ms_ssim_l_scale4", {0x1.fffffep-1, 1}},
                 {"float_ms_ssim_c_scale0", {0x1.ff9cd6p-1, 0x1.ffa854p-1}},
                 {"float_ms_ssim_c_scale1", {0x1.fff62ap-1, 0x1.fff67ap-1}},
                 {"float_ms_ssim_c_scale2", {0x1.fffddcp-1, 0x1.fffdcep-1}},
                 {"float_ms_ssim_c_scale3", {0x1.fffeep-1, 0x1.ffff56p-1}},
                 {"float_ms_ssim_c_scale4", {0x1.ffff98p-1, 0x1.ffffdap-1}},
                 {"float_ms_ssim_s_scale0", {0x1.f7169cp-1, 0x1.f6fc88p-1}},
                 {"float_ms_ssim_s_scale1", {0x1.fe92ap-1, 0x1.fea2aap-1}},
                 {"float_ms_ssim_s_scale2", {0x1.ffbc7ap-1, 0x1.ffc2ep-1}},
                 {"float_ms_ssim_s_scale3", {0x1.ffe6a2p-1, 0x1.ffebeap-1}},
                 {"float_ms_ssim_s_scale4", {0x1.ffccfp-1, 0x1.ffe8ccp-1}}});
}

TEST(MsSsimScores, TheSmallestPictureAnd12Bit) {
  expect_scores("float_ms_ssim", {176, 176, 8, ChromaFormat::k420, 2},
                {{"float_ms_ssim", {0x1.ff06f215b6471p-1, 0x1.ff117b95c8931p-1}}});
  expect_scores("float_ssim,float_ms_ssim", {257, 199, 12, ChromaFormat::k420, 2},
                {{"float_ssim", {0x1.f6a93cp-1, 0x1.f68e7p-1}},
                 {"float_ms_ssim", {0x1.ff0b105df9ac7p-1, 0x1.ff0e83c34789ap-1}}});
}

TEST(MsSsimScores, AnInfiniteProductFailsTheFrameAsInLibvmaf) {
  std::array<ssim::SsimMeans, ssim::kScales> means{};
  for (auto& m : means) m = {1, 1, 1, 1};
  EXPECT_EQ(ssim::ms_ssim_score(means), 1.0);
  means[4].l = std::numeric_limits<float>::infinity();
  const std::string error = error_of([&] { ssim::ms_ssim_score(means); });
  EXPECT_NE(error.find("infinite at scale 4"), std::string::npos) << error;
  // l^0 is 1 at scales 0..3, whatever l is.
  means[4].l = 1;
  means[0].l = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ssim::ms_ssim_score(means), 1.0);
}

TEST(SsimScores, SameScoresWithThreadsAndFramesInFlight) {
  const ClipSpec clip{331, 251, 8, ChromaFormat::k420, 6};
  const FeatureCollector one = score_clip("float_ssim=enable_lcs=true,float_ms_ssim", clip);
  ScorerOptions options;
  options.threads = 2;
  options.frames_in_flight = 3;
  const FeatureCollector many = score_clip("float_ssim=enable_lcs=true,float_ms_ssim", clip, options);
  ASSERT_EQ(one.names(), many.names());
  for (const auto& name : one.names()) EXPECT_EQ(*one.column(name), *many.column(name)) << name;
}

}  // namespace
