// Thumbnails of the worst frames, captured while scoring with bounded memory
// (docs/report.md, "Worst frames"): a pad probe on each vmafexact element's
// ref_sink and dist_sink makes a small RGB copy of every picture (nearest
// sample, about 160 pixels wide, from the rows that sampling reads: a twelfth
// of a 1080p picture's, copied back alone from CUDA memory) into a ring of the
// latest few, keyed by running time; the element's frame messages (index,
// running-time and the scores) say which frames are among the N worst so far,
// and only those keep their pictures. Whatever the run's length, at most N + ring size pictures per input
// are held; PNG encoding happens once, at the end, for the N kept.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "report.h"

namespace vmafexact::cli {

// A small picture: packed RGB rows, width * 3 bytes each.
struct Picture {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;
};

// The settings of every thumbnail's GstVideoConverter: nearest sampling,
// without chroma filtering or dithering, so that the rows it reads give the
// whole picture's thumbnail; one thread. gst_video_converter_new() takes it.
GstStructure* thumbnail_converter_config();

// PNG file bytes of a picture (cairo); empty for an empty picture.
std::string encode_png(const Picture& picture);

// The latest `capacity` pictures of one input by running time (nanoseconds).
class PictureRing {
 public:
  explicit PictureRing(std::size_t capacity) : capacity_(capacity) {}
  void put(std::uint64_t running_time, Picture picture);
  // The picture whose time is nearest `running_time`, if within `tolerance`.
  std::optional<Picture> nearest(std::uint64_t running_time, std::uint64_t tolerance) const;
  std::size_t size() const { return entries_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::deque<std::pair<std::uint64_t, Picture>> entries_;  // oldest first
};

// The `count` frames of lowest score seen so far (ties: the earlier frame), each
// with its pictures.
class WorstFrameSelector {
 public:
  explicit WorstFrameSelector(std::size_t count) : count_(count) {}
  struct Kept {
    std::uint64_t frame = 0;
    double score = 0;
    Picture reference, distorted;
  };
  // Whether a frame of this score and number would be kept (so its pictures
  // are worth looking up).
  bool wants(std::uint64_t frame, double score) const;
  void offer(Kept candidate);
  // Lowest first.
  std::vector<Kept> worst() const;
  std::size_t kept() const { return kept_.size(); }

 private:
  std::size_t count_;
  std::vector<Kept> kept_;  // unordered; at most count_
};

// The capture on one vmafexact element. Construct before the pipeline plays;
// feed it every element message of that element (on_message; others are
// ignored). Thread-safe: the probes run in streaming threads.
class ThumbnailCapture {
 public:
  static constexpr int kWidth = 160;
  // Enough for the frames the element still holds when it reports one (its
  // threads' frames in flight and motion's look-ahead).
  static constexpr std::size_t kRingSize = 48;

  ThumbnailCapture(GstElement* element, std::string score, std::size_t worst_count);
  ~ThumbnailCapture();
  ThumbnailCapture(const ThumbnailCapture&) = delete;
  ThumbnailCapture& operator=(const ThumbnailCapture&) = delete;

  // A "vmafexact-frame" message of the element: offers the frame.
  void on_message(GstMessage* message);
  // The same, given the message's structure (the caller has checked its source).
  void on_frame(const GstStructure* frame);
  // The worst frames, lowest first, their pictures as PNG; times from
  // `frame_rate` (NaN: unknown).
  std::vector<report::WorstFrame> worst_frames(double frame_rate) const;
  // For tests: pictures held now (both rings and the kept frames).
  std::size_t pictures_held() const;

 private:
  struct ConverterFree {
    void operator()(GstVideoConverter* converter) const { gst_video_converter_free(converter); }
  };
  struct Input {
    GstPad* pad = nullptr;
    gulong probe = 0;
    PictureRing ring{kRingSize};  // under mutex_
    // Used by the pad's streaming thread only.
    GstVideoInfo converter_in{};
    GstVideoInfo converter_out{};
    std::unique_ptr<GstVideoConverter, ConverterFree> converter;
    // The picture of a frame in system memory, or in CUDA memory (on_device).
    std::optional<Picture> scaled_rgb(const GstVideoInfo& in, GstBuffer* buffer, bool on_device);
    std::optional<Picture> convert(const GstVideoFrame& rows_frame);
    static std::vector<std::uint8_t> download_rows(const GstVideoInfo& in,
                                                   const GstVideoInfo& rows, int step,
                                                   GstBuffer* buffer);
  };
  static GstPadProbeReturn on_buffer(GstPad* pad, GstPadProbeInfo* info, gpointer self);
  void capture(Input& input, GstPad* pad, GstBuffer* buffer);

  GstElement* element_;
  std::string score_;
  mutable std::mutex mutex_;
  Input inputs_[2];  // reference, distorted
  WorstFrameSelector selector_;
};

}  // namespace vmafexact::cli
