// CPU/CUDA parity of whole scorers: every CUDA twin must give the CPU path's
// scores bit for bit (==), on random clips of awkward sizes at every bit depth
// and on every shared fixture pair. Skips cleanly where no CUDA device exists.
// (Each twin's sums against the CPU stage: the twin harness, tests/harness/.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/device_picture.h"
#include "common/frame_graphs.h"
#include "cuda_backend.h"
#include "fixtures.h"
#include "synthetic_clip.h"
#include "psnr/psnr.h"
#include "psnr/psnr_cuda.h"
#include "psnr/psnr_cuda_stage.h"
#include "reference_setup.h"
#include "scorer.h"

using namespace vmafexact;

namespace {

class CudaParity : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device (" << reason << ")";
  }
};

using test::Clip;
using test::make_clip;

// Graphs on or off for a scope.
class GraphsSetting {
 public:
  explicit GraphsSetting(bool enabled) : saved_(cuda::graphs_enabled()) { cuda::set_graphs_enabled(enabled); }
  ~GraphsSetting() { cuda::set_graphs_enabled(saved_); }
  GraphsSetting(const GraphsSetting&) = delete;
  GraphsSetting& operator=(const GraphsSetting&) = delete;

 private:
  bool saved_;
};

// Features (and models) that have CUDA twins in this build.
std::vector<FeatureRequest> twinned(const std::vector<FeatureRequest>& requests,
                                    cuda::CudaBackend& backend) {
  std::vector<FeatureRequest> available;
  for (const auto& request : requests) {
    try {
      backend.make_extractor(request.name, request.options);
      available.push_back(request);
    } catch (const Error&) {
    }
  }
  return available;
}

// Scores a clip on the CPU and on CUDA (frame by frame, and with frames
// overlapping as the element runs it) and requires identical collectors.
void expect_same_scores(const Clip& clip, const std::vector<FeatureRequest>& features,
                        const std::string& models, const std::string& label) {
  Scorer cpu(load_models(parse_model_list(models)), features, clip.format);
  const unsigned frames = static_cast<unsigned>(clip.ref_planes.size() / 3);
  for (unsigned f = 0; f < frames; ++f)
    cpu.push(clip.view(clip.ref_planes, f), clip.view(clip.dist_planes, f));
  cpu.finish();
  // Frame by frame with each kernel enqueued, then overlapping as the element
  // runs it (two frames in flight), without and with CUDA graphs
  // (cuda/common/frame_graphs.h), then with the most frames in flight the
  // backend takes (VMAFEXACT_CUDA_FRAMES), with graphs.
  struct Mode {
    unsigned frames_in_flight;
    bool graphs;
  };
  for (const auto [in_flight, graphs] :
       {Mode{1, false}, Mode{2, false}, Mode{2, true}, Mode{cuda::kFrameSlots, true}}) {
    const GraphsSetting graphs_setting(graphs);
    cuda::CudaBackend backend(in_flight);
    ScorerOptions cuda_options;
    cuda_options.overlap_frames = in_flight - 1;
    cuda_options.make_extractor = [&backend](std::string_view name, const FeatureOptions& options) {
      return backend.make_extractor(name, options);
    };
    Scorer gpu(load_models(parse_model_list(models)), features, clip.format, cuda_options);
    // A device picture per input and frame in flight, in turn: a frame's
    // pictures are read until frames_released() passes it.
    std::vector<cuda::DevicePicture> ref_device(in_flight), dist_device(in_flight);
    for (unsigned f = 0; f < frames; ++f) {
      ref_device[f % in_flight].upload(clip.view(clip.ref_planes, f), backend.stream());
      dist_device[f % in_flight].upload(clip.view(clip.dist_planes, f), backend.stream());
      gpu.push(ref_device[f % in_flight].view(), dist_device[f % in_flight].view());
    }
    gpu.finish();
    const std::string name_of_run =
        label + " (" + std::to_string(in_flight) + (in_flight == 1 ? " frame" : " frames") +
        " in flight" + (graphs ? ", graphs)" : ")");
    ASSERT_EQ(cpu.scores().names(), gpu.scores().names()) << name_of_run;
    unsigned compared = 0, identical = 0;
    for (const auto& name : cpu.scores().names())
      for (unsigned f = 0; f < frames; ++f) {
        const auto a = cpu.scores().score(name, f), b = gpu.scores().score(name, f);
        ASSERT_EQ(a.has_value(), b.has_value()) << name_of_run << " " << name << " frame " << f;
        if (!a) continue;
        ++compared;
        if (*a == *b || (std::isnan(*a) && std::isnan(*b)))
          ++identical;
        else
          ADD_FAILURE() << name_of_run << " " << name << " frame " << f << ": cpu " << std::hexfloat
                        << *a << " cuda " << *b << std::defaultfloat;
      }
    // libvmaf's aggregates (psnr's apsnr_*), set by the shared extractor at flush.
    const auto& cpu_aggregates = cpu.scores().aggregates();
    const auto& gpu_aggregates = gpu.scores().aggregates();
    ASSERT_EQ(cpu_aggregates.size(), gpu_aggregates.size()) << name_of_run;
    for (std::size_t k = 0; k < cpu_aggregates.size(); ++k) {
      const double a = cpu_aggregates[k].second, b = gpu_aggregates[k].second;
      EXPECT_EQ(cpu_aggregates[k].first, gpu_aggregates[k].first) << name_of_run;
      ++compared;
      if (a == b || (std::isnan(a) && std::isnan(b)))
        ++identical;
      else
        ADD_FAILURE() << name_of_run << " " << cpu_aggregates[k].first << ": cpu " << std::hexfloat
                      << a << " cuda " << b << std::defaultfloat;
    }
    std::printf("[cuda parity] %s: %u of %u values identical\n", name_of_run.c_str(), identical, compared);
    EXPECT_GT(compared, 0u);
  }
}

