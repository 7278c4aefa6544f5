// The block arithmetic of PSNR-HVS (psnr_hvs.h), for N blocks side by side:
// included by psnr_hvs.cpp (the scalar reference, one block at a time) and by
// psnr_hvs_simd.cpp (N = the vector layer's V::N) inside its namespace, which
// metrics/meson.build compiles once per ISA. Lane l of every array holds block l, and every lane
// runs the same operations in the same order as one block alone, so any N and
// any ISA give the bits of one block at a time (the twin harness checks it).
// Expects <cmath>, <cstdint>, <cstdlib> and psnr_hvs.h.

// OD_DCT_RSHIFT(a, 1): half of a, rounded toward zero.
inline std::int32_t half(std::int32_t a) { return (a + (a < 0 ? 1 : 0)) >> 1; }

// One lifting step's product: (a * multiplier + 2^(shift-1)) >> shift, in
// 32 bits as Daala's; the right shift of a negative value is arithmetic. At
// 12 bits the product can pass 2^31 (Daala's OD_DCT_OVERFLOW_CHECK is off in
// libvmaf), where libvmaf's compiled code wraps it modulo 2^32: so does this,
// in unsigned arithmetic, without signed overflow.
inline std::int32_t scaled(std::int32_t a, std::int32_t multiplier, int shift) {
  const auto wrapped = static_cast<std::int32_t>(
      static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(multiplier) + (1u << (shift - 1)));
  return wrapped >> shift;
}

// An int square as libvmaf's compiled code forms it: modulo 2^32 where samples
// beyond the bit depth make it pass 2^31.
inline std::int32_t wrapped_square(std::int32_t a) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(a));
}

// N blocks' coefficients, [coefficient][lane], and one float per lane.
template <int N>
using Coefficients = std::int32_t[64][N];
template <int N>
using LaneFloats = float[N];

// Daala's od_bin_fdct8(): an 8-point type-II DCT in integer lifting steps,
// x[k * stride] to y[k] (k = 0..7), per lane.
template <int N>
void fdct8(std::int32_t (*y)[N], const std::int32_t (*x)[N], int stride) {
  for (int l = 0; l < N; ++l) {
    // The inputs in Daala's permuted order.
    std::int32_t t0 = x[0 * stride][l], t4 = x[1 * stride][l], t2 = x[2 * stride][l],
                 t6 = x[3 * stride][l], t7 = x[4 * stride][l], t3 = x[5 * stride][l],
                 t5 = x[6 * stride][l], t1 = x[7 * stride][l];
    // +1/-1 butterflies.
    t1 = t0 - t1;
    const std::int32_t t1h = half(t1);
    t0 -= t1h;
    t4 += t5;
    const std::int32_t t4h = half(t4);
    t5 -= t4h;
    t3 = t2 - t3;
    t2 -= half(t3);
    t6 += t7;
    const std::int32_t t6h = half(t6);
    t7 = t6h - t7;
    // The embedded 4-point DCT-II.
    t0 += t6h;
    t6 = t0 - t6;
    t2 = t4h - t2;
    t4 = t2 - t4;
    // Its 2-point DCT-II: tan(pi/8) and sin(pi/4) rotations.
    t0 -= scaled(t4, 13573, 15);
    t4 += scaled(t0, 11585, 14);
    t0 -= scaled(t4, 13573, 15);
    // Its 2-point DST-IV (3 pi / 8).
    t6 -= scaled(t2, 21895, 15);
    t2 += scaled(t6, 15137, 14);
    t6 -= scaled(t2, 21895, 15);
    // The embedded 4-point DST-IV.
    t3 += scaled(t5, 19195, 15);
    t5 += scaled(t3, 11585, 14);
    t3 -= scaled(t5, 7489, 13);
    t7 = half(t5) - t7;
    t5 -= t7;
    t3 = t1h - t3;
    t1 -= t3;
    // The pi/16 and 3 pi/16 rotations.
    t7 += scaled(t1, 3227, 15);
    t1 -= scaled(t7, 6393, 15);
    t7 += scaled(t1, 3227, 15);
    t5 += scaled(t3, 2485, 13);
    t3 -= scaled(t5, 18205, 15);
    t5 += scaled(t3, 2485, 13);
    y[0][l] = t0, y[1][l] = t1, y[2][l] = t2, y[3][l] = t3;
    y[4][l] = t4, y[5][l] = t5, y[6][l] = t6, y[7][l] = t7;
  }
}

