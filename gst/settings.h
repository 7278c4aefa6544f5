// The element's settings: every property's value, its GParamSpec (name, blurb,
// default, range, when it may change), and the snapshot taken at start with
// the model and feature lists parsed and checked. The element keeps one
// Settings under its object lock; a run reads only its StartPlan.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "output/log_writer.h"
#include "scorer.h"
#include "streamed_log.h"

namespace vmafexact::gst {

// Where the scoring runs. auto: CUDA when the frames arrive in CUDA memory.
enum class Backend { kAuto, kCpu, kCuda };

struct Settings {
  Backend backend = Backend::kAuto;
  gint cuda_device_id = -1;  // -1: the neighbours' context, else device 0
  std::string model = "vmaf_v0.6.1";
  std::string features;
  bool disable_clip = false;
  bool enable_transform = false;
  guint subsample = 1;
  guint threads = 0;
  guint frames_in_flight = 0;
  bool frame_message = true;
  std::string log_location;  // empty: no log
  LogFormat log_format = LogFormat::kJson;
  // Whether log-format was set: if not, the log's extension (.json, .xml,
  // .csv, .sub) picks the layout at start; if so, an extension naming another
  // layout is an error at start.
  bool log_format_set = false;
  LogPrecision log_precision = LogPrecision::kDefault;
  // Live monitoring (gst/monitor.h), parsed at start; empty: off.
  std::string window;         // "10s", "300f"
  std::string window_step;    // empty: the window (tumbling)
  std::string alert;          // "vmaf<60:for=2s:clear=65;psnr_y<30"
  std::string input_timeout;  // "2s"
  std::string log_rotate;     // empty: one log for the whole run
  // Live: pairs due longer ago than this (ns) are skipped unscored; -1: never.
  gint64 max_lateness = kDefaultMaxLateness;
  static constexpr gint64 kDefaultMaxLateness = GST_SECOND;
  // extra-provenance: the structure's name (empty: unset) and its fields as
  // text, in order, appended to the built-in provenance; and why a field is
  // refused (its key names a field of the messages, its value has no text),
  // which fails the start.
  std::string extra_provenance_name;
  std::vector<std::pair<std::string, std::string>> extra_provenance;
  std::string extra_provenance_problem;
};

// Installs every property on the element's class.
void install_properties(GObjectClass* klass);
// set_property/get_property for one property id; false for an unknown id.
bool set_setting(Settings& settings, guint prop_id, const GValue* value);
bool get_setting(const Settings& settings, guint prop_id, GValue* value);

// What one run (start to stop) scores: the settings as they were at start,
// and the model and feature lists parsed, checked and loaded.
struct StartPlan {
  Settings settings;
  std::vector<ModelSpec> models;
  std::vector<FeatureRequest> features;
  LogRotation log_rotation;  // log-rotate parsed
  // The models loaded and checked at start: every scoring session of the run
  // reads these (a model file is read once a run).
  std::shared_ptr<const std::vector<ScoredModel>> loaded_models;
  // The models as the provenance names them: "vmaf=vmaf_v0.6.1, b=name (path)".
  std::string models_described;
};

// Parses and checks the settings at start: feature and model lists, models
// loadable, something to score, the log file writable, backend=cuda possible
// in this build. Posts the element error and returns nullopt on failure.
std::optional<StartPlan> plan_start(GstElement* element, Settings settings,
                                    bool cuda_in_build);

// Whether the plan's log may replace its file: false, after posting the
// element error, when the file is a model file of the plan or one that
// another element of the pipeline reads or writes (a filesrc's input, say).
// Checked at start and again with the first pair, when a pipeline that links
// its decoders late has every element in place. With log-rotate, the pattern:
// no input may have a name of its rotated files.
bool log_location_is_free(GstElement* element, const StartPlan& plan);

// The same for one file about to be written, `path` (a rotated file's name).
bool log_file_is_free(GstElement* element, const StartPlan& plan, const std::string& path);

}  // namespace vmafexact::gst

// The GTypes of the enum properties (Backend, LogFormat, LogPrecision), for
// their param specs and gst-inspect-1.0.
G_BEGIN_DECLS

#define GST_TYPE_VMAF_EXACT_LOG_FORMAT (gst_vmaf_exact_log_format_get_type())
GType gst_vmaf_exact_log_format_get_type(void);

#define GST_TYPE_VMAF_EXACT_LOG_PRECISION (gst_vmaf_exact_log_precision_get_type())
GType gst_vmaf_exact_log_precision_get_type(void);

#define GST_TYPE_VMAF_EXACT_BACKEND (gst_vmaf_exact_backend_get_type())
GType gst_vmaf_exact_backend_get_type(void);

G_END_DECLS
