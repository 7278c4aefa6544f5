#include "video_picture.h"

#include <cstring>

namespace vmafexact::gst {

std::optional<PictureFormat> picture_format_from_info(const GstVideoInfo& info) {
  const GstVideoFormatInfo* finfo = info.finfo;
  if (!finfo || (!GST_VIDEO_FORMAT_INFO_IS_YUV(finfo) && !GST_VIDEO_FORMAT_INFO_IS_GRAY(finfo)))
    return std::nullopt;
  if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA(finfo) || GST_VIDEO_FORMAT_INFO_IS_TILED(finfo) ||
      GST_VIDEO_FORMAT_INFO_HAS_PALETTE(finfo))
    return std::nullopt;
  if (GST_VIDEO_FORMAT_INFO_IS_LE(finfo) != (G_BYTE_ORDER == G_LITTLE_ENDIAN) &&
      GST_VIDEO_FORMAT_INFO_BITS(finfo) > 8)
    return std::nullopt;
  if (GST_VIDEO_INFO_INTERLACE_MODE(&info) != GST_VIDEO_INTERLACE_MODE_PROGRESSIVE)
    return std::nullopt;

  // GStreamer takes caps of width or height 0; there is nothing to score.
  if (GST_VIDEO_INFO_WIDTH(&info) <= 0 || GST_VIDEO_INFO_HEIGHT(&info) <= 0) return std::nullopt;

  PictureFormat format;
  format.width = GST_VIDEO_INFO_WIDTH(&info);
  format.height = GST_VIDEO_INFO_HEIGHT(&info);
  format.bpc = GST_VIDEO_FORMAT_INFO_DEPTH(finfo, 0);
  if (!is_supported_bpc(format.bpc)) return std::nullopt;
  // Luma samples must sit in whole bytes (8 bits) or whole 16-bit words; this
  // also rules out packed 4:2:2 such as YUY2 (two bytes per 8-bit luma sample).
  const unsigned luma_sample_bytes = GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, 0);
  if (luma_sample_bytes != (format.bpc > 8 ? 2u : 1u)) return std::nullopt;

  if (GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo) == 1) {
    format.chroma = ChromaFormat::k400;
    return format;
  }
  if (GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo) != 3) return std::nullopt;
  const unsigned w_sub = GST_VIDEO_FORMAT_INFO_W_SUB(finfo, 1);
  const unsigned h_sub = GST_VIDEO_FORMAT_INFO_H_SUB(finfo, 1);
  if (w_sub == 1 && h_sub == 1)
    format.chroma = ChromaFormat::k420;
  else if (w_sub == 1 && h_sub == 0)
    format.chroma = ChromaFormat::k422;
  else if (w_sub == 0 && h_sub == 0)
    format.chroma = ChromaFormat::k444;
  else
    return std::nullopt;
  return format;
}

std::string describe_video_info(const GstVideoInfo& info) {
  std::string text = std::to_string(GST_VIDEO_INFO_WIDTH(&info));
  text += 'x';
  text += std::to_string(GST_VIDEO_INFO_HEIGHT(&info));
  if (const auto format = picture_format_from_info(info)) {
    text += ' ';
    text += std::to_string(format->bpc);
    text += "-bit ";
    text += chroma_format_name(format->chroma);
  }
  text += " (";
  text += GST_VIDEO_INFO_NAME(&info) ? GST_VIDEO_INFO_NAME(&info) : "unknown format";
  text += ")";
  return text;
}

namespace {

// Byte offset of a component within its plane. GStreamer 1.22.0 lists the V
// offset of P010/P012/P016 as 1 byte where the data has it at 2, so for a
// chroma pair interleaved in one plane the offset is derived from the pair's
// order (which component comes first) and the sample size.
unsigned component_offset(const GstVideoFormatInfo* finfo, unsigned component,
                          unsigned sample_bytes) {
  const unsigned plane = GST_VIDEO_FORMAT_INFO_PLANE(finfo, component);
  unsigned sharing = 0, rank = 0;
  for (unsigned k = 0; k < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++k) {
    if (k == component || GST_VIDEO_FORMAT_INFO_PLANE(finfo, k) != plane) continue;
    ++sharing;
    if (GST_VIDEO_FORMAT_INFO_POFFSET(finfo, k) < GST_VIDEO_FORMAT_INFO_POFFSET(finfo, component))
      ++rank;
  }
  const bool interleaved_pair =
      sharing == 1 &&
      GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, component) == static_cast<int>(2 * sample_bytes);
  return interleaved_pair ? rank * sample_bytes : GST_VIDEO_FORMAT_INFO_POFFSET(finfo, component);
}

