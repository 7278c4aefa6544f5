// The CUDA stages of float_ssim and float_ms_ssim: the luma pair as floats,
// its decimations and each scored level's l, c and s terms on the device
// (ssim_cuda.h); the terms are read back and the host forms the means' serial
// sums with the CPU's own code (sum_terms()). The sums' order is the CPU's
// row-major order, which no parallel reduction reproduces; adding them on the
// host was measured faster than one device thread per chain (docs/features/ssim.md).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
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

// The read-back terms of one scored level: tile::kStored arrays (l, c, s) of
// out_w * out_h doubles, the valid region in row-major order.
struct LevelTerms {
  const double* terms = nullptr;
  int out_w = 0, out_h = 0;
};

// The means of the levels from their terms, as the CPU forms them: four running
// sums per level (ssim, l, c, s) in row-major order, divided by the CPU's count.
// On one band the CPU's own loop (scalar::add_terms); the four sums of a level
// are independent serial chains, so with more bands each chain runs whole on
// one band, in its order, side by side with the others: the same additions.
std::vector<SsimMeans> sum_terms(const std::vector<LevelTerms>& levels, BandRunner& runner);
// The sums themselves (before the division and the float), for the checks.
std::vector<vmafexact::ssim::TermSums> term_sums(const std::vector<LevelTerms>& levels,
                                                 BandRunner& runner);

class SsimCudaPipeline {
 public:
  SsimCudaPipeline(unsigned width, unsigned height, SsimPlan plan, cudaStream_t stream);

  // Enqueues frame `index`: every pass, and the read-back of the terms into
  // the frame's pinned slot.
  void submit(const PictureView& ref, const PictureView& dist, unsigned index);
  bool submitted(unsigned index) const { return readback_->submitted(index); }
  // Waits for frame `index`'s terms and returns the scored levels' means.
  std::vector<SsimMeans> collect(unsigned index);
  // Where collect() runs its sums (the backend's host threads).
  void set_band_runner(BandRunner& runner) { runner_ = &runner; }

  // The pieces of submit(), for the figures of the harness: the passes up to
  // the terms, and the read-back of frame `index`'s terms.
  void enqueue_terms(const PictureView& ref, const PictureView& dist);
  void enqueue_readback(unsigned index) { readback_->submit(terms_.data(), index, stream_); }
  // Doubles read back per frame.
  std::size_t readback_doubles() const { return terms_.size(); }

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
  DeviceBuffer<double> terms_;  // the scored levels' l, c, s arrays, one after another
  std::optional<FrameReadback<double>> readback_;  // sized once the levels are known
  FrameGraphs graphs_;  // one frame's passes and read-back, by input planes and slot
  BandRunner* runner_ = &serial_band_runner();
};

class SsimCudaStage final : public FeatureStage<SsimMeans> {
 public:
  SsimCudaStage(unsigned width, unsigned height, int scale, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  SsimMeans compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { pipeline_.set_band_runner(runner); }

 private:
  SsimCudaPipeline pipeline_;
};

class MsSsimCudaStage final : public FeatureStage<MsSsimMeans> {
 public:
  MsSsimCudaStage(unsigned width, unsigned height, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  MsSsimMeans compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { pipeline_.set_band_runner(runner); }

 private:
  SsimCudaPipeline pipeline_;
};

}  // namespace vmafexact::cuda::ssim