std::string format_label(const PictureFormat& format) {
  return std::to_string(format.width) + "x" + std::to_string(format.height) + " " +
         std::to_string(format.bpc) + "-bit " + std::string(chroma_format_name(format.chroma));
}

// `feature` with each option set on each format it takes (a size below what
// its filters need, or where libvmaf's result is undefined, is left out), on
// 3-frame clips.
void expect_same_scores_where_taken(const std::string& feature,
                                    const std::vector<PictureFormat>& formats,
                                    const std::vector<FeatureOptions>& option_sets) {
  for (const auto& format : formats)
    for (std::size_t k = 0; k < option_sets.size(); ++k) {
      try {
        make_feature_extractor(feature, option_sets[k])->init(format);
      } catch (const Error&) {
        continue;
      }
      expect_same_scores(make_clip(format, 3, format.width + k), {{feature, option_sets[k]}}, "",
                         format_label(format) + " " + feature + " options #" + std::to_string(k));
    }
}

}  // namespace

TEST_F(CudaParity, EveryTwinEqualsTheCpuOnAwkwardSizes) {
  cuda::CudaBackend backend;
  const auto features = twinned(
      {{"adm", {}}, {"motion", {}}, {"vif", {}}, {"psnr", {}}, {"float_motion", {}}}, backend);
  ASSERT_FALSE(features.empty());
  const std::vector<PictureFormat> formats = {
      {33, 33, 8, ChromaFormat::k420},   {37, 41, 10, ChromaFormat::k422},
      {65, 34, 12, ChromaFormat::k444},  {100, 36, 16, ChromaFormat::k420},
      {129, 97, 8, ChromaFormat::k400},  {331, 177, 10, ChromaFormat::k420},
      {1920, 1080, 8, ChromaFormat::k420}};
  for (const auto& format : formats)
    expect_same_scores(make_clip(format, 4, format.width + format.bpc), features, "",
                       format_label(format));
}

