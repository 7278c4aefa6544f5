// The backend-neutral scoring session: the extractors that the models and the
// extra features need, their scores, the models' per-frame predictions, and
// which frames are final. The GStreamer element and the conformance tests both
// drive this, so the element adds no arithmetic of its own.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/feature_collector.h"
#include "common/feature_extractor.h"
#include "common/feature_options.h"
#include "common/thread_pool.h"
#include "model/model.h"
#include "pooling/pooling.h"
#include "registry.h"
#include "request.h"

namespace vmafexact {

// The extractor request behind each input of a model, in the model's order;
// throws vmafexact::Error naming the model and an input no extractor provides.
std::vector<FeatureRequest> model_feature_requests(const model::Model& model);

struct ScoredModel {
  model::Model model;
  std::string key;  // the score's name: "vmaf" for the first model, else the model's name
  model::PredictOptions predict;
  // A bootstrap collection's models "1" on (model/model.h, ModelFile): they
  // write KEY_0001, KEY_0002, ... and the collection KEY_bagging, KEY_stddev,
  // KEY_ci_p95_lo and KEY_ci_p95_hi, after every model's own score, as
  // libvmaf's tool writes them. Empty for a plain model.
  std::vector<model::Model> bootstrap;
};

// The extractors the models (their bootstrap members included) and the extra
// features read that no CUDA twin of this build scores with their options,
// each once, in the order the Scorer makes them, as "name (why)"
// (cuda_twin_refusal(), e.g. "float_psnr (no CUDA twin yet)"): empty when
// everything can be scored on CUDA.
std::vector<std::string> features_without_cuda_twin(const std::vector<ScoredModel>& models,
                                                    const std::vector<FeatureRequest>& features);

// Loads the models of a list, applies their overloads (libvmaf's merge: an
// option the model's file already sets takes the overload's value, another is
// added) and names their scores; throws vmafexact::Error naming the model that
// cannot be loaded and why, an input that no extractor provides or whose
// options are bad, or an overload of an extractor none of the model's inputs
// uses (libvmaf ignores that silently), so all of it fails at start.
std::vector<ScoredModel> load_models(const std::vector<ModelSpec>& specs);

// The scores a model writes: its key, then for a bootstrap collection each
// model's (KEY_0001, ...) and KEY_bagging, KEY_stddev, KEY_ci_p95_lo and
// KEY_ci_p95_hi.
std::vector<std::string> written_scores(const ScoredModel& model);

// The models a Scorer reads, read only: its own, or loaded once and shared by
// Scorers that score one after the other (the element's sessions of a run,
// one after each flushing seek).
class ScorerModels {
 public:
  ScorerModels() = default;
  // Implicit, as the models it holds: Scorer(load_models(...), ...).
  ScorerModels(std::vector<ScoredModel> models)
      : shared_(std::make_shared<const std::vector<ScoredModel>>(std::move(models))) {}
  ScorerModels(std::shared_ptr<const std::vector<ScoredModel>> shared)
      : shared_(std::move(shared)) {}
  std::shared_ptr<const std::vector<ScoredModel>> shared() const {
    return shared_ ? shared_ : std::make_shared<const std::vector<ScoredModel>>();
  }

 private:
  std::shared_ptr<const std::vector<ScoredModel>> shared_;
};

using ExtractorFactory =
    std::function<std::unique_ptr<FeatureExtractor>(std::string_view, const FeatureOptions&)>;

struct ScorerOptions {
  unsigned subsample = 1;  // libvmaf's n_subsample: score frames i % subsample == 0
  // Submit frames i + 1 .. i + overlap_frames to every extractor before
  // extracting frame i, so that an asynchronous backend keeps that many more
  // frames in flight. Then the pictures of a pushed pair must stay valid until
  // frames_released() passes its index (at most overlap_frames later pushes),
  // and every frame becomes final overlap_frames frames later. Scores and their
  // order are unchanged. 0: each frame extracted as it is pushed.
  unsigned overlap_frames = 0;
  // CPU threads (0: one per core). With more than one, a pool of workers
  // scores up to `frames_in_flight` frames side by side, each with its own
  // instances of the extractors that keep no state from frame to frame, and
  // cuts each frame's stages into row bands (common/bands.h) that the workers
  // not busy with a frame of their own take, oldest frame first. The stateful
  // extractors (motion) and the merge of the scores run in frame order on the
  // caller's thread, so scores and their order are those of one thread.
  unsigned threads = 1;
  // Frames scored at once (0: as many as threads). 1 scores each frame on the
  // caller's thread, its bands spread over all threads, before push() returns:
  // the lowest latency per frame (live use). More: push() returns before its
  // frame is scored, which gives the most frames per second; then the pictures
  // of frames from frames_released() on must stay valid until they are read.
  unsigned frames_in_flight = 0;
  // Makes the extractors (default: make_feature_extractor() on the CPU). The
  // CUDA backend passes its twins here; the Scorer is the same for every backend.
  ExtractorFactory make_extractor;
};

class Scorer {
 public:
  // Throws vmafexact::Error when a feature is unknown, an option is bad, or the
  // picture format cannot be scored (e.g. too small, naming the minimum).
  Scorer(ScorerModels models, const std::vector<FeatureRequest>& features,
         const PictureFormat& format, ScorerOptions options = {});

  // Features only, no model.
  Scorer(const std::vector<FeatureRequest>& features, const PictureFormat& format);
  ~Scorer();  // waits for frames still in flight

