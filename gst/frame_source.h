// Frame sources: turning a buffer of an input into the metrics' PictureView,
// and the device the frames are scored on. A SourceFrame owns everything its
// view reads (the buffer's map, repacked or copied planes, device planes), so
// that the scoring session can keep a frame exactly as long as the scorer
// reads it. The host source is here; the CUDA one (cuda_frame_source.h) is the
// only part of the element that knows CUDA.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <memory>
#include <string>
#include <vector>

#include "common/picture.h"
#include "gst_handles.h"
#include "scorer.h"
#include "video_picture.h"

namespace vmafexact::gst {

// Whether holding `buffer` past the push that brought it could stall upstream:
// it comes from a pool with a limit on its buffers (hardware decoders' and
// capture pools, a few buffers each), or from a pool of memory other than
// system memory (DMABuf, VA, GL: a buffer may stand for a scarce surface
// whatever the pool's limit says). A buffer of no pool (filesrc !
// rawvideoparse, most parsers) or of a pool of system memory without a limit
// (software decoders, videotestsrc, videoconvert, videoscale: the pool grows
// instead) costs upstream only the memory that a copy would take.
inline bool holding_could_stall_upstream(GstBuffer* buffer) {
  if (buffer->pool == nullptr) return false;
  for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i)
    if (!gst_memory_is_type(gst_buffer_peek_memory(buffer, i), GST_ALLOCATOR_SYSMEM)) return true;
  GstStructure* config = gst_buffer_pool_get_config(buffer->pool);
  guint max_buffers = 0;
  const gboolean known =
      gst_buffer_pool_config_get_params(config, nullptr, nullptr, nullptr, &max_buffers);
  gst_structure_free(config);
  return !known || max_buffers != 0;
}

// How the scorer will read a frame.
struct ReadMode {
  // The frame is scored on other threads after the push that took it, so it
  // must not hold a buffer whose holding could stall upstream
  // (holding_could_stall_upstream()): the planes of such a buffer are copied,
  // any other buffer is held.
  bool detach = false;
  // The scorer reads the chroma planes (Scorer::reads_chroma()); else they are
  // left out of the view (null): neither repacked, copied nor uploaded.
  bool chroma = true;
};

// One frame read for scoring: its view and what the view reads.
class SourceFrame {
 public:
  virtual ~SourceFrame() = default;
  // Lets go of the buffer (its map) but keeps storage for reuse.
  virtual void release_buffer() = 0;
  PictureView view;
};

// A buffer whose video meta describes planes outside its memory
// (planes_outside_memory()): the frame cannot be read.
struct BadVideoMeta {
  std::string reason;
};

// Maps `buffer` with `info`'s layout for the frame sources: nullptr when it
// cannot be mapped (smaller than its caps say); throws BadVideoMeta when its
// video meta's planes run outside its memory.
std::unique_ptr<MappedVideoFrame> map_video_frame(const GstVideoInfo& info, GstBuffer* buffer,
                                                  GstMapFlags flags);

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Reads `buffer` (described by `info`) as a picture of `format`, as `mode`
  // says. Returns nullptr when the buffer cannot be mapped (smaller than its
  // caps say); throws BadVideoMeta when its video meta's planes run outside its
  // memory, vmafexact::Error when the frame cannot be prepared.
  virtual std::unique_ptr<SourceFrame> read(GstBuffer* buffer, const GstVideoInfo& info,
                                            const PictureFormat& format, ReadMode mode) = 0;
  // Takes back a frame the scorer no longer reads: its storage serves a later
  // frame (no allocation per frame).
  void recycle(std::unique_ptr<SourceFrame> frame) {
    frame->release_buffer();
    spare_.push_back(std::move(frame));
  }

 protected:
  // A recycled frame of this source's own type, or a new one.
  template <typename Frame>
  std::unique_ptr<Frame> reuse() {
    if (spare_.empty()) return std::make_unique<Frame>();
    std::unique_ptr<Frame> frame(static_cast<Frame*>(spare_.back().release()));
    spare_.pop_back();
    return frame;
  }

 private:
  std::vector<std::unique_ptr<SourceFrame>> spare_;
};

// Frames in system memory (or any memory, read through a host map).
class HostFrameSource final : public FrameSource {
 public:
  std::unique_ptr<SourceFrame> read(GstBuffer* buffer, const GstVideoInfo& info,
                                    const PictureFormat& format, ReadMode mode) override;
};

// Where the frames are scored: the host's extractors, or a device's twins.
class ScoringDevice {
 public:
  // Keeps the device current while it lives (work on it, freeing its memory).
  class Scope {
   public:
    virtual ~Scope() = default;
  };
  virtual ~ScoringDevice() = default;
  virtual const char* name() const = 0;
  // Sets the extractors and threading for this device.
  virtual void configure(ScorerOptions& options) = 0;
  virtual std::unique_ptr<FrameSource> make_source() = 0;
  virtual std::unique_ptr<Scope> enter() { return nullptr; }
};

class HostDevice final : public ScoringDevice {
 public:
  const char* name() const override { return "CPU"; }
  void configure(ScorerOptions&) override {}
  std::unique_ptr<FrameSource> make_source() override {
    return std::make_unique<HostFrameSource>();
  }
};

}  // namespace vmafexact::gst
