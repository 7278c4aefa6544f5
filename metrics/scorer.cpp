#include "scorer.h"

#include <algorithm>

#include "common/error.h"
#include "psnr/psnr_extractor.h"

namespace vmafexact {

const std::vector<std::string>& available_features() {
  static const std::vector<std::string> names = {"psnr"};
  return names;
}

std::unique_ptr<FeatureExtractor> make_feature_extractor(std::string_view name) {
  if (name == "psnr") return std::make_unique<psnr::PsnrExtractor>();
  std::string known;
  for (const auto& feature : available_features()) known += (known.empty() ? "" : ", ") + feature;
  throw Error("unknown feature '" + std::string(name) + "' (available: " + known + ")");
}

std::vector<std::string> parse_feature_list(std::string_view list) {
  std::vector<std::string> features;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) {
      make_feature_extractor(item);  // validates the name, throws if unknown
      if (std::find(features.begin(), features.end(), item) == features.end())
        features.emplace_back(item);
    }
    start = end + 1;
  }
  return features;
}

Scorer::Scorer(const std::vector<std::string>& features, const PictureFormat& format)
    : format_(format) {
  if (!is_supported_bpc(format.bpc))
    throw Error("unsupported bit depth " + std::to_string(format.bpc) +
                " (8, 10, 12 and 16 bits are supported)");
  for (const auto& name : features) {
    auto extractor = make_feature_extractor(name);
    extractor->init(format);
    latency_frames_ = std::max(latency_frames_, extractor->latency_frames());
    extractors_.push_back(std::move(extractor));
  }
}

std::vector<unsigned> Scorer::push(const PictureView& ref, const PictureView& dist) {
  const unsigned index = frames_pushed_++;
  for (auto& extractor : extractors_) extractor->extract(ref, dist, index, scores_);
  std::vector<unsigned> finished;
  while (frames_final_ + latency_frames_ < frames_pushed_) finished.push_back(frames_final_++);
  return finished;
}

std::vector<unsigned> Scorer::finish() {
  for (auto& extractor : extractors_) extractor->flush(scores_);
  std::vector<unsigned> finished;
  while (frames_final_ < frames_pushed_) finished.push_back(frames_final_++);
  return finished;
}

}  // namespace vmafexact
