#include "float_ansnr/float_ansnr.h"

#include <algorithm>
#include <cmath>

#include "float_psnr/float_psnr.h"

namespace vmafexact::float_ansnr {

void filter_2d(const pixel::Kernel& kernel, const FloatPlane& src, FloatPlane& dst, int first_row,
               int end_row) {
  const int w = static_cast<int>(src.width), h = static_cast<int>(src.height);
  const int side = kernel.side;
  const int radius = side / 2;
  const int inner_begin = std::min(radius, w);
  const int inner_end = std::max(w - radius, inner_begin);
  // Per output: accum = 0, then for each kernel row a float sum of its
  // products (from 0, in column order) added to accum. The inner columns run
  // the same operations in the same order, the columns side by side
  // (-ffp-contract=off: no fused multiply-adds); the borders mirror
  // (pixel::filtered_output(), the CUDA twin's code for every output).
  std::vector<float> inner(static_cast<std::size_t>(std::max(w, 1)));
  for (int i = first_row; i < end_row; ++i) {
    float* out = dst.row(static_cast<unsigned>(i));
    std::fill(out + inner_begin, out + inner_end, 0.0f);
    for (int fi = 0; fi < side; ++fi) {
      const float* in = src.row(static_cast<unsigned>(pixel::mirror(i - radius + fi, h)));
      std::fill(inner.begin() + inner_begin, inner.begin() + inner_end, 0.0f);
      for (int fj = 0; fj < side; ++fj) {
        const float tap = kernel.taps[fi * side + fj];
        const float* shifted = in + (fj - radius);
        for (int j = inner_begin; j < inner_end; ++j) inner[j] += tap * shifted[j];
      }
      for (int j = inner_begin; j < inner_end; ++j) out[j] += inner[j];
    }
    for (int j = 0; j < w; ++j) {
      if (j == inner_begin) j = inner_end;
      if (j >= w) break;
      out[j] = pixel::filtered_output(kernel, i, j, w, h, [&](int row, int column) {
        return src.row(static_cast<unsigned>(row))[column];
      });
    }
  }
}

FloatAnsnrSums add_rows(std::span<const float> row_sig, std::span<const float> row_noise) {
  FloatAnsnrSums sums;
  for (std::size_t i = 0; i < row_sig.size(); ++i) {
    sums.sig += row_sig[i];
    sums.noise += row_noise[i];
  }
  return sums;
}

AnsnrScores ansnr_scores(const FloatAnsnrSums& sums, unsigned width, unsigned height,
                         unsigned bpc) {
  const float_psnr::FloatPeak p = float_psnr::float_peak(bpc);
  // `sig / noise` is a float quotient; log10() takes it as a double.
  const double ansnr =
      sums.noise == 0 ? p.psnr_max : 10.0 * std::log10(static_cast<double>(sums.sig / sums.noise));
  const double eps = 1e-10;
  const double noise = static_cast<double>(sums.noise);
  const double bounded = noise > eps ? noise : eps;
  // peak * peak * w * h: double products with the int sides, left to right.
  const double anpsnr = 10 * std::log10(p.peak * p.peak * static_cast<int>(width) *
                                        static_cast<int>(height) / bounded);
  return {ansnr, anpsnr < p.psnr_max ? anpsnr : p.psnr_max};
}

FloatAnsnrSums FloatAnsnrCpuStage::compute(const PictureView& ref, const PictureView& dist,
                                           unsigned) {
  const unsigned bpc = ref.bpc;
  const PlaneView& ref_plane = ref.planes[0];
  const PlaneView& dist_plane = dist.planes[0];
  const unsigned w = ref_plane.width, h = ref_plane.height;
  if (ref_filtered_.width != w || ref_filtered_.height != h) {
    ref_filtered_ = FloatPlane(w, h);
    dist_filtered_ = FloatPlane(w, h);
    row_sig_.assign(h, 0.0f);
    row_noise_.assign(h, 0.0f);
  }
  copy_plane_to_float(ref_plane, bpc, -128, ref_);
  copy_plane_to_float(dist_plane, bpc, -128, dist_);
  // Rows are independent up to the sums across them: filter and sum each
  // row in bands, then add the rows' float sums in order, as libvmaf does.
  for_each_row_band(*runner_, 0, static_cast<int>(h), std::size_t{w} * 34,
                    [&](unsigned, int first, int end) {
                      filter_2d(pixel::kRefKernel, ref_, ref_filtered_, first, end);
                      filter_2d(pixel::kDistKernel, dist_, dist_filtered_, first, end);
                      for (int i = first; i < end; ++i) {
                        const pixel::RowSums row =
                            pixel::row_sums(ref_filtered_.row(static_cast<unsigned>(i)),
                                            dist_filtered_.row(static_cast<unsigned>(i)),
                                            static_cast<int>(w));
                        row_sig_[static_cast<std::size_t>(i)] = row.sig;
                        row_noise_[static_cast<std::size_t>(i)] = row.noise;
                      }
                    });
  return add_rows(row_sig_, row_noise_);
}

}  // namespace vmafexact::float_ansnr
