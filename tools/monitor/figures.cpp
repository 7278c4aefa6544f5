#include "figures.h"

#include <cstdio>
#include <string_view>

namespace vmafexact::monitor_tool {
namespace {

// Each score's figures in a window or summary message: its nested structures'
// gdouble fields (min, max, mean, p5, ...), in the element's order.
ScoreStats nested_stats(const GstStructure* structure) {
  ScoreStats result;
  const gint fields = gst_structure_n_fields(structure);
  for (gint i = 0; i < fields; ++i) {
    const gchar* name = gst_structure_nth_field_name(structure, i);
    const GValue* value = gst_structure_get_value(structure, name);
    if (!GST_VALUE_HOLDS_STRUCTURE(value)) continue;
    const GstStructure* nested = gst_value_get_structure(value);
    std::vector<std::pair<std::string, double>> values;
    const gint stats = gst_structure_n_fields(nested);
    for (gint j = 0; j < stats; ++j) {
      const gchar* stat = gst_structure_nth_field_name(nested, j);
      const GValue* number = gst_structure_get_value(nested, stat);
      if (G_VALUE_HOLDS_DOUBLE(number)) values.emplace_back(stat, g_value_get_double(number));
    }
    result.emplace_back(name, std::move(values));
  }
  return result;
}

guint64 uint64_field(const GstStructure* structure, const char* name, guint64 otherwise = 0) {
  guint64 number = otherwise;
  gst_structure_get_uint64(structure, name, &number);
  return number;
}

void take_models(Figures& f, const GstStructure* s) {
  if (const gchar* models = gst_structure_get_string(s, "models"))
    f.model_keys = model_keys_of(models);
}

bool is_key_start(char c) { return g_ascii_isalpha(c) || c == '_'; }
bool is_key_char(char c) { return g_ascii_isalnum(c) || c == '_' || c == '-' || c == '.'; }

// At `text`: KEY= (a score name and its '=').
std::size_t key_length(std::string_view text) {
  if (text.empty() || !is_key_start(text.front())) return 0;
  std::size_t length = 1;
  while (length < text.size() && is_key_char(text[length])) ++length;
  return length < text.size() && text[length] == '=' ? length : 0;
}

}  // namespace

std::vector<std::string> model_keys_of(std::string_view models) {
  // A model file's path, in parentheses, may hold ", " and '='; a new entry
  // starts only outside them, after ", ", with KEY=.
  std::vector<std::string> keys;
  std::size_t at = 0;
  while (at < models.size()) {
    const std::size_t length = key_length(models.substr(at));
    if (length == 0) break;
    keys.emplace_back(models.substr(at, length));
    int depth = 0;
    std::size_t next = std::string_view::npos;
    for (std::size_t i = at + length; i + 1 < models.size(); ++i) {
      if (models[i] == '(') ++depth;
      if (models[i] == ')' && depth > 0) --depth;
      if (depth == 0 && models[i] == ',' && models[i + 1] == ' ' &&
          key_length(models.substr(i + 2)) > 0) {
        next = i + 2;
        break;
      }
    }
    at = next;
  }
  return keys;
}

std::vector<std::string> named_model_keys(std::string_view model_property) {
  std::vector<std::string> keys;
  constexpr std::string_view kName = ":name=";
  for (auto at = model_property.find(kName); at != std::string_view::npos;
       at = model_property.find(kName, at + 1)) {
    const std::string_view rest = model_property.substr(at + kName.size());
    if (rest.empty() || !is_key_start(rest.front())) continue;
    std::size_t length = 1;
    while (length < rest.size() && is_key_char(rest[length])) ++length;
    keys.emplace_back(rest.substr(0, length));
  }
  return keys;
}

void take_frame(Figures& f, const GstStructure* s) {
  f.last_scores.clear();
  const gint fields = gst_structure_n_fields(s);
  for (gint i = 0; i < fields; ++i) {
    const gchar* name = gst_structure_nth_field_name(s, i);
    const GValue* value = gst_structure_get_value(s, name);
    if (G_VALUE_HOLDS_DOUBLE(value)) f.last_scores.emplace_back(name, g_value_get_double(value));
  }
  ++f.frame_messages;
  guint64 index = 0;
  if (gst_structure_get_uint64(s, "index", &index)) f.last_index = index;
  const GstClockTime running_time = uint64_field(s, "running-time", GST_CLOCK_TIME_NONE);
  if (GST_CLOCK_TIME_IS_VALID(f.last_running_time) && GST_CLOCK_TIME_IS_VALID(running_time) &&
      running_time > f.last_running_time) {
    f.media_time += running_time - f.last_running_time;
    f.media_seconds = static_cast<double>(f.media_time) / GST_SECOND;
  }
  f.last_running_time = running_time;
  f.last_frame_unix_time = static_cast<double>(g_get_real_time()) / G_USEC_PER_SEC;
}

void take_window(Figures& f, const GstStructure* s) {
  f.have_window = true;
  f.window_stats = nested_stats(s);
  f.window_frames = uint64_field(s, "frames");
  f.window_unpaired_ref = uint64_field(s, "frames-unpaired-ref");
  f.window_unpaired_dist = uint64_field(s, "frames-unpaired-dist");
  f.window_skipped_late = uint64_field(s, "frames-skipped-late");
  f.window_start = uint64_field(s, "window-start", GST_CLOCK_TIME_NONE);
  f.window_end = uint64_field(s, "window-end", GST_CLOCK_TIME_NONE);
  take_models(f, s);
  // Tumbling windows add up to the run's unpaired counts; overlapping ones
  // (window-step shorter than window) would count frames twice, so they add
  // nothing and the counters follow the alerts and the summary.
  if (!GST_CLOCK_TIME_IS_VALID(f.previous_window_end) || !GST_CLOCK_TIME_IS_VALID(f.window_start) ||
      f.window_start >= f.previous_window_end) {
    f.windows_unpaired_ref_sum += f.window_unpaired_ref;
    f.windows_unpaired_dist_sum += f.window_unpaired_dist;
    f.windows_skipped_late_sum += f.window_skipped_late;
  }
  f.previous_window_end = f.window_end;
}

void take_alert(Figures& f, const GstStructure* s) {
  const gchar* expression = gst_structure_get_string(s, "alert");
  const gchar* state = gst_structure_get_string(s, "state");
  if (!expression || !state) {
    std::fprintf(stderr, "warning: a vmafexact-alert message without alert or state: ignored\n");
    return;
  }
  const gchar* input = gst_structure_get_string(s, "input");
  const gchar* score = gst_structure_get_string(s, "score");
  take_models(f, s);
  AlertState& alert = f.alerts[{expression, input ? input : ""}];
  alert.alert = expression;
  alert.input = input ? input : "";
  if (score) alert.score = score;
  const bool raised = std::string_view(state) == "raised";
  if (raised && !alert.active) ++alert.raised;
  alert.active = raised;
  gdouble number = 0;
  if (gst_structure_get_double(s, "value", &number)) alert.value = number;
  if (gst_structure_get_double(s, "threshold", &number)) alert.threshold = number;
  guint64 count = 0;
  if (gst_structure_get_uint64(s, "frames-unpaired-ref", &count))
    f.alert_unpaired_ref = std::max(f.alert_unpaired_ref, count);
  if (gst_structure_get_uint64(s, "frames-unpaired-dist", &count))
    f.alert_unpaired_dist = std::max(f.alert_unpaired_dist, count);
}

void take_summary(Figures& f, const GstStructure* s) {
  f.have_summary = true;
  f.summary_scored = uint64_field(s, "frames-scored");
  f.summary_unpaired_ref = uint64_field(s, "frames-unpaired-ref");
  f.summary_unpaired_dist = uint64_field(s, "frames-unpaired-dist");
  f.summary_skipped_late = uint64_field(s, "frames-skipped-late");
  f.pooled = nested_stats(s);
  take_models(f, s);
  // The aggregates are the summary's gdouble fields; every other figure of it
  // is an integer, a string or a score's structure.
  f.aggregates.clear();
  const gint fields = gst_structure_n_fields(s);
  for (gint i = 0; i < fields; ++i) {
    const gchar* name = gst_structure_nth_field_name(s, i);
    const GValue* value = gst_structure_get_value(s, name);
    if (G_VALUE_HOLDS_DOUBLE(value)) f.aggregates.emplace_back(name, g_value_get_double(value));
  }
}

guint64 ChannelFigures::alert_raised(const std::pair<std::string, std::string>& alert) const {
  const auto carried = carried_alert_raised.find(alert);
  const auto current = run.alerts.find(alert);
  return (carried != carried_alert_raised.end() ? carried->second : 0) +
         (current != run.alerts.end() ? current->second.raised : 0);
}

std::vector<std::string> ChannelFigures::model_keys() const {
  return run.model_keys.empty() ? named_model_keys(model) : run.model_keys;
}

void ChannelFigures::new_run() {
  carried_scored += run.frames_scored();
  carried_unpaired_ref += run.unpaired_ref();
  carried_unpaired_dist += run.unpaired_dist();
  carried_skipped_late += run.skipped_late();
  carried_media_seconds += run.media_seconds;
  for (const auto& [key, alert] : run.alerts) carried_alert_raised[key] += alert.raised;
  run = Figures{};
}

}  // namespace vmafexact::monitor_tool
