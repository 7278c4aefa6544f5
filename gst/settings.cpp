#include "settings.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "common/error.h"
#include "element_debug.h"
#include "gst_handles.h"
#include "log_file.h"
#include "message_fields.h"
#include "pipeline_files.h"
#include "registry.h"
#include "rotated_names.h"

namespace vmafexact::gst {
namespace {

enum {
  PROP_0,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_MODEL,
  PROP_FEATURES,
  PROP_FRAME_MESSAGE,
  PROP_LOG_LOCATION,
  PROP_LOG_FORMAT,
  PROP_LOG_PRECISION,
  PROP_DISABLE_CLIP,
  PROP_ENABLE_TRANSFORM,
  PROP_SUBSAMPLE,
  PROP_THREADS,
  PROP_FRAMES_IN_FLIGHT,
  PROP_WINDOW,
  PROP_WINDOW_STEP,
  PROP_ALERT,
  PROP_INPUT_TIMEOUT,
  PROP_LOG_ROTATE,
  PROP_MAX_LATENESS,
  PROP_EXTRA_PROVENANCE,
};

void set_string(std::string& target, const GValue* value) {
  const gchar* text = g_value_get_string(value);
  target = text ? text : "";
}

// The features property's help, from the feature registry: every extractor
// with its options. Static: the param spec keeps the pointer.
const std::string& features_blurb() {
  static const std::string blurb = [] {
    const std::string text =
        "Comma-separated extra features to compute besides the models' inputs, named as "
        "libvmaf names its extractors, with libvmaf's option syntax "
        "(name=option=value:option=value), e.g. psnr,float_ssim=enable_lcs=true. Empty: "
        "the models' inputs only. Read when the element starts. Available: ";
    return text + describe_features() + ".";
  }();
  return blurb;
}

std::string builtin_model_list() {
  std::string names;
  for (const auto& name : model::builtin_model_names())
    names += (names.empty() ? "" : ", ") + name;
  std::string collections;
  for (const auto& name : model::builtin_collection_names())
    collections += (collections.empty() ? "" : ", ") + name;
  if (!collections.empty()) names += "; bootstrap collections: " + collections;
  return names.empty() ? "none in this build" : names;
}

// The model property's help, with every built-in model. Static: the param
// spec keeps the pointer.
const std::string& model_blurb() {
  static const std::string blurb =
      "Comma-separated VMAF models: built-in names (" + builtin_model_list() +
      ") or paths of libvmaf JSON model files, each optionally followed by :name=KEY, "
      ":disable_clip, :enable_transform and libvmaf's feature overloads "
      ":EXTRACTOR.OPTION=VALUE (e.g. vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0). The first "
      "model's score is 'vmaf', each further one's its name; a bootstrap collection (built in "
      "or a file such as vmaf_b_v0.6.3.json) also scores KEY_0001.., KEY_bagging, KEY_stddev, "
      "KEY_ci_p95_lo and KEY_ci_p95_hi. Empty: features only. Read when the element starts.";
  return blurb;
}

// The models as the provenance names them: key=name, and a file's path shown
// in UTF-8 (a path need not be; the provenance goes into messages and logs).
std::string describe_models(const std::vector<ModelSpec>& specs,
                            const std::vector<ScoredModel>& loaded) {
  std::string models;
  for (std::size_t m = 0; m < loaded.size(); ++m) {
    models += (m ? ", " : "") + loaded[m].key + "=" + loaded[m].model.name();
    if (specs[m].is_path) {
      const GCharPtr shown(g_filename_display_name(specs[m].source.c_str()));
      models += std::string(" (") + shown.get() + ")";
    }
  }
  return models;
}

// extra-provenance as the settings keep it: each field as text, in order; a
// key of the messages' own fields (the built-in provenance among them) or a
// value with no text noted, for the start to refuse.
void set_extra_provenance(Settings& settings, const GstStructure* structure) {
  settings.extra_provenance_name = structure ? gst_structure_get_name(structure) : "";
  settings.extra_provenance.clear();
  settings.extra_provenance_problem.clear();
  const gint fields = structure ? gst_structure_n_fields(structure) : 0;
  for (gint i = 0; i < fields; ++i) {
    const std::string key = gst_structure_nth_field_name(structure, static_cast<guint>(i));
    const GValue* value = gst_structure_get_value(structure, key.c_str());
    std::string text;
    if (G_VALUE_HOLDS_STRING(value)) {
      const gchar* string = g_value_get_string(value);
      text = string ? string : "";
    } else if (const GCharPtr serialized(gst_value_serialize(value)); serialized) {
      text = serialized.get();
    } else if (settings.extra_provenance_problem.empty()) {
      settings.extra_provenance_problem = "the field '" + key + "' is a " +
                                          G_VALUE_TYPE_NAME(value) +
                                          ", which has no text form; give it as a string";
    }
    // The XML log writes each key as an attribute's name: no '/', '+' or ':'.
    const bool xml_name = key.find_first_of("/+:") == std::string::npos;
    if (!xml_name && settings.extra_provenance_problem.empty())
      settings.extra_provenance_problem =
          "the key '" + key + "' holds '/', '+' or ':', which the XML log's attribute names "
          "cannot; use letters, digits, '_', '-' and '.'";
    if (is_message_field(key) && settings.extra_provenance_problem.empty())
      settings.extra_provenance_problem =
          "the key '" + key +
          "' is a field of vmafexact's own provenance or messages; give it another name";
    settings.extra_provenance.emplace_back(key, std::move(text));
  }
  if (!settings.extra_provenance_problem.empty())
    GST_WARNING("extra-provenance refused: %s", settings.extra_provenance_problem.c_str());
}

// extra-provenance read back: the name and every field as a string; null when unset.
GstStructure* extra_provenance_structure(const Settings& settings) {
  if (settings.extra_provenance_name.empty()) return nullptr;
  GstStructure* structure = gst_structure_new_empty(settings.extra_provenance_name.c_str());
  for (const auto& [key, text] : settings.extra_provenance)
    gst_structure_set(structure, key.c_str(), G_TYPE_STRING, text.c_str(), nullptr);
  return structure;
}

}  // namespace

void install_properties(GObjectClass* klass) {
  const Settings defaults;
  constexpr auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  constexpr auto ready_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_READY);
  constexpr auto playing_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_PLAYING);

  g_object_class_install_property(
      klass, PROP_BACKEND,
      g_param_spec_enum("backend", "Backend",
                        "Where to score: auto (CUDA when the frames arrive in CUDA memory), cpu, "
                        "or cuda (frames in system memory are uploaded). Both give the same bits.",
                        GST_TYPE_VMAF_EXACT_BACKEND, static_cast<gint>(defaults.backend),
                        ready_flags));
  g_object_class_install_property(
      klass, PROP_CUDA_DEVICE_ID,
      g_param_spec_int("cuda-device-id", "CUDA device id",
                       "CUDA device to score on (-1: the one of the neighbours' context, else "
                       "the first)",
                       -1, G_MAXINT, defaults.cuda_device_id, ready_flags));
  g_object_class_install_property(klass, PROP_MODEL,
                                  g_param_spec_string("model", "Model", model_blurb().c_str(),
                                                      defaults.model.c_str(), ready_flags));
  g_object_class_install_property(
      klass, PROP_DISABLE_CLIP,
      g_param_spec_boolean("disable-clip", "Disable clip",
                           "Do not clip model scores to the model's range (libvmaf's "
                           "disable_clip), for every model",
                           defaults.disable_clip, ready_flags));
  g_object_class_install_property(
      klass, PROP_ENABLE_TRANSFORM,
      g_param_spec_boolean("enable-transform", "Enable transform",
                           "Apply the model's score transform (libvmaf's enable_transform, "
                           "the 'phone' model), for every model",
                           defaults.enable_transform, ready_flags));
  g_object_class_install_property(
      klass, PROP_SUBSAMPLE,
      g_param_spec_uint("subsample", "Subsample",
                        "Score every Nth frame (libvmaf's n_subsample): frames whose index is "
                        "a multiple of N are scored, listed and pooled",
                        1, G_MAXUINT, defaults.subsample, ready_flags));
  g_object_class_install_property(
      klass, PROP_THREADS,
      g_param_spec_uint("threads", "Threads",
                        "CPU threads (0: one per core). They score frames side by side and cut "
                        "each frame into row bands (see frames-in-flight). The scores are the "
                        "same with any number.",
                        0, 256, defaults.threads, ready_flags));
  g_object_class_install_property(
      klass, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint("frames-in-flight", "Frames in flight",
                        "Frames scored at once on the CPU, at most threads (0: auto, 1 in a live "
                        "pipeline, else threads). 1 gives the lowest latency per frame: each "
                        "frame is cut into row bands scored by all threads before the next one; "
                        "more give the most frames per second, a frame's scores then coming up "
                        "to N - 1 frames later. On CUDA: the frames kept in flight on the device, "
                        "1 to 4 (more count as 4; 0: 2, or VMAFEXACT_CUDA_FRAMES)",
                        0, 256, defaults.frames_in_flight, ready_flags));
  g_object_class_install_property(
      klass, PROP_FEATURES,
      g_param_spec_string("features", "Features", features_blurb().c_str(),
                          defaults.features.c_str(), ready_flags));
  g_object_class_install_property(
      klass, PROP_FRAME_MESSAGE,
      g_param_spec_boolean("frame-message", "Frame message",
                           "Post a 'vmafexact-frame' element message with every frame's scores",
                           defaults.frame_message, playing_flags));
  g_object_class_install_property(
      klass, PROP_LOG_LOCATION,
      g_param_spec_string("log-location", "Log location",
                          "File to write libvmaf's log to at end of stream. Frames are "
                          "streamed to an unlinked temporary file beside it and the log renamed "
                          "into place when complete; with log-rotate, a pattern with {index} or "
                          "{time}. Failure to write is an error. Empty: no log.",
                          nullptr, ready_flags));
  g_object_class_install_property(
      klass, PROP_LOG_FORMAT,
      g_param_spec_enum("log-format", "Log format", "Layout of the log, as libvmaf's vmaf tool",
                        GST_TYPE_VMAF_EXACT_LOG_FORMAT, static_cast<gint>(defaults.log_format),
                        ready_flags));
  g_object_class_install_property(
      klass, PROP_LOG_PRECISION,
      g_param_spec_enum("log-precision", "Log precision",
                        "How scores are printed in the log", GST_TYPE_VMAF_EXACT_LOG_PRECISION,
                        static_cast<gint>(defaults.log_precision), ready_flags));
  g_object_class_install_property(
      klass, PROP_WINDOW,
      g_param_spec_string(
          "window", "Window",
          "Rolling window for vmafexact-window messages: a duration of running time (10s, "
          "500ms, 1.5s, 1m or 1min, 1h, 250us, 100ns) or a number of scored frames (300f). Each "
          "message holds every score's min, max, mean, harmonic mean, p1, p5, p50, low1_mean "
          "and low5_mean over the window. At most 262144 frames: a longer frame window is an "
          "error, a duration window is posted early there (truncated=true). Empty: no windows. "
          "Read when the element starts.",
          nullptr, ready_flags));
  g_object_class_install_property(
      klass, PROP_WINDOW_STEP,
      g_param_spec_string("window-step", "Window step",
                          "How far each window starts after the previous one, in the window's "
                          "unit: a duration (1s, 500ms, 1.5s, 1m or 1min, 1h, 250us, 100ns) or "
                          "frames (30f); shorter than window: overlapping windows, at most "
                          "1000 of them and a step of at least 1ms. Empty: the window "
                          "(tumbling windows). Read when the element starts.",
                          nullptr, ready_flags));
  g_object_class_install_property(
      klass, PROP_ALERT,
      g_param_spec_string(
          "alert", "Alert",
          "Alerts posted as vmafexact-alert messages when raised and cleared: "
          "SCORE OP VALUE[:for=DURATION|Nf][:clear=VALUE][:on=frame|window], OP one of <, <=, "
          ">, >=, separated by ';', e.g. vmaf<60:for=2s:clear=65;psnr_y<30. for: how long the "
          "condition must hold (default: one frame); clear: the hysteresis threshold (default: "
          "VALUE); on=window: on each window's mean. Empty: none. Read when the element starts.",
          nullptr, ready_flags));
  g_object_class_install_property(
      klass, PROP_INPUT_TIMEOUT,
      g_param_spec_string(
          "input-timeout", "Input timeout",
          "Post an input-stalled vmafexact-alert when an input has sent no frame for longer "
          "than this duration (500ms, 2s, 1.5s, 1m or 1min, 1h, 250us, 100ns) while playing, "
          "and clear it when frames come again. Empty: off. Read when the element starts.",
          nullptr, ready_flags));
  g_object_class_install_property(
      klass, PROP_LOG_ROTATE,
      g_param_spec_string(
          "log-rotate", "Log rotate",
          "Start a new log file every so much running time (90s, 30m, 1h, 1d) or so many input "
          "frames (100000frames); each file is a complete libvmaf log of its frames, named from "
          "log-location with {index} (000000, 000001, ...) and/or {time} (UTC time of its first "
          "frame, 20261202T071732Z) in it. Empty: one log for the whole run.",
          nullptr, ready_flags));
  g_object_class_install_property(
      klass, PROP_MAX_LATENESS,
      g_param_spec_int64(
          "max-lateness", "Maximum lateness",
          "Live pipelines: a pair of frames due (running time plus latency) longer ago than "
          "this many nanoseconds is skipped unscored, so that a scorer slower than real time "
          "keeps up by scoring fewer frames (counted as frames-skipped-late in the summary "
          "and the windows, with a warning) instead of falling ever further behind. -1: "
          "never skip. Read when the element starts.",
          -1, G_MAXINT64, defaults.max_lateness, ready_flags));
  g_object_class_install_property(
      klass, PROP_EXTRA_PROVENANCE,
      g_param_spec_boxed(
          "extra-provenance", "Extra provenance",
          "More provenance for the logs and the summary, window and alert messages: each field "
          "of this structure (a string; another type as its serialized text), in order, after "
          "the built-in entries (e.g. \"run, date=2026-01-01T00:00:00Z, scaler=\\\"vmafexactscale "
          "flags=bicubic\\\"\"). A key of the messages' own fields (vmafexact-version, models, "
          "threads, ...) is refused at start. Read back with every value as text. Unset: the "
          "built-in entries only. Read when the element starts.",
          GST_TYPE_STRUCTURE, ready_flags));
}

