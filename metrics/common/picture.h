// A read-only view of one picture as libvmaf sees it: up to three planes of
// 8-bit (uint8) or 10..16-bit (native-endian uint16) samples, luma first.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vmafexact {

enum class ChromaFormat { k400, k420, k422, k444 };

std::string_view chroma_format_name(ChromaFormat chroma);

struct PlaneView {
  const std::uint8_t* data = nullptr;  // top-left sample
  std::ptrdiff_t stride = 0;           // bytes from one row to the next
  unsigned width = 0;                  // samples per row that libvmaf reads
  unsigned height = 0;                 // rows that libvmaf reads

  template <typename Sample>
  const Sample* row(unsigned y) const {
    return reinterpret_cast<const Sample*>(data + static_cast<std::ptrdiff_t>(y) * stride);
  }
};

struct PictureView {
  unsigned bpc = 8;  // bits per component: 8, 10, 12 or 16
  ChromaFormat chroma = ChromaFormat::k420;
  unsigned width = 0;
  unsigned height = 0;
  std::array<PlaneView, 3> planes{};

  unsigned plane_count() const { return chroma == ChromaFormat::k400 ? 1u : 3u; }
  bool high_bit_depth() const { return bpc > 8; }
};

// libvmaf sizes chroma planes by rounding DOWN (w >> 1), where GStreamer and
// ffmpeg round up; the extra column/row of an odd-sized picture is not read.
unsigned chroma_plane_width(unsigned luma_width, ChromaFormat chroma);
unsigned chroma_plane_height(unsigned luma_height, ChromaFormat chroma);

// True when bpc is one that libvmaf accepts.
constexpr bool is_supported_bpc(unsigned bpc) {
  return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
}

// Throws vmafexact::Error "<extractor>: unsupported bit depth N (libvmaf takes
// 8, 10, 12 or 16)" unless is_supported_bpc(bpc): every extractor's check.
void check_supported_bpc(std::string_view extractor, unsigned bpc);

// "WxH", as the extractors' size errors print a picture.
std::string size_text(unsigned width, unsigned height);

}  // namespace vmafexact
