#include "scorer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <thread>

#include "common/error.h"

namespace vmafexact {

std::vector<FeatureRequest> model_feature_requests(const model::Model& model) {
  std::vector<FeatureRequest> requests;
  for (const auto& feature : model.features()) {
    const FeatureEntry* entry = feature_entry_providing(feature.name);
    if (!entry)
      throw Error("model " + model.name() + ": no feature extractor provides its input '" +
                  feature.name + "'");
    requests.push_back({std::string(entry->name()), feature.options});
  }
  return requests;
}

std::vector<std::string> features_without_cuda_twin(const std::vector<ScoredModel>& models,
                                                    const std::vector<FeatureRequest>& features) {
  std::vector<std::string> missing;
  const auto check = [&missing](const FeatureRequest& request) {
    const std::string why = cuda_twin_refusal(request.name, request.options);
    if (why.empty()) return;
    const std::string entry = request.name + " (" + why + ")";
    if (std::find(missing.begin(), missing.end(), entry) == missing.end()) missing.push_back(entry);
  };
  for (const auto& scored : models) {
    for (const auto& request : model_feature_requests(scored.model)) check(request);
    for (const auto& member : scored.bootstrap)
      for (const auto& request : model_feature_requests(member)) check(request);
  }
  for (const auto& request : features) check(request);
  return missing;
}

namespace {

// A bootstrap collection's model N's score name: libvmaf's "%s_%04d".
std::string bootstrap_member_key(const std::string& key, std::size_t number) {
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "_%04zu", number);
  return key + suffix;
}

}  // namespace

// A new extractor of the backend's, not yet initialised (init()).
std::unique_ptr<FeatureExtractor> Scorer::new_extractor(const FeatureRequest& request) const {
  return options_.make_extractor ? options_.make_extractor(request.name, request.options)
                                 : make_feature_extractor(request.name, request.options);
}

// libvmaf's sharing rule: the first extractor with an identity serves every
// later request with the same identity (its other options are the first's).
FeatureExtractor& Scorer::extractor_for(const FeatureRequest& request) {
  const std::string identity = identity_of(request);
  for (std::size_t i = 0; i < identities_.size(); ++i)
    if (identities_[i] == identity) return *extractors_[i];
  auto extractor = new_extractor(request);  // init() in the constructor
  identities_.push_back(identity);
  latency_frames_ = std::max(latency_frames_, extractor->latency_frames());
  requests_.push_back(request);
  extractors_.push_back(std::move(extractor));
  return *extractors_.back();
}

Scorer::Scorer(ScorerModels models, const std::vector<FeatureRequest>& features,
               const PictureFormat& format, ScorerOptions options)
    : format_(format), models_(models.shared()), options_(options) {
  if (options_.subsample == 0) throw Error("subsample must be at least 1");
  if (!is_supported_bpc(format.bpc))
    throw Error("unsupported bit depth " + std::to_string(format.bpc) +
                " (8, 10, 12 and 16 bits are supported)");
  // libvmaf order: each model's inputs in model order, then the extra features;
  // an extractor with the same options serves every request for it.
  const auto input_keys = [this](const model::Model& model) {
    std::vector<std::string> keys;
    const auto requests = model_feature_requests(model);
    for (std::size_t i = 0; i < requests.size(); ++i)
      keys.push_back(extractor_for(requests[i]).score_key(model.features()[i].name));
    return keys;
  };
  for (const auto& scored : *models_) {
    ModelInput input;
    input.keys = input_keys(scored.model);
    for (const auto& member : scored.bootstrap) input.bootstrap_keys.push_back(input_keys(member));
    input.written = written_scores(scored);
    model_inputs_.push_back(std::move(input));
  }
  for (const auto& request : features) extractor_for(request);

  const unsigned threads =
      options_.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options_.threads;
  const unsigned frames = std::min(options_.frames_in_flight == 0 ? threads : options_.frames_in_flight,
                                   threads);
  // Frames side by side: the stateless extractors score on the lanes' copies,
  // so these are never initialised (no planes allocated and cleared for them).
  const bool lanes = threads > 1 && !options_.overlap_frames && frames > 1;
  for (auto& extractor : extractors_)
    if (!lanes || extractor->keeps_state()) extractor->init(format_);
  if (threads <= 1 || options_.overlap_frames) return;  // one thread (or a device's stream)
  threads_ = threads;
  // One frame at a time: the caller scores it and takes bands too, so the pool
  // needs one worker fewer; frames side by side: the caller mostly waits.
  pool_ = std::make_unique<ThreadPool>(frames == 1 ? threads - 1 : threads);
  caller_runner_ = std::make_unique<PoolBandRunner>(*pool_, threads);
  for (auto& extractor : extractors_) extractor->set_band_runner(*caller_runner_);
  if (!lanes) return;  // one frame at a time, in bands
  lanes_.resize(frames);
  for (auto& lane : lanes_) {
    lane_runners_.push_back(std::make_unique<PoolBandRunner>(*pool_, threads));
    lane.resize(extractors_.size());
    for (std::size_t p = 0; p < extractors_.size(); ++p)
      if (!extractors_[p]->keeps_state())  // else it stays on extractors_, in order
        lane[p] = new_extractor(requests_[p]);
  }
  for (unsigned l = 0; l < frames; ++l) free_lanes_.push_back(l);
  // A worker per lane: one more frame waits queued (see lanes_mutex_).
  max_in_flight_ = frames == threads ? frames + 1 : frames;
  // init() allocates and clears each extractor's planes (ADM's take tens of
  // MiB at 1080p): a lane each on the workers, so that the page faults of
  // sixteen lanes are not taken one after the other before the first frame.
  pool_->parallel_for(0, frames, [this](unsigned l) {
    for (auto& extractor : lanes_[l])
      if (extractor) {
        extractor->init(format_);
        extractor->set_band_runner(*lane_runners_[l]);
      }
  });
}

