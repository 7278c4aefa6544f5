#include "frame_source.h"

namespace vmafexact::gst {
namespace {

struct HostFrame final : SourceFrame {
  std::unique_ptr<MappedVideoFrame> map;
  ScratchPlanes planes;  // repacked or copied planes
  void release_buffer() override { map.reset(); }
};

}  // namespace

std::unique_ptr<MappedVideoFrame> map_video_frame(const GstVideoInfo& info, GstBuffer* buffer,
                                                  GstMapFlags flags) {
  auto map = std::make_unique<MappedVideoFrame>(info, buffer, flags);
  if (!map->mapped()) return nullptr;
  if (std::string why = planes_outside_memory(map->frame()); !why.empty())
    throw BadVideoMeta{std::move(why)};
  return map;
}

std::unique_ptr<SourceFrame> HostFrameSource::read(GstBuffer* buffer, const GstVideoInfo& info,
                                                   const PictureFormat& format, ReadMode mode) {
  auto frame = reuse<HostFrame>();
  // The map holds a reference to the buffer for as long as the frame keeps it.
  frame->map = map_video_frame(info, buffer, GST_MAP_READ);
  if (!frame->map) return nullptr;
  // Held where that cannot stall upstream: no copy of 3 MiB per 1080p frame
  // and input.
  const bool copy = mode.detach && holding_could_stall_upstream(buffer);
  frame->view = picture_view_of(frame->map->frame(), format, frame->planes, copy, mode.chroma);
  if (copy) frame->map.reset();
  return frame;
}

}  // namespace vmafexact::gst