// psnr's options live in the extractor both backends share: the CUDA twin's
// scores and aggregates equal the CPU's with every option.
TEST_F(CudaParity, PsnrOptionsEqualTheCpu) {
  const std::vector<FeatureRequest> features = {
      {"psnr",
       {{"enable_mse", "true"}, {"enable_apsnr", "true"}, {"min_sse", "0.5"}, {"reduced_hbd_peak", "true"}}}};
  const std::vector<FeatureRequest> luma_only = {
      {"psnr", {{"enable_chroma", "false"}, {"enable_apsnr", "true"}, {"enable_mse", "true"}}}};
  const std::vector<PictureFormat> formats = {{37, 23, 8, ChromaFormat::k420},
                                              {65, 34, 10, ChromaFormat::k422},
                                              {33, 33, 16, ChromaFormat::k444},
                                              {40, 30, 12, ChromaFormat::k400}};
  for (const auto& format : formats) {
    expect_same_scores(make_clip(format, 3, format.width), features, "", format_label(format));
    expect_same_scores(make_clip(format, 3, format.width), luma_only, "",
                       format_label(format) + " luma only");
  }
}

// float_ssim and float_ms_ssim: from the smallest pictures they accept
// (float_ssim's 11x11 after scaling, MS-SSIM's 176x176) to 1920x1080, 8 to 16
// bits, with every option of the extractor both backends share.
TEST_F(CudaParity, SsimAndMsSsimEqualTheCpuWithEveryOption) {
  const std::vector<FeatureOptions> option_sets = {
      {},
      {{"enable_lcs", "true"}},
      {{"enable_db", "true"}},
      {{"enable_db", "true"}, {"clip_db", "true"}, {"enable_lcs", "true"}}};
  struct Case {
    PictureFormat format;
    bool ms_ssim;  // large enough for MS-SSIM
  };
  const std::vector<Case> cases = {{{17, 17, 8, ChromaFormat::k420}, false},
                                   {{33, 21, 10, ChromaFormat::k422}, false},
                                   {{257, 263, 12, ChromaFormat::k444}, false},
                                   {{177, 181, 16, ChromaFormat::k420}, true},
                                   {{333, 241, 8, ChromaFormat::k400}, true},
                                   {{1920, 1080, 10, ChromaFormat::k420}, true}};
  for (const auto& [format, ms_ssim] : cases)
    for (const auto& options : option_sets) {
      std::string what = format_label(format);
      for (const auto& [name, value] : options) what += " " + name + "=" + value;
      std::vector<FeatureRequest> features = {{"float_ssim", options}};
      if (ms_ssim) features.push_back({"float_ms_ssim", options});
      expect_same_scores(make_clip(format, 3, format.width + format.bpc), features, "", what);
    }
  // float_ssim's scale: every factor whose picture still holds the window.
  for (const auto& format : {PictureFormat{257, 263, 8, ChromaFormat::k420},
                             PictureFormat{1920, 1080, 16, ChromaFormat::k420},
                             PictureFormat{47, 45, 12, ChromaFormat::k420}})
    for (int scale = 1; scale <= 4; ++scale) {
      if (format.width / scale < 11 || format.height / scale < 11) continue;
      const FeatureOptions options = {{"scale", std::to_string(scale)}, {"enable_lcs", "true"},
                                      {"enable_db", "true"}, {"clip_db", "true"}};
      expect_same_scores(make_clip(format, 2, format.height), {{"float_ssim", options}}, "",
                         format_label(format) + " scale=" + std::to_string(scale));
    }
}

TEST_F(CudaParity, FourKEightAndTenBit) {
  cuda::CudaBackend backend;
  const auto features = twinned({{"adm", {}}, {"motion", {}}, {"vif", {}}, {"psnr", {}},
                                 {"float_ssim", {}}, {"float_ms_ssim", {}}},
                                backend);
  for (const unsigned bpc : {8u, 10u}) {
    const PictureFormat format{3840, 2160, bpc, ChromaFormat::k420};
    expect_same_scores(make_clip(format, 3, bpc), features, "", format_label(format));
  }
}