Scorer::Scorer(const std::vector<FeatureRequest>& features, const PictureFormat& format)
    : Scorer({}, features, format) {}

bool Scorer::reads_chroma() const {
  return std::any_of(extractors_.begin(), extractors_.end(),
                     [](const auto& extractor) { return extractor->reads_chroma(); });
}

std::vector<double> Scorer::input_values(const model::Model& model,
                                         const std::vector<std::string>& keys,
                                         unsigned index) const {
  std::vector<double> values;
  for (const auto& key : keys) {
    const auto value = scores_.score(key, index);
    if (!value)
      throw Error("model " + model.name() + ": score " + key + " missing for frame " +
                  std::to_string(index));
    values.push_back(*value);
  }
  return values;
}

void Scorer::predict(unsigned index) {
  const std::vector<ScoredModel>& models = *models_;
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto values = input_values(models[m].model, model_inputs_[m].keys, index);
    scores_.append(models[m].key, index, models[m].model.predict(values, models[m].predict),
                   WritePhase::kModel);
  }
  // Bootstrap collections after every model, as libvmaf's tool scores them:
  // each model's score, then the collection's statistics of their unfinished
  // predictions.
  for (std::size_t m = 0; m < models.size(); ++m) {
    const ScoredModel& scored = models[m];
    if (scored.bootstrap.empty()) continue;
    // written_scores(): the key, then the models', then the four statistics.
    const std::vector<std::string>& names = model_inputs_[m].written;
    std::vector<double> unfinished;
    for (std::size_t b = 0; b < scored.bootstrap.size(); ++b) {
      const model::Model& member = scored.bootstrap[b];
      const auto values = input_values(member, model_inputs_[m].bootstrap_keys[b], index);
      unfinished.push_back(member.predict_unfinished(values));
      scores_.append(names[1 + b], index, member.finish(unfinished.back(), scored.predict),
                     WritePhase::kModel);
    }
    const auto stats =
        model::bootstrap_scores(std::move(unfinished), scored.bootstrap.front(), scored.predict);
    const std::size_t first = 1 + scored.bootstrap.size();
    scores_.append(names[first], index, stats.bagging, WritePhase::kModel);
    scores_.append(names[first + 1], index, stats.stddev, WritePhase::kModel);
    scores_.append(names[first + 2], index, stats.ci_p95_lo, WritePhase::kModel);
    scores_.append(names[first + 3], index, stats.ci_p95_hi, WritePhase::kModel);
  }
}

void Scorer::extract_all(const PictureView& ref, const PictureView& dist, unsigned index) {
  if (caller_runner_) caller_runner_->set_frame(index);
  for (std::size_t p = 0; p < extractors_.size(); ++p)
    if (on_grid(index) || extractors_[p]->sees_every_frame()) {
      scores_.set_writer(static_cast<unsigned>(p));
      extractors_[p]->extract(ref, dist, index, scores_);
    }
  frames_extracted_ = index + 1;
}

