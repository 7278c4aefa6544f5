#include "thumbnails.h"

#include <cairo.h>
#include <gst/video/video.h>
#if VMAFEXACT_HAVE_CUDA
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif

#include <algorithm>
#include <cmath>
#include <memory>

namespace vmafexact::cli {
namespace {

cairo_status_t append_png(void* closure, const unsigned char* data, unsigned int length) {
  try {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  } catch (...) {  // no exception may cross cairo's C frames
    return CAIRO_STATUS_NO_MEMORY;
  }
}

// The output of a conversion: RGB `width` wide, its height from the display
// aspect ratio; progressive, at the rate of the input, as the rows read from
// it are (the converter wants them equal).
GstVideoInfo thumbnail_info(const GstVideoInfo& in, int width) {
  const double aspect = static_cast<double>(GST_VIDEO_INFO_HEIGHT(&in)) /
                        GST_VIDEO_INFO_WIDTH(&in) * GST_VIDEO_INFO_PAR_D(&in) /
                        std::max(1, GST_VIDEO_INFO_PAR_N(&in));
  const int height = std::clamp(static_cast<int>(std::lround(width * aspect / 2)) * 2, 2, 4 * width);
  GstVideoInfo out;
  gst_video_info_set_format(&out, GST_VIDEO_FORMAT_RGB, width, height);
  out.fps_n = in.fps_n;
  out.fps_d = in.fps_d;
  return out;
}

}  // namespace

GstStructure* thumbnail_converter_config() {
  return gst_structure_new(
      "GstVideoConverter", GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD,
      GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_NEAREST,
      GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
      GST_VIDEO_RESAMPLER_METHOD_NEAREST, GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
      GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_CHROMA_MODE,
      GST_TYPE_VIDEO_CHROMA_MODE, GST_VIDEO_CHROMA_MODE_NONE, GST_VIDEO_CONVERTER_OPT_THREADS,
      G_TYPE_UINT, 1u, nullptr);
}

// A frame of any raw format the element takes, as RGB kWidth wide (nearest
// sample: the cheapest that is still a recognisable picture). Nearest sampling
// reads one row in `step` (12 of a 1080-row picture for a 90-row thumbnail),
// so only those rows are read: on the host through the frame's strides
// times `step`, from CUDA memory by one strided copy per plane. The converter
// is made once per input format.
std::optional<Picture> ThumbnailCapture::Input::scaled_rgb(const GstVideoInfo& in,
                                                           GstBuffer* buffer, bool on_device) {
  if (GST_VIDEO_INFO_WIDTH(&in) <= 0 || GST_VIDEO_INFO_HEIGHT(&in) <= 0) return std::nullopt;
  const GstVideoInfo out_info = thumbnail_info(in, kWidth);
  const int step = std::max(1, GST_VIDEO_INFO_HEIGHT(&in) / GST_VIDEO_INFO_HEIGHT(&out_info));
  // The rows read, as a picture of their own: same format and width.
  GstVideoInfo rows;
  if (!gst_video_info_set_format(&rows, GST_VIDEO_INFO_FORMAT(&in), GST_VIDEO_INFO_WIDTH(&in),
                                 (GST_VIDEO_INFO_HEIGHT(&in) + step - 1) / step))
    return std::nullopt;
  rows.fps_n = in.fps_n;
  rows.fps_d = in.fps_d;
  if (!converter || !gst_video_info_is_equal(&rows, &converter_in) ||
      !gst_video_info_is_equal(&out_info, &converter_out)) {
    converter.reset();
    converter_in = rows;
    converter_out = out_info;
    converter.reset(
        gst_video_converter_new(&converter_in, &converter_out, thumbnail_converter_config()));
    if (!converter) return std::nullopt;
  }
  std::optional<Picture> picture;
  if (on_device) {
    std::vector<std::uint8_t> host = download_rows(in, rows, step, buffer);
    if (host.empty()) return std::nullopt;
    GstBuffer* wrapped = gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, host.data(),
                                                     host.size(), 0, host.size(), nullptr, nullptr);
    GstVideoFrame rows_frame;
    if (gst_video_frame_map(&rows_frame, &rows, wrapped, GST_MAP_READ)) {
      picture = convert(rows_frame);
      gst_video_frame_unmap(&rows_frame);
    }
    gst_buffer_unref(wrapped);
  } else {
    GstVideoFrame in_frame;
    if (!gst_video_frame_map(&in_frame, &in, buffer, GST_MAP_READ)) return std::nullopt;
    // The same memory seen as every step-th row: each plane's row r of this
    // view is its row r * step (for subsampled planes too: their row r goes
    // with the view's luma row r << shift, the picture's row (r * step) << shift).
    GstVideoFrame rows_view = in_frame;
    rows_view.info.height = GST_VIDEO_INFO_HEIGHT(&rows);
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&in); ++plane)
      rows_view.info.stride[plane] = GST_VIDEO_FRAME_PLANE_STRIDE(&in_frame, plane) * step;
    picture = convert(rows_view);
    gst_video_frame_unmap(&in_frame);
  }
  return picture;
}

