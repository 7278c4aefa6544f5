// Float ADM as libvmaf 3.2.0's "float_adm" extractor computes it (float_adm.c,
// adm.c, adm_tools.{c,h}, adm_csf_tools.h, barten_csf_tools.h at master
// f85a8536).
//
// Both luma planes are copied to floats less 128; four levels of the db2 DWT
// split them into bands; each level's bands are decoupled into restored and
// additive parts, weighted by a contrast sensitivity function and masked, and
// their p-norms (libvmaf's float sums in its order) give the level's num, den
// and AIM num. libvmaf keeps all bands in one allocation of 20 band buffers,
// laid out for the first level; at small sizes its 3x3 masking neighbourhood
// reads outside the last levels' bands, into values earlier levels left in
// that allocation. The stage keeps the same layout so that such reads get the
// same values, and checks once per format that every read hits a value
// written earlier in the frame (otherwise libvmaf's result is undefined and
// the format is refused).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "common/feature_stage.h"
#include "common/float_plane.h"
#include "common/host_device.h"
#include "float_adm/rcp_estimate.h"

namespace vmafexact::float_adm {

namespace pixel {
struct CmBands;
}

inline constexpr int kScales = 4;

// From this side up libvmaf's bands are at least 2x2 at every level.
inline constexpr unsigned kCleanSide = 17;

// The options that change the arithmetic (libvmaf's names and defaults).
struct FloatAdmParams {
  bool debug = false;              // debug: also adm, adm_num, adm_den, per-scale num and den
  double enhn_gain_limit = 100.0;  // adm_enhn_gain_limit
  double norm_view_dist = 3.0;     // adm_norm_view_dist
  double noise_weight = 0.03125;   // adm_noise_weight
  double csf_scale = 1.0;          // adm_csf_scale (Barten mode)
  double csf_diag_scale = 1.0;     // adm_csf_diag_scale (Barten mode)
  int ref_display_height = 1080;   // adm_ref_display_height
  int csf_mode = 0;                // adm_csf_mode: 1 Barten, 2 ADM's own, others Watson
  int bypass_cm = 0;               // adm_bypass_cm
  bool adm3_apply_hm = false;      // adm_adm3_apply_hm
  double p_norm = 3.0;             // adm_p_norm
  double dlm_weight = 0.5;         // adm_dlm_weight
  double min_val = 0.0;            // adm_min_val (adm3 only)
  std::array<double, kScales> f1 = {-1.0, -1.0, -1.0, -1.0};  // adm_f1s0..3 (h, v weight)
  std::array<double, kScales> f2 = {-1.0, -1.0, -1.0, -1.0};  // adm_f2s0..3 (d weight)
  int skip_aim_scale = -1;                                    // adm_skip_aim_scale
  bool skip_scale0 = false;                                   // adm_skip_scale0
};

// libvmaf's band buffers in its data_buf, in its order: the reference's and
// the distorted's a, h, v, d; the decoupling's restored and additive h, v, d;
// the CSF's weighted values and their |value| / 30.
enum Buffer : int {
  kRefA = 0,
  kRefH = 1,
  kDisA = 4,
  kDisH = 5,
  kDecouplR = 8,
  kDecouplA = 11,
  kCsfA = 14,
  kCsfF = 17,
  kBufferCount = 20,
};

// Where a band sample lies in libvmaf's data_buf: kBufferCount buffers laid
// out for the first level (rows of buf_stride), every level's bands at the top
// left of theirs.
struct ArenaLayout {
  std::ptrdiff_t stride = 0;         // floats per band row (libvmaf's buf_stride / 4)
  std::ptrdiff_t buffer_floats = 0;  // floats per band buffer