bool set_setting(Settings& settings, guint prop_id, const GValue* value) {
  switch (prop_id) {
    case PROP_BACKEND: settings.backend = static_cast<Backend>(g_value_get_enum(value)); break;
    case PROP_CUDA_DEVICE_ID: settings.cuda_device_id = g_value_get_int(value); break;
    case PROP_MODEL: set_string(settings.model, value); break;
    case PROP_FEATURES: set_string(settings.features, value); break;
    case PROP_DISABLE_CLIP: settings.disable_clip = g_value_get_boolean(value); break;
    case PROP_ENABLE_TRANSFORM: settings.enable_transform = g_value_get_boolean(value); break;
    case PROP_SUBSAMPLE: settings.subsample = g_value_get_uint(value); break;
    case PROP_FRAMES_IN_FLIGHT: settings.frames_in_flight = g_value_get_uint(value); break;
    case PROP_THREADS: settings.threads = g_value_get_uint(value); break;
    case PROP_FRAME_MESSAGE: settings.frame_message = g_value_get_boolean(value); break;
    case PROP_LOG_LOCATION: set_string(settings.log_location, value); break;
    case PROP_WINDOW: set_string(settings.window, value); break;
    case PROP_WINDOW_STEP: set_string(settings.window_step, value); break;
    case PROP_ALERT: set_string(settings.alert, value); break;
    case PROP_INPUT_TIMEOUT: set_string(settings.input_timeout, value); break;
    case PROP_LOG_ROTATE: set_string(settings.log_rotate, value); break;
    case PROP_MAX_LATENESS: settings.max_lateness = g_value_get_int64(value); break;
    case PROP_EXTRA_PROVENANCE:
      set_extra_provenance(settings, gst_value_get_structure(value));
      break;
    case PROP_LOG_FORMAT:
      settings.log_format = static_cast<LogFormat>(g_value_get_enum(value));
      settings.log_format_set = true;
      break;
    case PROP_LOG_PRECISION:
      settings.log_precision = static_cast<LogPrecision>(g_value_get_enum(value));
      break;
    default: return false;
  }
  return true;
}