  const PictureFormat& format() const { return format_; }
  // Whether any extractor reads the chroma planes (FeatureExtractor::
  // reads_chroma()); when none does, push() takes pictures whose chroma planes
  // are null.
  bool reads_chroma() const;

  // Scores the next pair (index frames_pushed()) and returns the indices of the
  // frames whose scores became final, in order (under subsampling only frames
  // on the grid are returned).
  std::vector<unsigned> push(const PictureView& ref, const PictureView& dist);

  // End of stream: flushes held-back scores and returns the frames they finish.
  std::vector<unsigned> finish();

  unsigned frames_pushed() const { return frames_pushed_; }
  // CPU threads that score (1 without a pool: one thread, or a device).
  unsigned threads() const { return threads_; }
  // Frames scored side by side (1: one at a time, in bands). Each frame in
  // flight needs its pictures kept; with a worker per frame one more waits
  // queued behind them (max_in_flight_).
  unsigned frames_in_flight() const { return lanes_.empty() ? 1u : lane_count(); }
  // The frames being scored at once as a user counts them: those side by side
  // on the CPU, or on a device the one extracted and those submitted ahead of
  // it (overlap_frames). What the summary's frames-in-flight reports.
  unsigned frames_at_once() const { return frames_in_flight() + options_.overlap_frames; }
  // Frames below this index are no longer read: their pictures may go.
  unsigned frames_released() const { return frames_extracted_; }
  // How many later frames a frame's scores wait for (1 with motion,
  // overlap_frames more when frames overlap, frames in flight - 1 more when
  // frames are scored side by side, and one more when a frame waits queued
  // behind them: at most; a frame whose score is ready sooner is returned
  // sooner).
  unsigned latency_frames() const {
    return latency_frames_ + options_.overlap_frames +
           (lanes_.empty() ? 0 : max_in_flight_ - 1);
  }
  const FeatureCollector& scores() const { return scores_; }
  // Every score pooled over the frames final so far (libvmaf's pooling, kept
  // as running values): at the end, over frames 0 .. frames_pushed()-1.
  const RunningPools& pooled() const { return pools_; }
  // Frees the scores of every frame that is final (returned by push() or
  // finish()), once the caller has read them: a run of any length then holds
  // only the frames not yet final. Without this call scores() keeps every frame.
  void release_final_frames() { scores_.drop_frames_below(frames_final_); }
  unsigned subsample() const { return options_.subsample; }
  // Frames with scores: 0, subsample, 2 * subsample, ... below frames_pushed().
  bool on_grid(unsigned index) const {
    return options_.subsample <= 1 || index % options_.subsample == 0;
  }

 private:
  struct ModelInput {
    std::vector<std::string> keys;  // collector keys in the model's feature order
    std::vector<std::vector<std::string>> bootstrap_keys;  // the same per bootstrap model
    std::vector<std::string> written;  // written_scores() of the model, named once
  };
  std::vector<double> input_values(const model::Model& model, const std::vector<std::string>& keys,
                                   unsigned index) const;

  FeatureExtractor& extractor_for(const FeatureRequest& request);
  std::vector<std::string> identities_;   // parallel to extractors_
  // An extractor for `request`, before its init().
  std::unique_ptr<FeatureExtractor> new_extractor(const FeatureRequest& request) const;
  void predict(unsigned index);
  void extract_all(const PictureView& ref, const PictureView& dist, unsigned index);
  std::vector<unsigned> finalize(unsigned extracted);
  void finalize_below(unsigned limit, std::vector<unsigned>& finished);

  struct PendingPair {
    PictureView ref, dist;
    unsigned index = 0;
  };
  std::deque<PendingPair> pending_;  // submitted, not yet extracted (overlap_frames), oldest first
  unsigned frames_extracted_ = 0;

  // Frames in parallel (threads > 1): per lane, instances of the extractors
  // without frame-to-frame state (null where the extractor is stateful).
  struct FrameJob;
  unsigned lane_count() const { return static_cast<unsigned>(lanes_.size()); }
  void merge_oldest(std::vector<unsigned>& finished);
  void merge_ready(std::vector<unsigned>& finished);
  std::vector<std::vector<std::unique_ptr<FeatureExtractor>>> lanes_;
  // A frame job takes a free lane when it starts and gives it back when it
  // ends. With a worker per lane one more frame than lanes is queued, so a
  // worker that ends a frame starts the next one at once instead of waiting
  // for the caller to push it.
  std::mutex lanes_mutex_;
  std::vector<unsigned> free_lanes_;
  unsigned max_in_flight_ = 1;
  std::deque<std::unique_ptr<FrameJob>> in_flight_;
  // The workers (threads > 1) and the band runners: one per lane, one for the
  // extractors that run on the caller's thread (extractors_).
  std::unique_ptr<ThreadPool> pool_;
  std::vector<std::unique_ptr<PoolBandRunner>> lane_runners_;
  std::unique_ptr<PoolBandRunner> caller_runner_;

  PictureFormat format_;
  std::vector<FeatureRequest> requests_;  // parallel to extractors_
  std::vector<std::unique_ptr<FeatureExtractor>> extractors_;
  std::shared_ptr<const std::vector<ScoredModel>> models_;  // never null
  std::vector<ModelInput> model_inputs_;
  ScorerOptions options_;
  FeatureCollector scores_;
  RunningPools pools_;
  unsigned frames_pushed_ = 0;
  unsigned frames_final_ = 0;
  unsigned latency_frames_ = 0;
  unsigned threads_ = 1;
};

}  // namespace vmafexact