// One frame scored on a lane's thread: the stateless extractors' writes, one
// collector per extractor position, replayed in order by merge_oldest().
struct Scorer::FrameJob {
  PictureView ref, dist;
  unsigned index = 0;
  std::vector<FeatureCollector> writes;
  std::future<void> done;
};

Scorer::~Scorer() {
  // The workers use the lanes' extractors and runners: they go first.
  for (auto& job : in_flight_) job->done.wait();
  pool_.reset();
}

void Scorer::merge_oldest(std::vector<unsigned>& finished) {
  std::unique_ptr<FrameJob> job = std::move(in_flight_.front());
  in_flight_.pop_front();
  job->done.get();  // rethrows what the lane threw
  caller_runner_->set_frame(job->index);
  const auto& lane = lanes_[0];
  for (std::size_t p = 0; p < extractors_.size(); ++p) {
    if (!(on_grid(job->index) || extractors_[p]->sees_every_frame())) continue;
    scores_.set_writer(static_cast<unsigned>(p));
    if (lane[p]) {
      // A stateless extractor writes its own frame only.
      const FeatureCollector& writes = job->writes[p];
      for (const auto& [name, value] : writes.frame_scores(job->index))
        scores_.append(name, job->index, value, writes.phase(name));
    } else {
      extractors_[p]->extract(job->ref, job->dist, job->index, scores_);  // stateful: in order
    }
  }
  frames_extracted_ = job->index + 1;
  if (frames_extracted_ > latency_frames_)
    finalize_below(frames_extracted_ - latency_frames_, finished);
}