bool get_setting(const Settings& settings, guint prop_id, GValue* value) {
  switch (prop_id) {
    case PROP_BACKEND: g_value_set_enum(value, static_cast<gint>(settings.backend)); break;
    case PROP_CUDA_DEVICE_ID: g_value_set_int(value, settings.cuda_device_id); break;
    case PROP_MODEL: g_value_set_string(value, settings.model.c_str()); break;
    case PROP_FEATURES: g_value_set_string(value, settings.features.c_str()); break;
    case PROP_DISABLE_CLIP: g_value_set_boolean(value, settings.disable_clip); break;
    case PROP_ENABLE_TRANSFORM: g_value_set_boolean(value, settings.enable_transform); break;
    case PROP_SUBSAMPLE: g_value_set_uint(value, settings.subsample); break;
    case PROP_FRAMES_IN_FLIGHT: g_value_set_uint(value, settings.frames_in_flight); break;
    case PROP_THREADS: g_value_set_uint(value, settings.threads); break;
    case PROP_FRAME_MESSAGE: g_value_set_boolean(value, settings.frame_message); break;
    case PROP_MAX_LATENESS: g_value_set_int64(value, settings.max_lateness); break;
    case PROP_LOG_ROTATE:
      g_value_set_string(value,
                         settings.log_rotate.empty() ? nullptr : settings.log_rotate.c_str());
      break;
    case PROP_LOG_LOCATION:
      g_value_set_string(value,
                         settings.log_location.empty() ? nullptr : settings.log_location.c_str());
      break;
    case PROP_LOG_FORMAT: g_value_set_enum(value, static_cast<gint>(settings.log_format)); break;
    case PROP_WINDOW: g_value_set_string(value, settings.window.empty() ? nullptr : settings.window.c_str()); break;
    case PROP_WINDOW_STEP: g_value_set_string(value, settings.window_step.empty() ? nullptr : settings.window_step.c_str()); break;
    case PROP_ALERT: g_value_set_string(value, settings.alert.empty() ? nullptr : settings.alert.c_str()); break;
    case PROP_INPUT_TIMEOUT: g_value_set_string(value, settings.input_timeout.empty() ? nullptr : settings.input_timeout.c_str()); break;
    case PROP_LOG_PRECISION:
      g_value_set_enum(value, static_cast<gint>(settings.log_precision));
      break;
    case PROP_EXTRA_PROVENANCE:
      g_value_take_boxed(value, extra_provenance_structure(settings));
      break;
    default: return false;
  }
  return true;
}

