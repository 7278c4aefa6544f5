// The CUDA twin of speed_chroma (cuda/speed/) against the CPU path with the
// scalar table.
//  - speed_chroma_cuda_emulation: no device needed (runs in CI). It walks the
//    kernels' decomposition (cuda/speed/speed_cuda_tile.h: one thread per
//    decimated sample for the antialiasing with the prescale folded in and for
//    the local mean, one per position for the means, one per entry for the
//    covariance) on the host with the kernels' own __host__ __device__
//    functions, and requires the decimated pictures, the covariances and the
//    stage's scores to equal the CPU's (bit for bit).
//  - speed_chroma_cuda_device: the device stage, fed frames one ahead as the
//    Scorer does, against the CPU stage (skipped without a device), and the
//    device time per frame at 1920x1080 and 3840x2160 (4:2:0, VMAF v1 options).
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/thread_pool.h"
#include "common/device_picture.h"
#include "harness.h"
#include "speed/speed.h"
#include "speed/speed_cuda.h"
#include "speed/speed_cuda_stage.h"
#include "speed/speed_cuda_tile.h"
#include "speed/speed_dsp.h"
#include "speed/speed_extractor.h"
#include "test_pictures.h"

using namespace vmafexact;
using namespace vmafexact::harness;
namespace tile = vmafexact::cuda::speed::tile;
using speed::ScaleMethod;

namespace {

// A picture of three planes, rows padded (stride != width).
struct Picture {
  Picture(unsigned w, unsigned h, unsigned bpc, ChromaFormat chroma)
      : luma(w, h, bpc, 3),
        u(chroma_plane_width(w, chroma), chroma_plane_height(h, chroma), bpc, 5),
        v(u.width(), u.height(), bpc, 1),
        chroma_(chroma) {}

  PictureView view() const {
    PictureView picture = luma.view();
    picture.chroma = chroma_;
    picture.planes[1] = u.plane();
    picture.planes[2] = v.plane();
    return picture;
  }

  // Smooth content with edges, noise and flat patches (kind 0), the full
  // range in runs (kind 1), or a flat picture (kind 2: singular covariances).
  void draw(std::mt19937_64& rng, unsigned frame, unsigned kind, unsigned noise) {
    for (test::TestPlane* plane : {&luma, &u, &v}) {
      const std::int64_t max = (std::int64_t{1} << plane->bpc()) - 1;
      for (unsigned y = 0; y < plane->height(); ++y)
        for (unsigned x = 0; x < plane->width(); ++x) {
          std::int64_t value;
          if (kind == 2) {
            value = max / 2;
          } else if (kind == 1) {
            value = ((x + 3 * frame) / 7 + y / 5) % 3 == 0 ? max : (x * y + frame) % 11 == 0 ? 0 : max / 4;
          } else {
            value = (std::int64_t{x} * 5 + y * 3 + frame * 7) * (max / 255 + 1) % (max + 1);
            if (((x + frame) / 24 + y / 20) % 4 == 0) value = max / 3;
            value += static_cast<std::int64_t>(rng() % (2 * noise + 1)) - noise;
          }
          plane->set(x, y, static_cast<std::uint32_t>(std::clamp<std::int64_t>(value, 0, max)));
        }
    }
  }

