#include "cambi/cambi_cuda_stage.h"

#include <algorithm>
#include <string>

#include "cambi/cambi.h"
#include "common/cpu.h"
#include "common/error.h"

namespace vmafexact::cuda::cambi {

namespace cambi_cpu = vmafexact::cambi;

std::atomic<unsigned long long> CambiCudaStage::exact_pools_{0};
std::atomic<unsigned long long> CambiCudaStage::fallback_pools_{0};

PoolingCounts CambiCudaStage::pooling_counts() {
  return {exact_pools_.load(), fallback_pools_.load()};
}

namespace {

// spatial_pooling's k for n values.
unsigned topk_count(double topk, unsigned n) {
  const int count = static_cast<int>(n);
  return static_cast<unsigned>(std::clamp(static_cast<int>(topk * count), 1, count));
}

std::vector<unsigned> map_of(unsigned in_size, unsigned out_size) {
  if (in_size == out_size) {
    std::vector<unsigned> identity(out_size);
    for (unsigned i = 0; i < out_size; ++i) identity[i] = i;
    return identity;
  }
  return cambi_cpu::nearest_map(in_size, out_size);
}

}  // namespace

CambiCudaStage::CambiCudaStage(const CambiSetup& setup, cudaStream_t stream)
    : setup_(setup), stream_(stream), passes_(setup.full_ref ? 2 : 1) {
  std::size_t offset = 0;
  for (int p = 0; p < passes_; ++p) {
    Pass& pass = pass_[p];
    pass.setup = p == 0 ? setup_.enc : setup_.src;
    pass.mask_index = cambi_cpu::mask_index(pass.setup.width, pass.setup.height);
    unsigned w = pass.setup.width, h = pass.setup.height;
    for (int s = 0; s < kNumScales; ++s) {
      if (s > 0 || setup_.high_res_speedup) w = (w + 1) >> 1, h = (h + 1) >> 1;
      pass.scales[s] = {w, h, offset, topk_count(setup_.topk, w * h)};
      offset += std::size_t{w} * h;
    }
  }
  c_values_per_slot_ = offset;
}

void CambiCudaStage::allocate() {
  std::size_t largest = 0;
  for (int p = 0; p < passes_; ++p)
    largest = std::max(largest, std::size_t{pass_[p].setup.width} * pass_[p].setup.height);
  preprocessed_.resize(largest);
  for (auto& image : images_) image.resize(largest);
  for (auto& mask : masks_) mask.resize(largest);
  derivative_.resize(largest);
  c_values_.resize(2 * c_values_per_slot_);

  const cambi_cpu::ContrastTables& t = setup_.contrast;
  first_diff_.resize(t.first_diff.size());
  weights_.resize(t.weights.size());
  reciprocal_.resize(cambi_cpu::kReciprocal.size());
  check(cudaMemcpy(first_diff_.data(), t.first_diff.data(), t.first_diff.size(), cudaMemcpyHostToDevice),
        "cudaMemcpy (cambi first diffs)");
  check(cudaMemcpy(weights_.data(), t.weights.data(), sizeof t.weights, cudaMemcpyHostToDevice),
        "cudaMemcpy (cambi weights)");
  check(cudaMemcpy(reciprocal_.data(), cambi_cpu::kReciprocal.data(),
                   sizeof(float) * cambi_cpu::kReciprocal.size(), cudaMemcpyHostToDevice),
        "cudaMemcpy (cambi reciprocals)");
  tables_ = {first_diff_.data(), weights_.data(), reciprocal_.data(), t.num_diffs, t.band_base,
             t.band_size};

  std::vector<PoolSegment> segments;
  for (unsigned slot = 0; slot < 2; ++slot)
    for (int p = 0; p < passes_; ++p)
      for (const Scale& scale : pass_[p].scales)
        segments.push_back({c_values_.data() + slot * c_values_per_slot_ + scale.offset,
                            scale.width * scale.height, scale.k});
  segments_.resize(segments.size());
  check(cudaMemcpy(segments_.data(), segments.data(), sizeof(PoolSegment) * segments.size(),
                   cudaMemcpyHostToDevice),
        "cudaMemcpy (cambi segments)");
  digit_counts_.resize(std::size_t{kSegments} * tile::kDigits);
  records_.resize(2);

  for (int p = 0; p < passes_; ++p) {
    Pass& pass = pass_[p];
    const std::vector<unsigned> map_x = map_of(setup_.format.width, pass.setup.width);
    const std::vector<unsigned> map_y = map_of(setup_.format.height, pass.setup.height);
    pass.map_x.resize(map_x.size());
    pass.map_y.resize(map_y.size());
    check(cudaMemcpy(pass.map_x.data(), map_x.data(), sizeof(unsigned) * map_x.size(), cudaMemcpyHostToDevice),
          "cudaMemcpy (cambi map)");
    check(cudaMemcpy(pass.map_y.data(), map_y.data(), sizeof(unsigned) * map_y.size(), cudaMemcpyHostToDevice),
          "cudaMemcpy (cambi map)");
  }
  host_values_.assign(pass_[0].scales[0].width * std::size_t{pass_[0].scales[0].height} +
                          (passes_ > 1 ? pass_[1].scales[0].width * std::size_t{pass_[1].scales[0].height} : 0) +
                          2 * cambi_cpu::kReadAhead,
                      0.0f);
  allocated_ = true;
}

void CambiCudaStage::enqueue_pass(int p, const PlaneView& luma, unsigned slot) {
  const Pass& pass = pass_[p];
  const unsigned bpc = setup_.format.bpc;
  FrameRecord* record = records_.data() + slot;
  // libvmaf refuses 9- to 12-bit pictures holding larger samples (8 and 16
  // bits cannot): the largest is read back and checked in compute().
  if (bpc != 8 && bpc != 16) enqueue_largest_sample(luma, bpc, &record->largest[p], stream_);
  const unsigned w = pass.setup.width, h = pass.setup.height;
  enqueue_preprocess(luma, bpc, pass.map_x.data(), pass.map_y.data(), setup_.enc_bitdepth < 10, w, h,
                     preprocessed_.data(), stream_);
  enqueue_spatial_mask(preprocessed_.data(), w, h, pass.mask_index, derivative_.data(),
                       masks_[1].data(), stream_);
  // Scale s reads the previous scale's filtered picture and writes images_[s % 2].
  const std::uint16_t* src = preprocessed_.data();
  const std::uint8_t* src_mask = masks_[1].data();
  unsigned src_w = w;
  for (int s = 0; s < kNumScales; ++s) {
    const Scale& scale = pass.scales[s];
    const bool decimate = s > 0 || setup_.high_res_speedup;
    std::uint16_t* image = images_[s % 2].data();
    std::uint8_t* mask = decimate ? masks_[s % 2].data() : masks_[1].data();
    if (decimate && mask == src_mask) mask = masks_[(s + 1) % 2].data();
    enqueue_scale(src, src_mask, src_w, decimate, scale.width, scale.height, image, mask, stream_);
    enqueue_c_values(image, mask, scale.width, scale.height, pass.setup.window, tables_,
                     c_values_.data() + slot * c_values_per_slot_ + scale.offset, stream_);
    src = image, src_mask = mask, src_w = scale.width;
  }
}

void CambiCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  // Frames come in order, with gaps where the backend's other instances of
  // this stateless twin take them: one frame per instance is in flight, and its
  // c-values and record have the slot of its index's parity.
  if (index < submitted_)
    throw Error("cambi (CUDA): frame " + std::to_string(index) + " submitted out of order");
  const PlaneView& dist_luma = dist.planes[0];
  if (dist_luma.width != setup_.format.width || dist_luma.height != setup_.format.height ||
      dist.bpc != setup_.format.bpc)
    throw Error("cambi: picture format differs from the one given to init()");
  if (!allocated_) allocate();
  submitted_ = index + 1;
  const unsigned slot = index % 2;
  FrameRecord* record = records_.data() + slot;
  const PlaneView* ref_luma = passes_ > 1 ? &ref.planes[0] : nullptr;
  // About thirty launches a frame: one graph launch instead (frame_graphs.h).
  readback_.reserve();
  const auto key = graph_key(dist_luma.data, dist_luma.stride, ref_luma ? ref_luma->data : nullptr,
                             ref_luma ? ref_luma->stride : 0, slot, frame_slot(index));
  graphs_.run(key, stream_, [&] {
    check(cudaMemsetAsync(record->largest, 0, sizeof record->largest, stream_),
          "cudaMemsetAsync (cambi)");
    enqueue_pass(0, dist_luma, slot);
    if (ref_luma) enqueue_pass(1, *ref_luma, slot);
    const unsigned segments = static_cast<unsigned>(passes_ * kNumScales);
    unsigned max_n = 0;
    for (int p = 0; p < passes_; ++p)
      max_n = std::max(max_n, pass_[p].scales[0].width * pass_[p].scales[0].height);
    enqueue_pooling(segments_.data() + slot * segments, segments, max_n, digit_counts_.data(),
                    record->pools, stream_);
    readback_.copy(record, index, stream_);
  });
  readback_.mark(index, stream_);
}