std::optional<StartPlan> plan_start(GstElement* element, Settings settings, bool cuda_in_build) {
  GstElement* self = element;  // for GST_ELEMENT_ERROR
  StartPlan plan;
  plan.settings = std::move(settings);
  const Settings& s = plan.settings;
  try {
    plan.features = parse_feature_list(s.features);
  } catch (const Error& error) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid features property: %s.", error.what()),
                      ("Set features to a comma-separated list of available features."));
    return std::nullopt;
  }
  try {
    plan.models = parse_model_list(s.model);
    for (auto& spec : plan.models) {
      spec.predict.disable_clip |= s.disable_clip;
      spec.predict.enable_transform |= s.enable_transform;
    }
    // A broken model file fails the start, and so does a score name that
    // would overwrite a field of the element's messages.
    plan.loaded_models = std::make_shared<const std::vector<ScoredModel>>(load_models(plan.models));
    for (const auto& model : *plan.loaded_models)
      for (const auto& name : written_scores(model))
        if (is_message_field(name))
          throw Error("the score name '" + name +
                      "' is a field of vmafexact's messages; give the model another name with "
                      ":name=KEY");
    plan.models_described = describe_models(plan.models, *plan.loaded_models);
  } catch (const Error& error) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid model property: %s.", error.what()),
                      ("Set model to built-in names (%s) or paths of libvmaf JSON model files, "
                       "comma-separated, each with :name=KEY, :disable_clip, :enable_transform "
                       "or :EXTRACTOR.OPTION=VALUE overloads as wanted.",
                       builtin_model_list().c_str()));
    return std::nullopt;
  }
  // extra-provenance: its fields go into the same messages as the scores.
  std::string extra_problem = s.extra_provenance_problem;
  for (const auto& model : *plan.loaded_models)
    for (const auto& name : written_scores(model))
      for (const auto& [key, text] : s.extra_provenance)
        if (key == name && extra_problem.empty())
          extra_problem = "the key '" + key + "' is the name of a score; give it another name";
  if (!extra_problem.empty()) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("Invalid extra-provenance property: %s.", extra_problem.c_str()),
                      ("Give extra-provenance fields of other names than the built-in "
                       "provenance (vmafexact-version, libvmaf-version, models, backend, "
                       "threads) and the messages' fields, with string values."));
    return std::nullopt;
  }
  if (plan.features.empty() && plan.models.empty()) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("Nothing to score: both the model and the features lists are empty."),
                      ("Set model (e.g. model=vmaf_v0.6.1) or features (e.g. features=psnr)."));
    return std::nullopt;
  }
  try {
    plan.log_rotation = parse_log_rotation(s.log_rotate);
  } catch (const Error& error) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid log-rotate property: %s.", error.what()),
                      ("Set log-rotate to a duration or a frame count, or leave it unset."));
    return std::nullopt;
  }
  if (plan.log_rotation.kind != LogRotation::Kind::kNone) {
    const bool has_index = s.log_location.find("{index}") != std::string::npos;
    const bool has_time = s.log_location.find("{time}") != std::string::npos;
    const bool names_apart = has_index || has_time;
    if (s.log_location.empty() || !names_apart) {
      GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                        ("log-rotate=%s needs a log-location whose file name holds {index} or "
                         "{time} (log-location is \"%s\").",
                         s.log_rotate.c_str(), s.log_location.c_str()),
                        ("For example log-location=scores-{index}.json or "
                         "scores-{time}.json; each rotated file gets its own name."));
      return std::nullopt;
    }
  }
  if (!s.log_location.empty()) {
    // The extension picks the layout unless log-format was set; a log-format
    // that contradicts the extension would write JSON into "scores.csv".
    if (const auto named = log_format_of_path(s.log_location)) {
      if (!s.log_format_set) {
        plan.settings.log_format = *named;
      } else if (*named != s.log_format) {
        GST_ELEMENT_ERROR(
            self, LIBRARY, SETTINGS,
            ("log-location \"%s\" names a %s log, but log-format is %s.", s.log_location.c_str(),
             log_format_name(*named), log_format_name(s.log_format)),
            ("Set log-format=%s (or leave log-format unset: the extension picks "
             "the layout), or give log-location the extension .%s.",
             log_format_name(*named), log_format_name(s.log_format)));
        return std::nullopt;
      }
    }
    // Fail now rather than after scoring a whole stream, without touching an
    // existing log (it is replaced only when the new one is complete). A FIFO
    // is not opened here: a reader may come before the log is written.
    if (const auto problem = log_location_problem(s.log_location)) {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE, ("%s.", problem->text.c_str()),
                        ("%s", problem->advice.c_str()));
      return std::nullopt;
    }
    if (!log_location_is_free(element, plan)) return std::nullopt;
  }
  if (s.backend == Backend::kCuda && !cuda_in_build) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("backend=cuda, but this build of vmafexact has no CUDA backend."),
                      ("Rebuild with -Dcuda=enabled (needs nvcc and gstreamer-cuda-1.0), or use "
                       "backend=auto or cpu."));
    return std::nullopt;
  }
  return plan;
}