// Copies one component into a tightly packed plane, dropping the interleave
// (pixel stride) and the format's bit shift (P010 keeps 10 bits in the top).
// kStep: the pixel stride in samples when it is known here (1: planar, 2: a
// chroma pair interleaved, as in NV12 and P010), which lets the compiler
// vectorize the row (about 4x on NV12's chroma and P010's luma); 0: any other
// pixel stride, read sample by sample.
template <typename Sample, unsigned kStep>
void repack_rows(const ComponentLayout& layout, unsigned width, unsigned height, Sample* dst) {
  const std::size_t pixel_stride = kStep != 0 ? kStep * sizeof(Sample) : layout.pixel_stride;
  const unsigned shift = layout.shift;
  if (width == 0) return;  // libvmaf's chroma of a picture one pixel wide (dst may be null)
  for (unsigned y = 0; y < height; ++y, dst += width) {
    const std::uint8_t* row = layout.data + static_cast<std::ptrdiff_t>(y) * layout.stride;
    if (kStep == 1 && shift == 0) {
      std::memcpy(dst, row, std::size_t{width} * sizeof(Sample));
      continue;
    }
    for (unsigned x = 0; x < width; ++x) {
      Sample sample;  // memcpy: the rows of a buffer need not be aligned
      std::memcpy(&sample, row + x * pixel_stride, sizeof(Sample));
      dst[x] = static_cast<Sample>(sample >> shift);
    }
  }
}

template <typename Sample>
void repack_component(const ComponentLayout& layout, unsigned width, unsigned height,
                      std::vector<std::uint8_t>& out) {
  out.resize(static_cast<std::size_t>(width) * height * sizeof(Sample));
  auto* dst = reinterpret_cast<Sample*>(out.data());
  if (layout.pixel_stride == sizeof(Sample))
    repack_rows<Sample, 1>(layout, width, height, dst);
  else if (layout.pixel_stride == 2 * sizeof(Sample))
    repack_rows<Sample, 2>(layout, width, height, dst);
  else
    repack_rows<Sample, 0>(layout, width, height, dst);
}

}  // namespace

ComponentLayout component_layout(const GstVideoFrame& frame, unsigned component,
                                 unsigned sample_bytes) {
  const GstVideoFormatInfo* finfo = frame.info.finfo;
  const unsigned plane = GST_VIDEO_FORMAT_INFO_PLANE(finfo, component);
  ComponentLayout layout;
  layout.data = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane)) +
                component_offset(finfo, component, sample_bytes);
  layout.stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane);
  layout.pixel_stride = static_cast<unsigned>(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, component));
  layout.shift = GST_VIDEO_FORMAT_INFO_SHIFT(finfo, component);
  layout.sample_bytes = sample_bytes;
  layout.in_place = layout.pixel_stride == sample_bytes && layout.shift == 0;
  return layout;
}

std::string planes_outside_memory(const GstVideoFrame& frame) {
  const GstVideoFormatInfo* finfo = frame.info.finfo;
  for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(&frame); ++plane) {
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(finfo, plane, components);
    if (components[0] < 0) continue;
    const guint component = static_cast<guint>(components[0]);
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane);
    const auto rows = static_cast<gsize>(GST_VIDEO_FRAME_COMP_HEIGHT(&frame, component));
    const auto row_bytes = static_cast<gsize>(GST_VIDEO_FRAME_COMP_WIDTH(&frame, component)) *
                           static_cast<gsize>(GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, component));
    const std::string which = "plane " + std::to_string(plane) + " (stride " +
                              std::to_string(stride) + ", " + std::to_string(rows) + " rows of " +
                              std::to_string(row_bytes) + " bytes)";
    if (stride < 0 || (rows > 1 && static_cast<gsize>(stride) < row_bytes))
      return "its video meta gives " + which + " a stride shorter than a row";
    // With a video meta each plane is mapped from the memory that holds it;
    // without, the whole buffer is map 0.
    const GstMapInfo& map = frame.map[frame.meta ? plane : 0];
    const auto* begin = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane));
    const gsize extent = rows == 0 ? 0 : static_cast<gsize>(stride) * (rows - 1) + row_bytes;
    if (begin < map.data || static_cast<gsize>(map.data + map.size - begin) < extent)
      return "its video meta places " + which + " past the end of its memory (" +
             std::to_string(map.size) + " bytes)";
  }
  return {};
}

PictureView sized_picture_view(const PictureFormat& format) {
  PictureView view;
  view.bpc = format.bpc;
  view.chroma = format.chroma;
  view.width = format.width;
  view.height = format.height;
  for (unsigned c = 0; c < view.plane_count(); ++c) {
    view.planes[c].width = c == 0 ? format.width : chroma_plane_width(format.width, format.chroma);
    view.planes[c].height =
        c == 0 ? format.height : chroma_plane_height(format.height, format.chroma);
  }
  return view;
}

PictureView picture_view_of(const GstVideoFrame& frame, const PictureFormat& format,
                            ScratchPlanes& scratch, bool copy, bool chroma) {
  // On the host: a plane not viewed in place is repacked (or copied) into scratch.
  return view_planes(frame, format, chroma, !copy,
                     [&](unsigned c, const ComponentLayout& layout, PlaneView& plane) {
                       std::vector<std::uint8_t>& packed = scratch.planes[c];
                       if (layout.sample_bytes == 1)
                         repack_component<std::uint8_t>(layout, plane.width, plane.height, packed);
                       else
                         repack_component<std::uint16_t>(layout, plane.width, plane.height, packed);
                       plane.data = packed.data();
                       plane.stride =
                           static_cast<std::ptrdiff_t>(plane.width) * layout.sample_bytes;
                     });
}

}  // namespace vmafexact::gst
