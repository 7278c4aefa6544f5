#include "adm/adm_cuda.h"

#include <algorithm>

namespace vmafexact::cuda::adm {

namespace {

using vmafexact::adm::pixel::Db2Taps;
using vmafexact::adm::pixel::Scale0Arith;
using vmafexact::adm::pixel::ScaleNArith;

template <typename Sample, typename Band>
struct DwtPair {
  DwtArgs<Sample, Band> picture[2];  // reference, distorted
};

// One DWT level of both pictures (blockIdx.z).
template <typename Sample, typename Band>
__global__ void __launch_bounds__(kDwtThreads)
    dwt_kernel(DwtPair<Sample, Band> pair, Db2Taps taps, int scale, unsigned bpc) {
  __shared__ DwtSmem sm;
  const DwtArgs<Sample, Band> a = pair.picture[blockIdx.z];
  const int tile_i = blockIdx.y * kDwtTileH, tile_j = blockIdx.x * kDwtTileW;
  const int tid = threadIdx.y * kDwtTileW + threadIdx.x;
  for (int idx = tid; idx < kDwtTileH * kDwtCols; idx += kDwtThreads)
    dwt_phase1(a, taps, scale, bpc, tile_i, tile_j, idx / kDwtCols, idx % kDwtCols, sm);
  __syncthreads();
  dwt_phase2(a, taps, scale, tile_i, tile_j, threadIdx.y, threadIdx.x, sm);
}

__device__ inline unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// One scale's decoupling, CSF, masking and cube terms, summed per row.
template <class Arith>
__global__ void __launch_bounds__(kScoreThreads) score_kernel(ScoreArgs<Arith> a) {
  __shared__ ScoreSmem sm;
  const int tile_top = a.g.top + blockIdx.y * kScoreTileH;
  const int tile_left = a.g.left + blockIdx.x * kScoreTileW;
  const int tid = threadIdx.y * kScoreTileW + threadIdx.x;
  for (int idx = tid; idx < kHalo; idx += kScoreThreads)
    score_phase1(a, tile_top, tile_left, idx / kHaloW, idx % kHaloW, sm);
  __syncthreads();
  for (int k = 0; k < kScoreRowsPerWarp; ++k) {
    const int y = threadIdx.y + k * kScoreWarps;
    const int i = tile_top + y;
    if (i >= a.g.bottom) break;  // the same for the whole warp
    const PixelTerms terms = score_phase2(a, tile_top, tile_left, y, threadIdx.x, sm);
    for (int q = 0; q < kQuantities; ++q) {
      if (q == 2 && a.skip_aim) break;
      for (int theta = 0; theta < 3; ++theta) {
        const unsigned long long row = warp_sum(terms.v[q][theta]);
        if (threadIdx.x == 0) atomicAdd(&a.acc[(q * 3 + theta) * a.acc_rows + i], row);
      }
    }
  }
}

struct RowsArgs {
  TileGeometry g[4];
  const unsigned long long* acc;
  int acc_rows;
  unsigned long long* out;
};

constexpr int kRowsThreads = 256;

// Block b = (scale * 3 + quantity) * 3 + theta: the CPU's rounded shift of
// every row's sum, the rows added.
__global__ void __launch_bounds__(kRowsThreads) rows_kernel(RowsArgs a) {
  const int b = blockIdx.x;
  const int scale = b / 9, quantity = (b / 3) % 3;
  const TileGeometry& g = a.g[scale];
  const unsigned long long* rows = a.acc + static_cast<std::size_t>(b) * a.acc_rows;
  unsigned long long sum = 0;
  for (int i = g.top + threadIdx.x; i < g.bottom; i += kRowsThreads) sum += row_term(quantity, rows[i], g);
  __shared__ unsigned long long partial[kRowsThreads];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int step = kRowsThreads / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) partial[threadIdx.x] += partial[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) a.out[b] = partial[0];
}

unsigned blocks(int n, int per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }

template <typename Sample, typename Band>
void launch_dwt(const DwtPair<Sample, Band>& pair, const Db2Taps& taps, int scale, unsigned bpc,
                cudaStream_t stream) {
  const dim3 grid(blocks(pair.picture[0].out_w, kDwtTileW), blocks(pair.picture[0].out_h, kDwtTileH), 2);
  dwt_kernel<Sample, Band><<<grid, dim3(kDwtTileW, kDwtTileH), 0, stream>>>(pair, taps, scale, bpc);
  check(cudaGetLastError(), "adm dwt kernel launch");
}

template <class Arith>
void launch_score(const ScoreArgs<Arith>& args, cudaStream_t stream) {
  const dim3 grid(blocks(args.g.right - args.g.left, kScoreTileW),
                  blocks(args.g.bottom - args.g.top, kScoreTileH));
  score_kernel<Arith><<<grid, dim3(kScoreTileW, kScoreWarps), 0, stream>>>(args);
  check(cudaGetLastError(), "adm score kernel launch");
}

}  // namespace