std::optional<Picture> ThumbnailCapture::Input::convert(const GstVideoFrame& rows_frame) {
  GstVideoInfo out = converter_out;
  Picture picture{GST_VIDEO_INFO_WIDTH(&out), GST_VIDEO_INFO_HEIGHT(&out),
                  std::vector<std::uint8_t>(static_cast<std::size_t>(out.size))};
  GstBuffer* target = gst_buffer_new_wrapped_full(
      GST_MEMORY_FLAG_NO_SHARE, picture.rgb.data(), picture.rgb.size(), 0, picture.rgb.size(),
      nullptr, nullptr);
  bool done = false;
  GstVideoFrame out_frame;
  if (gst_video_frame_map(&out_frame, &out, target, GST_MAP_WRITE)) {
    gst_video_converter_frame(converter.get(), &rows_frame, &out_frame);
    gst_video_frame_unmap(&out_frame);
    done = true;
  }
  gst_buffer_unref(target);
  if (!done) return std::nullopt;
  // The frame's rows may be padded (stride): packed rows of width * 3.
  const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&out, 0);
  const int row_bytes = picture.width * 3;
  if (stride != row_bytes) {
    std::vector<std::uint8_t> packed(static_cast<std::size_t>(row_bytes) * picture.height);
    for (int row = 0; row < picture.height; ++row) {
      std::copy_n(picture.rgb.begin() + static_cast<std::ptrdiff_t>(row) * stride, row_bytes,
                  packed.begin() + static_cast<std::ptrdiff_t>(row) * row_bytes);
    }
    picture.rgb = std::move(packed);
  }
  return picture;
}

