// The stage contract on a CUDA device (checks of <feature>_cuda_device): a
// twin's FeatureStage, fed device copies of the frames and submitted one frame
// ahead as the Scorer does, must give the CPU stage's sums (==) frame by frame.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "common/feature_stage.h"
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

}  // namespace vmafexact::harness
