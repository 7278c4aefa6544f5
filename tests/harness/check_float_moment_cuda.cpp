// The CUDA twin of float_moment (cuda/float_moment/) against the CPU path.
//  - float_moment_cuda_emulation: no device needed (runs in CI). The row
//    kernel's four totals per row computed on the host with its own
//    per-thread functions (float_sums_pixel.h's row_sample_total() and
//    row_square_total() over every kRowTotalThreads-th column, the threads'
//    totals added), laid out as the kernel writes them and finished by the
//    stage's own sums_of_rows(): the four sums must be the CPU stage's bit
//    for bit, also past 2^53 units (where libvmaf's double rounds and the
//    stage sums the plane in libvmaf's order).
//  - float_moment_cuda_device: the stage and the extractor on a device
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
#include "float_moment/float_moment.h"
#include "float_moment/float_moment_cuda_stage.h"
#include "harness.h"

using namespace vmafexact;
using namespace vmafexact::harness;
using test::Fill;
namespace fm = vmafexact::float_moment;

namespace {

template <class Sample>
void add_row_totals(const test::TestPlane& ref, const test::TestPlane& dist, unsigned y,
                    std::vector<std::uint64_t>& rows) {
  const std::size_t h = ref.height();
  const Sample* r = ref.plane().row<Sample>(y);
  const Sample* d = dist.plane().row<Sample>(y);
  const Sample* none = nullptr;
  const unsigned w = ref.width();
  for (unsigned thread = 0; thread < cuda::kRowTotalThreads; ++thread) {
    rows[y] += float_sums::row_sample_total(r, w, thread, cuda::kRowTotalThreads);
    rows[h + y] += float_sums::row_sample_total(d, w, thread, cuda::kRowTotalThreads);
    rows[2 * h + y] += float_sums::row_square_total(r, none, w, thread, cuda::kRowTotalThreads);
    rows[3 * h + y] += float_sums::row_square_total(d, none, w, thread, cuda::kRowTotalThreads);
  }
}

// The row kernel on the host, in its layout: four arrays of `height` totals.
std::vector<std::uint64_t> emulate_rows(const test::TestPlane& ref, const test::TestPlane& dist) {
  std::vector<std::uint64_t> rows(4 * std::size_t{ref.height()});
  for (unsigned y = 0; y < ref.height(); ++y)
    ref.bpc() == 8 ? add_row_totals<std::uint8_t>(ref, dist, y, rows)
                   : add_row_totals<std::uint16_t>(ref, dist, y, rows);
  return rows;
}

// The stage's finish of the emulated rows; counts the planes summed in order.
fm::FloatMomentSums emulate(const test::TestPlane& ref, const test::TestPlane& dist,
                            unsigned* in_order = nullptr) {
  return cuda::float_moment::FloatMomentCudaStage::sums_of_rows(
      emulate_rows(ref, dist), ref.height(), ref.bpc(), [&](int plane) {
        if (in_order) ++*in_order;
        return float_square_sum_in_order((plane == 0 ? ref : dist).plane(), nullptr, ref.bpc());
      });
}

::testing::AssertionResult same_sums(const fm::FloatMomentSums& a, const fm::FloatMomentSums& b) {
  const double x[] = {a.ref_first, a.dist_first, a.ref_second, a.dist_second};
  const double y[] = {b.ref_first, b.dist_first, b.ref_second, b.dist_second};
  for (int k = 0; k < 4; ++k)
    if (!same(x[k], y[k]))
      return ::testing::AssertionFailure()
             << "sum " << k << std::hexfloat << ": " << x[k] << " vs " << y[k];
  return ::testing::AssertionSuccess();
}

// A 16-bit plane whose squares pass 2^53 units in its first rows
// (full-scale samples), then add odd units one by one (samples 1 and 3),
// which libvmaf's double, past 2^53, rounds to even: its sum is not the
// exact total.
void paint_past_2_53(test::TestPlane& plane) {
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x)
      plane.set(x, y, y + 8 >= plane.height() ? 1u + (x % 2) * 2 : 65535u);
}
constexpr unsigned kPastWidth = 2048, kPastHeight = 1040;

const std::vector<Size> kSizes = {{1, 1},   {2, 3},   {3, 1},   {5, 5},    {17, 9},
                                  {33, 31}, {64, 48}, {255, 3}, {257, 19}, {131, 67}};