// 8K (7680x4320): what grows with the picture. float_ssim's automatic factor
// is 17 there (the CPU's SIMD decimation once overran a fixed array of 16 x 16
// taps), CAMBI runs with VMAF v1's high_res_speedup (its default window is too
// large at 8K for libvmaf and is refused), and every sum spans 33 M pixels.
TEST_F(CudaParity, EightKEveryTwinEqualsTheCpu) {
  cuda::CudaBackend backend;
  const FeatureOptions cambi_v1 = {{"cambi_high_res_speedup", "1080"},
                                   {"cambi_vis_lum_threshold", "0.06"},
                                   {"cambi_max_val", "17"}};
  const auto features = twinned({{"adm", {}},
                                 {"motion", {}},
                                 {"vif", {}},
                                 {"psnr", {}},
                                 {"float_ssim", {}},
                                 {"float_ms_ssim", {}},
                                 {"speed_chroma", {}},
                                 {"cambi", cambi_v1},
                                 {"float_motion", {{"motion_add_scale1", "true"}}},
                                 {"float_vif", {}},
                                 {"float_adm", {}},
                                 {"float_psnr", {}},
                                 {"float_ansnr", {}},
                                 {"float_moment", {}}},
                                backend);
  ASSERT_EQ(features.size(), 14u) << "a twin is missing";
  const PictureFormat format{7680, 4320, 8, ChromaFormat::k420};
  expect_same_scores(make_clip(format, 2, 17), features, "", format_label(format));
}

// speed_chroma: awkward sizes whose chroma planes are at least 80 on a side,
// 8 to 16 bits, the defaults, the VMAF v1 options and every prescale method.
TEST_F(CudaParity, SpeedChromaEqualsTheCpu) {
  const FeatureOptions v1 = {{"speed_kernelscale", "1.0"}, {"speed_nn_floor", "0.1"},
                             {"speed_sigma_nn", "0.19"}, {"speed_weight_var_mode", "5"},
                             {"speed_max_val", "45"}};
  const auto with = [&](FeatureOptions options, std::initializer_list<std::pair<std::string, std::string>> more) {
    for (const auto& option : more) options.push_back(option);
    return options;
  };
  const std::vector<FeatureOptions> option_sets = {
      {},
      v1,
      with(v1, {{"speed_prescale", "0.6"}, {"speed_prescale_method", "bilinear"}}),
      with(v1, {{"speed_prescale", "1.5"}, {"speed_prescale_method", "nearest"}}),
      with(v1, {{"speed_prescale", "0.7"}, {"speed_prescale_method", "bicubic"}}),
      with(v1, {{"speed_prescale", "1.3"}, {"speed_prescale_method", "lanczos4"}}),
      {{"speed_kernelscale", "0.5"}, {"speed_weight_var_mode", "3"}, {"speed_sigma_nn", "0.5"}},
      {{"speed_kernelscale", "2"}, {"speed_weight_var_mode", "6"}, {"speed_nn_floor", "0.3"}}};
  // Chroma planes of at least 134 on a side, so that speed_prescale=0.6 leaves 80.
  const std::vector<PictureFormat> formats = {
      {161, 163, 8, ChromaFormat::k444}, {333, 283, 10, ChromaFormat::k420},
      {371, 331, 12, ChromaFormat::k420}, {331, 247, 16, ChromaFormat::k422},
      {299, 171, 8, ChromaFormat::k422}};
  for (const auto& format : formats)
    for (std::size_t k = 0; k < option_sets.size(); ++k)
      expect_same_scores(make_clip(format, 3, format.width + k), {{"speed_chroma", option_sets[k]}},
                         "", format_label(format) + " speed_chroma options #" + std::to_string(k));
  for (const unsigned bpc : {8u, 10u}) {
    const PictureFormat format{3840, 2160, bpc, ChromaFormat::k420};
    expect_same_scores(make_clip(format, 3, bpc + 1), {{"speed_chroma", v1}}, "",
                       format_label(format) + " speed_chroma v1");
  }
  const PictureFormat full_hd{1920, 1080, 12, ChromaFormat::k420};
  expect_same_scores(make_clip(full_hd, 3, 5), {{"speed_chroma", option_sets[2]}}, "",
                     format_label(full_hd) + " speed_chroma bilinear");
}