// od_bin_fdct8x8(): the columns into the rows of z, then z's columns into
// out's rows.
template <int N>
void fdct8x8_lanes(const Coefficients<N>& in, Coefficients<N>& out) {
  Coefficients<N> z;
  for (int i = 0; i < 8; ++i) fdct8<N>(z + 8 * i, in + i, 8);
  for (int i = 0; i < 8; ++i) fdct8<N>(out + 8 * i, z + i, 8);
}

// The quadrant of the block a sample counts to in the 4x4 means and variances.
constexpr int quadrant(int i) { return (((i >> 3) & 12) >> 2) + (((i & 7) & 12) >> 1); }

// A block's global variance turned into the ratio of its quadrants' variances
// to it, as calc_psnrhvs() forms it: every step in float, in its order.
template <int N>
void variance_ratio(const Coefficients<N>& coeff, LaneFloats<N>& ratio) {
  float global_mean[N] = {}, means[4][N] = {};
  for (int i = 0; i < 64; ++i)
    for (int l = 0; l < N; ++l) {
      global_mean[l] += coeff[i][l];
      means[quadrant(i)][l] += coeff[i][l];
    }
  for (int l = 0; l < N; ++l) {
    global_mean[l] /= 64.f;
    for (auto& mean : means) mean[l] /= 16.f;
  }
  float global_var[N] = {}, vars[4][N] = {};
  for (int i = 0; i < 64; ++i)
    for (int l = 0; l < N; ++l) {
      const int q = quadrant(i);
      global_var[l] += (coeff[i][l] - global_mean[l]) * (coeff[i][l] - global_mean[l]);
      vars[q][l] += (coeff[i][l] - means[q][l]) * (coeff[i][l] - means[q][l]);
    }
  for (int l = 0; l < N; ++l) {
    global_var[l] *= 1 / 63.f * 64;
    for (auto& var : vars) var[l] *= 1 / 15.f * 16;
    if (global_var[l] > 0)
      global_var[l] = (vars[0][l] + vars[1][l] + vars[2][l] + vars[3][l]) / global_var[l];
    ratio[l] = global_var[l];
  }
}

// The masking weights: (csf * 0.3885746225901003)^2, in double, rounded to float.
struct Mask {
  float weight[64];
  explicit Mask(const float (&csf)[8][8]) {
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        weight[i * 8 + j] =
            static_cast<float>((csf[i][j] * 0.3885746225901003) * (csf[i][j] * 0.3885746225901003));
  }
};

// A block's AC energy weighted by the mask, scaled by its variance ratio:
// sqrt(energy * ratio) / 32 (the root in double, the result a float).
template <int N>
void contrast_mask(const Coefficients<N>& dct, const LaneFloats<N>& ratio, const Mask& mask,
                   LaneFloats<N>& masking) {
  float energy[N] = {};
  for (int i = 1; i < 64; ++i)  // every coefficient but the DC, in row order
    for (int l = 0; l < N; ++l)
      energy[l] += static_cast<float>(wrapped_square(dct[i][l])) * mask.weight[i];
  for (int l = 0; l < N; ++l)
    masking[l] = static_cast<float>(std::sqrt(static_cast<double>(energy[l] * ratio[l])) / 32.f);
}