TileGeometry tile_geometry(const vmafexact::adm::ScaleGeometry& g) {
  TileGeometry t{};
  t.w = g.width;
  t.h = g.height;
  t.left = g.left;
  t.top = g.top;
  t.right = g.right;
  t.bottom = g.bottom;
  t.den_cube_shift = g.den_cube_shift;
  t.den_row_shift = g.den_row_shift;
  t.num_row_shift = g.num_row_shift;
  for (int theta = 0; theta < 3; ++theta) t.num_cube_shift[theta] = g.num_cube_shift[theta];
  return t;
}

AdmCudaStage::AdmCudaStage(unsigned width, unsigned height,
                           const vmafexact::adm::AdmOptions& options, cudaStream_t stream)
    : width_(width), height_(height), stream_(stream), options_(options),
      weights_(vmafexact::adm::csf_weights(options)), readback_(36) {
  vmafexact::adm::check_picture_size(width, height);
  geometry_ = vmafexact::adm::scale_geometry(width, height);
  for (int s = 0; s < 4; ++s) {
    tiles_[s] = tile_geometry(geometry_[s]);
    band_size_[s] = static_cast<std::size_t>(geometry_[s].width) * geometry_[s].height;
  }
  taps_ = vmafexact::adm::db2_taps();
  cos_sq_ = vmafexact::adm::cos_1deg_sq();
  const auto& table = vmafexact::adm::division_table();
  division_.resize(table.size());
  check(cudaMemcpy(division_.data(), table.data(), table.size() * sizeof(std::int32_t),
                   cudaMemcpyHostToDevice),
        "cudaMemcpy (adm division table)");
  // A copy from pageable memory may return before its DMA has finished; the
  // kernels run on another (non-blocking) stream.
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (adm tables)");
  bands0_.resize(8 * band_size_[0]);
  for (int s = 1; s < 4; ++s) bands_[s].resize(8 * band_size_[s]);
  acc_rows_ = geometry_[0].height;
  acc_.resize(36 * static_cast<std::size_t>(acc_rows_));
  out_.resize(36);
}

void AdmCudaStage::enqueue(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                              cudaStream_t stream, unsigned index) {
  readback_.reserve();
  graphs_.run(graph_key(ref.data, dist.data, ref.stride, dist.stride, bpc, stream, frame_slot(index)), stream,
              [&] { enqueue_work(ref, dist, bpc, stream, index); });
  readback_.mark(index, stream);
}