// float_motion with every option that changes what is read or computed, 8
// to 16 bits, every chroma format (motion_add_uv reads chroma).
TEST_F(CudaParity, FloatMotionEqualsTheCpu) {
  const std::vector<FeatureOptions> option_sets = {
      {},
      {{"motion_filter_size", "3"}, {"motion_fps_weight", "2"}},
      {{"motion_filter_size", "1"}},
      {{"motion_add_scale1", "true"}},
      {{"motion_add_uv", "true"}, {"motion_blend_factor", "0.5"}, {"motion_max_val", "4"}}};
  const std::vector<PictureFormat> formats = {
      {5, 5, 8, ChromaFormat::k444},       {37, 23, 10, ChromaFormat::k420},
      {65, 34, 12, ChromaFormat::k422},    {331, 177, 16, ChromaFormat::k420},
      {1920, 1080, 8, ChromaFormat::k420}, {3840, 2160, 10, ChromaFormat::k420}};
  for (const auto& format : formats)
    for (std::size_t k = 0; k < option_sets.size(); ++k)
      expect_same_scores(make_clip(format, format.width > 1920 ? 3 : 5, format.width + k),
                         {{"float_motion", option_sets[k]}}, "",
                         format_label(format) + " float_motion options #" + std::to_string(k));
}

// float_vif with every option, 8 to 16 bits, from the smallest pictures its
// filters take to 4K.
TEST_F(CudaParity, FloatVifEqualsTheCpu) {
  const std::vector<FeatureOptions> option_sets = {
      {},
      {{"vif_skip_scale0", "true"}, {"vif_enhn_gain_limit", "1.0"}, {"debug", "true"}},
      {{"vif_kernelscale", "0.5"}, {"vif_sigma_nsq", "1.5"}},
      {{"vif_kernelscale", "1.5"}, {"vif_scale2_min_val", "0.3"}},
      {{"vif_prescale", "0.5"}, {"vif_prescale_method", "bilinear"}},
      {{"vif_prescale", "1.5"}, {"vif_prescale_method", "bicubic"}},
      {{"vif_prescale", "0.75"}, {"vif_prescale_method", "lanczos4"}},
      {{"vif_prescale", "2"}}};
  const std::vector<PictureFormat> formats = {{33, 35, 8, ChromaFormat::k420},
                                              {65, 34, 10, ChromaFormat::k422},
                                              {129, 97, 12, ChromaFormat::k400},
                                              {331, 177, 16, ChromaFormat::k420},
                                              {1920, 1080, 8, ChromaFormat::k420}};
  expect_same_scores_where_taken("float_vif", formats, option_sets);
  const PictureFormat uhd{3840, 2160, 10, ChromaFormat::k420};
  expect_same_scores(make_clip(uhd, 2, 3), {{"float_vif", {}}}, "",
                     format_label(uhd) + " float_vif");
}