bool log_location_is_free(GstElement* element, const StartPlan& plan) {
  GstElement* self = element;  // for GST_ELEMENT_ERROR
  const std::string& log = plan.settings.log_location;
  if (log.empty()) return true;
  if (plan.log_rotation.kind != LogRotation::Kind::kNone) {
    for (const auto& model : plan.models)
      if (model.is_path && is_rotated_name(log, model.source)) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                          ("log-location \"%s\" names the model file \"%s\" among its rotated "
                           "files; writing the log could destroy the model.",
                           log.c_str(), model.source.c_str()),
                          ("Give log-location another pattern."));
        return false;
      }
    if (const auto user = pipeline_element_named_by(element, log)) {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                        ("log-location \"%s\" names the file of element '%s' (\"%s\") among "
                         "its rotated files; writing the log could destroy it.",
                         log.c_str(), user->element.c_str(), user->path.c_str()),
                        ("Give log-location a pattern that none of the inputs' names matches "
                         "(e.g. another folder or prefix)."));
      return false;
    }
    return true;  // each rotated file is checked before it is written
  }
  return log_file_is_free(element, plan, log);
}

bool log_file_is_free(GstElement* element, const StartPlan& plan, const std::string& log) {
  GstElement* self = element;  // for GST_ELEMENT_ERROR
  for (const auto& model : plan.models)
    if (model.is_path && same_file(model.source, log)) {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                        ("log-location \"%s\" is the model file \"%s\"; writing the log "
                         "would destroy the model.",
                         log.c_str(), model.source.c_str()),
                        ("Give log-location another file name."));
      return false;
    }
  if (const auto user = pipeline_element_using(element, log)) {
    GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                      ("log-location \"%s\" is the file of element '%s' (\"%s\"); writing "
                       "the log would destroy it.",
                       log.c_str(), user->element.c_str(), user->path.c_str()),
                      ("Give log-location another file name: the log replaces its file at end "
                       "of stream, so it must not be one of the inputs or another element's "
                       "output."));
    return false;
  }
  return true;
}

}  // namespace vmafexact::gst

