#include "float_adm/float_adm.h"

#include <math.h>  // ::powf, as libvmaf calls it

#include <cmath>

#include "adm/adm.h"
#include "adm/adm_barten.h"
#include "common/cpu.h"
#include "common/dispatch.h"
#include "float_adm/float_adm_pixel.h"
#include "float_adm/rcp_estimate.h"

namespace vmafexact::float_adm {

namespace {

constexpr double kPi = 3.14159265358979323846;

// adm_csf_tools.h's adm_native_csf().
float native_csf(int lambda, double norm_view_dist, int ref_display_height, int theta) {
  const float r = static_cast<float>(norm_view_dist * ref_display_height * kPi / 180.0);
  float spatial_frequency = static_cast<float>(r / std::pow(2, lambda + 1));
  if (theta == 45) spatial_frequency = static_cast<float>(spatial_frequency / 0.7);
  return static_cast<float>((0.31 + 0.69 * spatial_frequency) *
                            std::exp(-0.29 * spatial_frequency));
}

// get_noise_constant(): powf of the (int area * double weight) as a float.
float noise_constant(int w, int h, double weight, double p_norm) {
  return ::powf(static_cast<float>(w * h * weight), static_cast<float>(1.0f / p_norm));
}

using pixel::inner_region;
using pixel::Region;
using pixel::tap_region;

}  // namespace

ArenaLayout arena_layout(unsigned width, unsigned height) {
  const std::size_t row_bytes = ((std::size_t{width} + 1) / 2) * sizeof(float);
  const std::size_t aligned = row_bytes % 32 ? row_bytes + (32 - row_bytes % 32) : row_bytes;
  const auto stride = static_cast<std::ptrdiff_t>(aligned / sizeof(float));
  return {stride, stride * static_cast<std::ptrdiff_t>((height + 1) / 2)};
}

float finish_p_norms(const float (&accum)[3], int region_width, int region_height,
                     double noise_weight, double p_norm) {
  float scale_sum[3];
  for (int theta = 0; theta < 3; ++theta)
    scale_sum[theta] = ::powf(accum[theta], static_cast<float>(1.0f / p_norm)) +
                       noise_constant(region_width, region_height, noise_weight, p_norm);
  return scale_sum[0] + scale_sum[1] + scale_sum[2];
}

float csf_factor(const FloatAdmParams& params, int scale, bool diagonal) {
  float factor;
  if (params.csf_mode == adm::kCsfBarten)
    factor =
        adm::barten_csf(scale, params.norm_view_dist, params.ref_display_height, adm::kCsfLuminance,
                        diagonal ? params.csf_diag_scale : params.csf_scale);
  else if (params.csf_mode == 2)  // ADM_CSF_MODE_ADM
    factor = native_csf(scale, params.norm_view_dist, params.ref_display_height, diagonal ? 45 : 0);
  else
    factor = 1.0f / adm::watson_quant_step(scale, diagonal ? 2 : 1, params.norm_view_dist,
                                           params.ref_display_height);
  const double override_value = diagonal ? params.f2[scale] : params.f1[scale];
  if (override_value >= 0) factor = static_cast<float>(override_value);
  return factor;
}

std::array<float, 3> csf_factors(const FloatAdmParams& params, int scale) {
  const float factor1 = csf_factor(params, scale, false);
  return {factor1, factor1, csf_factor(params, scale, true)};
}

namespace {

// One getter a line, the twins' under the build's condition.
// clang-format off
constexpr simd::IsaTables<FloatAdmDsp> kTables{
    float_adm_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    float_adm_dsp_avx2,
    float_adm_dsp_avx512,
#endif
};
// clang-format on

}  // namespace

const FloatAdmDsp& float_adm_dsp_scalar() {
  // The per-sample functions' row loops themselves (float_adm_pixel.h).
  static constexpr FloatAdmDsp dsp{
      "scalar",       pixel::decouple_row,     pixel::cm_row,
      pixel::csf_row, pixel::dwt_vertical_row, pixel::dwt_horizontal_row};
  return dsp;
}
const FloatAdmDsp* float_adm_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }
const FloatAdmDsp& float_adm_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