// float_adm with every option its twin computes, 8 to 16 bits, from 16x16
// (where libvmaf's reads reach into values earlier levels left) to 4K, and
// the float models, whose every feature now has a twin.
TEST_F(CudaParity, FloatAdmEqualsTheCpu) {
  const std::vector<FeatureOptions> option_sets = {
      {},
      {{"debug", "true"}, {"adm_enhn_gain_limit", "1.0"}},
      {{"adm_csf_mode", "1"}, {"adm_csf_scale", "1.5"}, {"adm_csf_diag_scale", "0.5"}},
      {{"adm_csf_mode", "2"}, {"adm_norm_view_dist", "1.5"}, {"adm_ref_display_height", "2160"}},
      {{"adm_bypass_cm", "1"}, {"adm_noise_weight", "0.5"}},
      {{"adm_skip_scale0", "true"}, {"adm_skip_aim_scale", "1"}},
      {{"adm_f1s0", "0.25"}, {"adm_f2s3", "2"}, {"adm_adm3_apply_hm", "true"}}};
  const std::vector<PictureFormat> formats = {{16, 16, 8, ChromaFormat::k420},
                                              {33, 35, 10, ChromaFormat::k422},
                                              {129, 97, 12, ChromaFormat::k400},
                                              {331, 177, 16, ChromaFormat::k420},
                                              {1920, 1080, 8, ChromaFormat::k420}};
  expect_same_scores_where_taken("float_adm", formats, option_sets);
  const PictureFormat uhd{3840, 2160, 10, ChromaFormat::k420};
  expect_same_scores(make_clip(uhd, 2, 3), {{"float_adm", {}}}, "",
                     format_label(uhd) + " float_adm");
  const PictureFormat hd{1280, 720, 8, ChromaFormat::k420};
  expect_same_scores(make_clip(hd, 4, 7), {}, "vmaf_float_v0.6.1,vmaf_float_b_v0.6.3",
                     format_label(hd) + " float models");
}

// libvmaf's float luma extractors (float_psnr, float_ansnr, float_moment), 8
// to 16 bits, from 1x1 (3x3 for float_ansnr) to 1920x1080 with odd sides, and
// 16-bit 3840x2160, whose second moments pass 2^53 units (each such plane
// summed on the host in libvmaf's order, as the CPU does).
TEST_F(CudaParity, FloatLumaExtractorsEqualTheCpu) {
  const std::vector<PictureFormat> formats = {
      {1, 1, 8, ChromaFormat::k444},      {2, 3, 12, ChromaFormat::k420},
      {3, 3, 10, ChromaFormat::k420},     {5, 4, 16, ChromaFormat::k422},
      {37, 23, 12, ChromaFormat::k422},   {129, 97, 8, ChromaFormat::k400},
      {331, 177, 16, ChromaFormat::k420}, {1277, 719, 10, ChromaFormat::k420},
      {1920, 1080, 8, ChromaFormat::k420}};
  for (const char* feature : {"float_psnr", "float_ansnr", "float_moment"})
    expect_same_scores_where_taken(feature, formats, {FeatureOptions{}});
  const PictureFormat uhd{3840, 2160, 16, ChromaFormat::k420};
  expect_same_scores(make_clip(uhd, 2, 5),
                     {{"float_psnr", {}}, {"float_ansnr", {}}, {"float_moment", {}}}, "",
                     format_label(uhd) + " float luma extractors");
}

