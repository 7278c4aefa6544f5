// The CUDA twin of float_ansnr (cuda/float_ansnr/) against the CPU path.
//  - float_ansnr_cuda_emulation: no device needed (runs in CI). Every
//    kernel's output computed on the host with the kernels' own __host__
//    __device__ functions (float_ansnr_cuda_tile.h, float_ansnr_pixel.h),
//    one output at a time: both filtered planes must equal the CPU's
//    filter_2d() bit for bit, and the rows' sums finished with the CPU's
//    add_rows() the CPU stage's sums.
//  - float_ansnr_cuda_device: the stage and the extractor on a device
//    (skipped without one), == the CPU, 8 to 16 bits, odd sizes from 3x3,
//    several frames.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "device_stage.h"
#include "dsp_inputs.h"
#include "float_ansnr/float_ansnr.h"
#include "float_ansnr/float_ansnr_cuda_stage.h"
#include "float_ansnr/float_ansnr_cuda_tile.h"
#include "float_emulation.h"
#include "harness.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using test::Fill;
namespace fa = vmafexact::float_ansnr;
namespace tile = vmafexact::cuda::float_ansnr::tile;

namespace {

// The filter kernel's outputs on the host, one at a time.
std::vector<float> emulate_filter(const std::vector<float>& plane, int w, int h,
                                  const tile::pixel::Kernel& kernel) {
  std::vector<float> out(plane.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      out[static_cast<std::size_t>(y) * w + x] =
          tile::filter_output(plane.data(), w, h, kernel, x, y);
  return out;
}

// The CPU's filter_2d() of the CPU's copy of the plane, rows of exactly w.
std::vector<float> cpu_filter(const test::TestPlane& plane, const tile::pixel::Kernel& kernel) {
  FloatPlane copy, filtered(plane.width(), plane.height());
  copy_plane_to_float(plane.plane(), plane.bpc(), tile::kSampleOffset, copy);
  fa::filter_2d(kernel, copy, filtered, 0, static_cast<int>(plane.height()));
  std::vector<float> out;
  for (unsigned y = 0; y < plane.height(); ++y)
    out.insert(out.end(), filtered.row(y), filtered.row(y) + plane.width());
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

const std::vector<Size> kSizes = {{3, 3},  {4, 3},   {3, 7},   {5, 5},   {6, 4},
                                  {17, 9}, {33, 31}, {64, 48}, {131, 67}};

// float_ansnr's parts, for the extractor check (device_stage.h).
struct FloatAnsnrTwin {
  static constexpr const char* kFeature = "float_ansnr";
  static void paint(test::TestPlane& plane, unsigned seed, Fill fill, std::mt19937_64& rng) {
    paint_edges_and_noise(plane, seed, fill, rng);
  }
};

}  // namespace

TEST(float_ansnr_cuda_emulation, FilteredPlanesAndSumsEqualTheCpu) {
  std::mt19937_64 rng(seed() ^ 0xFA5);
  unsigned compared = 0;
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : kSizes)
      for (const Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange}) {
        const std::string what = case_label(w, h, bpc);
        test::TestPlane ref(w, h, bpc), dist(w, h, bpc);
        paint_edges_and_noise(ref, 1, fill, rng);
        paint_edges_and_noise(dist, 2, fill, rng);
        const int iw = static_cast<int>(w), ih = static_cast<int>(h);
        const auto ref_filtered = emulate_filter(float_picture(ref, tile::kSampleOffset), iw, ih,
                                                 tile::pixel::kRefKernel);
        const auto dist_filtered = emulate_filter(float_picture(dist, tile::kSampleOffset), iw, ih,
                                                  tile::pixel::kDistKernel);
        ASSERT_TRUE(same_bits(ref_filtered, cpu_filter(ref, tile::pixel::kRefKernel))) << what;
        ASSERT_TRUE(same_bits(dist_filtered, cpu_filter(dist, tile::pixel::kDistKernel))) << what;
        // The row kernel, then the stage's finish.
        std::vector<float> row_sig(h), row_noise(h);
        for (unsigned y = 0; y < h; ++y) {
          const auto row = tile::pixel::row_sums(ref_filtered.data() + std::size_t{y} * w,
                                                 dist_filtered.data() + std::size_t{y} * w, iw);
          row_sig[y] = row.sig;
          row_noise[y] = row.noise;
        }
        const fa::FloatAnsnrSums emulated = fa::add_rows(row_sig, row_noise);
        fa::FloatAnsnrCpuStage cpu;
        const fa::FloatAnsnrSums expected = cpu.compute(ref.view(), dist.view(), 0);
        EXPECT_TRUE(same(emulated.sig, expected.sig) && same(emulated.noise, expected.noise))
            << what << std::hexfloat << ": cpu " << expected.sig << "/" << expected.noise
            << " emulated " << emulated.sig << "/" << emulated.noise;
        ++compared;
      }
  EXPECT_GT(compared, 100u);
}

HARNESS_DEVICE_FIXTURE(float_ansnr);

// The stage contract (frames submitted one ahead, as the Scorer runs them):
// every frame's sums == the CPU stage's.
TEST_F(float_ansnr_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0xFA51);
  std::vector<Size> sizes = kSizes;
  sizes.insert(sizes.end(), {{1920, 1080}, {1277, 719}});
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes) {
      const std::vector<HostFrame> frames =
          painted_clip(w, h, bpc, 4, 5, {1, Fill::kExtremes, false}, paint_edges_and_noise, rng);
      const PictureFormat format{w, h, bpc, ChromaFormat::k400};
      fa::FloatAnsnrCpuStage cpu;
      cuda::float_ansnr::FloatAnsnrCudaStage twin(format, stream.get());
      expect_device_stage_equals_cpu<fa::FloatAnsnrSums>(frames, cpu, twin, stream.get(),
                                                         case_label(w, h, bpc));
    }
}

// The extractor on both backends: the same collector after every frame.
TEST_F(float_ansnr_cuda_device, TwinEqualsTheCpu) {
  expect_extractor_with_every_option<FloatAnsnrTwin>(
      {{3, 3}, {33, 35}, {97, 71}, {640, 360}}, {8u, 10u, 12u, 16u}, {FeatureOptions{}}, 0xFA52);
}