FloatAdmComputer::FloatAdmComputer(unsigned width, unsigned height, const FloatAdmParams& params,
                                   bool always_check, const FloatAdmDsp& dsp)
    : width_(width),
      height_(height),
      params_(params),
      divider_(divider_from_environment()),
      dsp_(&dsp),
      layout_(arena_layout(width, height)),
      arena_(layout_.floats(), 0.0f) {
  if (!always_check && width >= kCleanSide && height >= kCleanSide) return;
  // A dry run on flat pictures: which reads of libvmaf's hit what (the
  // pattern depends on the size and options only).
  tracking_ = true;
  written_.assign(arena_.size(), 0);
  const FloatPlane flat(width, height);
  run(flat, flat);
  valid_ = !bad_read_;
  tracking_ = false;
  written_.clear();
  written_.shrink_to_fit();
}

float FloatAdmComputer::tracked_read(std::ptrdiff_t index) {
  if (index < 0 || index >= static_cast<std::ptrdiff_t>(arena_.size()) ||
      !written_[static_cast<std::size_t>(index)]) {
    bad_read_ = true;
    return 0.0f;
  }
  return arena_[static_cast<std::size_t>(index)];
}

void FloatAdmComputer::tracked_write(std::ptrdiff_t index, float value) {
  if (index < 0 || index >= static_cast<std::ptrdiff_t>(arena_.size())) {
    bad_read_ = true;
    return;
  }
  written_[static_cast<std::size_t>(index)] = 1;
  arena_[static_cast<std::size_t>(index)] = value;
}

FloatAdmSums FloatAdmComputer::compute(const FloatPlane& ref, const FloatPlane& dist) {
  return run(ref, dist);
}