  VMAFEXACT_HD std::ptrdiff_t at(int buffer, int row, int column) const {
    return static_cast<std::ptrdiff_t>(buffer) * buffer_floats +
           static_cast<std::ptrdiff_t>(row) * stride + column;
  }
  std::size_t floats() const { return static_cast<std::size_t>(buffer_floats) * kBufferCount; }
};

// The layout for width x height pictures: buf_stride = ALIGN_CEIL(((w + 1) /
// 2) * sizeof(float)) (32-byte rows), (h + 1) / 2 rows a buffer.
ArenaLayout arena_layout(unsigned width, unsigned height);

// The den of a level adm_skip_scale0 leaves out: libvmaf's guard against 0 / 0.
inline constexpr float kSkippedScaleDen = static_cast<float>(1e-10);

// One frame's per-level results, as libvmaf's float functions return them.
struct FloatAdmSums {
  std::array<float, kScales> num{};      // adm_cm() of the restored part
  std::array<float, kScales> den{};      // adm_csf_den_scale()
  std::array<float, kScales> aim_num{};  // adm_cm() of the additive part
  bool operator==(const FloatAdmSums&) const = default;
};

// The CSF weight of a level (h and v: `diagonal` false; d: true), as adm_csf_s()
// forms it, with the adm_f1sN / adm_f2sN overrides.
float csf_factor(const FloatAdmParams& params, int scale, bool diagonal);
// A level's weights of h, v and d (csf_factor()'s h and v weight twice, then d's).
std::array<float, 3> csf_factors(const FloatAdmParams& params, int scale);

// The p-norm of a level's sums over h, v, d (accum, each the sum of its rows'
// sums in row order), as adm_csf_den_scale_s() and adm_cm_s() finish it: each
// to the power 1 / p plus the noise constant of the region's area, added in
// h, v, d order. The one finishing function of the CPU stage and the CUDA
// twin (which adds the rows' sums it reads back).
float finish_p_norms(const float (&accum)[3], int region_width, int region_height,
                     double noise_weight, double p_norm);

// The decoupling of one row of the bands (adm_decouple_s()): the reference's
// and the distorted's h, v, d rows in, the restored and additive rows out.
struct DecoupleRow {
  const float* ref[3];
  const float* dist[3];
  float* restored[3];
  float* additive[3];
};

// The masking of one middle row of a band (adm_cm_s()): its h, v, d values,
// rows i-1, i, i+1 of the |csf| / 30 planes, row i of the plane whose
// |value| / 15 is the centre, and each sample's p-norm term out.
struct CmRow {
  const float* src[3];
  const float* flt[3][3];  // [theta][row i-1, i, i+1]
  const float* angles[3];
  float* terms[3];
};

// The row kernels of FloatAdmComputer: the scalar reference (float_adm.cpp,
// float_adm_pixel.h) and its SIMD twins (float_adm_simd.cpp), each output
// formed by the same float operations in the same order (the twin harness,
// FloatAdmTwin, checks it).
struct FloatAdmDsp {
  const char* isa;
  // Columns begin..end-1 of a row, dividing as `divider` says (the twins
  // take the reference's estimate side by side, this processor's one by one).
  void (*decouple)(const DecoupleRow& row, int begin, int end, double gain_limit, Divider divider);
  // Columns begin..end-1 (whose neighbours lie inside the row) of a middle
  // row: each sample's terms, weighted by rfactor, masked when `masking`.
  void (*cm)(const CmRow& row, int begin, int end, const float (&rfactor)[3], bool masking,
             double p_norm);
  // Columns begin..end-1 of a row of one orientation: dst = factor * src,
  // flt = |dst| / 30.
  void (*csf)(const float* src, float* dst, float* flt, int begin, int end, float factor);
  // The DWT's passes (pixel::dwt_vertical_row(), pixel::dwt_horizontal_row()).
  void (*dwt_vertical)(const float* const (&rows)[4], int width, bool lo_only, float* lo,
                       float* hi);
  void (*dwt_horizontal)(const float* lo, const float* hi, int begin, int end, bool lo_only,
                         float* const (&bands)[4]);
};
const FloatAdmDsp& float_adm_dsp_scalar();
// The twin of one ISA (cpu::kAvx2, cpu::kAvx512), nullptr where this build has none.
const FloatAdmDsp* float_adm_dsp_isa(unsigned cpu_flag);
// The best table the CPU flags allow.
const FloatAdmDsp& float_adm_dsp(unsigned cpu_flags);
const FloatAdmDsp& float_adm_dsp_avx2();
const FloatAdmDsp& float_adm_dsp_avx512();

// The per-pixel stage on one format: libvmaf's band buffers and the picture
// copies. valid() is false where some read of libvmaf's hits memory it never
// wrote (found by a dry run at construction).
class FloatAdmComputer {
 public:
  // The dry run runs where the last level's bands are 1 sample wide or high
  // (sides below 17); from 17 up every read is inside the bands and written
  // earlier (the unit tests check it with `always_check`).
  FloatAdmComputer(unsigned width, unsigned height, const FloatAdmParams& params,
                   bool always_check = false, const FloatAdmDsp& dsp = float_adm_dsp_scalar());
  bool valid() const { return valid_; }
  FloatAdmSums compute(const FloatPlane& ref, const FloatPlane& dist);

 private:
  struct Band;  // the index of one band buffer in the arena
  FloatAdmSums run(const FloatPlane& ref, const FloatPlane& dist);
  // The arena's value at `index`, and a store there; during the dry run they
  // record what libvmaf would read before it wrote it (out of line: the
  // scoring runs take the plain access, inlined).
  float read(std::ptrdiff_t index) {
    if (tracking_) [[unlikely]]
      return tracked_read(index);
    return arena_[static_cast<std::size_t>(index)];
  }
  void write(std::ptrdiff_t index, float value) {
    if (tracking_) [[unlikely]]
      return tracked_write(index, value);
    arena_[static_cast<std::size_t>(index)] = value;
  }
  float tracked_read(std::ptrdiff_t index);
  void tracked_write(std::ptrdiff_t index, float value);
  std::ptrdiff_t at(int buffer, int row, int column) const {
    return layout_.at(buffer, row, column);
  }
  void dwt(const FloatPlane* picture, int src_buffer, int dst_first, int w, int h, bool lo_only);
  void decouple(int w, int h);
  float den_scale(int scale, int w, int h);
  void csf(int src_first, int dst_first, int flt_first, int scale, int w, int h);
  float cm(int src_first, int flt_first, int angles_first, int scale, int w, int h,
           double noise_weight);
  void middle_terms(const pixel::CmBands& bands, int i, int begin, int end,
                    const float (&rfactor)[3], bool masking);

  unsigned width_, height_;
  FloatAdmParams params_;
  Divider divider_;            // DIVS's reciprocal (rcp_estimate.h)
  const FloatAdmDsp* dsp_;     // the row kernels
  ArenaLayout layout_;
  std::vector<float> arena_;   // libvmaf's data_buf: 20 band buffers
  std::vector<float> tmp_lo_, tmp_hi_;
  std::vector<float> cm_terms_[3];  // a row's masking terms
  // The dry run's bookkeeping: which arena floats were written, and whether a
  // read went outside the arena, the picture or the DWT's row buffers, or hit
  // an unwritten float.
  bool tracking_ = false;
  bool bad_read_ = false;
  std::vector<unsigned char> written_;
  bool valid_ = true;
};

// The CPU stage: the luma planes copied and scored.
class FloatAdmCpuStage final : public FeatureStage<FloatAdmSums> {
 public:
  FloatAdmCpuStage(const PictureFormat& format, const FloatAdmParams& params);
  FloatAdmSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  PictureFormat format_;
  FloatAdmComputer computer_;
  FloatPlane ref_, dist_;
};

}  // namespace vmafexact::float_adm
