#include "float_vif/float_vif_cuda_stage.h"

#include <algorithm>
#include <span>

#include "common/float_pictures.h"

namespace vmafexact::cuda::float_vif {

namespace fv = vmafexact::float_vif;

FloatVifCudaStage::FloatVifCudaStage(const PictureFormat& format, const FloatVifParams& params,
                                     cudaStream_t stream)
    : stream_(stream),
      format_(format),
      params_(params),
      constants_(fv::statistic_constants(params)),
      first_scale_(params.skip_scale0 ? 1 : 0) {
  const fv::ScaleSize scaled = fv::prescaled_size(format.width, format.height, params.prescale);
  rescaled_ = scaled.width != format.width || scaled.height != format.height;
  const auto sizes = fv::scale_sizes(scaled.width, scaled.height);
  std::size_t floats = 0;
  for (int s = 0; s < kScales; ++s) {
    Scale& scale = scales_[static_cast<std::size_t>(s)];
    scale.width = static_cast<int>(sizes[static_cast<std::size_t>(s)].width);
    scale.height = static_cast<int>(sizes[static_cast<std::size_t>(s)].height);
    scale.plane = floats;
    floats += 2 * static_cast<std::size_t>(scale.width) * static_cast<std::size_t>(scale.height);
    const std::vector<float> filter = fv::vif_filter(s, params.kernelscale);
    scale.taps = host_taps_.size();
    scale.tap_count = static_cast<int>(filter.size());
    host_taps_.insert(host_taps_.end(), filter.begin(), filter.end());
    scale.rows = row_sums_;
    row_sums_ += 2 * static_cast<std::size_t>(scale.height);
  }
  converted_ = floats;
  readback_.emplace(row_sums_);  // pinned at the first frame
  if (rescaled_) {
    host_prescale_ = prescale_tables(params.prescale_method, format.width, format.height,
                                     scaled.width, scaled.height);
  }
}

void FloatVifCudaStage::prepare_device() {
  const std::size_t scale0 =
      static_cast<std::size_t>(scales_[0].width) * static_cast<std::size_t>(scales_[0].height);
  planes_.resize(converted_ + (rescaled_ ? 2 * std::size_t{format_.width} * format_.height : 0));
  maps_.resize(tile::kMaps * scale0);
  terms_.resize(2 * scale0);
  rows_.resize(row_sums_);
  // The host's tables, copied as they are.
  taps_.resize(host_taps_.size());
  check(cudaMemcpyAsync(taps_.data(), host_taps_.data(), host_taps_.size() * sizeof(float),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (float_vif taps)");
  if (rescaled_) {
    const PrescaleTables& t = host_prescale_;
    std::vector<int> indices(t.rows);
    indices.insert(indices.end(), t.columns.begin(), t.columns.end());
    std::vector<float> weights(t.row_weights);
    weights.insert(weights.end(), t.column_weights.begin(), t.column_weights.end());
    prescale_indices_.resize(indices.size());
    prescale_weights_.resize(weights.size());
    check(cudaMemcpyAsync(prescale_indices_.data(), indices.data(), indices.size() * sizeof(int),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (float_vif prescale)");
    check(cudaMemcpyAsync(prescale_weights_.data(), weights.data(), weights.size() * sizeof(float),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (float_vif prescale)");
    prescale_ = {t.method,
                 t.taps,
                 prescale_indices_.data(),
                 prescale_indices_.data() + t.rows.size(),
                 prescale_weights_.data(),
                 prescale_weights_.data() + t.row_weights.size()};
  }
  // The host vectors are read by the copies: wait for them.
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (float_vif tables)");
}

void FloatVifCudaStage::enqueue_frame(const PictureView& ref, const PictureView& dist) {
  const auto ref_plane = [&](int s) {
    return planes_.data() + scales_[static_cast<std::size_t>(s)].plane;
  };
  const auto dist_plane = [&](int s) {
    const Scale& scale = scales_[static_cast<std::size_t>(s)];
    return planes_.data() + scale.plane +
           static_cast<std::size_t>(scale.width) * static_cast<std::size_t>(scale.height);
  };
  if (rescaled_) {
    float* converted_ref = planes_.data() + converted_;
    float* converted_dist = converted_ref + std::size_t{format_.width} * format_.height;
    enqueue_float_pictures(ref.planes[0], dist.planes[0], format_.bpc, tile::kSampleOffset,
                           converted_ref, converted_dist, stream_);
    enqueue_prescale(converted_ref, converted_dist, static_cast<int>(format_.width), prescale_,
                     scales_[0].width, scales_[0].height, ref_plane(0), dist_plane(0), stream_);
  } else {
    enqueue_float_pictures(ref.planes[0], dist.planes[0], format_.bpc, tile::kSampleOffset,
                           ref_plane(0), dist_plane(0), stream_);
  }
  for (int s = 0; s < kScales; ++s) {
    const Scale& scale = scales_[static_cast<std::size_t>(s)];
    const float* taps = taps_.data() + scale.taps;
    if (s > 0) {
      const Scale& above = scales_[static_cast<std::size_t>(s - 1)];
      enqueue_decimate(ref_plane(s - 1), dist_plane(s - 1), above.width, above.height, taps,
                       scale.tap_count, ref_plane(s), dist_plane(s), stream_);
    }
    if (s < first_scale_) continue;
    float* rows = rows_.data() + scale.rows;
    enqueue_scale(ref_plane(s), dist_plane(s), scale.width, scale.height, taps, scale.tap_count,
                  constants_, maps_.data(), terms_.data(), rows, rows + scale.height, stream_);
  }
}

void FloatVifCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  if (rows_.size() != row_sums_) prepare_device();
  submit_luma_frame(graphs_, *readback_, ref, dist, index, rows_.data(), stream_,
                    [&] { enqueue_frame(ref, dist); });
}

FloatVifSums FloatVifCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                        unsigned index) {
  if (!readback_->submitted(index)) submit(ref, dist, index);
  const float* rows = readback_->collect(index);
  FloatVifSums sums;
  for (int s = first_scale_; s < kScales; ++s) {
    const Scale& scale = scales_[static_cast<std::size_t>(s)];
    const auto height = static_cast<std::size_t>(scale.height);
    sums.num[static_cast<std::size_t>(s)] = fv::finish_rows({rows + scale.rows, height});
    sums.den[static_cast<std::size_t>(s)] = fv::finish_rows({rows + scale.rows + height, height});
  }
  return sums;
}

}  // namespace vmafexact::cuda::float_vif
