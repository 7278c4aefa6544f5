// The CUDA stages of float_ssim and float_ms_ssim: the luma pair as floats,
// its decimations and each scored level's terms on the device (ssim_cuda.h),
// the means' serial sums on the device too, and 4 doubles per scored level
// read back per frame. The means are formed from the sums on the host, as the
// CPU forms them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "common/cuda_util.h"
#include "ssim/ssim_cuda.h"
#include "ssim/ssim_extractor.h"

namespace vmafexact::cuda::ssim {

using vmafexact::ssim::MsSsimMeans;
using vmafexact::ssim::SsimMeans;

// What a stage computes: `levels` pictures (level 0 the luma as floats, level
// i the decimation of level i - 1 with `kernel`), the last `scored` of them scored.
struct SsimPlan {
  int levels = 1;
  int scored = 1;
  std::vector<float> kernel;  // taps x taps, row-major (the host's table)
  int taps = 0;
  int factor = 1;
};

// float_ssim's plan for a downscaling factor, and MS-SSIM's five scales.
SsimPlan ssim_plan(int scale);
SsimPlan ms_ssim_plan();

class SsimCudaPipeline {
 public:
  SsimCudaPipeline(unsigned width, unsigned height, SsimPlan plan, cudaStream_t stream);

  // Enqueues frame `index`: every pass, the sums into the frame's slot and
  // their read-back.
  void submit(const PictureView& ref, const PictureView& dist, unsigned index);
  bool submitted(unsigned index) const { return readback_.submitted(index); }
  // Waits for frame `index`'s sums and returns the scored levels' means.
  std::vector<SsimMeans> collect(unsigned index);

  // The pieces of submit(), for the measurements of the sum strategy: the
  // passes up to the terms, and the chains (the sums into `device_sums`,
  // kTerms per scored level).
  void enqueue_terms(const PictureView& ref, const PictureView& dist);
  void enqueue_sums(double* device_sums);
  int scored() const { return plan_.scored; }
  // The scored level's term arrays (ssim, l, c, s) of term_count() doubles each.
  const double* device_terms(int scored_level) const;
  std::size_t term_count(int scored_level) const;

 private:
  struct Level {
    int w = 0, h = 0;
    std::size_t offset = 0;  // of the ref picture in pictures_; dist follows
  };
  cudaStream_t stream_;
  SsimPlan plan_;
  std::vector<Level> levels_;
  std::vector<std::size_t> terms_offset_;  // per scored level, in terms_
  DeviceBuffer<float> pictures_;
  DeviceBuffer<float> taps_;  // the Gaussian's 11, then the decimation kernel
  DeviceBuffer<float> maps_;
  DeviceBuffer<double> terms_;
  DeviceBuffer<double> sums_;  // two frame slots
  FrameReadback<double> readback_;
};

class SsimCudaStage final : public FeatureStage<SsimMeans> {
 public:
  SsimCudaStage(unsigned width, unsigned height, int scale, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  SsimMeans compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  SsimCudaPipeline pipeline_;
};

class MsSsimCudaStage final : public FeatureStage<MsSsimMeans> {
 public:
  MsSsimCudaStage(unsigned width, unsigned height, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  MsSsimMeans compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  SsimCudaPipeline pipeline_;
};

}  // namespace vmafexact::cuda::ssim