#if VMAFEXACT_HAVE_CUDA
namespace {

// The context of a buffer's CUDA memory made current for a scope.
class ContextScope {
 public:
  explicit ContextScope(GstCudaContext* context) : pushed_(gst_cuda_context_push(context)) {}
  ~ContextScope() {
    if (pushed_) gst_cuda_context_pop(nullptr);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  bool pushed() const { return pushed_; }

 private:
  bool pushed_;
};

}  // namespace

// Rows 0, step, 2 * step, ... of each plane of a frame in CUDA memory, into
// host memory laid out as `rows` says; empty when anything fails (the frame
// then has no thumbnail, the scoring goes on). The copy is synchronous and on
// CUDA's legacy stream, which the element's non-blocking streams do not wait
// for; the producer (NVDEC, cudaupload) has finished the frame when it pushes it.
std::vector<std::uint8_t> ThumbnailCapture::Input::download_rows(const GstVideoInfo& in,
                                                                 const GstVideoInfo& rows,
                                                                 int step, GstBuffer* buffer) {
  GstMemory* memory = gst_buffer_n_memory(buffer) > 0 ? gst_buffer_peek_memory(buffer, 0) : nullptr;
  if (memory == nullptr || !gst_is_cuda_memory(memory)) return {};
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &in, buffer,
                           static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA)))
    return {};
  std::vector<std::uint8_t> host(static_cast<std::size_t>(rows.size));
  bool copied = false;
  {
    const ContextScope scope(GST_CUDA_MEMORY_CAST(memory)->context);
    copied = scope.pushed();
    for (guint plane = 0; copied && plane < GST_VIDEO_INFO_N_PLANES(&in); ++plane) {
      // Every component of a plane has its height: the first one's.
      guint component = 0;
      while (component + 1 < static_cast<guint>(GST_VIDEO_INFO_N_COMPONENTS(&in)) &&
             GST_VIDEO_INFO_COMP_PLANE(&in, component) != plane)
        ++component;
      const int source_rows = GST_VIDEO_INFO_COMP_HEIGHT(&in, component);
      const int rows_read = std::min(GST_VIDEO_INFO_COMP_HEIGHT(&rows, component),
                                     (source_rows + step - 1) / step);
      const int source_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane);
      const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&rows, plane);
      if (source_stride <= 0 || rows_read <= 0) {
        copied = false;
        break;
      }
      // Within the source's pitch, which CUDA memory holds for every row.
      CUDA_MEMCPY2D copy{};
      copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.srcDevice = reinterpret_cast<CUdeviceptr>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane));
      copy.srcPitch = static_cast<std::size_t>(source_stride) * step;
      copy.dstMemoryType = CU_MEMORYTYPE_HOST;
      copy.dstHost = host.data() + GST_VIDEO_INFO_PLANE_OFFSET(&rows, plane);
      copy.dstPitch = static_cast<std::size_t>(stride);
      copy.WidthInBytes = static_cast<std::size_t>(std::min(source_stride, stride));
      copy.Height = static_cast<std::size_t>(rows_read);
      copied = CuMemcpy2D(&copy) == CUDA_SUCCESS;
    }
  }
  gst_video_frame_unmap(&frame);
  if (!copied) host.clear();
  return host;
}
#else
std::vector<std::uint8_t> ThumbnailCapture::Input::download_rows(const GstVideoInfo&,
                                                                 const GstVideoInfo&, int,
                                                                 GstBuffer*) {
  return {};  // a build without CUDA gets no CUDA memory
}
#endif

std::string encode_png(const Picture& picture) {
  if (picture.width <= 0 || picture.height <= 0 ||
      picture.rgb.size() < static_cast<std::size_t>(picture.width) * 3 * picture.height)
    return {};
  const int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, picture.width);
  std::vector<unsigned char> pixels(static_cast<std::size_t>(stride) * picture.height);
  for (int row = 0; row < picture.height; ++row) {
    auto* out = reinterpret_cast<std::uint32_t*>(pixels.data() + static_cast<std::size_t>(row) * stride);
    const std::uint8_t* in = picture.rgb.data() + static_cast<std::size_t>(row) * picture.width * 3;
    for (int column = 0; column < picture.width; ++column, in += 3) {
      out[column] = (std::uint32_t{in[0]} << 16) | (std::uint32_t{in[1]} << 8) | in[2];
    }
  }
  const std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
      cairo_image_surface_create_for_data(pixels.data(), CAIRO_FORMAT_RGB24, picture.width,
                                          picture.height, stride),
      &cairo_surface_destroy);
  std::string bytes;
  if (cairo_surface_write_to_png_stream(surface.get(), append_png, &bytes) != CAIRO_STATUS_SUCCESS)
    return {};
  return bytes;
}

void PictureRing::put(std::uint64_t running_time, Picture picture) {
  if (capacity_ == 0) return;
  if (entries_.size() == capacity_) entries_.pop_front();
  entries_.emplace_back(running_time, std::move(picture));
}

