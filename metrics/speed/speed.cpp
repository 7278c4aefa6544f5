#include "speed/speed.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "speed/speed_linalg.h"

namespace vmafexact::speed {

namespace {

// vif_tools.h's valid_kernelscales (libvmaf, Netflix, BSD+Patent), as floats.
constexpr std::array<float, 21> kValidKernelscales = {
    1.0f,          1.0f / 2.0f,   3.0f / 2.0f,   2.0f,          2.0f / 3.0f,   24.0f / 10.0f,
    360.0f / 97.0f, 4.0f / 3.0f,  3.5f / 3.0f,   3.75f / 3.0f,  4.25f / 3.0f,  5.0f / 3.0f,
    3.0f,          1.0f / 2.25f,  1.4746f,       1.54f,         1.6f,          1.06667f,
    0.711111f,     0.740740f,     1.111111f,
};

// round_up_to_odd(): the ceiling, made odd.
int round_up_to_odd(float f) {
  const int ceiling = static_cast<int>(std::ceil(static_cast<double>(f)));
  return ceiling % 2 == 0 ? ceiling + 1 : ceiling;
}

// vif_get_filter_size(scale, kernelscale), the kernel scale taken as a float.
int filter_size(int scale, float kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  return std::max(round_up_to_odd(static_cast<float>(n) * kernelscale), 3);
}

// get_gaussian_pdf(x, 0, stdev): the exponent and 1 / (stdev sqrt(2 pi)) in
// double, each rounded to float, and their float quotient.
float gaussian_pdf(float x, float stdev) {
  const float mean = 0;
  const double centered = static_cast<double>(x - mean);
  const float num = static_cast<float>(
      std::exp(-0.5 * centered / static_cast<double>(stdev) * centered / static_cast<double>(stdev)));
  const float den = static_cast<float>(1 / (static_cast<double>(stdev) * std::sqrt(2 * M_PI)));
  return num / den;
}

// get_1d_gaussian_kernel(): the pdf at -k .. k, divided by its float sum.
std::vector<float> gaussian_kernel(int size, float stdev) {
  std::vector<float> taps(static_cast<std::size_t>(size));
  float sum = 0;
  const int k = (size - 1) / 2;
  for (int i = 0; i < size; ++i) {
    taps[static_cast<std::size_t>(i)] = gaussian_pdf(static_cast<float>(i - k), stdev);
    sum += taps[static_cast<std::size_t>(i)];
  }
  for (float& tap : taps) tap /= sum;
  return taps;
}

using float_pixel::mirror;  // vif_filter1d_s()'s

// log2(2 pi e) in libvmaf's spelling, which the compiler folds the same way.
const double kLog2TwoPiE = std::log2(2 * M_PI * M_E);

}  // namespace

bool is_valid_kernelscale(double kernelscale) {
  const float scale = static_cast<float>(kernelscale);
  return std::any_of(kValidKernelscales.begin(), kValidKernelscales.end(), [&](float valid) {
    return static_cast<double>(std::fabs(scale - valid)) < 1e-3;
  });
}

std::vector<float> antialias_filter(double kernelscale) {
  // speed_get_antialias_filter(out, NUM_SCALES, kernelscale): sqrt(4) * size / 5.
  const int size = filter_size(1, static_cast<float>(kernelscale));
  const double stdev = std::sqrt(4.0) * size / static_cast<double>(5.0f);
  return gaussian_kernel(size, static_cast<float>(stdev));
}

std::vector<float> local_mean_filter(double kernelscale) {
  const int size = filter_size(4, static_cast<float>(kernelscale));
  return gaussian_kernel(size, static_cast<float>(size) / 5.0f);
}

SpeedGeometry SpeedGeometry::of(unsigned width, unsigned height, double prescale) {
  SpeedGeometry g;
  g.width = width;
  g.height = height;
  g.scaled_width = static_cast<unsigned>(static_cast<int>(width * prescale + 0.5));
  g.scaled_height = static_cast<unsigned>(static_cast<int>(height * prescale + 0.5));
  g.rescaled = !(std::fabs(prescale - 1.0) < 1.0e-3);
  g.low_width = g.scaled_width / kDecimation;
  g.low_height = g.scaled_height / kDecimation;
  g.blocks_x = g.low_width / kBlockSide;
  g.blocks_y = g.low_height / kBlockSide;
  if (g.has_blocks()) {
    g.region_width = g.blocks_x * kBlockSide - (kBlockSide - 1);
    g.region_height = g.blocks_y * kBlockSide - (kBlockSide - 1);
  }
  return g;
}

void PlaneRows::row(unsigned y, float* out) {
  if (bpc_ == 8) {
    dsp_->convert_row_8(plane_.row<std::uint8_t>(y), plane_.width, out);
  } else {
    // picture_copy_hbd's divisor: 4, 16 or 256.
    dsp_->convert_row_16(plane_.row<std::uint16_t>(y), plane_.width,
                         float_pixel::sample_scaler(bpc_), out);
  }
}

void DifferenceRows::row(unsigned y, float* out) {
  a_.row(y, out);
  b_.row(y, scratch_.data());
  dsp_->subtract_row(out, scratch_.data(), static_cast<unsigned>(scratch_.size()));
}

// ---- Prescaling ----------------------------------------------------------------

// vif_scale_frame_s for one output row, from the prescale tables
// (common/float_plane.h): everything that depends on the output column alone
// or on the output row alone is computed once, as the same float expressions
// libvmaf evaluates per sample.
class SpeedKernel::Prescaler {
 public:
  using FetchRow = std::function<const float*(unsigned)>;

