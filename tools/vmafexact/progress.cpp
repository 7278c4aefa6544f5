#include "progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vmafexact::cli {
namespace {

std::string clock_text(double seconds) {
  const auto total = static_cast<long long>(std::llround(seconds));
  char text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60,
                  total % 60);
  else
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  return text;
}

}  // namespace

Progress::Progress(bool enabled, std::optional<guint64> expected_frames, std::size_t encodes)
    : enabled_(enabled), expected_(expected_frames), frames_(std::max<std::size_t>(encodes, 1)) {}

guint64 Progress::slowest() const { return *std::min_element(frames_.begin(), frames_.end()); }

void Progress::on_frame(const GstStructure* frame, std::size_t encode) {
  guint64 index = 0;
  if (encode < frames_.size() && gst_structure_get_uint64(frame, "index", &index))
    frames_[encode] = std::max(frames_[encode], index + 1);
  if (frames_.size() > 1) {
    draw();
    return;
  }
  if (score_name_.empty()) {
    // VMAF when there is one, else the frame's first score.
    if (gst_structure_has_field_typed(frame, "vmaf", G_TYPE_DOUBLE)) {
      score_name_ = "vmaf";
    } else {
      for (gint i = 0; i < gst_structure_n_fields(frame); ++i) {
        const gchar* name = gst_structure_nth_field_name(frame, i);
        if (gst_structure_has_field_typed(frame, name, G_TYPE_DOUBLE)) {
          score_name_ = name;
          break;
        }
      }
    }
  }
  double value = 0;
  if (!score_name_.empty() && gst_structure_get_double(frame, score_name_.c_str(), &value) &&
      std::isfinite(value)) {
    score_sum_ += value;
    ++score_count_;
  }
  draw();
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && shown_ && now - drawn_at_ < std::chrono::milliseconds(100)) return;
  drawn_at_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const guint64 frames = slowest();
  const double fps = elapsed > 0 ? static_cast<double>(frames) / elapsed : 0;
  std::string line = "frame " + std::to_string(frames);
  if (expected_ && *expected_ > 0) {
    line += '/';
    line += std::to_string(*expected_);
    char percent[16];
    std::snprintf(percent, sizeof percent, " %3.0f%%",
                  std::min(100.0, 100.0 * static_cast<double>(frames) / *expected_));
    line += percent;
  }
  if (frames_.size() > 1) line += " (slowest of " + std::to_string(frames_.size()) + " encodes)";
  char figures[96];
  std::snprintf(figures, sizeof figures, "  %.1f fps", fps);
  line += figures;
  if (score_count_ > 0) {
    std::snprintf(figures, sizeof figures, "  %s %.2f", score_name_.c_str(),
                  score_sum_ / static_cast<double>(score_count_));
    line += figures;
  }
  line += "  elapsed " + clock_text(elapsed);
  if (expected_ && fps > 0 && frames < *expected_)
    line += "  ETA " + clock_text(static_cast<double>(*expected_ - frames) / fps);
  // Carriage return and erase to the end of the line: redrawn in place.
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::clear() {
  if (!enabled_ || !shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

void Progress::print(const std::string& line) {
  clear();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  if (enabled_ && slowest() > 0) draw(true);
}

}  // namespace vmafexact::cli
