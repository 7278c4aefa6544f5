// psnr's options (enable_chroma, enable_mse, enable_apsnr, reduced_hbd_peak,
// min_sse) against libvmaf 3.2.0's C path: its logs of synthetic clips in
// tests/fixtures/psnr-golden (made as its README says), compared as text.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "common/error.h"
#include "common/feature_stage.h"
#include "error_of.h"
#include "fixtures.h"
#include "output/log_writer.h"
#include "psnr/psnr.h"
#include "psnr/psnr_extractor.h"
#include "registry.h"
#include "scorer.h"
#include "synthetic_clip.h"

using vmafexact::test::kSourceRoot;

using namespace vmafexact;
using vmafexact::test::error_of;

namespace {

const OptionSpec* option(std::string_view name) {
  for (const auto& spec : psnr::descriptor().options)
    if (spec.name == name) return &spec;
  return nullptr;
}

}  // namespace

TEST(PsnrOptions, TableIsLibvmafs) {
  ASSERT_EQ(psnr::descriptor().options.size(), 5u);
  for (const char* name : {"enable_chroma", "enable_mse", "enable_apsnr", "reduced_hbd_peak"}) {
    ASSERT_TRUE(option(name)) << name;
    EXPECT_EQ(option(name)->type, OptionType::kBool) << name;
    EXPECT_FALSE(option(name)->feature_param) << name;  // scores keep their names
  }
  EXPECT_EQ(option("enable_chroma")->default_value, 1);
  EXPECT_EQ(option("enable_mse")->default_value, 0);
  EXPECT_EQ(option("enable_apsnr")->default_value, 0);
  EXPECT_EQ(option("reduced_hbd_peak")->default_value, 0);
  const OptionSpec* min_sse = option("min_sse");
  ASSERT_TRUE(min_sse);
  EXPECT_EQ(min_sse->type, OptionType::kDouble);
  EXPECT_EQ(min_sse->default_value, 0.0);
  EXPECT_EQ(min_sse->min, 0.0);
  EXPECT_EQ(min_sse->max, std::numeric_limits<double>::max());
  EXPECT_FALSE(min_sse->feature_param);
}