// ---- The enum types of the properties -----------------------------------------

GType gst_vmaf_exact_log_format_get_type(void) {
  using vmafexact::LogFormat;
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(LogFormat::kJson), "libvmaf JSON", "json"},
        {static_cast<gint>(LogFormat::kXml), "libvmaf XML", "xml"},
        {static_cast<gint>(LogFormat::kCsv), "libvmaf CSV", "csv"},
        {static_cast<gint>(LogFormat::kSub), "libvmaf SUB (MicroDVD subtitles, a line per frame)",
         "sub"},
        {0, nullptr, nullptr},
    };
    g_once_init_leave(&type, g_enum_register_static("GstVmafExactLogFormat", values));
  }
  return type;
}

GType gst_vmaf_exact_backend_get_type(void) {
  using vmafexact::gst::Backend;
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(Backend::kAuto), "CUDA when the frames arrive in CUDA memory, else CPU",
         "auto"},
        {static_cast<gint>(Backend::kCpu), "CPU", "cpu"},
        {static_cast<gint>(Backend::kCuda),
         "CUDA; frames in system memory are uploaded (an error without a usable CUDA device)",
         "cuda"},
        {0, nullptr, nullptr},
    };
    g_once_init_leave(&type, g_enum_register_static("GstVmafExactBackend", values));
  }
  return type;
}

GType gst_vmaf_exact_log_precision_get_type(void) {
  using vmafexact::LogPrecision;
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(LogPrecision::kDefault),
         "libvmaf's printing: %.6f, or %.16f for values with more than 6 leading zeros",
         "default"},
        {static_cast<gint>(LogPrecision::kMax), "%.17g: every bit of every double", "max"},
        {0, nullptr, nullptr},
    };
    g_once_init_leave(&type, g_enum_register_static("GstVmafExactLogPrecision", values));
  }
  return type;
}