// adm_dwt2_s() / adm_dwt2_lo_s() with dwt2_src_indices_filt_s()'s mirrored
// indices: the vertical pass over a row's four source rows, then the
// horizontal pass over the kept columns, each a float sum of four products.
void FloatAdmComputer::dwt(const FloatPlane* picture, int src_buffer, int dst_first, int w, int h,
                           bool lo_only) {
  const auto row_index = [h](int i, int k) { return pixel::dwt_source_index(i, k, h); };
  const auto column_index = [w](int j, int k) { return pixel::dwt_source_index(j, k, w); };
  tmp_lo_.resize(static_cast<std::size_t>(w));
  tmp_hi_.resize(static_cast<std::size_t>(w));
  const auto source = [&](int row, int column) -> float {
    if (!picture) return read(at(src_buffer, row, column));
    if (row < 0 || row >= static_cast<int>(picture->height) || column < 0 ||
        column >= static_cast<int>(picture->width)) {
      bad_read_ = true;  // outside libvmaf's picture buffer
      return 0.0f;
    }
    return picture->row(static_cast<unsigned>(row))[column];
  };
  const auto tmp = [&](const std::vector<float>& row, int j) -> float {
    if (j < 0 || j >= w) {
      bad_read_ = true;  // outside libvmaf's freshly allocated row buffer
      return 0.0f;
    }
    return row[static_cast<std::size_t>(j)];
  };
  // The four source rows of output row i as plain pointers, where every one
  // of them is inside what it reads: always, but in the dry run (which checks
  // every read) and at the sizes it refuses.
  const auto rows_of = [&](int i, const float* rows[4]) {
    if (tracking_) return false;
    for (int k = 0; k < 4; ++k) {
      const int row = row_index(i, k);
      if (picture) {
        if (row < 0 || row >= static_cast<int>(picture->height) ||
            w > static_cast<int>(picture->width))
          return false;
        rows[k] = picture->row(static_cast<unsigned>(row));
      } else {
        rows[k] = arena_.data() + at(src_buffer, row, 0);
      }
    }
    return true;
  };
  float* const lo_row = tmp_lo_.data();
  float* const hi_row = tmp_hi_.data();
  const int inner_end = w >= 3 ? (w - 3) / 2 + 1 : 1;  // outputs 1.. read no mirrored column
  for (int i = 0; i < (h + 1) / 2; ++i) {
    // The vertical pass: over plain row pointers by the DSP where rows_of()
    // gives them, else through the checked reads.
    const float* rows[4] = {};
    if (rows_of(i, rows)) {
      dsp_->dwt_vertical(rows, w, lo_only, lo_row, hi_row);
    } else {
      for (int j = 0; j < w; ++j) {
        float s[4];
        for (int k = 0; k < 4; ++k) s[k] = source(row_index(i, k), j);
        lo_row[j] = pixel::taps4(false, s[0], s[1], s[2], s[3]);
        if (!lo_only) hi_row[j] = pixel::taps4(true, s[0], s[1], s[2], s[3]);
      }
    }
    // The horizontal pass over the kept columns: outside the dry run every
    // read is inside the row and every write inside its band, and the
    // outputs that mirror no column go to the DSP.
    const bool checked = tracking_;
    const auto lo = [&](int j) {
      return checked ? tmp(tmp_lo_, j) : tmp_lo_[static_cast<std::size_t>(j)];
    };
    const auto hi = [&](int j) {
      return checked ? tmp(tmp_hi_, j) : tmp_hi_[static_cast<std::size_t>(j)];
    };
    // write() itself stores plainly outside the dry run.
    const auto store = [&](int band, int j, float value) {
      write(at(dst_first + band, i, j), value);
    };
    const auto output = [&](int j) {
      const int j0 = column_index(j, 0), j1 = column_index(j, 1), j2 = column_index(j, 2),
                j3 = column_index(j, 3);
      const float l0 = lo(j0), l1 = lo(j1), l2 = lo(j2), l3 = lo(j3);
      store(0, j, pixel::taps4(false, l0, l1, l2, l3));  // a
      if (lo_only) return;
      store(2, j, pixel::taps4(true, l0, l1, l2, l3));  // v
      const float h0 = hi(j0), h1 = hi(j1), h2 = hi(j2), h3 = hi(j3);
      store(1, j, pixel::taps4(false, h0, h1, h2, h3));  // h
      store(3, j, pixel::taps4(true, h0, h1, h2, h3));   // d
    };
    int j = 0;
    if (!checked && inner_end > 1) {
      output(0);
      float* const bands[4] = {
          arena_.data() + at(dst_first + 0, i, 0), arena_.data() + at(dst_first + 1, i, 0),
          arena_.data() + at(dst_first + 2, i, 0), arena_.data() + at(dst_first + 3, i, 0)};
      dsp_->dwt_horizontal(lo_row, hi_row, 1, inner_end, lo_only, bands);
      j = inner_end;
    }
    for (; j < (w + 1) / 2; ++j) output(j);
  }
}

// adm_decouple_s() (ADM_OPT_AVOID_ATAN): the distorted bands split into the
// part that restores the reference and the additive rest, over the region
// within the border plus a tap.
void FloatAdmComputer::decouple(int w, int h) {
  const auto [left, top, right, bottom] = tap_region(w, h);
  const double gain = params_.enhn_gain_limit;
  if (!tracking_) {
    for (int i = top; i < bottom; ++i) {
      DecoupleRow row;
      for (int theta = 0; theta < 3; ++theta) {
        row.ref[theta] = arena_.data() + at(kRefH + theta, i, 0);
        row.dist[theta] = arena_.data() + at(kDisH + theta, i, 0);
        row.restored[theta] = arena_.data() + at(kDecouplR + theta, i, 0);
        row.additive[theta] = arena_.data() + at(kDecouplA + theta, i, 0);
      }
      dsp_->decouple(row, left, right, gain, divider_);
    }
    return;
  }
  // The dry run: sample by sample through the checked reads and writes.
  for (int i = top; i < bottom; ++i)
    for (int j = left; j < right; ++j) {
      float o[3], t[3], rst[3], add[3];
      for (int theta = 0; theta < 3; ++theta) {
        o[theta] = read(at(kRefH + theta, i, j));
        t[theta] = read(at(kDisH + theta, i, j));
      }
      pixel::decouple(
          o, t, gain, pixel::cos_1deg_sq(),
          [this](float n, float d) { return pixel::divs(n, d, divider_); }, rst, add);
      for (int theta = 0; theta < 3; ++theta) write(at(kDecouplR + theta, i, j), rst[theta]);
      for (int theta = 0; theta < 3; ++theta) write(at(kDecouplA + theta, i, j), add[theta]);
    }
}

