// Fuzz target: the caps of a CAPS event as the element meets them (any video
// format GStreamer knows, any size, interlacing, frame rate, memory feature),
// turned into a GstVideoInfo by GStreamer, then mapped by the element onto a
// picture format (video_picture.h), described for messages, and, for small
// pictures, a buffer of that layout filled with the fuzzer's bytes is mapped
// and viewed as libvmaf's planes (repacking semi-planar and shifted samples),
// then a buffer whose video meta's offsets and strides are the fuzzer's
// (planes_outside_memory() must keep every read inside it).
//
// Input: format (1 byte: an index into gst_video_formats_raw()), width and height (4 bytes each,
// little-endian), interlace mode, frame rate numerator and denominator (1 byte each), memory
// feature (1 byte), then the samples.
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "video_picture.h"

namespace {

struct Reader {
  const std::uint8_t* data;
  std::size_t size;
  std::uint32_t next(unsigned bytes) {
    std::uint32_t value = 0;
    for (unsigned i = 0; i < bytes && size > 0; ++i, ++data, --size)
      value |= std::uint32_t{*data} << (8 * i);
    return value;
  }
};

constexpr const char* kInterlaceModes[] = {"progressive", "interleaved", "mixed", "fields",
                                           "alternate"};

// Reads every sample the metrics would read of a view.
void read_all(const vmafexact::PictureView& view, unsigned bpc) {
  unsigned sum = 0;
  const unsigned sample_bytes = bpc > 8 ? 2 : 1;
  for (unsigned p = 0; p < view.plane_count(); ++p)
    for (unsigned y = 0; y < view.planes[p].height; ++y)
      for (unsigned x = 0; x < view.planes[p].width * sample_bytes; ++x)
        sum += view.planes[p].data[y * view.planes[p].stride + x];
  [[maybe_unused]] static volatile unsigned sink = 0;
  sink = sum;
}

// A buffer of any size whose video meta has the next bytes' offsets and
// strides (2 bytes each, strides signed), as a buggy or hostile upstream may
// send: the element reads it only when planes_outside_memory() finds every
// plane inside, and then must not read past it (ASan watches).
void view_with_video_meta(const GstVideoInfo& info, const vmafexact::PictureFormat& picture,
                          Reader in) {
  const std::size_t size = in.next(2) + 1;
  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
  const guint planes = GST_VIDEO_INFO_N_PLANES(&info);
  for (guint p = 0; p < planes; ++p) {
    offsets[p] = in.next(2);
    strides[p] = static_cast<std::int16_t>(in.next(2));
  }
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, size, nullptr);
  gst_buffer_memset(buffer, 0, 0x5a, size);
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                 GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info), planes,
                                 offsets, strides);
  GstVideoInfo map_info = info;
  GstVideoFrame frame;
  if (gst_video_frame_map(&frame, &map_info, buffer, GST_MAP_READ)) {
    if (vmafexact::gst::planes_outside_memory(frame).empty()) {
      vmafexact::gst::ScratchPlanes scratch;
      read_all(vmafexact::gst::picture_view_of(frame, picture, scratch), picture.bpc);
    }
    gst_video_frame_unmap(&frame);
  }
  gst_buffer_unref(buffer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool initialised = [] {
    gst_init(nullptr, nullptr);
    return true;
  }();
  (void)initialised;
  Reader in{data, size};
  // Any raw format GStreamer knows (the first byte picks one of its list).
  guint format_count = 0;
  const GstVideoFormat* formats = gst_video_formats_raw(&format_count);
  const GstVideoFormat format = formats[in.next(1) % format_count];
  const char* format_name = gst_video_format_to_string(format);
  const auto width = static_cast<gint>(in.next(4) & 0x7fffffff);
  const auto height = static_cast<gint>(in.next(4) & 0x7fffffff);
  const char* interlace = kInterlaceModes[in.next(1) % 5];
  const auto fps_n = static_cast<gint>(in.next(1));
  const auto fps_d = static_cast<gint>(in.next(1)) + 1;
  const bool cuda = in.next(1) & 1;
  if (!format_name) return 0;

  GstCaps* caps =
      gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, format_name, "width", G_TYPE_INT,
                          width, "height", G_TYPE_INT, height, "interlace-mode", G_TYPE_STRING,
                          interlace, "framerate", GST_TYPE_FRACTION, fps_n, fps_d, nullptr);
  if (cuda) gst_caps_set_features(caps, 0, gst_caps_features_new("memory:CUDAMemory", nullptr));
  GstVideoInfo info;
  if (gst_video_info_from_caps(&info, caps)) {
    vmafexact::gst::describe_video_info(info);
    const auto picture = vmafexact::gst::picture_format_from_info(info);
    if (picture) {
      vmafexact::gst::sized_picture_view(*picture);
      // Map a buffer of the caps' layout, as the CPU frame source does.
      if (GST_VIDEO_INFO_SIZE(&info) <= (1u << 16)) {
        GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
        GstMapInfo map;
        if (gst_buffer_map(buffer, &map, GST_MAP_WRITE)) {
          if (map.size > 0) {
            std::memset(map.data, 0, map.size);
            std::memcpy(map.data, in.data, std::min(map.size, in.size));
          }
          gst_buffer_unmap(buffer, &map);
        }
        GstVideoFrame frame;
        if (gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) {
          vmafexact::gst::ScratchPlanes scratch;
          for (bool copy : {false, true}) {
            read_all(vmafexact::gst::picture_view_of(frame, *picture, scratch, copy), picture->bpc);
          }
          gst_video_frame_unmap(&frame);
        }
        gst_buffer_unref(buffer);
        view_with_video_meta(info, *picture, Reader{in.data, in.size});
      }
    }
  }
  gst_caps_unref(caps);
  return 0;
}