// Merges the frames in flight whose scoring has ended, oldest first, up to
// the first one still being scored.
void Scorer::merge_ready(std::vector<unsigned>& finished) {
  while (!in_flight_.empty() &&
         in_flight_.front()->done.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    merge_oldest(finished);
}

// Predicts and returns, in order, the frames below `limit` not yet final
// (under subsampling only those on the grid are predicted and returned).
void Scorer::finalize_below(unsigned limit, std::vector<unsigned>& finished) {
  while (frames_final_ < limit) {
    const unsigned final_index = frames_final_++;
    if (!on_grid(final_index)) continue;
    predict(final_index);
    pools_.add_frame(scores_.frame_scores(final_index));
    finished.push_back(final_index);
  }
}

// Frames whose scores are complete once `extracted` frames have been extracted.
std::vector<unsigned> Scorer::finalize(unsigned extracted) {
  std::vector<unsigned> finished;
  if (extracted > latency_frames_) finalize_below(extracted - latency_frames_, finished);
  return finished;
}

std::vector<unsigned> Scorer::push(const PictureView& ref, const PictureView& dist) {
  const unsigned index = frames_pushed_++;
  if (!lanes_.empty()) {
    auto job = std::make_unique<FrameJob>();
    job->ref = ref;
    job->dist = dist;
    job->index = index;
    job->writes.resize(extractors_.size());
    FrameJob* work = job.get();
    job->done = pool_->post(index, [this, work] {
      // At most one job a worker runs at once, and there are no more workers
      // than lanes when jobs queue up (max_in_flight_): a lane is free.
      const unsigned l = [this] {
        const std::lock_guard lock(lanes_mutex_);
        const unsigned free_lane = free_lanes_.back();
        free_lanes_.pop_back();
        return free_lane;
      }();
      struct GiveBack {
        Scorer* scorer;
        unsigned lane;
        ~GiveBack() {
          const std::lock_guard lock(scorer->lanes_mutex_);
          scorer->free_lanes_.push_back(lane);
        }
      } give_back{this, l};
      lane_runners_[l]->set_frame(work->index);
      auto& lane = lanes_[l];
      for (std::size_t p = 0; p < lane.size(); ++p)
        if (lane[p] && (on_grid(work->index) || lane[p]->sees_every_frame()))
          lane[p]->extract(work->ref, work->dist, work->index, work->writes[p]);
    });
    in_flight_.push_back(std::move(job));
    // Scores come out as soon as they are ready; a full set of frames in
    // flight waits for the oldest (which bounds memory and queued work).
    std::vector<unsigned> finished;
    merge_ready(finished);
    while (in_flight_.size() >= max_in_flight_) merge_oldest(finished);
    return finished;
  }
  if (!options_.overlap_frames) {
    extract_all(ref, dist, index);
    return finalize(frames_extracted_);
  }
  for (auto& extractor : extractors_)
    if (on_grid(index) || extractor->sees_every_frame()) extractor->submit(ref, dist, index);
  pending_.push_back(PendingPair{ref, dist, index});
  if (pending_.size() <= options_.overlap_frames) return {};
  const PendingPair oldest = pending_.front();
  pending_.pop_front();
  extract_all(oldest.ref, oldest.dist, oldest.index);
  return finalize(frames_extracted_);
}

std::vector<unsigned> Scorer::finish() {
  std::vector<unsigned> merged;
  while (!in_flight_.empty()) merge_oldest(merged);
  for (; !pending_.empty(); pending_.pop_front())
    extract_all(pending_.front().ref, pending_.front().dist, pending_.front().index);
  for (std::size_t p = 0; p < extractors_.size(); ++p) {
    scores_.set_writer(static_cast<unsigned>(p));
    extractors_[p]->flush(scores_);
  }
  finalize_below(frames_pushed_, merged);
  return merged;
}

namespace {

// libvmaf's vmaf_model_feature_overload(): the option merged into the options
// of every input of `loaded` that the overload's extractor computes.
void apply_overload(model::Model& loaded, const ModelOverload& overload) {
  bool used = false;
  for (std::size_t i = 0; i < loaded.features().size(); ++i) {
    const FeatureEntry* entry = feature_entry_providing(loaded.features()[i].name);
    if (!entry || entry->name() != overload.extractor) continue;
    used = true;
    FeatureOptions options = loaded.features()[i].options;
    const auto kept = std::find_if(options.begin(), options.end(), [&](const auto& option) {
      return option.first == overload.option;
    });
    if (kept != options.end())
      kept->second = overload.value;
    else
      options.emplace_back(overload.option, overload.value);
    loaded.set_feature_options(i, std::move(options));
  }
  if (used) return;
  std::string extractors;
  for (const auto& feature : loaded.features()) {
    const FeatureEntry* entry = feature_entry_providing(feature.name);
    if (!entry || extractors.find(std::string(entry->name())) != std::string::npos) continue;
    extractors += (extractors.empty() ? "" : ", ") + std::string(entry->name());
  }
  throw Error("model " + loaded.name() + ": the overload " + overload.extractor + "." +
              overload.option + "=" + overload.value + " names an extractor none of its inputs " +
              "uses (libvmaf would ignore it); overload one of " + extractors +
              ", or ask for the feature itself with the features property");
}

}  // namespace

std::vector<ScoredModel> load_models(const std::vector<ModelSpec>& specs) {
  std::vector<ScoredModel> models;
  for (const auto& spec : specs) {
    model::ModelFile loaded = spec.is_path
                                  ? model::load_model_file_or_collection(spec.source)
                                  : model::load_builtin_model_or_collection(spec.source);
    // A collection's overloads apply to all its models (libvmaf's
    // vmaf_model_collection_feature_overload()).
    const auto prepare = [&spec](model::Model& model) {
      for (const auto& overload : spec.overloads) apply_overload(model, overload);
      // Every input must have an extractor whose options are good: checked
      // now, not at the first frame.
      for (const auto& request : model_feature_requests(model))
        make_feature_extractor(request.name, request.options);
    };
    prepare(loaded.model);
    for (auto& member : loaded.bootstrap) prepare(member);
    std::string key = spec.key;
    if (key.empty()) key = models.empty() ? "vmaf" : loaded.model.name();
    ScoredModel scored{std::move(loaded.model), std::move(key), spec.predict,
                       std::move(loaded.bootstrap)};
    const auto names = written_scores(scored);
    for (const auto& other : models) {
      const auto taken = written_scores(other);
      for (const auto& name : names)
        if (std::find(taken.begin(), taken.end(), name) != taken.end())
          throw Error("two models would both write the score '" + name +
                      "'; give one another name with :name=KEY");
    }
    models.push_back(std::move(scored));
  }
  return models;
}

std::vector<std::string> written_scores(const ScoredModel& model) {
  std::vector<std::string> names = {model.key};
  if (model.bootstrap.empty()) return names;
  for (std::size_t b = 1; b <= model.bootstrap.size(); ++b)
    names.push_back(bootstrap_member_key(model.key, b));
  for (const char* statistic : {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"})
    names.push_back(model.key + statistic);
  return names;
}

}  // namespace vmafexact
