#include "cuda_frame_source.h"

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "common/device_picture.h"
#include "common/repack.h"
#include "cuda_backend.h"
#include "element_debug.h"

namespace vmafexact::gst {
namespace {

// A frame on the device: in place in its CUDA memory (mapped), or its device
// planes (repacked, or uploaded from the host planes, which must live until
// the upload has run).
struct CudaFrame final : SourceFrame {
  std::unique_ptr<MappedVideoFrame> map;
  ScratchPlanes host_planes;
  cuda::DevicePicture upload;
  std::array<cuda::DeviceBuffer<std::uint8_t>, 3> repacked;
  void release_buffer() override { map.reset(); }
};

class CudaFrameSource final : public FrameSource {
 public:
  CudaFrameSource(GstCudaContext* context, cudaStream_t stream)
      : context_(context), stream_(stream) {}

  std::unique_ptr<SourceFrame> read(GstBuffer* buffer, const GstVideoInfo& info,
                                    const PictureFormat& format, ReadMode mode) override;

 private:
  // The frame's view on the device; without `chroma` its chroma planes are
  // left out (null, not repacked).
  PictureView device_view(CudaFrame& frame, const PictureFormat& format, bool chroma);
  GstCudaContext* context_;  // the scoring device's; outlives the source
  cudaStream_t stream_;
  bool told_ = false;  // the first frame's path is logged
};

std::unique_ptr<SourceFrame> CudaFrameSource::read(GstBuffer* buffer, const GstVideoInfo& info,
                                                   const PictureFormat& format, ReadMode mode) {
  // mode.detach does not apply: the device's scorer reads each frame before
  // the next push returns.
  auto frame = reuse<CudaFrame>();
  // CUDA memory of the scoring context is read in place on the device;
  // anything else is mapped on the host and uploaded.
  const bool on_device = is_cuda_buffer_of(buffer, context_);
  const auto flags = static_cast<GstMapFlags>(GST_MAP_READ | (on_device ? GST_MAP_CUDA : 0));
  frame->map = map_video_frame(info, buffer, flags);
  if (!frame->map) return nullptr;
  if (!told_) {
    GST_INFO("%s frames: %s", GST_VIDEO_INFO_NAME(&info),
             on_device ? "CUDA memory read in place" : "read on the host and uploaded");
    told_ = true;
  }
  if (on_device) {
    frame->view = device_view(*frame, format, mode.chroma);
  } else {
    frame->upload.upload(
        picture_view_of(frame->map->frame(), format, frame->host_planes, false, mode.chroma),
        stream_);
    frame->view = frame->upload.view();
  }
  return frame;
}

PictureView CudaFrameSource::device_view(CudaFrame& frame, const PictureFormat& format,
                                         bool chroma) {
  // On the device: a plane not viewed in place is repacked on the stream into
  // a pitched device plane (rows of 256-byte multiples).
  return view_planes(frame.map->frame(), format, chroma, true,
                     [&](unsigned c, const ComponentLayout& layout, PlaneView& plane) {
                       const unsigned sample_bytes = layout.sample_bytes;
                       const std::ptrdiff_t pitch = (plane.width * sample_bytes + 255) / 256 * 256;
                       frame.repacked[c].resize(static_cast<std::size_t>(pitch) *
                                                (plane.height ? plane.height : 1));
                       cuda::enqueue_repack_component(layout.data, layout.stride,
                                                      layout.pixel_stride, sample_bytes,
                                                      layout.shift, plane.width, plane.height,
                                                      frame.repacked[c].data(), pitch, stream_);
                       plane.data = frame.repacked[c].data();
                       plane.stride = pitch;
                     });
}

// The frames kept in flight on the device: the property's (at most
// cuda::kFrameSlots), else VMAFEXACT_CUDA_FRAMES (1 to cuda::kFrameSlots: a
// knob for the tools and the bench, docs/cuda.md), else the backend's default.
unsigned cuda_frames_in_flight(unsigned requested) {
  if (requested > 0) return std::min(requested, cuda::kFrameSlots);
  const char* value = std::getenv("VMAFEXACT_CUDA_FRAMES");
  if (!value || !*value) return cuda::CudaBackend::kDefaultFramesInFlight;
  char* end = nullptr;
  const unsigned long frames = std::strtoul(value, &end, 10);
  if (*end != '\0' || frames < 1 || frames > cuda::kFrameSlots)
    throw Error(std::string("VMAFEXACT_CUDA_FRAMES=") + value + ": give 1 to " +
                std::to_string(cuda::kFrameSlots) + " frames in flight, or unset it");
  return static_cast<unsigned>(frames);
}

class CudaDevice final : public ScoringDevice {
 public:
  CudaDevice(GstCudaContext* context, unsigned frames)
      : context_(static_cast<GstCudaContext*>(gst_object_ref(context))) {
    CudaContextScope scope(context_.get());
    backend_ = std::make_unique<cuda::CudaBackend>(cuda_frames_in_flight(frames));
    // The device by name in the provenance of messages and logs.
    int device = 0;
    cudaDeviceProp properties{};
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaGetDeviceProperties(&properties, device) == cudaSuccess)
      name_ += std::string(": ") + properties.name + ", device " + std::to_string(device);
  }
  // The twins' memory and the stream go with the context current.
  ~CudaDevice() override {
    CudaContextScope scope(context_.get());
    backend_.reset();
  }
  const char* name() const override { return name_.c_str(); }
  void configure(ScorerOptions& options) override {
    options.overlap_frames = backend_->frames_in_flight() - 1;
    options.threads = 1;  // the twins share one stream
    options.make_extractor = [backend = backend_.get()](std::string_view name,
                                                        const FeatureOptions& opts) {
      return backend->make_extractor(name, opts);
    };
  }
  std::unique_ptr<FrameSource> make_source() override {
    return std::make_unique<CudaFrameSource>(context_.get(), backend_->stream());
  }
  std::unique_ptr<Scope> enter() override {
    return std::make_unique<CudaContextScope>(context_.get());
  }

 private:
  CudaContextRef context_;  // its own reference: the element may drop its own at stop
  std::unique_ptr<cuda::CudaBackend> backend_;
  std::string name_ = "GPU (CUDA)";
};

}  // namespace

void CudaContextRef::reset(GstCudaContext* owned) {
  if (context_) gst_object_unref(context_);
  context_ = owned;
}

CudaContextScope::CudaContextScope(GstCudaContext* context) {
  pushed_ = context && gst_cuda_context_push(context);
}

CudaContextScope::~CudaContextScope() {
  if (pushed_) gst_cuda_context_pop(nullptr);
}

GstCudaContext* cuda_context_of(GstBuffer* buffer) {
  if (gst_buffer_n_memory(buffer) != 1) return nullptr;
  GstMemory* memory = gst_buffer_peek_memory(buffer, 0);
  return gst_is_cuda_memory(memory) ? GST_CUDA_MEMORY_CAST(memory)->context : nullptr;
}

bool is_cuda_buffer_of(GstBuffer* buffer, GstCudaContext* context) {
  return context && cuda_context_of(buffer) == context;
}

int cuda_device_of(GstCudaContext* context) {
  guint device_id = 0;
  g_object_get(context, "cuda-device-id", &device_id, nullptr);
  return static_cast<int>(device_id);
}

std::unique_ptr<ScoringDevice> make_cuda_device(GstCudaContext* context, unsigned frames) {
  return std::make_unique<CudaDevice>(context, frames);
}

}  // namespace vmafexact::gst