std::optional<Picture> PictureRing::nearest(std::uint64_t running_time,
                                            std::uint64_t tolerance) const {
  const std::pair<std::uint64_t, Picture>* best = nullptr;
  std::uint64_t best_distance = 0;
  for (const auto& entry : entries_) {
    const std::uint64_t distance =
        entry.first > running_time ? entry.first - running_time : running_time - entry.first;
    if (best == nullptr || distance < best_distance) {
      best = &entry;
      best_distance = distance;
    }
  }
  if (best == nullptr || best_distance > tolerance) return std::nullopt;
  return best->second;
}

bool WorstFrameSelector::wants(std::uint64_t frame, double score) const {
  if (count_ == 0 || !std::isfinite(score)) return false;
  if (kept_.size() < count_) return true;
  // Better than the best kept: lower score, or the same and earlier.
  const auto best = std::max_element(kept_.begin(), kept_.end(), [](const Kept& a, const Kept& b) {
    return a.score != b.score ? a.score < b.score : a.frame < b.frame;
  });
  return score < best->score || (score == best->score && frame < best->frame);
}

void WorstFrameSelector::offer(Kept candidate) {
  if (!wants(candidate.frame, candidate.score)) return;
  if (kept_.size() == count_) {
    const auto best =
        std::max_element(kept_.begin(), kept_.end(), [](const Kept& a, const Kept& b) {
          return a.score != b.score ? a.score < b.score : a.frame < b.frame;
        });
    *best = std::move(candidate);
  } else {
    kept_.push_back(std::move(candidate));
  }
}

std::vector<WorstFrameSelector::Kept> WorstFrameSelector::worst() const {
  std::vector<Kept> sorted = kept_;
  std::sort(sorted.begin(), sorted.end(), [](const Kept& a, const Kept& b) {
    return a.score != b.score ? a.score < b.score : a.frame < b.frame;
  });
  return sorted;
}

ThumbnailCapture::ThumbnailCapture(GstElement* element, std::string score,
                                   std::size_t worst_count)
    : element_(element), score_(std::move(score)), selector_(worst_count) {
  if (worst_count == 0) return;
  const char* names[2] = {"ref_sink", "dist_sink"};
  for (int at = 0; at < 2; ++at) {
    inputs_[at].pad = gst_element_get_static_pad(element, names[at]);
    if (inputs_[at].pad == nullptr) continue;
    inputs_[at].probe =
        gst_pad_add_probe(inputs_[at].pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, this, nullptr);
  }
}

ThumbnailCapture::~ThumbnailCapture() {
  for (Input& input : inputs_) {
    if (input.pad == nullptr) continue;
    if (input.probe != 0) gst_pad_remove_probe(input.pad, input.probe);
    gst_object_unref(input.pad);
  }
}

GstPadProbeReturn ThumbnailCapture::on_buffer(GstPad* pad, GstPadProbeInfo* info, gpointer self) {
  auto* capture = static_cast<ThumbnailCapture*>(self);
  Input& input = pad == capture->inputs_[0].pad ? capture->inputs_[0] : capture->inputs_[1];
  if (GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info)) {
    try {
      capture->capture(input, pad, buffer);
    } catch (...) {  // a missing thumbnail never stops the scoring
    }
  }
  return GST_PAD_PROBE_OK;
}