  test::TestPlane luma, u, v;
  ChromaFormat chroma_;
};

struct Case {
  unsigned w, h;
  ChromaFormat chroma;
  speed::SpeedParams params;
};

speed::SpeedParams params_of(double prescale, ScaleMethod method, double kernelscale, int mode,
                             double sigma_nn = 0.19, double nn_floor = 0.1) {
  speed::SpeedParams p;
  p.prescale = prescale;
  p.prescale_method = method;
  p.kernelscale = kernelscale;
  p.weight_var_mode = mode;
  p.sigma_nn = sigma_nn;
  p.nn_floor = nn_floor;
  return p;
}

// Awkward sizes with chroma planes of at least 80 on a side, the VMAF v1
// options, every prescale method, other kernel scales, modes and defaults.
std::vector<Case> cases() {
  std::vector<Case> c = {
      {161, 163, ChromaFormat::k444, params_of(1.0, ScaleMethod::kNearest, 1.0, 5)},
      {333, 241, ChromaFormat::k420, params_of(1.0, ScaleMethod::kNearest, 1.0, 5)},
      {177, 163, ChromaFormat::k420, params_of(1.0, ScaleMethod::kNearest, 1.0, 0, 0.29, 0.0)},
      {331, 247, ChromaFormat::k422, params_of(0.6, ScaleMethod::kBilinear, 1.0, 5)},
      {97, 83, ChromaFormat::k444, params_of(1.5, ScaleMethod::kNearest, 0.5, 3)},
      {250, 170, ChromaFormat::k444, params_of(0.7, ScaleMethod::kBicubic, 2.0, 6)},
      {200, 190, ChromaFormat::k420, params_of(1.3, ScaleMethod::kLanczos4, 1.5, 4)},
      {643, 361, ChromaFormat::k420, params_of(0.5, ScaleMethod::kBilinear, 1.0, 5)},
      {181, 97, ChromaFormat::k444, params_of(2.0, ScaleMethod::kBilinear, 1.0, 1)},
      {400, 333, ChromaFormat::k422, params_of(1.0004, ScaleMethod::kBicubic, 1.0, 2)},
      {259, 171, ChromaFormat::k444, params_of(0.75, ScaleMethod::kLanczos4, 2.0 / 3.0, 5)},
      {170, 170, ChromaFormat::k420, params_of(1.0, ScaleMethod::kNearest, 3.0, 5)},
  };
  if (full()) {
    c.push_back({1920, 1080, ChromaFormat::k420, params_of(1.0, ScaleMethod::kNearest, 1.0, 5)});
    c.push_back({1920, 1080, ChromaFormat::k420, params_of(0.6, ScaleMethod::kBilinear, 1.0, 5)});
  }
  return c;
}

std::string label(const Case& c, unsigned bpc) {
  static const char* methods[] = {"nearest", "bilinear", "bicubic", "lanczos4"};
  return std::to_string(c.w) + "x" + std::to_string(c.h) + " " +
         std::string(chroma_format_name(c.chroma)) + " " + std::to_string(bpc) + "-bit prescale " +
         std::to_string(c.params.prescale) + " " + methods[static_cast<int>(c.params.prescale_method)] +
         " ks " + std::to_string(c.params.kernelscale) + " mode " +
         std::to_string(c.params.weight_var_mode);
}

bool same_floats(const float* a, const float* b, std::size_t n) {
  return std::memcmp(a, b, n * sizeof(float)) == 0;
}

// The tables of the kernels, pointing into host copies of SpeedKernel's own.
struct HostTables {
  explicit HostTables(const speed::SpeedKernel& kernel) : prescale(kernel.prescale_tables()) {
    const speed::SpeedGeometry& g = kernel.geometry();
    t.low_width = g.low_width;
    t.low_height = g.low_height;
    t.region_width = g.region_width;
    t.region_height = g.region_height;
    t.antialias = kernel.antialias().data();
    t.antialias_taps = static_cast<unsigned>(kernel.antialias().size());
    t.antialias_rows = kernel.antialias_rows().data();
    t.antialias_columns = kernel.antialias_columns().data();
    t.method = prescale.method;
    t.direct = tile::identity_tables(prescale);
    t.scale_taps = prescale.taps;
    t.source_rows = prescale.rows.data();
    t.row_weights = prescale.row_weights.data();
    t.source_columns = prescale.columns.data();
    t.column_weights = prescale.column_weights.data();
    t.local_mean = kernel.local_mean().data();
    t.local_mean_taps = static_cast<unsigned>(kernel.local_mean().size());
    t.local_mean_rows = kernel.local_mean_rows().data();
    t.local_mean_columns = kernel.local_mean_columns().data();
  }
  speed::PrescaleTables prescale;
  tile::Tables t;
};

// The kernels' decomposition for one picture: the decimated samples less
// their local mean, and the covariance.
struct Emulated {
  std::vector<float> centered;
  speed::Covariance covariance{};
};

Emulated emulate(const PlaneView& plane, unsigned bpc, const tile::Tables& t) {
  const tile::SourcePlane source{plane.data, plane.stride, bpc};
  const std::size_t count = std::size_t{t.low_width} * t.low_height;
  std::vector<float> low(count);
  for (std::size_t n = 0; n < count; ++n)  // low_pass_kernel
    low[n] = tile::low_sample(source, t, static_cast<unsigned>(n / t.low_width),
                              static_cast<unsigned>(n % t.low_width));
  Emulated e;
  e.centered.resize(count);
  for (std::size_t n = 0; n < count; ++n)  // centered_kernel
    e.centered[n] = tile::centered_sample(low.data(), t, static_cast<unsigned>(n / t.low_width),
                                          static_cast<unsigned>(n % t.low_width));
  std::array<double, tile::kPositions> means{};  // covariance_kernel
  for (unsigned s = 0; s < tile::kPositions; ++s)
    means[s] = static_cast<double>(tile::position_mean(e.centered.data(), t, s));
  for (unsigned entry = 0; entry < tile::kCovarianceEntries; ++entry) {
    unsigned x, y;
    tile::covariance_pair(entry, x, y);
    const float value = tile::covariance_value(tile::covariance_sum(e.centered.data(), t, means.data(), x, y), t);
    e.covariance[x * tile::kPositions + y] = value;
    e.covariance[y * tile::kPositions + x] = value;
  }
  return e;
}

}  // namespace

