// The CUDA twin of float_psnr (cuda/float_psnr/) against the CPU path.
//  - float_psnr_cuda_emulation: no device needed (runs in CI). The row
//    kernel's totals computed on the host with its own per-thread function
//    (float_sums_pixel.h's row_square_total() over every
//    kRowTotalThreads-th column, the threads' totals added), finished by the
//    stage's own sums_of_rows(): the noise must be the CPU stage's bit for
//    bit, also past 2^53 units (where libvmaf's double rounds and the stage
//    sums the planes in libvmaf's order).
//  - float_psnr_cuda_device: the stage and the extractor on a device
//    (skipped without one), == the CPU, 8 to 16 bits, odd sizes, several
//    frames, and a 16-bit frame past 2^53 units.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/float_row_totals.h"
#include "common/float_sums.h"
#include "common/float_sums_pixel.h"
#include "device_stage.h"
#include "dsp_inputs.h"
#include "float_emulation.h"
#include "float_psnr/float_psnr.h"
#include "float_psnr/float_psnr_cuda_stage.h"
#include "harness.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using test::Fill;
namespace fp = vmafexact::float_psnr;

namespace {

// The row kernel on the host: per row, each thread's column total, added.
std::vector<std::uint64_t> emulate_rows(const test::TestPlane& ref, const test::TestPlane& dist) {
  std::vector<std::uint64_t> rows(ref.height());
  const PlaneView r = ref.plane(), d = dist.plane();
  for (unsigned y = 0; y < ref.height(); ++y)
    for (unsigned thread = 0; thread < cuda::kRowTotalThreads; ++thread)
      rows[y] +=
          ref.bpc() == 8
              ? float_sums::row_square_total(r.row<std::uint8_t>(y), d.row<std::uint8_t>(y),
                                             r.width, thread, cuda::kRowTotalThreads)
              : float_sums::row_square_total(r.row<std::uint16_t>(y), d.row<std::uint16_t>(y),
                                             r.width, thread, cuda::kRowTotalThreads);
  return rows;
}

// The stage's finish of the emulated rows.
fp::FloatPsnrSums emulate(const test::TestPlane& ref, const test::TestPlane& dist,
                          bool* in_order = nullptr) {
  return cuda::float_psnr::FloatPsnrCudaStage::sums_of_rows(
      emulate_rows(ref, dist), ref.bpc(), [&] {
        if (in_order) *in_order = true;
        const PlaneView minus = dist.plane();
        return float_square_sum_in_order(ref.plane(), &minus, ref.bpc());
      });
}

// A 16-bit pair whose squared differences pass 2^53 units in its first rows
// (full-scale differences), then add odd units one by one (differences of 1
// and 3), which libvmaf's double, past 2^53, rounds to even: its sum is not
// the exact total.
void paint_past_2_53(test::TestPlane& ref, test::TestPlane& dist) {
  paint_pair(ref, dist, [&](unsigned x, unsigned y) {
    const bool tail = y + 8 >= ref.height();
    return std::pair<std::uint32_t, std::uint32_t>{tail ? 1000u + (x % 2) * 2 : 65535u,
                                                   tail ? 999u : 0u};
  });
}
constexpr unsigned kPastWidth = 2048, kPastHeight = 1040;

const std::vector<Size> kSizes = {{1, 1},   {2, 3},   {3, 1},   {5, 5},    {17, 9},
                                  {33, 31}, {64, 48}, {255, 3}, {257, 19}, {131, 67}};

// float_psnr's parts, for the extractor check (device_stage.h).
struct FloatPsnrTwin {
  static constexpr const char* kFeature = "float_psnr";
  static void paint(test::TestPlane& plane, unsigned seed, Fill fill, std::mt19937_64& rng) {
    paint_edges_and_noise(plane, seed, fill, rng);
  }
};

}  // namespace

