#include "common/picture.h"

#include "common/error.h"

namespace vmafexact {

std::string_view chroma_format_name(ChromaFormat chroma) {
  switch (chroma) {
    case ChromaFormat::k400: return "4:0:0";
    case ChromaFormat::k420: return "4:2:0";
    case ChromaFormat::k422: return "4:2:2";
    case ChromaFormat::k444: return "4:4:4";
  }
  return "?";
}

unsigned chroma_plane_width(unsigned luma_width, ChromaFormat chroma) {
  switch (chroma) {
    case ChromaFormat::k400: return 0;
    case ChromaFormat::k420:
    case ChromaFormat::k422: return luma_width >> 1;
    case ChromaFormat::k444: return luma_width;
  }
  return 0;
}

unsigned chroma_plane_height(unsigned luma_height, ChromaFormat chroma) {
  switch (chroma) {
    case ChromaFormat::k400: return 0;
    case ChromaFormat::k420: return luma_height >> 1;
    case ChromaFormat::k422:
    case ChromaFormat::k444: return luma_height;
  }
  return 0;
}

void check_supported_bpc(std::string_view extractor, unsigned bpc) {
  if (!is_supported_bpc(bpc))
    throw Error(std::string(extractor) + ": unsupported bit depth " + std::to_string(bpc) +
                " (libvmaf takes 8, 10, 12 or 16)");
}

std::string size_text(unsigned width, unsigned height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace vmafexact