TEST(speed_chroma_cuda_emulation, CovariancePairsCoverTheLowerTriangle) {
  std::vector<int> seen(tile::kPositions * tile::kPositions, 0);
  for (unsigned entry = 0; entry < tile::kCovarianceEntries; ++entry) {
    unsigned x, y;
    tile::covariance_pair(entry, x, y);
    ASSERT_LT(x, tile::kPositions);
    ASSERT_LE(y, x);
    ++seen[x * tile::kPositions + y];
  }
  for (unsigned x = 0; x < tile::kPositions; ++x)
    for (unsigned y = 0; y <= x; ++y) EXPECT_EQ(seen[x * tile::kPositions + y], 1) << x << "," << y;
}

TEST(speed_chroma_cuda_emulation, PicturesCovariancesAndScoresEqualTheCpu) {
  const speed::SpeedDsp& dsp = speed::speed_dsp_scalar();
  std::mt19937_64 rng(0x5eed);
  unsigned compared = 0;
  for (const Case& c : cases())
    for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
      const std::string what = label(c, bpc);
      const speed::SpeedGeometry g = speed::SpeedGeometry::of(
          chroma_plane_width(c.w, c.chroma), chroma_plane_height(c.h, c.chroma), c.params.prescale);
      ASSERT_TRUE(g.has_blocks()) << what;
      speed::SpeedKernel kernel(g, c.params, dsp);
      speed::SpeedChromaCpuStage cpu(g, c.params, dsp);
      const HostTables tables(kernel);
      for (unsigned frame = 0; frame < 3; ++frame) {
        Picture ref(c.w, c.h, bpc, c.chroma), dis(c.w, c.h, bpc, c.chroma);
        ref.draw(rng, frame, frame, 4);
        dis.draw(rng, frame, frame, 20);
        const PlaneView planes[4] = {ref.u.plane(), dis.u.plane(), ref.v.plane(), dis.v.plane()};
        std::vector<speed::BlockStats> stats;
        for (const PlaneView& plane : planes) {
          const Emulated e = emulate(plane, bpc, tables.t);
          if (tables.t.direct) {  // the tables' path gives the same samples
            tile::Tables through_tables = tables.t;
            through_tables.direct = false;
            const Emulated e2 = emulate(plane, bpc, through_tables);
            ASSERT_TRUE(same_floats(e.centered.data(), e2.centered.data(), e.centered.size())) << what;
          }
          speed::PlaneRows rows(plane, bpc, dsp);
          const std::vector<float> low = kernel.low_pass(rows);
          ASSERT_TRUE(same_floats(e.centered.data(), low.data(), low.size())) << what << " frame " << frame;
          const speed::Covariance covariance = kernel.covariance(low);
          ASSERT_TRUE(same_floats(e.covariance.data(), covariance.data(), covariance.size()))
              << what << " frame " << frame;
          stats.push_back(kernel.block_stats(e.centered, e.covariance));
          compared += static_cast<unsigned>(low.size() + covariance.size());
        }
        const speed::ChromaSums expected = cpu.compute(ref.view(), dis.view(), frame);
        const speed::SpeedScore u = speed::pair_score(stats[0], stats[1], c.params);
        const speed::SpeedScore v = speed::pair_score(stats[2], stats[3], c.params);
        ASSERT_TRUE(same_floats(&u.score, &expected.u.score, 1) && u.singular == expected.u.singular &&
                    same_floats(&v.score, &expected.v.score, 1) && v.singular == expected.v.singular)
            << what << " frame " << frame << ": u " << expected.u.score << " vs " << u.score
            << ", v " << expected.v.score << " vs " << v.score;
        if (frame == 2) {
          EXPECT_TRUE(expected.u.singular) << what << ": flat pictures are singular";
        }
      }
    }
  std::printf("[speed_chroma emulation] %u decimated samples and covariance entries compared\n", compared);
}