void AdmCudaStage::enqueue_work(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                                cudaStream_t stream, unsigned index) {
  check(cudaMemsetAsync(acc_.data(), 0, acc_.size() * sizeof(unsigned long long), stream),
        "cudaMemsetAsync (adm rows)");
  const int w = static_cast<int>(width_), h = static_cast<int>(height_);

  // Scale 0 from the pictures.
  const std::size_t size0 = band_size_[0];
  const auto dwt0_args = [&]<typename Sample>(const PlaneView& plane, int p) {
    DwtArgs<Sample, std::int16_t> a{};
    a.src = plane.data;
    a.pitch = plane.stride;
    a.w = w;
    a.h = h;
    a.out_w = geometry_[0].width;
    a.out_h = geometry_[0].height;
    for (int b = 0; b < 4; ++b) a.band[b] = bands0_.data() + (4 * p + b) * size0;
    a.lowpass_only = options_.skip_scale0;
    return a;
  };
  if (bpc == 8) {
    DwtPair<std::uint8_t, std::int16_t> pair{
        {dwt0_args.template operator()<std::uint8_t>(ref, 0),
         dwt0_args.template operator()<std::uint8_t>(dist, 1)}};
    launch_dwt(pair, taps_, 0, bpc, stream);
  } else {
    DwtPair<std::uint16_t, std::int16_t> pair{
        {dwt0_args.template operator()<std::uint16_t>(ref, 0),
         dwt0_args.template operator()<std::uint16_t>(dist, 1)}};
    launch_dwt(pair, taps_, 0, bpc, stream);
  }
  // Each scale's scoring waits for its own DWT level only and runs on the
  // scoring stream beside the next level's DWT, which reads the approximation
  // band alone: at 1080p the small scales' kernels fill a fraction of the
  // GPU, so the chain's length, more than its work, bounded a frame.
  const cudaStream_t scoring = scoring_.get();
  const auto fork_scoring = [&](int s) {
    level_done_[s].record(stream);
    check(cudaStreamWaitEvent(scoring, level_done_[s].get(), 0), "cudaStreamWaitEvent (adm)");
  };
  fork_scoring(0);
  if (!options_.skip_scale0) {
    ScoreArgs<Scale0Arith> a{};
    for (int theta = 0; theta < 3; ++theta) {
      a.ref[theta] = bands0_.data() + (1 + theta) * size0;
      a.dist[theta] = bands0_.data() + (4 + 1 + theta) * size0;
      a.arith.rfactor[theta] = weights_.scale0_fixed[theta];
    }
    a.g = tiles_[0];
    a.egl = options_.enhn_gain_limit;
    a.cos_sq = cos_sq_;
    a.div = division_.data();
    a.skip_aim = options_.skip_aim;
    a.acc = acc_.data();
    a.acc_rows = acc_rows_;
    launch_score(a, scoring);
  }

  // Scales 1..3, each from the previous scale's approximation band.
  for (int s = 1; s < 4; ++s) {
    const int in_w = geometry_[s - 1].width, in_h = geometry_[s - 1].height;
    const auto dwt_args = [&]<typename Sample>(const Sample* src, int p) {
      DwtArgs<Sample, std::int32_t> a{};
      a.src = reinterpret_cast<const std::uint8_t*>(src);
      a.pitch = static_cast<std::ptrdiff_t>(in_w) * sizeof(Sample);
      a.w = in_w;
      a.h = in_h;
      a.out_w = geometry_[s].width;
      a.out_h = geometry_[s].height;
      for (int b = 0; b < 4; ++b) a.band[b] = bands_[s].data() + (4 * p + b) * band_size_[s];
      a.lowpass_only = false;
      return a;
    };
    if (s == 1) {
      DwtPair<std::int16_t, std::int32_t> pair{{dwt_args(bands0_.data(), 0),
                                                dwt_args(bands0_.data() + 4 * size0, 1)}};
      launch_dwt(pair, taps_, s, bpc, stream);
    } else {
      const std::int32_t* prev = bands_[s - 1].data();
      DwtPair<std::int32_t, std::int32_t> pair{
          {dwt_args(prev, 0), dwt_args(prev + 4 * band_size_[s - 1], 1)}};
      launch_dwt(pair, taps_, s, bpc, stream);
    }
    fork_scoring(s);
    ScoreArgs<ScaleNArith> a{};
    for (int theta = 0; theta < 3; ++theta) {
      a.ref[theta] = bands_[s].data() + (1 + theta) * band_size_[s];
      a.dist[theta] = bands_[s].data() + (4 + 1 + theta) * band_size_[s];
      a.arith.rfactor[theta] = weights_.fixed[s][theta];
    }
    a.arith.scale = s;
    a.g = tiles_[s];
    a.egl = options_.enhn_gain_limit;
    a.cos_sq = cos_sq_;
    a.div = division_.data();
    a.skip_aim = options_.skip_aim;
    a.acc = acc_.data() + static_cast<std::size_t>(s) * 9 * acc_rows_;
    a.acc_rows = acc_rows_;
    launch_score(a, scoring);
  }
  scores_done_.record(scoring);
  check(cudaStreamWaitEvent(stream, scores_done_.get(), 0), "cudaStreamWaitEvent (adm)");

  RowsArgs rows{};
  for (int s = 0; s < 4; ++s) rows.g[s] = tiles_[s];
  rows.acc = acc_.data();
  rows.acc_rows = acc_rows_;
  rows.out = out_.data();
  rows_kernel<<<36, kRowsThreads, 0, stream>>>(rows);
  check(cudaGetLastError(), "adm rows kernel launch");
  // The next frame's kernels follow this read-back in stream order, so one set
  // of device accumulators serves overlapping frames.
  readback_.copy(out_.data(), index, stream);
}

void AdmCudaStage::enqueue(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                              cudaStream_t stream) {
  enqueue(ref, dist, bpc, stream, unindexed_++);
}

void AdmCudaStage::debug_download(std::vector<std::int16_t>& bands0,
                                     std::array<std::vector<std::int32_t>, 4>& bands,
                                     std::vector<unsigned long long>& rows) const {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  bands0.resize(bands0_.size());
  check(cudaMemcpy(bands0.data(), bands0_.data(), bands0.size() * sizeof(std::int16_t),
                   cudaMemcpyDeviceToHost), "cudaMemcpy (debug)");
  for (int s = 1; s < 4; ++s) {
    bands[s].resize(bands_[s].size());
    check(cudaMemcpy(bands[s].data(), bands_[s].data(), bands[s].size() * sizeof(std::int32_t),
                     cudaMemcpyDeviceToHost), "cudaMemcpy (debug)");
  }
  rows.resize(acc_.size());
  check(cudaMemcpy(rows.data(), acc_.data(), rows.size() * sizeof(unsigned long long),
                   cudaMemcpyDeviceToHost), "cudaMemcpy (debug)");
}

vmafexact::adm::FrameSums AdmCudaStage::sums(unsigned index) {
  const unsigned long long* host_out_ = readback_.collect(index);
  vmafexact::adm::FrameSums sums;
  for (int s = 0; s < 4; ++s)
    for (int theta = 0; theta < 3; ++theta) {
      sums.scales[s].den[theta] = host_out_[(s * 3 + 0) * 3 + theta];
      sums.scales[s].num[theta] = static_cast<std::int64_t>(host_out_[(s * 3 + 1) * 3 + theta]);
      sums.scales[s].aim[theta] = static_cast<std::int64_t>(host_out_[(s * 3 + 2) * 3 + theta]);
    }
  return sums;
}

}  // namespace vmafexact::cuda::adm