// adm_csf_den_scale_s(): the p-norm of the CSF-weighted reference bands within
// the border, plus the noise constant, summed over h, v, d.
float FloatAdmComputer::den_scale(int scale, int w, int h) {
  const auto [h_factor, v_factor, d_factor] = csf_factors(params_, scale);
  const float rfactor[3] = {h_factor, v_factor, d_factor};
  const Region region = inner_region(w, h);
  float accum[3] = {0, 0, 0};
  for (int i = region.top; i < region.bottom; ++i) {
    float inner[3] = {0, 0, 0};
    for (int j = region.left; j < region.right; ++j) {
      const float value[3] = {read(at(kRefH, i, j)), read(at(kRefH + 1, i, j)),
                              read(at(kRefH + 2, i, j))};
      pixel::den_terms(value, rfactor, params_.p_norm, inner);
    }
    for (int theta = 0; theta < 3; ++theta) accum[theta] += inner[theta];
  }
  return finish_p_norms(accum, region.right - region.left, region.bottom - region.top,
                        params_.noise_weight, params_.p_norm);
}

// adm_csf_s(): dst = weight * src, flt = |dst| / 30, over the region within
// the border plus a tap.
void FloatAdmComputer::csf(int src_first, int dst_first, int flt_first, int scale, int w, int h) {
  const auto [h_factor, v_factor, d_factor] = csf_factors(params_, scale);
  const float rfactor[3] = {h_factor, v_factor, d_factor};
  const auto [left, top, right, bottom] = tap_region(w, h);
  for (int theta = 0; theta < 3; ++theta)
    for (int i = top; i < bottom; ++i) {
      if (!tracking_) {
        dsp_->csf(arena_.data() + at(src_first + theta, i, 0),
                  arena_.data() + at(dst_first + theta, i, 0),
                  arena_.data() + at(flt_first + theta, i, 0), left, right, rfactor[theta]);
        continue;
      }
      // The dry run: sample by sample through the checked reads and writes.
      for (int j = left; j < right; ++j) {
        const float src = read(at(src_first + theta, i, j));
        float dst, flt;
        pixel::csf(src, rfactor[theta], dst, flt);
        write(at(dst_first + theta, i, j), dst);
        write(at(flt_first + theta, i, j), flt);
      }
    }
}

// adm_cm_s(): each sample's CSF-weighted band value less the masking
// threshold (its 3x3 neighbourhood of |csf| / 30, the centre |csf| / 15, over
// h, v and d), clipped at 0, its p-norm within the border plus the noise
// constant. libvmaf writes one macro per border case; all of them take rows
// (1, 0, 1) at the top, (h-2, h-1, h-1) at the bottom, (i-1, i, i+1) between,
// and likewise columns (pixel::CmAxis, cm_neighbours()), and add the nine
// terms row by row — at sizes where those rows or columns are outside the
// band, the reads land in whatever libvmaf's buffers hold there, as here.
float FloatAdmComputer::cm(int src_first, int flt_first, int angles_first, int scale, int w, int h,
                           double noise_weight) {
  const auto [h_factor, v_factor, d_factor] = csf_factors(params_, scale);
  const float rfactor[3] = {h_factor, v_factor, d_factor};
  const Region region = inner_region(w, h);
  const pixel::CmAxis rows = pixel::cm_axis(region.top, region.bottom, h);
  const pixel::CmAxis columns = pixel::cm_axis(region.left, region.right, w);
  const pixel::CmBands bands{src_first, flt_first, angles_first};
  const bool masking = params_.bypass_cm == 0;
  const auto reader = [this](std::ptrdiff_t index) { return read(index); };

  float accum[3] = {0, 0, 0};
  for (int v = 0; v < rows.count(); ++v) {
    int i;
    pixel::Edge row_edge;
    rows.at(v, i, row_edge);
    // The row's terms added in column order: one by one through read() (the
    // dry run records every read), but for the middle columns of a middle
    // row outside the dry run, whose terms the DSP forms over row pointers.
    float inner[3] = {0, 0, 0};
    const bool by_dsp = row_edge == pixel::Edge::kMiddle && !tracking_;
    for (int u = 0; u < columns.count(); ++u) {
      int j;
      pixel::Edge column_edge;
      columns.at(u, j, column_edge);
      if (by_dsp && column_edge == pixel::Edge::kMiddle) {  // every middle column at once
        middle_terms(bands, i, columns.begin, columns.end, rfactor, masking);
        for (int m = columns.begin; m < columns.end; ++m)
          for (int theta = 0; theta < 3; ++theta)
            inner[theta] += cm_terms_[theta][static_cast<std::size_t>(m)];
        u += columns.middle_count() - 1;
        continue;
      }
      float terms[3];
      pixel::cm_sample_terms(reader, layout_, bands, w, h, i, row_edge, j, column_edge, rfactor,
                             masking, params_.p_norm, terms);
      for (int theta = 0; theta < 3; ++theta) inner[theta] += terms[theta];
    }
    for (int theta = 0; theta < 3; ++theta) accum[theta] += inner[theta];
  }
  return finish_p_norms(accum, region.right - region.left, region.bottom - region.top, noise_weight,
                        params_.p_norm);
}