  Prescaler(ScaleMethod method, unsigned src_w, unsigned src_h, unsigned dst_w, unsigned dst_h)
      : tables_(vmafexact::prescale_tables(method, src_w, src_h, dst_w, dst_h)),
        identity_(src_w == dst_w && src_h == dst_h) {}

  void row(unsigned y, const FetchRow& fetch, unsigned dst_w, float* out) const {
    const PrescaleTables& t = tables_;
    if (identity_) {
      std::memcpy(out, fetch(y), sizeof(float) * dst_w);
      return;
    }
    const int* rows = &t.rows[std::size_t{y} * t.taps];
    const float* src[9];
    for (unsigned k = 0; k < t.taps; ++k) src[k] = fetch(static_cast<unsigned>(rows[k]));
    const auto tap = [&src](unsigned j, int column) { return src[j][column]; };
    const float* wy = &t.row_weights[std::size_t{y} * t.taps];
    for (unsigned x = 0; x < dst_w; ++x)
      out[x] = pixel::prescaled_sample(t.method, tap, &t.columns[std::size_t{x} * t.taps],
                                       &t.column_weights[std::size_t{x} * t.taps], wy);
  }

  const PrescaleTables& tables() const { return tables_; }

 private:
  PrescaleTables tables_;
  bool identity_;
};

// ---- The kernel -------------------------------------------------------------------

namespace {
constexpr unsigned kSourceRowSlots = 16;  // more than the 9 rows lanczos4 reads at once
constexpr unsigned kCovarianceTile = 128;  // centered rows per covariance() call
}  // namespace

SpeedKernel::SpeedKernel(const SpeedGeometry& geometry, const SpeedParams& params,
                         const SpeedDsp& dsp)
    : geometry_(geometry),
      params_(params),
      dsp_(&dsp),
      antialias_(antialias_filter(params.kernelscale)),
      local_mean_(local_mean_filter(params.kernelscale)) {
  const SpeedGeometry& g = geometry_;
  scaled_row_.resize(std::max(g.width, g.scaled_width));
  filtered_row_.resize(g.scaled_width);
  low_.resize(std::size_t{g.low_width} * g.low_height);
  low_mean_.resize(low_.size() + g.low_width);
  if (g.rescaled) {
    prescaler_ = std::make_unique<const Prescaler>(params.prescale_method, g.width, g.height,
                                                   g.scaled_width, g.scaled_height);
    source_rows_.resize(std::size_t{kSourceRowSlots} * g.width);
    source_row_tags_.assign(kSourceRowSlots, -1);
  }
  centered_.assign(std::size_t{kCovarianceTile} * kCovLanes, 0.0);  // lanes 25.. stay 0
  // The mirrored rows and columns of every tap at every decimated sample, and
  // of the local mean's taps.
  const auto taps_at = [](const std::vector<float>& filter, unsigned count, unsigned step,
                          unsigned size) {
    const int taps = static_cast<int>(filter.size());
    std::vector<int> at(std::size_t{count} * filter.size());
    for (unsigned i = 0; i < count; ++i)
      for (int k = 0; k < taps; ++k)
        at[std::size_t{i} * filter.size() + static_cast<std::size_t>(k)] =
            mirror(static_cast<int>(i * step) - taps / 2 + k, static_cast<int>(size));
    return at;
  };
  antialias_rows_ = taps_at(antialias_, g.low_height, kDecimation, g.scaled_height);
  antialias_columns_ = taps_at(antialias_, g.low_width, kDecimation, g.scaled_width);
  local_mean_rows_ = taps_at(local_mean_, g.low_height, 1, g.low_height);
  local_mean_columns_ = taps_at(local_mean_, g.low_width, 1, g.low_width);
  sums_.resize(std::size_t{kBlockElements} * kCovLanes);
  independent_.resize(std::size_t{kBlockElements} * g.blocks());
  solution_.resize(independent_.size());
}

SpeedKernel::~SpeedKernel() = default;
SpeedKernel::SpeedKernel(SpeedKernel&&) noexcept = default;

const float* SpeedKernel::source_row(RowSource& source, unsigned y) {
  const unsigned slot = y % kSourceRowSlots;
  float* row = source_rows_.data() + std::size_t{slot} * geometry_.width;
  if (source_row_tags_[slot] != static_cast<long>(y)) {
    source.row(y, row);
    source_row_tags_[slot] = y;
  }
  return row;
}

const float* SpeedKernel::scaled_row(RowSource& source, unsigned y) {
  if (!prescaler_) {
    // Not scaled: the picture's row (cut to the scaled width by the callers).
    source.row(y, scaled_row_.data());
    return scaled_row_.data();
  }
  prescaler_->row(y, [&](unsigned src_y) { return source_row(source, src_y); },
                  geometry_.scaled_width, scaled_row_.data());
  return scaled_row_.data();
}

const std::vector<float>& SpeedKernel::low_pass(RowSource& source) {
  const SpeedGeometry& g = geometry_;
  std::fill(source_row_tags_.begin(), source_row_tags_.end(), -1);  // a new picture
  const std::size_t taps = antialias_.size();
  // The antialiasing filter (vif_filter1d_s) at the samples that the 16x
  // decimation (vif_dec16_s) keeps: rows and columns 16 i, 16 j. Each sum
  // starts at 0 and adds the taps in order, the vertical pass first.
  for (unsigned i = 0; i < g.low_height; ++i) {
    std::fill(filtered_row_.begin(), filtered_row_.end(), 0.0f);
    const int* rows = &antialias_rows_[std::size_t{i} * taps];
    for (std::size_t k = 0; k < taps; ++k)
      dsp_->accumulate_row(filtered_row_.data(), scaled_row(source, static_cast<unsigned>(rows[k])),
                           antialias_[k], g.scaled_width);
    float* low_row = low_.data() + std::size_t{i} * g.low_width;
    for (unsigned j = 0; j < g.low_width; ++j) {
      const int* columns = &antialias_columns_[std::size_t{j} * taps];
      float sum = 0;
      for (std::size_t k = 0; k < taps; ++k)
        sum += antialias_[k] * filtered_row_[static_cast<std::size_t>(columns[k])];
      low_row[j] = sum;
    }
  }

  // Less the local mean: the small Gaussian of the decimated picture
  // (vif_filter1d_s over all of it), then subtract_image.
  const unsigned low_w = g.low_width;
  const std::size_t mean_taps = local_mean_.size();
  float* vertical = low_mean_.data() + low_.size();  // one row
  for (unsigned i = 0; i < g.low_height; ++i) {
    const int* rows = &local_mean_rows_[std::size_t{i} * mean_taps];
    for (unsigned j = 0; j < low_w; ++j) {
      float sum = 0;
      for (std::size_t k = 0; k < mean_taps; ++k)
        sum += local_mean_[k] * low_[static_cast<std::size_t>(rows[k]) * low_w + j];
      vertical[j] = sum;
    }
    for (unsigned j = 0; j < low_w; ++j) {
      const int* columns = &local_mean_columns_[std::size_t{j} * mean_taps];
      float sum = 0;
      for (std::size_t k = 0; k < mean_taps; ++k) sum += local_mean_[k] * vertical[columns[k]];
      low_mean_[std::size_t{i} * low_w + j] = sum;
    }
  }
  for (std::size_t n = 0; n < low_.size(); ++n) low_[n] -= low_mean_[n];
  return low_;
}

PrescaleTables SpeedKernel::prescale_tables() const {
  const SpeedGeometry& g = geometry_;
  if (prescaler_) return prescaler_->tables();
  PrescaleTables t;  // not rescaled: the picture cut to the scaled size
  for (unsigned y = 0; y < g.scaled_height; ++y) t.rows.push_back(static_cast<int>(y));
  for (unsigned x = 0; x < g.scaled_width; ++x) t.columns.push_back(static_cast<int>(x));
  t.row_weights.assign(g.scaled_height, 0.0f);
  t.column_weights.assign(g.scaled_width, 0.0f);
  return t;
}

BlockStats SpeedKernel::block_stats(const std::vector<float>& low) {
  return block_stats(low, covariance(low));
}

Covariance SpeedKernel::covariance(const std::vector<float>& low) {
  const SpeedGeometry& g = geometry_;
  const unsigned low_w = g.low_width;
  const unsigned region_w = g.region_width, region_h = g.region_height;
  const std::size_t count = std::size_t{region_w} * region_h;

  // The mean of each position's region (compute_mean: a float sum, divided by
  // the count as a float).
  // The five positions of a block row are summed side by side, each in its
  // own order.
  std::array<float, kBlockElements> means{};
  std::array<double, kBlockElements> means_double{};
  for (unsigned row0 = 0; row0 < kBlockSide; ++row0) {
    std::array<float, kBlockSide> sums{};
    for (unsigned i = 0; i < region_h; ++i) {
      const float* row = low.data() + std::size_t{row0 + i} * low_w;
      for (unsigned j = 0; j < region_w; ++j)
        for (unsigned col0 = 0; col0 < kBlockSide; ++col0) sums[col0] += row[col0 + j];
    }
    for (unsigned col0 = 0; col0 < kBlockSide; ++col0) {
      const unsigned s = row0 * kBlockSide + col0;
      means[s] = sums[col0] / static_cast<float>(count);
      means_double[s] = static_cast<double>(means[s]);
    }
  }

  // The covariance of every two positions (compute_covariance): the double
  // sum of the centered products over the region in row-major order, over the
  // count, rounded to float. The centered values of a run of samples are laid
  // out position by position (kCovLanes wide) for covariance().
  std::fill(sums_.begin(), sums_.end(), 0.0);
  unsigned filled = 0;
  for (unsigned i = 0; i < region_h; ++i)
    for (unsigned j = 0; j < region_w; ++j) {
      double* centered = centered_.data() + std::size_t{filled} * kCovLanes;
      for (unsigned row0 = 0; row0 < kBlockSide; ++row0) {
        const float* samples = low.data() + std::size_t{row0 + i} * low_w + j;
        for (unsigned col0 = 0; col0 < kBlockSide; ++col0) {
          const unsigned s = row0 * kBlockSide + col0;
          centered[s] = static_cast<double>(samples[col0]) - means_double[s];
        }
      }
      if (++filled == kCovarianceTile) {
        dsp_->covariance(centered_.data(), filled, sums_.data());
        filled = 0;
      }
    }
  if (filled > 0) dsp_->covariance(centered_.data(), filled, sums_.data());
  Covariance covariance{};
  for (unsigned x = 0; x < kBlockElements; ++x)
    for (unsigned y = 0; y <= x; ++y) {
      const float value = static_cast<float>(sums_[x * kCovLanes + y] / static_cast<double>(count));
      covariance[x * kBlockElements + y] = value;
      covariance[y * kBlockElements + x] = value;
    }
  return covariance;
}

BlockStats SpeedKernel::block_stats(const std::vector<float>& low, const Covariance& covariance) {
  const SpeedGeometry& g = geometry_;
  const unsigned low_w = g.low_width;
  const unsigned blocks = g.blocks();

  std::array<float, kBlockElements> eigenvalues{};
  symmetric_eigenvalues(covariance.data(), kBlockElements, eigenvalues.data());

  // The independent term: row s holds position s of every block.
  for (unsigned s = 0; s < kBlockElements; ++s) {
    const unsigned row0 = s / kBlockSide, col0 = s % kBlockSide;
    float* out = independent_.data() + std::size_t{s} * blocks;
    for (unsigned by = 0; by < g.blocks_y; ++by)
      for (unsigned bx = 0; bx < g.blocks_x; ++bx)
        out[by * g.blocks_x + bx] =
            low[std::size_t{row0 + kBlockSide * by} * low_w + col0 + kBlockSide * bx];
  }

  // Solve K X = Y where K is regular (every eigenvalue at least 1e-6, in double).
  const bool regular = std::none_of(eigenvalues.begin(), eigenvalues.end(),
                                    [](float e) { return static_cast<double>(e) < 1e-6; });
  bool solved = false;
  if (regular)
    solved = solve_linear_system(covariance.data(), kBlockElements, independent_.data(), blocks,
                                 solution_.data(), work_, *dsp_);
  BlockStats stats;
  stats.singular = !regular || !solved;
  if (stats.singular) std::fill(solution_.begin(), solution_.end(), 0.0f);

  // Z = X * Y / 25, summed over the positions of each block: its variance.
  const float elements = static_cast<float>(kBlockElements);
  for (std::size_t n = 0; n < solution_.size(); ++n)
    solution_[n] = (solution_[n] * independent_[n]) / elements;
  for (unsigned s = 1; s < kBlockElements; ++s)
    for (unsigned b = 0; b < blocks; ++b) solution_[b] += solution_[std::size_t{s} * blocks + b];

  // Entropy: for each eigenvalue L (negative ones as 0), log2(L S + sigma_nn)
  // + log2(2 pi e) in double, added to the float entropy.
  const float sigma_nn = static_cast<float>(params_.sigma_nn);
  stats.entropies.assign(blocks, 0.0f);
  for (unsigned k = 0; k < kBlockElements; ++k) {
    const float l = eigenvalues[k] < 0 ? 0 : eigenvalues[k];
    for (unsigned b = 0; b < blocks; ++b)
      stats.entropies[b] = static_cast<float>(
          static_cast<double>(stats.entropies[b]) +
          (std::log2(static_cast<double>(l * solution_[b] + sigma_nn)) + kLog2TwoPiE));
  }
  stats.variances.assign(solution_.begin(), solution_.begin() + blocks);
  return stats;
}

SpeedScore SpeedKernel::score(RowSource& ref, RowSource& dis) {
  const BlockStats ref_stats = block_stats(low_pass(ref));
  const BlockStats dis_stats = block_stats(low_pass(dis));
  return pair_score(ref_stats, dis_stats, params_);
}

SpeedScore pair_score(const BlockStats& ref_stats, const BlockStats& dis_stats,
                      const SpeedParams& params) {
  SpeedScore result;
  result.singular = ref_stats.singular || dis_stats.singular;
  // One picture singular, the other not: 0 rather than an inflated score.
  result.score = ref_stats.singular != dis_stats.singular
                     ? 0.0f
                     : speed_score(ref_stats, dis_stats, params);
  return result;
}

float speed_score(const BlockStats& ref, const BlockStats& dis, const SpeedParams& params) {
  const float sigma_nn = static_cast<float>(params.sigma_nn);
  const float nn_floor = static_cast<float>(params.nn_floor);
  const std::size_t blocks = ref.entropies.size();
  const float base_entropy = static_cast<float>(
      static_cast<double>(kBlockElements) *
      (std::log2(static_cast<double>((1 + nn_floor) * sigma_nn)) + kLog2TwoPiE));
  const auto log2_of = [](double x) { return std::log2(x); };
  float score = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const float re = ref.entropies[b], de = dis.entropies[b];
    if (re < base_entropy && de < base_entropy) {
      score += 0;  // no visible difference
      continue;
    }
    const float rv = ref.variances[b], dv = dis.variances[b];
    const double ref_weight = log2_of(static_cast<double>(1 + rv));
    const double dis_weight = log2_of(static_cast<double>(1 + dv));
    const double mean_weight = log2_of(1 + static_cast<double>(rv + dv) / 2.0);
    double ref_factor = 0, dis_factor = 0;  // the log2 weights of libvmaf's modes
    switch (params.weight_var_mode) {
      case 0: ref_factor = ref_weight, dis_factor = dis_weight; break;
      case 1: ref_factor = ref_weight, dis_factor = ref_weight; break;
      case 2: ref_factor = dis_weight, dis_factor = dis_weight; break;
      case 3: ref_factor = mean_weight, dis_factor = mean_weight; break;
      case 4: ref_factor = ref_weight, dis_factor = mean_weight; break;
      case 5:
        ref_factor = ref_weight;
        dis_factor = log2_of(1 + (0.75 * static_cast<double>(rv) + 0.25 * static_cast<double>(dv)));
        break;
      case 6:
        ref_factor = ref_weight;
        dis_factor = log2_of(1 + (0.25 * static_cast<double>(rv) + 0.75 * static_cast<double>(dv)));
        break;
      default: return -22.0f;  // libvmaf's -EINVAL as a float (the option's range excludes it)
    }
    const float spatial_ref = static_cast<float>(static_cast<double>(re) * ref_factor);
    const float spatial_dis = static_cast<float>(static_cast<double>(de) * dis_factor);
    score += std::fabs(spatial_ref - spatial_dis);
  }
  return score / static_cast<float>(blocks);
}

}  // namespace vmafexact::speed