TEST(float_psnr_cuda_emulation, NoiseEqualsTheCpu) {
  std::mt19937_64 rng(seed() ^ 0xF95);
  unsigned compared = 0;
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : kSizes)
      for (const Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange}) {
        test::TestPlane ref(w, h, bpc), dist(w, h, bpc);
        paint_edges_and_noise(ref, 1, fill, rng);
        paint_edges_and_noise(dist, 2, fill, rng);
        fp::FloatPsnrCpuStage cpu;
        const double expected = cpu.compute(ref.view(), dist.view(), 0).noise;
        const double emulated = emulate(ref, dist).noise;
        EXPECT_TRUE(same(emulated, expected)) << case_label(w, h, bpc) << std::hexfloat << ": cpu "
                                              << expected << " emulated " << emulated;
        ++compared;
      }
  EXPECT_GT(compared, 100u);
}

// Past 2^53 units: the stage sums the planes in libvmaf's order, and that is
// not the exact total's double (so a stage that skipped it would fail here).
TEST(float_psnr_cuda_emulation, NoisePast2To53EqualsTheCpu) {
  test::TestPlane ref(kPastWidth, kPastHeight, 16), dist(kPastWidth, kPastHeight, 16);
  paint_past_2_53(ref, dist);
  fp::FloatPsnrCpuStage cpu;
  const double expected = cpu.compute(ref.view(), dist.view(), 0).noise;
  bool in_order = false;
  EXPECT_TRUE(same(emulate(ref, dist, &in_order).noise, expected));
  EXPECT_TRUE(in_order);
  std::uint64_t total = 0;
  for (const std::uint64_t row : emulate_rows(ref, dist)) total += row;
  EXPECT_NE(static_cast<double>(total) / 65536.0, expected);
}

HARNESS_DEVICE_FIXTURE(float_psnr);

// The stage contract (frames submitted one ahead, as the Scorer runs them):
// every frame's sums == the CPU stage's.
TEST_F(float_psnr_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0xF951);
  std::vector<Size> sizes = kSizes;
  sizes.insert(sizes.end(), {{1920, 1080}, {1277, 719}});
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes) {
      const std::vector<HostFrame> frames =
          painted_clip(w, h, bpc, 4, 5, {1, Fill::kExtremes, false}, paint_edges_and_noise, rng);
      const PictureFormat format{w, h, bpc, ChromaFormat::k400};
      fp::FloatPsnrCpuStage cpu;
      cuda::float_psnr::FloatPsnrCudaStage twin(format, stream.get());
      expect_device_stage_equals_cpu<fp::FloatPsnrSums>(frames, cpu, twin, stream.get(),
                                                        case_label(w, h, bpc));
    }
  // Past 2^53 units (the planes summed on the host in libvmaf's order), then
  // an ordinary frame.
  std::vector<HostFrame> frames;
  for (unsigned f = 0; f < 2; ++f) {
    frames.push_back({test::TestPlane(kPastWidth, kPastHeight, 16),
                      test::TestPlane(kPastWidth, kPastHeight, 16)});
    if (f == 0)
      paint_past_2_53(frames.back().ref, frames.back().dist);
    else {
      paint_edges_and_noise(frames.back().ref, 3, Fill::kRandom, rng);
      paint_edges_and_noise(frames.back().dist, 4, Fill::kRandom, rng);
    }
  }
  fp::FloatPsnrCpuStage cpu;
  cuda::float_psnr::FloatPsnrCudaStage twin({kPastWidth, kPastHeight, 16, ChromaFormat::k400},
                                            stream.get());
  expect_device_stage_equals_cpu<fp::FloatPsnrSums>(frames, cpu, twin, stream.get(),
                                                    "past 2^53 units");
}

// The extractor on both backends: the same collector after every frame.
TEST_F(float_psnr_cuda_device, TwinEqualsTheCpu) {
  expect_extractor_with_every_option<FloatPsnrTwin>(
      {{1, 1}, {33, 35}, {97, 71}, {640, 360}}, {8u, 10u, 12u, 16u}, {FeatureOptions{}}, 0xF952);
}