namespace {

HARNESS_DEVICE_FIXTURE(speed_chroma);

bool same_sums(const speed::ChromaSums& a, const speed::ChromaSums& b) {
  return same_floats(&a.u.score, &b.u.score, 1) && same_floats(&a.v.score, &b.v.score, 1) &&
         a.u.singular == b.u.singular && a.v.singular == b.v.singular;
}

// The device stage, submitted one frame ahead, against the CPU stage.
void expect_stage_equals_cpu(const Case& c, unsigned bpc, unsigned frames, std::mt19937_64& rng,
                             cuda::Stream& stream, BandRunner* runner = nullptr) {
  const std::string what = label(c, bpc);
  const speed::SpeedGeometry g = speed::SpeedGeometry::of(
      chroma_plane_width(c.w, c.chroma), chroma_plane_height(c.h, c.chroma), c.params.prescale);
  speed::SpeedChromaCpuStage cpu(g, c.params, speed::speed_dsp_scalar());
  cuda::speed::SpeedChromaCudaStage twin(g, c.params, stream.get());
  if (runner) twin.set_band_runner(*runner);
  std::vector<std::unique_ptr<Picture>> refs, diss;
  std::vector<cuda::DevicePicture> ref_device(frames), dis_device(frames);
  for (unsigned f = 0; f < frames; ++f) {
    refs.push_back(std::make_unique<Picture>(c.w, c.h, bpc, c.chroma));
    diss.push_back(std::make_unique<Picture>(c.w, c.h, bpc, c.chroma));
    const unsigned kind = f % 4 == 3 ? 2 : f % 2;
    refs[f]->draw(rng, f, kind, 4);
    diss[f]->draw(rng, f, kind, 20);
    ref_device[f].upload(refs[f]->view(), stream.get());
    dis_device[f].upload(diss[f]->view(), stream.get());
  }
  twin.submit(ref_device[0].view(), dis_device[0].view(), 0);
  for (unsigned f = 0; f < frames; ++f) {
    if (f + 1 < frames) twin.submit(ref_device[f + 1].view(), dis_device[f + 1].view(), f + 1);
    const speed::ChromaSums expected = cpu.compute(refs[f]->view(), diss[f]->view(), f);
    const speed::ChromaSums sums = twin.compute(ref_device[f].view(), dis_device[f].view(), f);
    EXPECT_TRUE(same_sums(sums, expected))
        << what << " frame " << f << ": u " << expected.u.score << " vs " << sums.u.score << ", v "
        << expected.v.score << " vs " << sums.v.score;
  }
}

}  // namespace

TEST_F(speed_chroma_cuda_device, StageEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(0xc0ffee);
  ThreadPool pool(4);
  PoolBandRunner threads(pool, 4);
  for (const Case& c : cases())
    for (const unsigned bpc : {8u, 10u, 12u, 16u})
      expect_stage_equals_cpu(c, bpc, 5, rng, stream, bpc == 10 ? &threads : nullptr);
  for (const unsigned bpc : {8u, 10u})
    expect_stage_equals_cpu({3840, 2160, ChromaFormat::k420, params_of(1.0, ScaleMethod::kNearest, 1.0, 5)},
                            bpc, 3, rng, stream, bpc == 10 ? &threads : nullptr);
  expect_stage_equals_cpu({1920, 1080, ChromaFormat::k420, params_of(0.5, ScaleMethod::kBilinear, 1.0, 5)},
                          12, 3, rng, stream);
}