void ThumbnailCapture::capture(Input& input, GstPad* pad, GstBuffer* buffer) {
  GstCaps* caps = gst_pad_get_current_caps(pad);
  GstEvent* segment_event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
  GstVideoInfo info;
  // System memory, or CUDA memory (of which only the sampled rows come back).
  const GstCapsFeatures* features =
      caps != nullptr && gst_caps_get_size(caps) > 0 ? gst_caps_get_features(caps, 0) : nullptr;
  const bool on_device =
      features != nullptr && gst_caps_features_contains(features, "memory:CUDAMemory");
  const bool have_info =
      features != nullptr &&
      (on_device ||
       gst_caps_features_is_equal(features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) &&
      gst_video_info_from_caps(&info, caps);
  if (caps != nullptr) gst_caps_unref(caps);
  GstClockTime running_time = GST_BUFFER_PTS(buffer);
  if (segment_event != nullptr) {
    const GstSegment* segment = nullptr;
    gst_event_parse_segment(segment_event, &segment);
    if (segment != nullptr && GST_CLOCK_TIME_IS_VALID(running_time))
      running_time = gst_segment_to_running_time(segment, GST_FORMAT_TIME, running_time);
    gst_event_unref(segment_event);
  }
  if (!have_info || !GST_CLOCK_TIME_IS_VALID(running_time)) return;
  std::optional<Picture> picture = input.scaled_rgb(info, buffer, on_device);
  if (!picture) return;
  const std::lock_guard lock(mutex_);
  input.ring.put(running_time, std::move(*picture));
}

void ThumbnailCapture::on_message(GstMessage* message) {
  if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_ELEMENT ||
      GST_MESSAGE_SRC(message) != GST_OBJECT(element_))
    return;
  on_frame(gst_message_get_structure(message));
}

void ThumbnailCapture::on_frame(const GstStructure* structure) {
  if (structure == nullptr || !gst_structure_has_name(structure, "vmafexact-frame")) return;
  guint64 index = 0;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  double score = 0;
  if (!gst_structure_get_uint64(structure, "index", &index) ||
      !gst_structure_get_double(structure, score_.c_str(), &score))
    return;
  gst_structure_get_clock_time(structure, "running-time", &running_time);
  gst_structure_get_clock_time(structure, "duration", &duration);
  const std::lock_guard lock(mutex_);
  if (!selector_.wants(index, score)) return;
  WorstFrameSelector::Kept kept{index, score, {}, {}};
  if (GST_CLOCK_TIME_IS_VALID(running_time)) {
    // Within half a frame (the reference is paired by running time with the
    // distorted frame); 20 ms when the duration is not known.
    const std::uint64_t tolerance = GST_CLOCK_TIME_IS_VALID(duration) ? duration / 2 : 20'000'000;
    if (auto picture = inputs_[0].ring.nearest(running_time, tolerance))
      kept.reference = std::move(*picture);
    if (auto picture = inputs_[1].ring.nearest(running_time, tolerance))
      kept.distorted = std::move(*picture);
  }
  selector_.offer(std::move(kept));
}

std::vector<report::WorstFrame> ThumbnailCapture::worst_frames(double frame_rate) const {
  std::vector<WorstFrameSelector::Kept> kept;
  {
    const std::lock_guard lock(mutex_);
    kept = selector_.worst();
  }
  std::vector<report::WorstFrame> frames;
  for (const WorstFrameSelector::Kept& entry : kept) {
    report::WorstFrame frame;
    frame.frame = entry.frame;
    frame.score = entry.score;
    frame.time_s = frame_rate > 0 ? static_cast<double>(entry.frame) / frame_rate : report::kUnknown;
    frame.reference = {encode_png(entry.reference), entry.reference.width, entry.reference.height};
    frame.distorted = {encode_png(entry.distorted), entry.distorted.width, entry.distorted.height};
    if (frame.reference.png.empty()) frame.reference = {};
    if (frame.distorted.png.empty()) frame.distorted = {};
    frames.push_back(std::move(frame));
  }
  return frames;
}

std::size_t ThumbnailCapture::pictures_held() const {
  const std::lock_guard lock(mutex_);
  std::size_t held = inputs_[0].ring.size() + inputs_[1].ring.size();
  for (const WorstFrameSelector::Kept& entry : selector_.worst()) {
    held += entry.reference.rgb.empty() ? 0 : 1;
    held += entry.distorted.rgb.empty() ? 0 : 1;
  }
  return held;
}

}  // namespace vmafexact::cli
