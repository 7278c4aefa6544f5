// The stage contract on a CUDA device (checks of <feature>_cuda_device): a
// twin's FeatureStage, fed device copies of the frames and submitted one frame
// ahead as the Scorer does, must give the CPU stage's sums (==) frame by frame.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/feature_collector.h"
#include "common/feature_stage.h"
#include "cuda_backend.h"
#include "dsp_inputs.h"
#include "registry.h"
#include "test_pictures.h"

namespace vmafexact::harness {

struct HostFrame {
  test::TestPlane ref, dist;
};

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

}  // namespace vmafexact::harness