TEST(PsnrOptions, BadValuesAreRefused) {
  // libvmaf refuses a negative or infinite min_sse too; a NaN it would take,
  // and every psnr would be NaN: refused here.
  for (const char* value : {"-1", "-0.5", "inf", "nan", "abc", ""})
    EXPECT_NE(error_of([&] {
                make_feature_extractor("psnr", {{"min_sse", value}});
              }).find("psnr: option min_sse="),
              std::string::npos)
        << value;
  EXPECT_NE(error_of([&] {
              make_feature_extractor("psnr", {{"enable_mse", "yes"}});
            }).find("is not a boolean"),
            std::string::npos);
  const std::string unknown = error_of([&] { parse_feature_list("psnr=enable_ms=true"); });
  EXPECT_NE(unknown.find("unknown option 'enable_ms'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("enable_mse"), std::string::npos) << unknown;
  // Values pass through a float as libvmaf stores them: 1e300 becomes inf,
  // which libvmaf refuses too.
  EXPECT_NE(error_of([&] {
              make_feature_extractor("psnr", {{"min_sse", "1e300"}});
            }).find("inf once libvmaf stores it"),
            std::string::npos);
  EXPECT_NO_THROW(make_feature_extractor("psnr", {{"min_sse", "0"}, {"min_sse", "1e30"}}));
}

TEST(PsnrOptions, KeysInLibvmafsOrder) {
  const struct {
    ChromaFormat chroma;
    const char* options;
    std::vector<std::string> keys;
  } cases[] = {
      {ChromaFormat::k420,
       "psnr=enable_mse=true",
       {"psnr_y", "mse_y", "psnr_cb", "mse_cb", "psnr_cr", "mse_cr"}},
      {ChromaFormat::k444, "psnr=enable_mse=true:enable_chroma=false", {"psnr_y", "mse_y"}},
      {ChromaFormat::k400, "psnr=enable_mse=true:enable_chroma=true", {"psnr_y", "mse_y"}},
      {ChromaFormat::k422,
       "psnr=enable_apsnr=true:reduced_hbd_peak=true",
       {"psnr_y", "psnr_cb", "psnr_cr"}},
  };
  for (const auto& c : cases) {
    const PictureFormat format{9, 7, 10, c.chroma};
    const auto clip = test::make_lcg_clip(format, 1, false);
    Scorer scorer(parse_feature_list(c.options), format);
    scorer.push(clip.view(clip.ref_planes, 0), clip.view(clip.dist_planes, 0));
    scorer.finish();
    EXPECT_EQ(scorer.scores().names(), c.keys) << c.options;
  }
}

TEST(PsnrOptions, ApsnrOfPlanesNeverSummedIsMinusInfinity) {
  // libvmaf's flush sets all three: log10(0) - log10(0) is NaN, its bound
  // ceil(10 * log10(0)) is -inf, and MIN(NaN, -inf) is -inf.
  const double gray = psnr::apsnr(0, 0, 255);
  EXPECT_TRUE(std::isinf(gray) && gray < 0);
  // No error: the bound, ceil(10 * log10(peak^2 * pixels * 2)).
  EXPECT_EQ(psnr::apsnr(0, 37 * 23, 255), std::ceil(10 * std::log10(65025.0 * 37 * 23 * 2)));
  // The bound's product is a uint64 that wraps past 2^64 (2^33 pixels at 16 bits).
  const std::uint64_t pixels = std::uint64_t{1} << 33;
  const std::uint64_t wrapped = std::uint64_t{65535u * 65535u} * pixels * 2;
  EXPECT_LT(static_cast<double>(wrapped), 65535.0 * 65535.0 * 2 * static_cast<double>(pixels));
  EXPECT_EQ(psnr::apsnr(0, pixels, 65535),
            std::ceil(10 * std::log10(static_cast<double>(wrapped))));
}

TEST(PsnrOptions, PeakAndMinSsePsnrMax) {
  EXPECT_EQ(psnr::peak_value(8, true), 255u);
  EXPECT_EQ(psnr::peak_value(10, true), 1020u);
  EXPECT_EQ(psnr::peak_value(16, true), 65280u);
  EXPECT_EQ(psnr::peak_value(16, false), 65535u);
  // Chroma sizes as libvmaf's pix_fmt test gives them: 4:2:2 halves only the width.
  EXPECT_EQ(psnr::min_sse_psnr_max(0.5, 255, ChromaFormat::k422, 1, 37, 23),
            std::ceil(10. * std::log10(65025.0 / (0.5 / (18 * 23)))));
  EXPECT_EQ(psnr::min_sse_psnr_max(0.5, 255, ChromaFormat::k420, 2, 37, 23),
            std::ceil(10. * std::log10(65025.0 / (0.5 / (18 * 11)))));
  // A chroma plane of no pixels: min_sse / 0 is inf, and psnr_max -inf.
  const double empty = psnr::min_sse_psnr_max(0.5, 255, ChromaFormat::k420, 1, 1, 9);
  EXPECT_TRUE(std::isinf(empty) && empty < 0);
}

namespace {

struct GoldenCase {
  const char* file;  // in tests/fixtures/psnr-golden
  PictureFormat format;
  unsigned frames;
  unsigned subsample;
  bool identical;
  const char* features;
  LogPrecision precision = LogPrecision::kMax;
};

std::string without_fps(const std::string& text) {
  std::istringstream in(text);
  std::string kept, line;
  while (std::getline(in, line))
    if (line.find("fps") == std::string::npos) kept += line + "\n";
  return kept;
}

std::string golden_log(const GoldenCase& c, const ScorerOptions& base = {}) {
  const auto clip = test::make_lcg_clip(c.format, c.frames, c.identical);
  ScorerOptions options = base;
  options.subsample = c.subsample;
  Scorer scorer({}, parse_feature_list(c.features), c.format, options);
  for (unsigned i = 0; i < c.frames; ++i)
    scorer.push(clip.view(clip.ref_planes, i), clip.view(clip.dist_planes, i));
  scorer.finish();
  LogInfo info;
  info.version = "3.2.0";
  info.width = c.format.width;
  info.height = c.format.height;
  info.subsample = c.subsample;
  info.frame_count = c.frames;
  const std::string file = c.file;
  const LogFormat format = file.ends_with(".xml")   ? LogFormat::kXml
                           : file.ends_with(".csv") ? LogFormat::kCsv
                                                    : LogFormat::kJson;
  std::ostringstream out;
  write_log(out, format, c.precision, scorer.scores(), info);
  return out.str();
}

std::filesystem::path golden_dir() {
  return std::filesystem::path(kSourceRoot) / "tests" / "fixtures" / "psnr-golden";
}

constexpr PictureFormat fmt(unsigned bpc, ChromaFormat chroma, unsigned w = 37, unsigned h = 23) {
  return {w, h, bpc, chroma};
}

const char* kMseApsnr = "psnr=enable_mse=true:enable_apsnr=true";

std::vector<GoldenCase> golden_cases() {
  using enum ChromaFormat;
  std::vector<GoldenCase> cases;
  // Every bit depth and sampling, odd sizes, enable_mse and enable_apsnr.
  for (const ChromaFormat chroma : {k400, k420, k422, k444})
    for (const unsigned bpc : {8u, 10u, 12u, 16u})  // file named by case_file()
      cases.push_back({nullptr, fmt(bpc, chroma), 3, 1, false, kMseApsnr});
  const GoldenCase more[] = {
      {"420p10.reduced_min_sse.xml", fmt(10, k420), 3, 1, false,
       "psnr=reduced_hbd_peak=true:min_sse=0.5:enable_apsnr=true"},
      {"420p16.reduced_min_sse.xml", fmt(16, k420), 3, 1, false,
       "psnr=reduced_hbd_peak=true:min_sse=0.5:enable_apsnr=true"},
      {"422p12.reduced.xml", fmt(12, k422), 3, 1, false,
       "psnr=reduced_hbd_peak=true:enable_mse=true:enable_apsnr=true"},
      {"420p8.min_sse.xml", fmt(8, k420), 3, 1, false, "psnr=min_sse=0.5:enable_mse=true"},
      {"444p10.min_sse_100.xml", fmt(10, k444), 3, 1, false, "psnr=min_sse=100:enable_apsnr=true"},
      {"422p16.identical.min_sse.xml", fmt(16, k422), 3, 1, true,
       "psnr=min_sse=2.5:enable_apsnr=true:enable_mse=true"},
      {"420p10.no_chroma.xml", fmt(10, k420), 3, 1, false,
       "psnr=enable_chroma=false:enable_mse=true:enable_apsnr=true"},
      {"420p8.identical.xml", fmt(8, k420), 3, 1, true, "psnr=enable_apsnr=true:enable_mse=true"},
      {"444p12.identical.xml", fmt(12, k444), 3, 1, true, "psnr=enable_apsnr=true"},
      {"420p8.1x9.min_sse.xml", fmt(8, k420, 1, 9), 3, 1, false,
       "psnr=min_sse=0.5:enable_mse=true:enable_apsnr=true"},
      {"420p8.1x9.min_sse.json", fmt(8, k420, 1, 9), 3, 1, false,
       "psnr=min_sse=0.5:enable_mse=true:enable_apsnr=true"},
      // Frames 1 and 3 are off the grid: not listed, but summed into apsnr.
      {"420p8.subsample2.xml", fmt(8, k420), 5, 2, false, kMseApsnr},
      {"400p8.apsnr.xml", fmt(8, k400), 3, 1, false, "psnr=enable_apsnr=true"},
      {"400p8.apsnr.json", fmt(8, k400), 3, 1, false, "psnr=enable_apsnr=true"},
      {"400p8.apsnr.csv", fmt(8, k400), 3, 1, false, "psnr=enable_apsnr=true"},
      {"400p8.apsnr.default.xml", fmt(8, k400), 3, 1, false, "psnr=enable_apsnr=true",
       LogPrecision::kDefault},
      {"400p8.apsnr.default.json", fmt(8, k400), 3, 1, false, "psnr=enable_apsnr=true",
       LogPrecision::kDefault},
      {"400p8.apsnr.default.csv", fmt(8, k400), 3, 1, false, "psnr=enable_apsnr=true",
       LogPrecision::kDefault},
      {"420p8.identical.default.xml", fmt(8, k420), 3, 1, true,
       "psnr=enable_apsnr=true:enable_mse=true", LogPrecision::kDefault},
  };
  cases.insert(cases.end(), std::begin(more), std::end(more));
  return cases;
}

std::string case_file(const GoldenCase& c) {
  if (c.file) return c.file;
  const char* sampling = c.format.chroma == ChromaFormat::k400   ? "400"
                         : c.format.chroma == ChromaFormat::k420 ? "420"
                         : c.format.chroma == ChromaFormat::k422 ? "422"
                                                                 : "444";
  return std::string(sampling) + "p" + std::to_string(c.format.bpc) + ".mse_apsnr.xml";
}

}  // namespace

TEST(PsnrGolden, LogsEqualLibvmafs) {
  unsigned compared = 0;
  for (GoldenCase c : golden_cases()) {
    const std::string file = case_file(c);
    c.file = file.c_str();
    const std::string expected = test::read_file(golden_dir() / file);
    ASSERT_NE(expected.find("psnr_y"), std::string::npos) << file;
    EXPECT_EQ(without_fps(golden_log(c)), without_fps(expected)) << file;
    ++compared;
  }
  EXPECT_EQ(compared, 35u);
}

TEST(PsnrGolden, ThreadsGiveTheSameLogs) {
  // apsnr keeps state: psnr then runs in frame order beside the lanes.
  unsigned compared = 0;
  for (const unsigned frames_in_flight : {1u, 3u}) {
    ScorerOptions options;
    options.threads = 3;
    options.frames_in_flight = frames_in_flight;
    for (const char* file : {"420p8.subsample2.xml", "422p12.reduced.xml"}) {
      for (GoldenCase c : golden_cases()) {
        if (!c.file || std::string(c.file) != file) continue;
        EXPECT_EQ(without_fps(golden_log(c, options)),
                  without_fps(test::read_file(golden_dir() / file)))
            << file << " frames in flight " << frames_in_flight;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 4u);
}

TEST(PsnrOptions, CudaFactoryTakesTheSameOptions) {
  if (!cuda_twins_built()) GTEST_SKIP() << "no CUDA twins in this build";
  // The CUDA factory makes the same extractor over another stage: the same
  // option table, the same refusals, the same state rule (no device is
  // touched before init()).
  const FeatureOptions options = {{"enable_mse", "true"}, {"enable_apsnr", "true"}};
  const auto cpu = make_feature_extractor("psnr", options);
  const auto gpu = make_feature_extractor("psnr", options, Backend::kCuda);
  EXPECT_TRUE(gpu->keeps_state());
  EXPECT_EQ(gpu->keeps_state(), cpu->keeps_state());
  EXPECT_EQ(gpu->score_key("psnr_y"), cpu->score_key("psnr_y"));
  EXPECT_EQ(error_of([] {
              make_feature_extractor("psnr", {{"min_sse", "-1"}}, Backend::kCuda);
            }),
            error_of([] {
              make_feature_extractor("psnr", {{"min_sse", "-1"}});
            }));
}

namespace {

// A stage of another backend as the extractor sees it: it only returns sums.
class FixedSumsStage final : public FeatureStage<psnr::PsnrSums> {
 public:
  psnr::PsnrSums compute(const PictureView&, const PictureView&, unsigned) override {
    return {{100, 7, 0}};
  }
};

}  // namespace

TEST(PsnrOptions, EveryBackendsStageGetsTheSameFinishing) {
  // The CUDA factory is psnr::make_extractor() over its stage: the options act
  // on the sums whatever stage made them. 8x8 4:2:0 at 10 bits, reduced peak 1020.
  const auto options = psnr::descriptor().parse(
      {{"enable_mse", "true"}, {"enable_apsnr", "true"}, {"reduced_hbd_peak", "true"}});
  auto extractor = psnr::make_extractor(
      options, [](const PictureFormat&) { return std::make_unique<FixedSumsStage>(); });
  EXPECT_TRUE(extractor->keeps_state());
  extractor->init({8, 8, 10, ChromaFormat::k420});
  FeatureCollector scores;
  const PictureView none;
  extractor->extract(none, none, 0, scores);
  extractor->extract(none, none, 1, scores);
  extractor->flush(scores);
  EXPECT_EQ(scores.names(), (std::vector<std::string>{"psnr_y", "mse_y", "psnr_cb", "mse_cb",
                                                      "psnr_cr", "mse_cr"}));
  EXPECT_EQ(*scores.score("mse_y", 1), 100.0 / 64);
  EXPECT_EQ(*scores.score("psnr_y", 0), psnr::psnr_from_mse(100.0 / 64, 1020, 72.0));
  EXPECT_EQ(*scores.score("psnr_cr", 0), 72.0);
  ASSERT_EQ(scores.aggregates().size(), 3u);
  EXPECT_EQ(scores.aggregates()[0].first, "apsnr_y");
  EXPECT_EQ(scores.aggregates()[0].second, psnr::apsnr(200, 128, 1020));
  EXPECT_EQ(scores.aggregates()[1].second, psnr::apsnr(14, 32, 1020));
  EXPECT_EQ(scores.aggregates()[2].second, psnr::apsnr(0, 32, 1020));  // no error: the bound
}