CambiSums CambiCudaStage::compute(const PictureView& ref, const PictureView& dist, unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const FrameRecord record = *readback_.collect(index);
  const unsigned bpc = setup_.format.bpc;
  const unsigned limit = bpc == 8 || bpc == 16 ? 0xFFFFu : (1u << bpc) - 1;
  for (int p = 0; p < passes_; ++p)
    if (record.largest[p] > limit)
      throw Error("cambi: a " + std::to_string(bpc) + "-bit picture holds the sample " +
                  std::to_string(record.largest[p]) + ", above " + std::to_string(limit) +
                  "; libvmaf refuses such input");
  CambiSums sums;
  sums.has_src = passes_ > 1;
  const unsigned slot = index % 2;
  for (int p = 0; p < passes_; ++p)
    for (int s = 0; s < kNumScales; ++s) {
      const Scale& scale = pass_[p].scales[s];
      const tile::PoolRecord& pool = record.pools[p * kNumScales + s];
      double pooled;
      if (const auto sum = tile::exact_topk_sum(pool)) {
        pooled = *sum / static_cast<int>(scale.k);
        ++exact_pools_;
      } else {
        // The double sum depends on the order: libvmaf's own, on the CPU.
        const std::size_t n = std::size_t{scale.width} * scale.height;
        float* values = host_values_.data() + cambi_cpu::kReadAhead;
        check(cudaMemcpyAsync(values, c_values_.data() + slot * c_values_per_slot_ + scale.offset,
                              n * sizeof(float), cudaMemcpyDeviceToHost, stream_),
              "cudaMemcpyAsync (cambi c-values)");
        check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (cambi c-values)");
        pooled = cambi_cpu::spatial_pooling(values, static_cast<unsigned>(n), setup_.topk,
                                            cambi_cpu::cambi_dsp(cpu::flags()));
        ++fallback_pools_;
      }
      (p == 0 ? sums.dist : sums.src)[s] = pooled;
    }
  return sums;
}

}  // namespace vmafexact::cuda::cambi