// cambi (at least 216 samples on a side) with every option the VMAF models
// and the issue name: v1's (high_res_speedup 1080, vis_lum_threshold 0.06,
// max_val 17), full_ref, the other speed-ups, topk, window_size, the
// encoding size and depth, at 8 to 16 bits and every chroma format.
TEST_F(CudaParity, CambiEqualsTheCpu) {
  const FeatureOptions v1 = {{"cambi_high_res_speedup", "1080"}, {"cambi_vis_lum_threshold", "0.06"},
                             {"cambi_max_val", "17"}};
  struct Case {
    PictureFormat format;
    FeatureOptions options;
  };
  const std::vector<Case> cases = {
      {{217, 241, 8, ChromaFormat::k420}, {}},
      {{333, 219, 10, ChromaFormat::k422}, v1},
      {{241, 217, 12, ChromaFormat::k444}, {{"full_ref", "true"}}},
      {{219, 333, 16, ChromaFormat::k400}, {{"topk", "0.2"}, {"window_size", "33"}}},
      {{300, 217, 10, ChromaFormat::k420},
       {{"enc_width", "240"}, {"enc_height", "180"}, {"full_ref", "true"}, {"src_width", "320"},
        {"src_height", "200"}, {"enc_bitdepth", "8"}, {"eotf", "pq"}}},
      {{300, 260, 8, ChromaFormat::k444},
       {{"max_log_contrast", "4"}, {"tvi_threshold", "0.05"}, {"cambi_topk", "0.9"}, {"window_size", "127"}}},
      {{1920, 1080, 8, ChromaFormat::k420}, v1},
      {{1920, 1080, 10, ChromaFormat::k420}, {{"full_ref", "true"}, {"cambi_high_res_speedup", "1080"}}},
      {{2560, 1440, 10, ChromaFormat::k420}, {{"cambi_high_res_speedup", "1440"}}},
      {{3840, 2160, 10, ChromaFormat::k420}, v1},
      {{3840, 2160, 8, ChromaFormat::k420}, {{"cambi_high_res_speedup", "2160"}}}};
  for (const Case& c : cases) {
    std::string label = format_label(c.format) + " cambi";
    for (const auto& [name, value] : c.options) label += " " + name + "=" + value;
    expect_same_scores(make_clip(c.format, c.format.width > 1920 ? 2 : 3, c.format.width + c.format.bpc),
                       {{"cambi", c.options}}, "", label);
  }
}

class CudaFixtureParity : public ::testing::TestWithParam<test::FixturePair> {
 protected:
  void SetUp() override {
    std::string reason;
    if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device (" << reason << ")";
  }
};

TEST_P(CudaFixtureParity, EveryTwinEqualsTheCpu) {
  const auto& pair = GetParam();
  const auto log = test::load_reference_log(test::reference_dir() / pair.log_name);
  const auto setup = test::reference_setup(log, pair.log_name);
  cuda::CudaBackend backend;
  auto features = twinned(parse_feature_list(setup.features), backend);
  // The models run on the CUDA path when every input of theirs has a twin;
  // otherwise their inputs that have one (e.g. the VMAF v1 models' cambi with
  // their options) are compared as features.
  std::string models;
  bool all_twinned = true;
  std::vector<FeatureRequest> twinned_inputs;
  const auto loaded = load_models(parse_model_list(setup.models));
  for (const auto& scored : loaded)
    for (const auto& input : scored.model.features()) {
      const FeatureRequest request{std::string(feature_entry_providing(input.name)->name()), input.options};
      try {
        backend.make_extractor(request.name, request.options);
        const bool listed = std::any_of(twinned_inputs.begin(), twinned_inputs.end(), [&](const FeatureRequest& r) {
          return r.name == request.name && r.options == request.options;
        });
        if (!listed) twinned_inputs.push_back(request);
      } catch (const Error&) {
        all_twinned = false;
      }
    }
  if (all_twinned)
    models = setup.models;
  else
    for (const auto& request : twinned_inputs)
      if (std::none_of(features.begin(), features.end(), [&](const FeatureRequest& r) {
            return r.name == request.name && r.options == request.options;
          }))
        features.push_back(request);
  if (features.empty() && models.empty()) GTEST_SKIP() << "no twinned feature in " << pair.log_name;
  const auto yuv = test::fixture_yuv_dir();
  if (!std::filesystem::exists(yuv / pair.ref_yuv) || !std::filesystem::exists(yuv / pair.dist_yuv))
    GTEST_SKIP() << pair.ref_yuv << " is not in this slice of the fixtures";
  const test::YuvFile ref(yuv / pair.ref_yuv, pair.format), dist(yuv / pair.dist_yuv, pair.format);
  Clip clip;
  clip.format = pair.format;
  for (unsigned f = 0; f < ref.frame_count(); ++f) {
    const PictureView r = ref.frame(f), d = dist.frame(f);
    for (unsigned p = 0; p < 3; ++p) {
      const PlaneView& rp = r.planes[p];
      const PlaneView& dp = d.planes[p];
      const unsigned sample = pair.format.bpc > 8 ? 2 : 1;
      std::vector<std::uint8_t> rb(std::size_t{rp.width} * rp.height * sample), db(rb.size());
      for (unsigned y = 0; y < rp.height; ++y) {
        std::memcpy(&rb[std::size_t{y} * rp.width * sample], rp.data + y * rp.stride, rp.width * sample);
        std::memcpy(&db[std::size_t{y} * rp.width * sample], dp.data + y * dp.stride, rp.width * sample);
      }
      clip.ref_planes.push_back(std::move(rb));
      clip.dist_planes.push_back(std::move(db));
    }
  }
  expect_same_scores(clip, features, models, pair.log_name);
}

