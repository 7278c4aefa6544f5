#include "message_json.h"

#include <cmath>
#include <string_view>

#include "handles.h"

namespace vmafexact::tools {
namespace {

bool is_time_field(std::string_view name) {
  return name == "pts" || name == "running-time" || name == "stream-time" || name == "duration" ||
         name == "window-start" || name == "window-end";
}

std::string wallclock_text() {
  GDateTime* now = g_date_time_new_now_utc();
  GCharPtr text(g_date_time_format_iso8601(now));
  g_date_time_unref(now);
  return text ? text.get() : "";
}

}  // namespace

nlohmann::ordered_json json_of(const GstStructure* structure) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  const gint fields = gst_structure_n_fields(structure);
  for (gint i = 0; i < fields; ++i) {
    const gchar* name = gst_structure_nth_field_name(structure, i);
    const GValue* value = gst_structure_get_value(structure, name);
    const GType type = G_VALUE_TYPE(value);
    nlohmann::ordered_json& field = object[name];
    if (type == G_TYPE_UINT64) {
      const guint64 number = g_value_get_uint64(value);
      if (is_time_field(name) && !GST_CLOCK_TIME_IS_VALID(number))
        field = nullptr;
      else
        field = number;
    } else if (type == G_TYPE_DOUBLE) {
      const double number = g_value_get_double(value);
      if (std::isfinite(number))
        field = number;
      else
        field = nullptr;
    } else if (type == G_TYPE_INT64) {
      field = g_value_get_int64(value);
    } else if (type == G_TYPE_INT) {
      field = g_value_get_int(value);
    } else if (type == G_TYPE_UINT) {
      field = g_value_get_uint(value);
    } else if (type == G_TYPE_BOOLEAN) {
      field = static_cast<bool>(g_value_get_boolean(value));
    } else if (type == G_TYPE_STRING) {
      const gchar* text = g_value_get_string(value);
      field = text ? nlohmann::ordered_json(text) : nlohmann::ordered_json(nullptr);
    } else if (type == GST_TYPE_STRUCTURE) {
      field = json_of(gst_value_get_structure(value));
    } else {
      GCharPtr text(gst_value_serialize(value));
      field = text ? nlohmann::ordered_json(text.get()) : nlohmann::ordered_json(nullptr);
    }
  }
  return object;
}

std::string json_line(const GstStructure* structure) {
  const nlohmann::ordered_json line = {{"wallclock", wallclock_text()},
                                       {"message", gst_structure_get_name(structure)},
                                       {"fields", json_of(structure)}};
  // A text field may carry bytes that are not UTF-8 (a model file's path in
  // the provenance): replaced by U+FFFD rather than throwing, so that every
  // line is valid JSON.
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace vmafexact::tools
