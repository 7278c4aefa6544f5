#include "ssim/ssim_cuda_stage.h"

#include <algorithm>
#include <string>

#include "common/float_pictures.h"
#include "ssim/ssim_cuda_tile.h"
#include "ssim/ssim_dsp_scalar.h"

namespace vmafexact::cuda::ssim {

namespace vs = vmafexact::ssim;

SsimPlan ssim_plan(int scale) {
  if (scale <= 1) return {};
  return {.levels = 2, .scored = 1, .kernel = vs::box_kernel(scale), .taps = scale, .factor = scale};
}

SsimPlan ms_ssim_plan() {
  return {.levels = vs::kScales,
          .scored = vs::kScales,
          .kernel = std::vector<float>(vs::kLowPass, vs::kLowPass + vs::kLowPassTaps * vs::kLowPassTaps),
          .taps = vs::kLowPassTaps,
          .factor = 2};
}

namespace {

// The ssim, l, c and s sums of one level, in TermSums's order.
constexpr int kSums = 4;

// One of a level's running sums alone: the additions scalar::add_terms() makes
// to that sum, in the same order.
double chain_sum(const LevelTerms& level, int which) {
  const std::size_t count = static_cast<std::size_t>(level.out_w) * static_cast<std::size_t>(level.out_h);
  const double* l = level.terms;
  const double* c = l + count;
  const double* s = c + count;
  double sum = 0.0;
  switch (which) {
    case 0:
      for (std::size_t i = 0; i < count; ++i) sum += vs::pixel::ssim_term({l[i], c[i], s[i]});
      break;
    case 1:
      for (std::size_t i = 0; i < count; ++i) sum += l[i];
      break;
    case 2:
      for (std::size_t i = 0; i < count; ++i) sum += c[i];
      break;
    default:
      for (std::size_t i = 0; i < count; ++i) sum += s[i];
  }
  return sum;
}

SsimMeans means_of(const vs::TermSums& sums, const LevelTerms& level) {
  // The CPU's mean: the int count of the valid region, as a double.
  const double n = static_cast<double>(level.out_w * level.out_h);
  return {static_cast<float>(sums.ssim / n), static_cast<float>(sums.l / n),
          static_cast<float>(sums.c / n), static_cast<float>(sums.s / n)};
}

}  // namespace

std::vector<vs::TermSums> term_sums(const std::vector<LevelTerms>& levels, BandRunner& runner) {
  std::vector<vs::TermSums> sums(levels.size());
  const unsigned chains = static_cast<unsigned>(levels.size()) * kSums;
  const unsigned bands = std::min(runner.max_bands(), chains);
  if (bands <= 1) {
    for (std::size_t v = 0; v < levels.size(); ++v) {
      const LevelTerms& level = levels[v];
      const std::size_t count = static_cast<std::size_t>(level.out_w) * static_cast<std::size_t>(level.out_h);
      const double* l = level.terms;
      for (std::size_t i = 0; i < count; ++i)
        vs::scalar::add_terms({l[i], l[count + i], l[2 * count + i]}, &sums[v]);
    }
  } else {
    // Chain k is sum k % 4 of level k / 4: the largest level's four chains
    // land on four different bands.
    std::vector<double> results(chains);
    runner.run(bands, [&](unsigned band) {
      for (unsigned k = band; k < chains; k += bands)
        results[k] = chain_sum(levels[k / kSums], static_cast<int>(k % kSums));
    });
    for (std::size_t v = 0; v < levels.size(); ++v)
      sums[v] = {results[v * kSums], results[v * kSums + 1], results[v * kSums + 2],
                 results[v * kSums + 3]};
  }
  return sums;
}

std::vector<SsimMeans> sum_terms(const std::vector<LevelTerms>& levels, BandRunner& runner) {
  const std::vector<vs::TermSums> sums = term_sums(levels, runner);
  std::vector<SsimMeans> means;
  for (std::size_t v = 0; v < levels.size(); ++v) means.push_back(means_of(sums[v], levels[v]));
  return means;
}

SsimCudaPipeline::SsimCudaPipeline(unsigned width, unsigned height, SsimPlan plan,
                                   cudaStream_t stream)
    : stream_(stream), plan_(std::move(plan)) {
  std::size_t floats = 0;
  int w = static_cast<int>(width), h = static_cast<int>(height);
  for (int i = 0; i < plan_.levels; ++i) {
    if (i > 0) w = vs::decimated_size(w, plan_.factor), h = vs::decimated_size(h, plan_.factor);
    levels_.push_back({w, h, floats});
    floats += 2 * static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  }
  std::size_t map_floats = 0, term_doubles = 0;
  for (int i = plan_.levels - plan_.scored; i < plan_.levels; ++i) {
    const Level& level = levels_[static_cast<std::size_t>(i)];
    if (level.w < vs::kWindow || level.h < vs::kWindow)
      throw Error("ssim (CUDA): level of " + std::to_string(level.w) + "x" + std::to_string(level.h) +
                  " is smaller than the 11x11 window");
    const auto out_w = static_cast<std::size_t>(level.w - (vs::kWindow - 1));
    const auto out_h = static_cast<std::size_t>(level.h - (vs::kWindow - 1));
    map_floats = std::max(map_floats, tile::kMaps * out_w * static_cast<std::size_t>(level.h));
    terms_offset_.push_back(term_doubles);
    term_doubles += tile::kStored * out_w * out_h;
  }
  pictures_.resize(floats);
  maps_.resize(map_floats);
  terms_.resize(term_doubles);
  readback_.emplace(term_doubles);  // pinned at the first frame
  // The taps are the host tables' floats, copied as they are.
  std::vector<float> taps(vs::kGaussian, vs::kGaussian + vs::kGaussianTaps);
  taps.insert(taps.end(), plan_.kernel.begin(), plan_.kernel.end());
  taps_.resize(taps.size());
  check(cudaMemcpyAsync(taps_.data(), taps.data(), taps.size() * sizeof(float),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (ssim taps)");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (ssim taps)");
}

void SsimCudaPipeline::enqueue_terms(const PictureView& ref, const PictureView& dist) {
  const auto picture = [&](const Level& level, int which) {
    return pictures_.data() + level.offset +
           static_cast<std::size_t>(which) * static_cast<std::size_t>(level.w) *
               static_cast<std::size_t>(level.h);
  };
  enqueue_float_pictures(ref.planes[0], dist.planes[0], ref.bpc, vs::pixel::kSampleOffset,
                         picture(levels_[0], 0), picture(levels_[0], 1), stream_);
  for (std::size_t i = 1; i < levels_.size(); ++i)
    enqueue_decimate(picture(levels_[i - 1], 0), picture(levels_[i - 1], 1), levels_[i - 1].w,
                     levels_[i - 1].h, taps_.data() + vs::kGaussianTaps, plan_.taps, plan_.factor,
                     picture(levels_[i], 0), picture(levels_[i], 1), stream_);
  for (int s = 0; s < plan_.scored; ++s) {
    const Level& level = levels_[static_cast<std::size_t>(plan_.levels - plan_.scored + s)];
    ssim::enqueue_terms(picture(level, 0), picture(level, 1), level.w, level.h, taps_.data(),
                        maps_.data(), terms_.data() + terms_offset_[static_cast<std::size_t>(s)],
                        stream_);
  }
}

void SsimCudaPipeline::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  submit_luma_frame(graphs_, *readback_, ref, dist, index, terms_.data(), stream_,
                    [&] { enqueue_terms(ref, dist); });
}

std::vector<SsimMeans> SsimCudaPipeline::collect(unsigned index) {
  const double* terms = readback_->collect(index);
  std::vector<LevelTerms> levels;
  for (int s = 0; s < plan_.scored; ++s) {
    const Level& level = levels_[static_cast<std::size_t>(plan_.levels - plan_.scored + s)];
    levels.push_back({terms + terms_offset_[static_cast<std::size_t>(s)], level.w - (vs::kWindow - 1),
                      level.h - (vs::kWindow - 1)});
  }
  return sum_terms(levels, *runner_);
}

SsimCudaStage::SsimCudaStage(unsigned width, unsigned height, int scale, cudaStream_t stream)
    : pipeline_(width, height, ssim_plan(scale), stream) {}

void SsimCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  pipeline_.submit(ref, dist, index);
}

SsimMeans SsimCudaStage::compute(const PictureView& ref, const PictureView& dist, unsigned index) {
  if (!pipeline_.submitted(index)) submit(ref, dist, index);
  return pipeline_.collect(index)[0];
}

MsSsimCudaStage::MsSsimCudaStage(unsigned width, unsigned height, cudaStream_t stream)
    : pipeline_(width, height, ms_ssim_plan(), stream) {}

void MsSsimCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  pipeline_.submit(ref, dist, index);
}

MsSsimMeans MsSsimCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                     unsigned index) {
  if (!pipeline_.submitted(index)) submit(ref, dist, index);
  const std::vector<SsimMeans> means = pipeline_.collect(index);
  MsSsimMeans scales;
  for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = means[i];
  return scales;
}

}  // namespace vmafexact::cuda::ssim
