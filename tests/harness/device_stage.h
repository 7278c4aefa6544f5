// The stage contract on a CUDA device (checks of <feature>_cuda_device): a
// twin's FeatureStage, fed device copies of the frames and submitted one frame
// ahead as the Scorer does, must give the CPU stage's sums (==) frame by frame.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/feature_collector.h"
#include "common/feature_stage.h"
#include "cuda_backend.h"
#include "dsp_inputs.h"
#include "float_emulation.h"
#include "registry.h"
#include "sizes_and_frames.h"
#include "test_pictures.h"

namespace vmafexact::harness {

template <class Sums>
void expect_device_stage_equals_cpu(const std::vector<HostFrame>& frames, FeatureStage<Sums>& cpu,
                                    FeatureStage<Sums>& twin, cudaStream_t stream,
                                    const std::string& label) {
  std::vector<cuda::DevicePicture> refs(frames.size()), dists(frames.size());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    refs[f].upload(frames[f].ref.view(), stream);
    dists[f].upload(frames[f].dist.view(), stream);
  }
  if (!frames.empty()) twin.submit(refs[0].view(), dists[0].view(), 0);
  for (unsigned f = 0; f < frames.size(); ++f) {
    if (f + 1 < frames.size()) twin.submit(refs[f + 1].view(), dists[f + 1].view(), f + 1);
    const Sums expected = cpu.compute(frames[f].ref.view(), frames[f].dist.view(), f);
    const Sums sums = twin.compute(refs[f].view(), dists[f].view(), f);
    EXPECT_TRUE(sums == expected) << label << " frame " << f;
    EXPECT_TRUE(frames[f].ref.guards_intact() && frames[f].dist.guards_intact()) << label;
  }
}

// Runs the CPU extractor of a luma feature and its twin side by side over
// `frames` (gray pictures) and requires the same collector (names, every value
// the same bits or both NaN) after every frame and after flush; counts the
// values compared into `compared`.
inline void expect_twin_extractor_equals_cpu(const std::vector<HostFrame>& frames,
                                             const std::string& feature,
                                             const FeatureOptions& options,
                                             cuda::CudaBackend& backend, const std::string& what,
                                             unsigned* compared) {
  auto cpu = make_feature_extractor(feature, options);
  auto twin = backend.make_extractor(feature, options);
  const PictureFormat format{frames[0].ref.width(), frames[0].ref.height(), frames[0].ref.bpc(),
                             ChromaFormat::k400};
  cpu->init(format);
  twin->init(format);
  FeatureCollector cpu_scores, twin_scores;
  auto same_scores = [&](const std::string& when) {
    ASSERT_EQ(cpu_scores.names(), twin_scores.names()) << what << " " << when;
    for (const auto& name : cpu_scores.names())
      for (unsigned f = 0; f < cpu_scores.frame_count(); ++f) {
        const auto a = cpu_scores.score(name, f), b = twin_scores.score(name, f);
        ASSERT_EQ(a.has_value(), b.has_value()) << what << " " << when << " " << name << " " << f;
        if (a) {
          EXPECT_TRUE(same(*a, *b)) << what << " " << when << " " << name << " frame " << f
                                    << std::hexfloat << ": " << *a << " vs " << *b;
          ++*compared;
        }
      }
  };
  cuda::DevicePicture ref, dist;
  for (unsigned i = 0; i < frames.size(); ++i) {
    cpu->extract(frames[i].ref.view(), frames[i].dist.view(), i, cpu_scores);
    ref.upload(frames[i].ref.view(), backend.stream());
    dist.upload(frames[i].dist.view(), backend.stream());
    twin->extract(ref.view(), dist.view(), i, twin_scores);
    same_scores("after frame " + std::to_string(i));
  }
  cpu->flush(cpu_scores);
  twin->flush(twin_scores);
  same_scores("after flush");
}

// The two device checks of a luma twin whose stages take the feature's parsed
// parameters (float_vif, float_adm), written once. `Twin` names the feature's
// parts:
//   static constexpr const char* kFeature;
//   using Sums, CpuStage, CudaStage;  // (format, params), CudaStage with a stream too
//   static Params params(const FeatureOptions&);
//   static void paint(test::TestPlane&, unsigned seed, test::Fill, std::mt19937_64&);
// Cases the feature does not take (its extractor refuses the format) are left out.

// The stage contract (frames submitted one ahead, as the Scorer runs them):
// on clips of 3 frames (the second reference with extreme samples), every
// frame's sums == the CPU stage's.
template <class Twin>
void expect_stage_contract(const std::vector<Size>& sizes, std::initializer_list<unsigned> bpcs,
                           std::initializer_list<FeatureOptions> option_sets,
                           std::uint64_t seed_constant) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ seed_constant);
  for (const unsigned bpc : bpcs)
    for (const auto& [w, h] : sizes)
      for (const auto& options : option_sets) {
        const PictureFormat format{w, h, bpc, ChromaFormat::k400};
        if (!feature_takes(Twin::kFeature, format, options)) continue;
        const std::vector<HostFrame> frames =
            painted_clip(w, h, bpc, 3, 5, {1, test::Fill::kExtremes, false}, Twin::paint, rng);
        const auto params = Twin::params(options);
        typename Twin::CpuStage cpu(format, params);
        typename Twin::CudaStage twin(format, params, stream.get());
        expect_device_stage_equals_cpu<typename Twin::Sums>(frames, cpu, twin, stream.get(),
                                                            case_label(w, h, bpc, options));
      }
}

// The extractor on both backends with every option set: on clips of 3 frames
// (the third distorted with full-range samples), the same collector after
// every frame and after flush; prints how many values were compared.
template <class Twin>
void expect_extractor_with_every_option(const std::vector<Size>& sizes,
                                        std::initializer_list<unsigned> bpcs,
                                        const std::vector<FeatureOptions>& option_sets,
                                        std::uint64_t seed_constant) {
  cuda::CudaBackend backend;
  std::mt19937_64 rng(seed() ^ seed_constant);
  unsigned compared = 0;
  for (const unsigned bpc : bpcs)
    for (const auto& [w, h] : sizes)
      for (const auto& options : option_sets) {
        const PictureFormat format{w, h, bpc, ChromaFormat::k400};
        if (!feature_takes(Twin::kFeature, format, options)) continue;
        const std::string what = case_label(w, h, bpc, options);
        const std::vector<HostFrame> frames =
            painted_clip(w, h, bpc, 3, 3, {2, test::Fill::kFullRange, true}, Twin::paint, rng);
        expect_twin_extractor_equals_cpu(frames, Twin::kFeature, options, backend, what, &compared);
      }
  std::printf("[%s cuda] %u values compared\n", Twin::kFeature, compared);
  EXPECT_GT(compared, 0u);
}

}  // namespace vmafexact::harness
