#include "common/feature_collector.h"

#include "common/error.h"

namespace vmafexact {

std::size_t FeatureCollector::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  return names_.size();
}

void FeatureCollector::append(std::string_view name, unsigned index, double value,
                              WritePhase phase) {
  std::size_t key = find(name);
  if (key == names_.size()) {
    // After every name of an earlier phase and of this one (at flush: of the
    // writers up to this one).
    const auto goes_before = [&](std::size_t other) {
      if (phases_[other] != phase) return phases_[other] > phase;
      return phase == WritePhase::kFlush && writers_[other] > writer_;
    };
    key = 0;
    while (key < names_.size() && !goes_before(key)) ++key;
    const auto at = static_cast<std::ptrdiff_t>(key);
    names_.emplace(names_.begin() + at, name);
    phases_.insert(phases_.begin() + at, phase);
    writers_.insert(writers_.begin() + at, writer_);
    columns_.emplace(columns_.begin() + at);
  }
  if (index < dropped_below_)
    throw Error("score '" + std::string(name) + "' written for frame " + std::to_string(index) +
                ", whose scores were already final and released");
  Column& column = columns_[key];
  if (column.values.empty()) {
    column.first = index;
  } else if (index < column.first) {
    column.values.insert(column.values.begin(), column.first - index, std::nullopt);
    column.first = index;
  }
  if (column.values.size() <= index - column.first) column.values.resize(index - column.first + 1);
  auto& slot = column.values[index - column.first];
  if (slot)
    throw Error("score '" + std::string(name) + "' written twice for frame " +
                std::to_string(index));
  slot = value;
  if (index + 1 > frame_count_) frame_count_ = index + 1;
}

WritePhase FeatureCollector::phase(std::string_view name) const {
  const std::size_t key = find(name);
  return key == names_.size() ? WritePhase::kExtract : phases_[key];
}

std::optional<double> FeatureCollector::score(std::string_view name, unsigned index) const {
  const std::size_t key = find(name);
  if (key == names_.size()) return std::nullopt;
  const auto* slot = columns_[key].at(index);
  return slot ? *slot : std::nullopt;
}

std::vector<std::pair<std::string, double>> FeatureCollector::frame_scores(unsigned index) const {
  std::vector<std::pair<std::string, double>> scores;
  for (std::size_t key = 0; key < names_.size(); ++key) {
    const auto* slot = columns_[key].at(index);
    if (slot && *slot) scores.emplace_back(names_[key], **slot);
  }
  return scores;
}

std::optional<std::vector<std::optional<double>>> FeatureCollector::column(
    std::string_view name) const {
  const std::size_t key = find(name);
  if (key == names_.size()) return std::nullopt;
  const Column& kept = columns_[key];
  std::vector<std::optional<double>> values(kept.values.empty() ? 0
                                                                : kept.first + kept.values.size());
  for (std::size_t i = 0; i < kept.values.size(); ++i) values[kept.first + i] = kept.values[i];
  return values;
}

void FeatureCollector::drop_frames_below(unsigned index) {
  if (index <= dropped_below_) return;
  dropped_below_ = index;
  for (Column& column : columns_) {
    while (!column.values.empty() && column.first < index) {
      column.values.pop_front();
      ++column.first;
    }
    if (column.values.empty()) column.first = index;
  }
}

void FeatureCollector::set_aggregate(std::string_view name, double value) {
  for (const auto& [kept, kept_value] : aggregates_) {
    if (kept != name) continue;
    // libvmaf compares with ==: a NaN never equals itself.
    if (kept_value == value) return;
    throw Error("aggregate '" + std::string(name) + "' set twice with different values");
  }
  aggregates_.emplace_back(name, value);
}

void FeatureCollector::clear() {
  names_.clear();
  phases_.clear();
  writers_.clear();
  writer_ = 0;
  aggregates_.clear();
  columns_.clear();
  frame_count_ = 0;
  dropped_below_ = 0;
}

}  // namespace vmafexact
