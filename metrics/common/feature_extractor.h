// The interface every feature extractor implements, modelled on libvmaf's
// VmafFeatureExtractor: init once per format, extract once per frame pair,
// flush at end of stream for extractors whose scores need a later frame.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/bands.h"
#include "common/feature_collector.h"
#include "common/feature_options.h"
#include "common/picture.h"

namespace vmafexact {

struct PictureFormat {
  unsigned width = 0;
  unsigned height = 0;
  unsigned bpc = 8;
  ChromaFormat chroma = ChromaFormat::k420;

  bool operator==(const PictureFormat&) const = default;
};

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;

  // The name users select it by (libvmaf's extractor name, e.g. "psnr").
  virtual std::string_view name() const = 0;

  // libvmaf's provided_features: the unaliased names of what it computes
  // (e.g. "VMAF_integer_feature_adm2_score", "psnr_y"). Models find their
  // extractors by these names.
  virtual std::vector<std::string> provided_features() const = 0;

  // The collector key under which this extractor, with its options, writes the
  // provided feature `provided_name` ("VMAF_integer_feature_adm2_score" ->
  // "integer_adm2", or "integer_adm2_egl_1" with adm_enhn_gain_limit=1).
  virtual std::string score_key(std::string_view provided_name) const = 0;

  // Checks the format and sets up state; throws vmafexact::Error for input it
  // cannot score (for example a picture too small), naming the limit.
  virtual void init(const PictureFormat& format) = 0;

  // Starts the work for frame `index` without writing scores, for backends
  // whose work is asynchronous (CUDA twins enqueue their kernels here). The
  // Scorer may submit frame i + 1 before it extracts frame i, so a device works
  // on one frame while the host finishes the previous one; it never runs more
  // than one frame ahead. Default: nothing (extract() does all the work).
  virtual void submit(const PictureView& ref, const PictureView& dist, unsigned index) {
    (void)ref;
    (void)dist;
    (void)index;
  }

  // Scores frame `index` and writes what is final into `scores`. After a
  // submit() of the same frame, this only collects and finishes its results.
  virtual void extract(const PictureView& ref, const PictureView& dist, unsigned index,
                       FeatureCollector& scores) = 0;

  // Where extract() runs the bands of its stages (common/bands.h): the Scorer
  // hands each CPU extractor a runner on its thread pool. Until then, and in
  // backends that do not cut frames (CUDA), every stage runs in one piece.
  virtual void set_band_runner(BandRunner& runner) { (void)runner; }

  // Writes what was held back for lack of a later frame. Default: nothing.
  virtual void flush(FeatureCollector& scores) { (void)scores; }

  // How many later frames a frame's scores wait for (libvmaf's motion2: 1).
  virtual unsigned latency_frames() const { return 0; }

  // Whether extract() reads the chroma planes. When no extractor of a Scorer
  // does (the VMAF models read luma only), the frame sources leave them out
  // (PlaneView::data null): no repack or copy of NV12's or P010's chroma per
  // frame. Default: true, so that an extractor that reads them is never
  // handed null planes; the luma-only ones say false (tested registry-wide).
  virtual bool reads_chroma() const { return true; }

  // True for extractors that carry state from one frame to the next, which
  // must therefore see the frames in order on one instance (the Scorer copies
  // the others once per frame in flight). Default: those with a latency.
  virtual bool keeps_state() const { return latency_frames() > 0; }

  // True for extractors libvmaf flags TEMPORAL or PREV_REF: under subsampling
  // they still see every frame (psnr, motion); the others see only the frames
  // whose index is a multiple of the subsample factor.
  virtual bool sees_every_frame() const { return false; }
};

}  // namespace vmafexact