// Device time per frame (the kernels alone, frames back to back) and the
// whole stage per frame (kernels, read-back and the host's finishing), 4:2:0
// 8-bit with the VMAF v1 options.
TEST_F(speed_chroma_cuda_device, TimePerFrame) {
  cuda::Stream stream;
  std::mt19937_64 rng(7);
  for (const auto& [w, h] : {std::pair{1920u, 1080u}, std::pair{3840u, 2160u}}) {
    const speed::SpeedParams params = params_of(1.0, ScaleMethod::kNearest, 1.0, 5);
    const speed::SpeedGeometry g = speed::SpeedGeometry::of(w / 2, h / 2, 1.0);
    Picture ref(w, h, 8, ChromaFormat::k420), dis(w, h, 8, ChromaFormat::k420);
    ref.draw(rng, 0, 0, 4);
    dis.draw(rng, 0, 0, 20);
    cuda::DevicePicture ref_device, dis_device;
    ref_device.upload(ref.view(), stream.get());
    dis_device.upload(dis.view(), stream.get());
    cuda::speed::SpeedChromaCudaStage twin(g, params, stream.get());
    for (unsigned f = 0; f < 3; ++f) twin.compute(ref_device.view(), dis_device.view(), f);  // warm up
    // The kernels alone, timed with events.
    speed::SpeedKernel kernel(g, params, speed::speed_dsp_scalar());
    const HostTables host(kernel);
    std::vector<float> floats, tables_f;
    cuda::DeviceBuffer<float> low(4 * std::size_t{g.low_width} * g.low_height);
    cuda::DeviceBuffer<float> results(4 * cuda::speed::result_stride(host.t));
    // Device copies of the tables (as the stage uploads them).
    const auto upload = [&](const auto& v, auto& buffer) {
      buffer.resize(v.size());
      cuda::check(cudaMemcpy(buffer.data(), v.data(), v.size() * sizeof(v[0]), cudaMemcpyHostToDevice), "copy");
      return buffer.data();
    };
    cuda::DeviceBuffer<float> aa, lm, rw, cw;
    cuda::DeviceBuffer<int> ar, ac, lr, lc, sr, sc;
    tile::Tables t = host.t;
    t.antialias = upload(kernel.antialias(), aa);
    t.local_mean = upload(kernel.local_mean(), lm);
    t.row_weights = upload(host.prescale.row_weights, rw);
    t.column_weights = upload(host.prescale.column_weights, cw);
    t.antialias_rows = upload(kernel.antialias_rows(), ar);
    t.antialias_columns = upload(kernel.antialias_columns(), ac);
    t.local_mean_rows = upload(kernel.local_mean_rows(), lr);
    t.local_mean_columns = upload(kernel.local_mean_columns(), lc);
    t.source_rows = upload(host.prescale.rows, sr);
    t.source_columns = upload(host.prescale.columns, sc);
    const PictureView rv = ref_device.view(), dv = dis_device.view();
    const cuda::speed::FramePlanes planes = {
        tile::SourcePlane{rv.planes[1].data, rv.planes[1].stride, 8},
        tile::SourcePlane{dv.planes[1].data, dv.planes[1].stride, 8},
        tile::SourcePlane{rv.planes[2].data, rv.planes[2].stride, 8},
        tile::SourcePlane{dv.planes[2].data, dv.planes[2].stride, 8}};
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    constexpr unsigned kFrames = 200;
    cudaEventRecord(start, stream.get());
    for (unsigned f = 0; f < kFrames; ++f)
      cuda::speed::enqueue_speed_pictures(planes, t, low.data(), results.data(), stream.get());
    cudaEventRecord(stop, stream.get());
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    // The whole stage, one frame ahead, with the host's finishing on one
    // thread and on four.
    const auto stage_us = [&](unsigned first) {
      const auto begin = std::chrono::steady_clock::now();
      twin.submit(rv, dv, first);
      for (unsigned f = first; f < first + kFrames; ++f) {
        if (f + 1 < first + kFrames) twin.submit(rv, dv, f + 1);
        twin.compute(rv, dv, f);
      }
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count() /
             kFrames;
    };
    const double serial_us = stage_us(3);
    ThreadPool pool(4);
    PoolBandRunner threads(pool, 4);
    twin.set_band_runner(threads);
    const double threaded_us = stage_us(3 + kFrames);
    std::printf("[speed_chroma cuda] %ux%u 4:2:0: kernels %.1f us/frame on the device; stage (kernels, "
                "read-back, host finishing) %.1f us/frame, %.1f with the finishing on 4 threads\n",
                w, h, 1000.0 * ms / kFrames, serial_us, threaded_us);
  }
}