// float_moment's parts, for the extractor check (device_stage.h).
struct FloatMomentTwin {
  static constexpr const char* kFeature = "float_moment";
  static void paint(test::TestPlane& plane, unsigned seed, Fill fill, std::mt19937_64& rng) {
    paint_edges_and_noise(plane, seed, fill, rng);
  }
};

}  // namespace

TEST(float_moment_cuda_emulation, SumsEqualTheCpu) {
  std::mt19937_64 rng(seed() ^ 0xF30);
  unsigned compared = 0;
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : kSizes)
      for (const Fill fill : {Fill::kRandom, Fill::kExtremes, Fill::kFullRange}) {
        test::TestPlane ref(w, h, bpc), dist(w, h, bpc);
        paint_edges_and_noise(ref, 1, fill, rng);
        paint_edges_and_noise(dist, 2, fill, rng);
        fm::FloatMomentCpuStage cpu;
        EXPECT_TRUE(same_sums(emulate(ref, dist), cpu.compute(ref.view(), dist.view(), 0)))
            << case_label(w, h, bpc);
        ++compared;
      }
  EXPECT_GT(compared, 100u);
}

// Past 2^53 units (the reference only): the stage sums that plane in
// libvmaf's order, and that is not the exact total's double (so a stage that
// skipped it would fail here).
TEST(float_moment_cuda_emulation, SecondMomentPast2To53EqualsTheCpu) {
  std::mt19937_64 rng(seed() ^ 0xF31);
  test::TestPlane ref(kPastWidth, kPastHeight, 16), dist(kPastWidth, kPastHeight, 16);
  paint_past_2_53(ref);
  paint_edges_and_noise(dist, 2, Fill::kRandom, rng);
  fm::FloatMomentCpuStage cpu;
  const fm::FloatMomentSums expected = cpu.compute(ref.view(), dist.view(), 0);
  unsigned in_order = 0;
  EXPECT_TRUE(same_sums(emulate(ref, dist, &in_order), expected));
  EXPECT_EQ(in_order, 1u);
  const auto rows = emulate_rows(ref, dist);
  std::uint64_t total = 0;
  for (unsigned y = 0; y < kPastHeight; ++y) total += rows[2 * kPastHeight + y];
  EXPECT_NE(static_cast<double>(total) / 65536.0, expected.ref_second);
}

HARNESS_DEVICE_FIXTURE(float_moment);

// The stage contract (frames submitted one ahead, as the Scorer runs them):
// every frame's sums == the CPU stage's.
TEST_F(float_moment_cuda_device, StageContractEqualsTheCpuStage) {
  cuda::Stream stream;
  std::mt19937_64 rng(seed() ^ 0xF301);
  std::vector<Size> sizes = kSizes;
  sizes.insert(sizes.end(), {{1920, 1080}, {1277, 719}});
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : sizes) {
      const std::vector<HostFrame> frames =
          painted_clip(w, h, bpc, 4, 5, {1, Fill::kExtremes, false}, paint_edges_and_noise, rng);
      const PictureFormat format{w, h, bpc, ChromaFormat::k400};
      fm::FloatMomentCpuStage cpu;
      cuda::float_moment::FloatMomentCudaStage twin(format, stream.get());
      expect_device_stage_equals_cpu<fm::FloatMomentSums>(frames, cpu, twin, stream.get(),
                                                          case_label(w, h, bpc));
    }
  // Past 2^53 units in the distorted plane, then in the reference (each
  // summed on the host in libvmaf's order).
  std::vector<HostFrame> frames;
  for (unsigned f = 0; f < 2; ++f) {
    frames.push_back({test::TestPlane(kPastWidth, kPastHeight, 16),
                      test::TestPlane(kPastWidth, kPastHeight, 16)});
    paint_edges_and_noise(f == 0 ? frames.back().ref : frames.back().dist, f, Fill::kRandom, rng);
    paint_past_2_53(f == 0 ? frames.back().dist : frames.back().ref);
  }
  fm::FloatMomentCpuStage cpu;
  cuda::float_moment::FloatMomentCudaStage twin({kPastWidth, kPastHeight, 16, ChromaFormat::k400},
                                                stream.get());
  expect_device_stage_equals_cpu<fm::FloatMomentSums>(frames, cpu, twin, stream.get(),
                                                      "past 2^53 units");
}

// The extractor on both backends: the same collector after every frame.
TEST_F(float_moment_cuda_device, TwinEqualsTheCpu) {
  expect_extractor_with_every_option<FloatMomentTwin>(
      {{1, 1}, {33, 35}, {97, 71}, {640, 360}}, {8u, 10u, 12u, 16u}, {FeatureOptions{}}, 0xF302);
}
