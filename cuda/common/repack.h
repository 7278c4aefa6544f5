// Device-side twin of gst/video_picture.cpp's repacking: one component of a
// semi-planar or bit-shifted frame (NV12's U, P010's luma) into a planar plane.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace vmafexact::cuda {

// src points at the component's first sample; pixel_stride is the distance
// between samples in bytes; samples are 1 or 2 bytes and are shifted right by
// `shift`. Writes width x height samples to dst with dst_pitch bytes per row.
void enqueue_repack_component(const std::uint8_t* src, std::ptrdiff_t src_pitch,
                              unsigned pixel_stride, unsigned sample_bytes, unsigned shift,
                              unsigned width, unsigned height, std::uint8_t* dst,
                              std::ptrdiff_t dst_pitch, cudaStream_t stream);

}  // namespace vmafexact::cuda
