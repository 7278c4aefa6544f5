#include "frame_source.h"

namespace vmafexact::gst {
namespace {

struct HostFrame final : SourceFrame {
  std::unique_ptr<MappedVideoFrame> map;
  ScratchPlanes planes;  // repacked or copied planes
  void release_buffer() override { map.reset(); }
};

}  // namespace

std::unique_ptr<SourceFrame> HostFrameSource::read(GstBuffer* buffer, const GstVideoInfo& info,
                                                   const PictureFormat& format, bool detach) {
  auto frame = reuse<HostFrame>();
  frame->map = std::make_unique<MappedVideoFrame>(info, buffer, GST_MAP_READ);
  if (!frame->map->mapped()) return nullptr;
  frame->view = picture_view_of(frame->map->frame(), format, frame->planes, detach);
  if (detach) frame->map.reset();
  return frame;
}

}  // namespace vmafexact::gst
