// The CUDA twin of PSNR ("psnr", cuda/psnr/) against the CPU path with the
// scalar table, on a device (psnr_cuda_device; skipped without one). PSNR's
// kernel has no host emulation: its integer sums are exact in any order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_util.h"
#include "common/device_picture.h"
#include "harness.h"
#include "synthetic_clip.h"
#include "psnr/psnr.h"
#include "psnr/psnr_cuda.h"
#include "psnr/psnr_cuda_stage.h"
#include "psnr/psnr_dsp.h"
#include "psnr/psnr_extractor.h"

using namespace vmafexact;
using namespace vmafexact::harness;

namespace {

HARNESS_DEVICE_FIXTURE(psnr);

using test::Clip;
using test::make_clip;

}  // namespace

TEST_F(psnr_cuda_device, PsnrSumsEqualTheCpu) {
  cuda::Stream stream;
  cuda::DeviceBuffer<unsigned long long> sums(1);
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : {std::pair{17u, 17u}, {1u, 5u}, {33u, 19u}, {1919u, 1081u}, {3840u, 2160u}}) {
      const Clip clip = make_clip({w, h, bpc, ChromaFormat::k420}, 1, w * 31 + h + bpc);
      const PictureView ref = clip.view(clip.ref_planes, 0), dist = clip.view(clip.dist_planes, 0);
      cuda::DevicePicture ref_device, dist_device;
      ref_device.upload(ref, stream.get());
      dist_device.upload(dist, stream.get());
      for (unsigned p = 0; p < 3; ++p) {
        unsigned long long gpu_sum = 0;
        cuda::check(cudaMemsetAsync(sums.data(), 0, sizeof(unsigned long long), stream.get()), "memset");
        cuda::psnr::enqueue_plane_sse(ref_device.view().planes[p], dist_device.view().planes[p], bpc,
                                      sums.data(), stream.get());
        cuda::check(cudaMemcpyAsync(&gpu_sum, sums.data(), sizeof gpu_sum, cudaMemcpyDeviceToHost,
                                    stream.get()), "copy");
        stream.synchronize();
        EXPECT_EQ(gpu_sum, psnr::plane_sse(ref.planes[p], dist.planes[p], bpc, psnr::psnr_dsp_scalar()))
            << w << "x" << h << " " << bpc << "-bit plane " << p;
      }
    }
}

TEST_F(psnr_cuda_device, PsnrSumsWrapLikeLibvmafInWideRows) {
  // 66052 maximal 8-bit errors in one row overflow libvmaf's 32-bit row sum.
  const unsigned width = 66052;
  std::vector<std::uint8_t> ref(width, 255), dist(width, 0);
  const PlaneView ref_plane{ref.data(), width, width, 1}, dist_plane{dist.data(), width, width, 1};
  PictureView ref_view, dist_view;
  ref_view.bpc = dist_view.bpc = 8;
  ref_view.chroma = dist_view.chroma = ChromaFormat::k400;
  ref_view.width = dist_view.width = width;
  ref_view.height = dist_view.height = 1;
  ref_view.planes[0] = ref_plane;
  dist_view.planes[0] = dist_plane;
  cuda::Stream stream;
  cuda::DevicePicture ref_device, dist_device;
  ref_device.upload(ref_view, stream.get());
  dist_device.upload(dist_view, stream.get());
  cuda::DeviceBuffer<unsigned long long> sums(1);
  cuda::check(cudaMemsetAsync(sums.data(), 0, sizeof(unsigned long long), stream.get()), "memset");
  cuda::psnr::enqueue_plane_sse(ref_device.view().planes[0], dist_device.view().planes[0], 8,
                                sums.data(), stream.get());
  unsigned long long gpu_sum = 0;
  cuda::check(cudaMemcpyAsync(&gpu_sum, sums.data(), sizeof gpu_sum, cudaMemcpyDeviceToHost, stream.get()), "copy");
  stream.synchronize();
  EXPECT_EQ(gpu_sum, psnr::plane_sse(ref_plane, dist_plane, 8, psnr::psnr_dsp_scalar()));
}

// The stages of the contract: PsnrCudaStage against PsnrCpuStage with the
// scalar table, every plane of 4:2:0 and 4:4:4 pictures (or luma only, the
// chroma left out), frames submitted ahead.
TEST_F(psnr_cuda_device, StageEqualsTheCpuStage) {
  cuda::Stream stream;
  for (const unsigned bpc : {8u, 10u, 12u, 16u})
    for (const auto& [w, h] : {std::pair{3u, 3u}, {17u, 9u}, {331u, 177u}, {1921u, 33u}})
      for (const ChromaFormat chroma : {ChromaFormat::k420, ChromaFormat::k444})
        for (const bool with_chroma : {true, false}) {
          // enable_chroma=false: luma only, and the element then leaves the
          // chroma planes out (null), here on the host and on the device.
          const Clip clip = make_clip({w, h, bpc, chroma}, 3, w + h * 3 + bpc);
          const auto picture = [&](const auto& planes, unsigned f) {
            PictureView view = clip.view(planes, f);
            if (!with_chroma) view.planes[1].data = view.planes[2].data = nullptr;
            return view;
          };
          psnr::PsnrCpuStage cpu(psnr::psnr_dsp_scalar(), with_chroma);
          cuda::psnr::PsnrCudaStage twin(stream.get(), with_chroma);
          std::vector<cuda::DevicePicture> refs(3), dists(3);
          for (unsigned f = 0; f < 3; ++f) {
            refs[f].upload(picture(clip.ref_planes, f), stream.get());
            dists[f].upload(picture(clip.dist_planes, f), stream.get());
          }
          twin.submit(refs[0].view(), dists[0].view(), 0);
          for (unsigned f = 0; f < 3; ++f) {
            if (f + 1 < 3) twin.submit(refs[f + 1].view(), dists[f + 1].view(), f + 1);
            const auto expected =
                cpu.compute(picture(clip.ref_planes, f), picture(clip.dist_planes, f), f);
            EXPECT_TRUE(twin.compute(refs[f].view(), dists[f].view(), f) == expected)
                << w << "x" << h << " " << bpc << "-bit " << chroma_format_name(chroma)
                << (with_chroma ? "" : " luma only") << " frame " << f;
          }
        }
}

namespace {

// --bench: the device stage per frame (three planes' sums and their
// read-back, pictures already on the device), on the host clock.
const BenchRegistration psnr_cuda_bench({{"psnr", "cuda_device", [](unsigned w, unsigned h,
                                                                      unsigned bpc)
                                              -> std::function<void()> {
  if (!cuda_skip_reason().empty()) return nullptr;
  struct State {
    cuda::Stream stream;
    cuda::DevicePicture ref, dist;
    std::unique_ptr<cuda::psnr::PsnrCudaStage> stage;
    unsigned frame = 0;
  };
  auto state = std::make_shared<State>();
  const Clip clip = make_clip({w, h, bpc, ChromaFormat::k420}, 1, 5);
  state->ref.upload(clip.view(clip.ref_planes, 0), state->stream.get());
  state->dist.upload(clip.view(clip.dist_planes, 0), state->stream.get());
  state->stage = std::make_unique<cuda::psnr::PsnrCudaStage>(state->stream.get());
  return [state] { state->stage->compute(state->ref.view(), state->dist.view(), state->frame++); };
}}});

}  // namespace
