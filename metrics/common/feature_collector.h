// Per-frame scores keyed by libvmaf's names, in the order libvmaf's feature
// collector would hold them: the order in which libvmaf first writes each name.
// vmafexact writes some scores earlier than libvmaf (integer motion's motion2
// and motion3, which libvmaf writes at flush), so each name also carries the
// phase of libvmaf's run in which libvmaf first writes it.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact {

// When libvmaf first writes a score: while extracting frames, in an
// extractor's flush at end of stream, or as a model's prediction after both.
enum class WritePhase { kExtract, kFlush, kModel };

class FeatureCollector {
 public:
  // Records one score. Writing the same name twice for one frame is a bug in an
  // extractor and throws vmafexact::Error. A new name goes after every name of
  // its phase or an earlier one, before the names of later phases; among the
  // names of the flush phase, also after those of the writers up to its own
  // and before those of later writers (set_writer()).
  void append(std::string_view name, unsigned index, double value,
              WritePhase phase = WritePhase::kExtract);
  // The position, in libvmaf's order of registration, of the extractor that
  // writes next. libvmaf flushes its extractors one after the other in that
  // order, so the names it first writes at flush are ordered by extractor;
  // vmafexact writes them earlier and in any order between extractors (one
  // motion with motion_five_frame_window waits a frame longer than another).
  void set_writer(unsigned position) { writer_ = position; }
  // The phase a name was first written with (kExtract for unknown names).
  WritePhase phase(std::string_view name) const;

  std::optional<double> score(std::string_view name, unsigned index) const;

  // Names in first-written order.
  const std::vector<std::string>& names() const { return names_; }

  // One past the highest frame index written for any name.
  unsigned frame_count() const { return frame_count_; }

  // Every score of one frame, in names() order, skipping names not written there.
  std::vector<std::pair<std::string, double>> frame_scores(unsigned index) const;

  // The scores of one name at frames 0 .. frame_count()-1 (a copy); nullopt
  // where unwritten or dropped; no column for an unknown name.
  std::optional<std::vector<std::optional<double>>> column(std::string_view name) const;

  // Frees the scores of frames below `index` (frames whose scores are final
  // and have been reported), so that a run of any length keeps only the frames
  // still being scored. Names, phases and aggregates stay; frame_count() too.
  // A later write to a dropped frame throws vmafexact::Error (a frame was
  // reported before its scores were complete).
  void drop_frames_below(unsigned index);
  unsigned frames_dropped() const { return dropped_below_; }

  // libvmaf's aggregate metrics (vmaf_feature_collector_set_aggregate): one
  // value per name for the whole stream, set by an extractor's flush, in the
  // order first set. Setting a name again with the same value does nothing;
  // another value throws vmafexact::Error, as libvmaf refuses it.
  void set_aggregate(std::string_view name, double value);
  const std::vector<std::pair<std::string, double>>& aggregates() const { return aggregates_; }

  void clear();

 private:
  std::size_t find(std::string_view name) const;

  std::vector<std::string> names_;
  std::vector<WritePhase> phases_;  // parallel to names_, never decreasing
  std::vector<unsigned> writers_;   // parallel to names_: set_writer() at the first write
  unsigned writer_ = 0;
  // One name's scores from frame `first` on: frames below it are unwritten
  // or dropped, so a collector holds only the frames it was given since the
  // last drop, not every frame since 0.
  struct Column {
    unsigned first = 0;
    std::deque<std::optional<double>> values;
    const std::optional<double>* at(unsigned index) const {
      if (index < first || index - first >= values.size()) return nullptr;
      return &values[index - first];
    }
  };
  std::vector<Column> columns_;
  unsigned frame_count_ = 0;
  unsigned dropped_below_ = 0;
  std::vector<std::pair<std::string, double>> aggregates_;
};

}  // namespace vmafexact
