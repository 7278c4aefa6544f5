#include "scoring_session.h"

#include "common/error.h"
#include "element_debug.h"

namespace vmafexact::gst {

ScoringSession::ScoringSession(std::unique_ptr<ScoringDevice> device,
                               ScorerModels models,
                               const std::vector<FeatureRequest>& features,
                               const PictureFormat& format, ScorerOptions options)
    : device_(std::move(device)) {
  const auto scope = device_->enter();
  device_->configure(options);
  for (auto& source : sources_) source = device_->make_source();
  scorer_ = std::make_unique<Scorer>(std::move(models), features, format, options);
  read_mode_ = {.detach = scorer_->frames_in_flight() > 1, .chroma = scorer_->reads_chroma()};
}

ScoringSession::~ScoringSession() {
  // Frames in flight read the held frames (and the sources' storage): the
  // scorer waits for them as it goes, before anything they read is freed.
  const auto scope = device_->enter();
  scorer_.reset();
  held_.clear();
  for (auto& source : sources_) source.reset();
}

std::vector<FinishedFrame> ScoringSession::push(const std::array<GstBuffer*, 2>& buffers,
                                                const std::array<const GstVideoInfo*, 2>& infos,
                                                const FrameTiming& timing) {
  const auto scope = device_->enter();
  const unsigned index = scorer_->frames_pushed();
  HeldPair pair{index, {}};
  for (unsigned i = 0; i < 2; ++i) {
    try {
      pair.frames[i] = sources_[i]->read(buffers[i], *infos[i], scorer_->format(), read_mode_);
    } catch (const BadVideoMeta& bad) {
      throw UnreadableFrame{i, bad.reason};
    } catch (const Error& error) {
      throw UnpreparedFrame{error.what()};
    }
    if (!pair.frames[i]) throw UnreadableFrame{i, {}};
  }
  timings_.emplace_back(index, timing);
  // Held before the scorer sees them: it may read them after push() returns.
  held_.push_back(std::move(pair));
  const auto started = std::chrono::steady_clock::now();
  const auto finished = scorer_->push(held_.back().frames[0]->view, held_.back().frames[1]->view);
  scoring_time_ += std::chrono::steady_clock::now() - started;
  release_read_frames();
  return with_timings(finished);
}

std::vector<FinishedFrame> ScoringSession::finish() {
  const auto scope = device_->enter();
  const auto finished = with_timings(scorer_->finish());
  release_read_frames();
  timings_.clear();
  return finished;
}

void ScoringSession::finish_at_stop(GstElement* element, StreamedLog* log) {
  try {
    const auto finished = finish();
    const auto& scores = scorer_->scores();
    if (log)
      for (const FinishedFrame& frame : finished)
        log->add_frame(frame.index, scores.frame_scores(frame.index), frame.timing.running_time,
                       scores.names(), scoring_time_);
  } catch (const Error& error) {
    GST_WARNING_OBJECT(element, "finishing at stop failed: %s", error.what());
  }
}

void ScoringSession::release_read_frames() {
  while (!held_.empty() && held_.front().index < scorer_->frames_released()) {
    for (unsigned i = 0; i < 2; ++i) sources_[i]->recycle(std::move(held_.front().frames[i]));
    held_.pop_front();
  }
}

std::vector<FinishedFrame> ScoringSession::with_timings(const std::vector<unsigned>& indices) {
  std::vector<FinishedFrame> frames;
  for (const unsigned index : indices) {
    // Frames off the subsample grid never finish: their timings go too.
    while (!timings_.empty() && timings_.front().first < index) timings_.pop_front();
    FinishedFrame frame{index, {}};
    if (!timings_.empty() && timings_.front().first == index) {
      frame.timing = timings_.front().second;
      timings_.pop_front();
    }
    frames.push_back(frame);
  }
  return frames;
}

}  // namespace vmafexact::gst
