#include "float_adm/float_adm_cuda_stage.h"

#include <cstdio>

#include "common/float_pictures.h"

namespace vmafexact::cuda::float_adm {

namespace fa = vmafexact::float_adm;

std::string cuda_refusal(const FloatAdmParams& params) {
  if (params.p_norm != 3.0) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", params.p_norm);
    return std::string("adm_p_norm=") + value +
           " raises every sample's term to that power with the C library's powf, which the GPU "
           "has no equal of (the CUDA twin computes the default, adm_p_norm=3)";
  }
  if (fa::divider_from_environment() == fa::Divider::kThisProcessor)
    return "VMAFEXACT_FLOAT_ADM_DIVIDER=this-cpu divides with this CPU's reciprocal estimate, "
           "which the GPU does not have";
  return {};
}

FloatAdmCudaStage::FloatAdmCudaStage(const PictureFormat& format, const FloatAdmParams& params,
                                     cudaStream_t stream)
    : stream_(stream),
      format_(format),
      params_(params),
      layout_(fa::arena_layout(format.width, format.height)),
      cos_1deg_sq_(pixel::cos_1deg_sq()),
      levels_(tile::plan_levels(format.width, format.height, params, row_sums_, terms_floats_)) {
  if (const std::string why = cuda_refusal(params); !why.empty())
    throw Error("float_adm (CUDA): " + why + "; score it with backend=cpu");
  readback_.emplace(row_sums_ > 0 ? row_sums_ : 1);  // pinned at the first frame
}

void FloatAdmCudaStage::prepare_device() {
  const std::size_t picture = std::size_t{format_.width} * format_.height;
  const std::size_t scratch = ((std::size_t{format_.height} + 1) / 2) * format_.width;
  pictures_.resize(2 * picture);
  arena_.resize(layout_.floats());
  lo_.resize(scratch);
  hi_.resize(scratch);
  terms_.resize(terms_floats_ > 0 ? terms_floats_ : 1);
  rows_.resize(row_sums_ > 0 ? row_sums_ : 1);
  // Zeros, as the CPU stage's arena starts (no read of a scored format finds
  // a value not written earlier in its frame, but the buffers start alike).
  check(cudaMemsetAsync(arena_.data(), 0, layout_.floats() * sizeof(float), stream_),
        "cudaMemsetAsync (float_adm bands)");
  constexpr std::size_t kTableSize = 4096;
  rcp_table_.resize(kTableSize);
  check(cudaMemcpyAsync(rcp_table_.data(), fa::rcp_estimate_table(),
                        kTableSize * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (float_adm reciprocal table)");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (float_adm tables)");
}

void FloatAdmCudaStage::enqueue_frame(const PictureView& ref, const PictureView& dist) {
  const std::size_t picture = std::size_t{format_.width} * format_.height;
  float* const ref_picture = pictures_.data();
  float* const dist_picture = pictures_.data() + picture;
  enqueue_float_pictures(ref.planes[0], dist.planes[0], format_.bpc, tile::kSampleOffset,
                         ref_picture, dist_picture, stream_);
  float* const arena = arena_.data();
  const bool masking = params_.bypass_cm == 0;
  int w = static_cast<int>(format_.width), h = static_cast<int>(format_.height);
  for (int s = 0; s < kScales; ++s) {
    const tile::Level& level = levels_[static_cast<std::size_t>(s)];
    // The reference's DWT before the distorted's, as the CPU runs them.
    const bool first = s == 0;
    const std::ptrdiff_t stride = first ? w : layout_.stride;
    enqueue_dwt(first ? ref_picture : arena + layout_.at(fa::kRefA, 0, 0), stride, w, h,
                !level.scored, lo_.data(), hi_.data(), arena, layout_, fa::kRefA, stream_);
    enqueue_dwt(first ? dist_picture : arena + layout_.at(fa::kDisA, 0, 0), stride, w, h,
                !level.scored, lo_.data(), hi_.data(), arena, layout_, fa::kDisA, stream_);
    w = level.width;
    h = level.height;
    if (!level.scored) continue;
    float* const rows = rows_.data();
    enqueue_decouple(arena, layout_, level.taps, params_.enhn_gain_limit, cos_1deg_sq_,
                     rcp_table_.data(), stream_);
    enqueue_den_rows(arena, layout_, level.inner, level.factors, params_.p_norm, rows + level.den,
                     stream_);
    enqueue_csf(arena, layout_, fa::kDecouplA, fa::kCsfA, fa::kCsfF, level.taps, level.factors,
                stream_);
    enqueue_cm_rows(arena, layout_, {fa::kDecouplR, fa::kCsfF, fa::kCsfA}, level.rows,
                    level.columns, level.factors, masking, params_.p_norm, terms_.data(),
                    rows + level.num, stream_);
    enqueue_csf(arena, layout_, fa::kDecouplR, fa::kCsfF, fa::kCsfA, level.taps, level.factors,
                stream_);
    enqueue_cm_rows(arena, layout_, {fa::kDecouplA, fa::kCsfA, fa::kCsfF}, level.rows,
                    level.columns, level.factors, masking, params_.p_norm, terms_.data(),
                    rows + level.aim, stream_);
  }
}

void FloatAdmCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  if (rcp_table_.size() == 0) prepare_device();
  submit_luma_frame(graphs_, *readback_, ref, dist, index, rows_.data(), stream_,
                    [&] { enqueue_frame(ref, dist); });
}

FloatAdmSums FloatAdmCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                        unsigned index) {
  if (!readback_->submitted(index)) submit(ref, dist, index);
  return tile::finish_levels(levels_, readback_->collect(index), params_);
}

}  // namespace vmafexact::cuda::float_adm