// N blocks' 64 terms each, libvmaf's `(err * csf) * (err * csf)`.
template <int N>
void block_terms(const Coefficients<N>& src, const Coefficients<N>& dst, const Mask& mask,
                 const float (&csf)[8][8], float (&terms)[64][N]) {
  LaneFloats<N> src_ratio, dst_ratio, masking, dst_masking;
  variance_ratio<N>(src, src_ratio);
  variance_ratio<N>(dst, dst_ratio);
  Coefficients<N> dct_src, dct_dst;
  fdct8x8_lanes<N>(src, dct_src);
  fdct8x8_lanes<N>(dst, dct_dst);
  contrast_mask<N>(dct_src, src_ratio, mask, masking);
  contrast_mask<N>(dct_dst, dst_ratio, mask, dst_masking);
  for (int l = 0; l < N; ++l)
    if (dst_masking[l] > masking[l]) masking[l] = dst_masking[l];
  for (int i = 0; i < 64; ++i) {
    const float weight = csf[i / 8][i % 8];
    for (int l = 0; l < N; ++l) {
      float err = static_cast<float>(std::abs(dct_src[i][l] - dct_dst[i][l]));
      if (i != 0) {
        const float threshold = masking[l] / mask.weight[i];
        err = err < threshold ? 0 : err - threshold;
      }
      terms[i][l] = (err * weight) * (err * weight);
    }
  }
}

// The N blocks of both pictures starting at (x, y), every kStep samples.
template <int N, class Sample>
void load_blocks(const PlaneView& ref, const PlaneView& dist, unsigned x, unsigned y,
                 Coefficients<N>& src, Coefficients<N>& dst) {
  for (unsigned i = 0; i < kBlock; ++i) {
    const Sample* r = ref.row<Sample>(y + i) + x;
    const Sample* d = dist.row<Sample>(y + i) + x;
    for (unsigned j = 0; j < kBlock; ++j)
      for (int l = 0; l < N; ++l) {
        src[i * 8 + j][l] = r[kStep * l + j];
        dst[i * 8 + j][l] = d[kStep * l + j];
      }
  }
}

// N blocks from (x, y) on: their terms added to the plane's float sum, block
// after block, each in coefficient order, as libvmaf adds them.
template <int N, class Sample>
void add_blocks(const PlaneView& ref, const PlaneView& dist, unsigned x, unsigned y,
                const Mask& mask, const float (&csf)[8][8], PlaneSum& total) {
  Coefficients<N> src, dst;
  load_blocks<N, Sample>(ref, dist, x, y, src, dst);
  float terms[64][N];
  block_terms<N>(src, dst, mask, csf, terms);
  for (int l = 0; l < N; ++l)
    for (int i = 0; i < 64; ++i) total.sum += terms[i][l];
  total.terms += 64 * N;
}

// calc_psnrhvs()'s float sum over one plane: the blocks of each row `Lanes`
// side by side (the last ones of a row one by one), their terms added block
// after block in libvmaf's order.
template <int Lanes, class Sample>
PlaneSum plane_sum_in_lanes(const PlaneView& ref, const PlaneView& dist, const float (&csf)[8][8]) {
  const Mask mask(csf);
  PlaneSum total;
  const int w = static_cast<int>(ref.width), h = static_cast<int>(ref.height);
  const int step = static_cast<int>(kStep);
  for (int y = 0; y < h - 7; y += step) {
    int x = 0;
    if constexpr (Lanes > 1)
      for (; x + step * (Lanes - 1) < w - 7; x += step * Lanes)
        add_blocks<Lanes, Sample>(ref, dist, static_cast<unsigned>(x), static_cast<unsigned>(y),
                                  mask, csf, total);
    for (; x < w - 7; x += step)
      add_blocks<1, Sample>(ref, dist, static_cast<unsigned>(x), static_cast<unsigned>(y), mask,
                            csf, total);
  }
  return total;
}

template <int Lanes>
PlaneSum plane_sum_fn(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                      const float (&csf)[8][8]) {
  return bpc == 8 ? plane_sum_in_lanes<Lanes, std::uint8_t>(ref, dist, csf)
                  : plane_sum_in_lanes<Lanes, std::uint16_t>(ref, dist, csf);
}