INSTANTIATE_TEST_SUITE_P(SharedFixtures, CudaFixtureParity,
                         ::testing::ValuesIn(test::max_precision_pairs()),
                         [](const ::testing::TestParamInfo<test::FixturePair>& info) {
                           std::string name = info.param.log_name.substr(0, info.param.log_name.size() - 9);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The graph cache: one capture per distinct key (input pictures and read-back
// slot), replays after that, and direct launches once keys stop repeating;
// every frame's sums equal the CPU's in each regime.
TEST_F(CudaParity, GraphsCaptureOncePerKeyAndGiveUpOnFreshInputs) {
  const GraphsSetting graphs_on(true);
  cuda::CudaBackend backend;
  const PictureFormat format{64, 48, 10, ChromaFormat::k420};
  const Clip clip = make_clip(format, 2, 7);
  cuda::psnr::PsnrCudaStage stage(backend.stream());
  std::vector<cuda::DevicePicture> refs(2), dists(2);
  for (unsigned f = 0; f < 2; ++f) {
    refs[f].upload(clip.view(clip.ref_planes, f), backend.stream());
    dists[f].upload(clip.view(clip.dist_planes, f), backend.stream());
  }
  cuda::check(cudaStreamSynchronize(backend.stream()), "upload");
  const auto expected = [&](unsigned f) {
    const PictureView r = clip.view(clip.ref_planes, f), d = clip.view(clip.dist_planes, f);
    return psnr::plane_sse(r.planes[0], d.planes[0], format.bpc);
  };
  // Frame i reads picture i % 2 into slot frame_slot(i): kFrameSlots keys (a
  // multiple of 2), each captured once and replayed after that.
  static_assert(cuda::kFrameSlots % 2 == 0 && cuda::kFrameSlots < 12);
  for (unsigned i = 0; i < 12; ++i) {
    stage.submit(refs[i % 2].view(), dists[i % 2].view(), i);
    ASSERT_EQ(stage.compute(refs[i % 2].view(), dists[i % 2].view(), i).sse[0], expected(i % 2)) << i;
  }
  EXPECT_EQ(stage.graphs().captures(), cuda::kFrameSlots);
  EXPECT_EQ(stage.graphs().replays(), 12u - cuda::kFrameSlots);
  // Pictures at ever new addresses: captures until the cache gives up.
  std::vector<cuda::DevicePicture> fresh(2 * cuda::FrameGraphs::kMaxMissRun + 8);
  for (unsigned i = 0; i < fresh.size(); ++i) {
    const unsigned index = 12 + i;
    fresh[i].upload(clip.view(clip.ref_planes, 0), backend.stream());
    stage.submit(fresh[i].view(), dists[0].view(), index);
    ASSERT_EQ(stage.compute(fresh[i].view(), dists[0].view(), index).sse[0], expected(0)) << index;
  }
  EXPECT_EQ(stage.graphs().captures(), cuda::kFrameSlots + cuda::FrameGraphs::kMaxMissRun);
  EXPECT_EQ(stage.graphs().replays(), 12u - cuda::kFrameSlots);
}
