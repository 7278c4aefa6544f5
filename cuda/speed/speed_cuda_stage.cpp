#include "speed/speed_cuda_stage.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/cpu.h"
#include "speed/speed_dsp.h"

namespace vmafexact::cuda::speed {

namespace {

using vmafexact::speed::BlockStats;
using vmafexact::speed::Covariance;

std::size_t stride_of(const vmafexact::speed::SpeedGeometry& g) {
  return std::size_t{g.low_width} * g.low_height + tile::kPositions * tile::kPositions;
}

}  // namespace

SpeedChromaCudaStage::SpeedChromaCudaStage(const vmafexact::speed::SpeedGeometry& chroma,
                                           const vmafexact::speed::SpeedParams& params,
                                           cudaStream_t stream)
    : stream_(stream),
      geometry_(chroma),
      params_(params),
      readback_(kPictures * stride_of(chroma)),
      low_host_(kPictures, std::vector<float>(std::size_t{chroma.low_width} * chroma.low_height)) {
  host_.reserve(kPictures);
  for (unsigned p = 0; p < kPictures; ++p)
    host_.emplace_back(chroma, params, vmafexact::speed::speed_dsp(cpu::flags()));
}

void SpeedChromaCudaStage::prepare_device() {
  if (results_.data()) return;
  const vmafexact::speed::PrescaleTables prescale = host_[0].prescale_tables();
  // One buffer of floats and one of ints, each table at its offset.
  std::vector<float> floats;
  std::vector<int> ints;
  const auto put_floats = [&](const std::vector<float>& v) {
    const std::size_t at = floats.size();
    floats.insert(floats.end(), v.begin(), v.end());
    return at;
  };
  const auto put_ints = [&](const std::vector<int>& v) {
    const std::size_t at = ints.size();
    ints.insert(ints.end(), v.begin(), v.end());
    return at;
  };
  const std::size_t antialias = put_floats(host_[0].antialias());
  const std::size_t local_mean = put_floats(host_[0].local_mean());
  const std::size_t row_weights = put_floats(prescale.row_weights);
  const std::size_t column_weights = put_floats(prescale.column_weights);
  const std::size_t antialias_rows = put_ints(host_[0].antialias_rows());
  const std::size_t antialias_columns = put_ints(host_[0].antialias_columns());
  const std::size_t local_mean_rows = put_ints(host_[0].local_mean_rows());
  const std::size_t local_mean_columns = put_ints(host_[0].local_mean_columns());
  const std::size_t source_rows = put_ints(prescale.rows);
  const std::size_t source_columns = put_ints(prescale.columns);
  float_tables_.resize(floats.size());
  int_tables_.resize(ints.size());
  check(cudaMemcpy(float_tables_.data(), floats.data(), floats.size() * sizeof(float),
                   cudaMemcpyHostToDevice),
        "cudaMemcpy (speed float tables)");
  check(cudaMemcpy(int_tables_.data(), ints.data(), ints.size() * sizeof(int), cudaMemcpyHostToDevice),
        "cudaMemcpy (speed index tables)");
  const float* f = float_tables_.data();
  const int* i = int_tables_.data();
  const vmafexact::speed::SpeedGeometry& g = geometry_;
  tables_.low_width = g.low_width;
  tables_.low_height = g.low_height;
  tables_.region_width = g.region_width;
  tables_.region_height = g.region_height;
  tables_.antialias = f + antialias;
  tables_.antialias_taps = static_cast<unsigned>(host_[0].antialias().size());
  tables_.antialias_rows = i + antialias_rows;
  tables_.antialias_columns = i + antialias_columns;
  tables_.method = prescale.method;
  tables_.direct = tile::identity_tables(prescale);
  tables_.scale_taps = prescale.taps;
  tables_.source_rows = i + source_rows;
  tables_.row_weights = f + row_weights;
  tables_.source_columns = i + source_columns;
  tables_.column_weights = f + column_weights;
  tables_.local_mean = f + local_mean;
  tables_.local_mean_taps = static_cast<unsigned>(host_[0].local_mean().size());
  tables_.local_mean_rows = i + local_mean_rows;
  tables_.local_mean_columns = i + local_mean_columns;
  low_.resize(kPictures * std::size_t{g.low_width} * g.low_height);
  results_.resize(kPictures * stride_of(g));
}

void SpeedChromaCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  prepare_device();
  const auto plane = [](const PictureView& picture, unsigned p) {
    return tile::SourcePlane{picture.planes[p].data, picture.planes[p].stride, picture.bpc};
  };
  const FramePlanes planes = {plane(ref, 1), plane(dist, 1), plane(ref, 2), plane(dist, 2)};
  readback_.reserve();
  const auto key = graph_key(ref.planes[1].data, ref.planes[1].stride, dist.planes[1].data,
                             dist.planes[1].stride, ref.planes[2].data, ref.planes[2].stride,
                             dist.planes[2].data, dist.planes[2].stride, frame_slot(index));
  graphs_.run(key, stream_, [&] {
    enqueue_speed_pictures(planes, tables_, low_.data(), results_.data(), stream_);
    readback_.copy(results_.data(), index, stream_);
  });
  readback_.mark(index, stream_);
}

ChromaSums SpeedChromaCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                         unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const float* results = readback_.collect(index);
  const std::size_t stride = stride_of(geometry_);
  std::array<BlockStats, kPictures> stats;
  const auto finish = [&](unsigned picture) {
    std::vector<float>& low = low_host_[picture];
    const float* at = results + picture * stride;
    std::memcpy(low.data(), at, low.size() * sizeof(float));
    Covariance covariance;
    std::memcpy(covariance.data(), at + low.size(), sizeof(covariance));
    stats[picture] = host_[picture].block_stats(low, covariance);
  };
  const unsigned bands = std::min(kPictures, runner_->max_bands());
  runner_->run(bands, [&](unsigned band) {
    for (unsigned picture = band; picture < kPictures; picture += bands) finish(picture);
  });
  ChromaSums sums;
  sums.u = vmafexact::speed::pair_score(stats[0], stats[1], params_);
  sums.v = vmafexact::speed::pair_score(stats[2], stats[3], params_);
  return sums;
}

}  // namespace vmafexact::cuda::speed