// The terms of the middle columns begin..end-1 of middle row i, by the DSP
// over plain row pointers, into cm_terms_.
void FloatAdmComputer::middle_terms(const pixel::CmBands& bands, int i, int begin, int end,
                                    const float (&rfactor)[3], bool masking) {
  CmRow cm_row;
  for (int theta = 0; theta < 3; ++theta) {
    cm_row.src[theta] = arena_.data() + at(bands.src + theta, i, 0);
    cm_row.angles[theta] = arena_.data() + at(bands.angles + theta, i, 0);
    for (int a = 0; a < 3; ++a)
      cm_row.flt[theta][a] = arena_.data() + at(bands.flt + theta, i - 1 + a, 0);
    cm_terms_[theta].resize(static_cast<std::size_t>(end));
    cm_row.terms[theta] = cm_terms_[theta].data();
  }
  dsp_->cm(cm_row, begin, end, rfactor, masking, params_.p_norm);
}

FloatAdmSums FloatAdmComputer::run(const FloatPlane& ref, const FloatPlane& dist) {
  FloatAdmSums sums;
  int w = static_cast<int>(width_), h = static_cast<int>(height_);
  for (int scale = 0; scale < kScales; ++scale) {
    const FloatPlane* ref_src = scale == 0 ? &ref : nullptr;
    const FloatPlane* dis_src = scale == 0 ? &dist : nullptr;
    if (scale == 0 && params_.skip_scale0) {
      dwt(ref_src, kRefA, kRefA, w, h, true);
      dwt(dis_src, kDisA, kDisA, w, h, true);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      sums.den[scale] = kSkippedScaleDen;
      continue;
    }
    dwt(ref_src, kRefA, kRefA, w, h, false);
    dwt(dis_src, kDisA, kDisA, w, h, false);
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    decouple(w, h);
    sums.den[scale] = den_scale(scale, w, h);
    csf(kDecouplA, kCsfA, kCsfF, scale, w, h);
    sums.num[scale] = cm(kDecouplR, kCsfF, kCsfA, scale, w, h, params_.noise_weight);
    csf(kDecouplR, kCsfF, kCsfA, scale, w, h);
    sums.aim_num[scale] = cm(kDecouplA, kCsfA, kCsfF, scale, w, h, 0.0);
  }
  return sums;
}

FloatAdmCpuStage::FloatAdmCpuStage(const PictureFormat& format, const FloatAdmParams& params)
    : format_(format),
      computer_(format.width, format.height, params, false, float_adm_dsp(cpu::flags())) {}

FloatAdmSums FloatAdmCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  copy_plane_to_float(ref.planes[0], format_.bpc, -128, ref_);
  copy_plane_to_float(dist.planes[0], format_.bpc, -128, dist_);
  return computer_.compute(ref_, dist_);
}

}  // namespace vmafexact::float_adm
