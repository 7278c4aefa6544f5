#include "channel.h"

#include "support/end_of_stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vmafexact::monitor_tool {
namespace {

using tools::GCharPtr;
using tools::GstObjectPtr;

GstClockTime monotonic_now() { return static_cast<GstClockTime>(g_get_monotonic_time()) * 1000; }

// A delay as a main loop timeout: whole milliseconds, rounded up.
guint timeout_ms(GstClockTime delay) {
  return static_cast<guint>(std::min<GstClockTime>((delay + 999'999) / 1'000'000, G_MAXUINT));
}

GstObjectPtr<GstElement> ref(GstElement* element) {
  return GstObjectPtr<GstElement>(static_cast<GstElement*>(gst_object_ref(element)));
}

// The element's `backend` as its nick ("auto", "cpu", "cuda"); "" without one.
std::string backend_of(GstElement* element) {
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "backend");
  if (!spec || !G_TYPE_IS_ENUM(spec->value_type)) return "";
  GValue value = G_VALUE_INIT;
  g_value_init(&value, spec->value_type);
  g_object_get_property(G_OBJECT(element), "backend", &value);
  const GEnumValue* nick = g_enum_get_value(
      static_cast<GEnumClass*>(g_type_class_peek(spec->value_type)), g_value_get_enum(&value));
  g_value_unset(&value);
  return nick ? nick->value_nick : "";
}

}  // namespace

const char* reason_name(EndReason reason) {
  switch (reason) {
    case EndReason::kError:
      return "error";
    case EndReason::kEos:
      return "eos";
    case EndReason::kStall:
      return "stall";
  }
  return "error";
}

// ---------------------------------------------------------------- RestartBackoff

RestartBackoff::RestartBackoff(GstClockTime first, GstClockTime max)
    : first_(std::min(first, max)), max_(max), next_(first_) {}

GstClockTime RestartBackoff::delay_after_failure(GstClockTime started, GstClockTime failed) {
  // A run as long as the cap counts as healthy: its failure is a new series.
  if (failed >= started && failed - started >= max_) next_ = first_;
  const GstClockTime delay = next_;
  next_ = next_ > max_ / 2 ? max_ : std::max<GstClockTime>(next_ * 2, 1);
  return delay;
}

// ---------------------------------------------------------------- SharedContexts

SharedContexts::~SharedContexts() {
  for (auto& [type, context] : contexts_) gst_context_unref(context);
}

void SharedContexts::watch(GstBus* bus) {
  gst_bus_set_sync_handler(bus, on_sync_message, this, nullptr);
}

GstContext* SharedContexts::context(const char* type) const {
  std::lock_guard<std::mutex> guard(lock_);
  const auto found = contexts_.find(type);
  return found == contexts_.end() ? nullptr : gst_context_ref(found->second);
}

// In the thread that posts: a streaming thread, or one changing the state.
GstBusSyncReply SharedContexts::on_sync_message(GstBus*, GstMessage* message, gpointer data) {
  auto* self = static_cast<SharedContexts*>(data);
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext* context = nullptr;
    gst_message_parse_have_context(message, &context);
    if (!context) return GST_BUS_PASS;
    const std::string type = gst_context_get_context_type(context);
    std::lock_guard<std::mutex> guard(self->lock_);
    // The first one stays: the channels that already use it keep it.
    if (type == kCudaContextType && !self->contexts_.count(type))
      self->contexts_.emplace(type, context);
    else
      gst_context_unref(context);
  } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_NEED_CONTEXT) {
    const gchar* type = nullptr;
    if (!gst_message_parse_context_type(message, &type) || !type ||
        std::string_view(type) != kCudaContextType || !GST_IS_ELEMENT(GST_MESSAGE_SRC(message)))
      return GST_BUS_PASS;
    if (GstContext* context = self->context(type)) {
      gst_element_set_context(GST_ELEMENT(GST_MESSAGE_SRC(message)), context);
      gst_context_unref(context);
    }
  }
  return GST_BUS_PASS;
}

// ---------------------------------------------------------------- PipelineWorkers

PipelineWorkers::~PipelineWorkers() {
  join_finished();
  // Only a pipeline stuck for good is left: its thread cannot be joined.
  for (Job& job : jobs_) job.thread.detach();
}

std::shared_future<void> PipelineWorkers::set_state(GstObjectPtr<GstElement> pipeline,
                                                    GstState state, std::string channel,
                                                    std::shared_future<void> after) {
  join_finished();
  std::promise<void> finished;
  std::shared_future<void> done = finished.get_future().share();
  std::thread thread([pipeline = std::move(pipeline), state, after = std::move(after),
                      finished = std::move(finished)]() mutable {
    if (after.valid()) after.wait();
    gst_element_set_state(pipeline.get(), state);
    pipeline.reset();  // the last reference of a stopped pipeline: freed here, off the loop
    finished.set_value();
  });
  jobs_.push_back(
      Job{std::move(channel), std::move(thread), done, std::chrono::steady_clock::now()});
  return done;
}

void PipelineWorkers::join_finished() {
  std::erase_if(jobs_, [](Job& job) {
    if (job.done.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
    job.thread.join();
    return true;
  });
}

bool PipelineWorkers::wait_all(std::chrono::milliseconds timeout, std::string& stuck) {
  for (Job& job : jobs_) job.done.wait_until(job.asked + timeout);
  join_finished();
  stuck.clear();
  for (const Job& job : jobs_)
    if (stuck.find(job.channel) == std::string::npos)
      stuck += (stuck.empty() ? "" : ", ") + job.channel;
  return jobs_.empty();
}

// ---------------------------------------------------------------- properties

bool set_element_properties(GstElement* vmafexact,
                            const std::vector<std::pair<std::string, std::string>>& properties,
                            std::string_view property_option, std::string& problem) {
  GObjectClass* element_class = G_OBJECT_GET_CLASS(vmafexact);
  for (const auto& [name, text] : properties) {
    const std::string assignment = std::string(property_option) + name + "=" + text;
    GParamSpec* spec = g_object_class_find_property(element_class, name.c_str());
    if (!spec || !(spec->flags & G_PARAM_WRITABLE)) {
      std::string names;
      guint count = 0;
      GParamSpec** specs = g_object_class_list_properties(element_class, &count);
      for (guint i = 0; i < count; ++i)
        if ((specs[i]->flags & G_PARAM_WRITABLE) && std::string_view(specs[i]->name) != "name" &&
            std::string_view(specs[i]->name) != "parent")
          names += std::string(names.empty() ? "" : ", ") + specs[i]->name;
      g_free(specs);
      problem = assignment + ": vmafexact has no property '" + name + "' (it has: " + names + ").";
      return false;
    }
    GValue value = G_VALUE_INIT;
    g_value_init(&value, spec->value_type);
    const bool read = gst_value_deserialize_with_pspec(&value, text.c_str(), spec);
    if (read) g_object_set_property(G_OBJECT(vmafexact), name.c_str(), &value);
    g_value_unset(&value);
    if (!read) {
      problem = assignment + ": '" + text + "' is not a value of type " +
                g_type_name(spec->value_type) + " for this property.";
      return false;
    }
  }
  return true;
}

PreparedPipeline prepare_pipeline(const ChannelConfig& config, std::string_view property_option) {
  ChannelPipeline built = build_channel_pipeline(config);
  std::string problem;
  if (!set_element_properties(built.vmafexact.get(), config.properties, property_option, problem))
    throw PipelineError(problem);
  // Shift an input's running times, so that frames that belong together pair.
  for (const auto& [pad_name, offset] :
       {std::pair{"ref_sink", config.ref_offset}, std::pair{"dist_sink", config.dist_offset}}) {
    if (offset == 0) continue;
    GstObjectPtr<GstPad> pad(gst_element_get_static_pad(built.vmafexact.get(), pad_name));
    if (pad) gst_pad_set_offset(pad.get(), offset);
  }
  PreparedPipeline prepared{std::move(built.pipeline), std::move(built.vmafexact), "", ""};
  GCharPtr model;
  g_object_get(prepared.vmafexact.get(), "model", &model, nullptr);
  prepared.model = model ? model.get() : "";
  prepared.backend = backend_of(prepared.vmafexact.get());
  return prepared;
}

// ---------------------------------------------------------------- Channel

Channel::Channel(ChannelConfig config, const RestartSettings& settings, ChannelHost& host,
                 SharedContexts& contexts, PipelineWorkers& workers)
    : config_(std::move(config)),
      settings_(settings),
      host_(host),
      contexts_(contexts),
      workers_(workers),
      prefix_(settings.restart ? "channel " + config_.name + ": " : ""),
      backoff_(settings.restart_delay, settings.restart_delay_max) {
  figures_.name = config_.name;
  // Every reason from the start, so that increase() sees the first restart.
  for (const EndReason reason : {EndReason::kError, EndReason::kEos, EndReason::kStall})
    figures_.restarts[reason_name(reason)] = 0;
}

Channel::~Channel() {
  remove_sources();
  if (eos_sender_.joinable()) eos_sender_.detach();  // holds its own reference
  stop_pipeline();
}

void Channel::start(PreparedPipeline prepared) {
  if (runs_++ > 0) figures_.new_run();
  figures_.up = false;
  figures_.model = prepared.model;
  figures_.backend = prepared.backend;
  pipeline_ = std::move(prepared.pipeline);
  vmafexact_ = std::move(prepared.vmafexact);
  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline_.get()));
  contexts_.watch(bus.get());
  bus_watch_ = gst_bus_add_watch(bus.get(), bus_callback, this);
  started_at_ = last_activity_ = monotonic_now();
  if (settings_.restart && settings_.stall_timeout > 0) arm_stall_timer(settings_.stall_timeout);
  // A failed state change has its reason on the bus, which the loop reads.
  started_ = workers_.set_state(ref(pipeline_.get()), GST_STATE_PLAYING, config_.name);
}

void Channel::replace(ChannelConfig config, PreparedPipeline prepared) {
  remove_sources();
  stop_pipeline();
  config_ = std::move(config);
  backoff_ = RestartBackoff(settings_.restart_delay, settings_.restart_delay_max);
  ended_ = false;
  start(std::move(prepared));
}

void Channel::settings_changed() {
  backoff_ = RestartBackoff(settings_.restart_delay, settings_.restart_delay_max);
  if (stall_timer_) g_source_remove(stall_timer_);
  stall_timer_ = 0;
  if (pipeline_ && !ending_ && !ended_ && settings_.restart && settings_.stall_timeout > 0) {
    const GstClockTime quiet = monotonic_now() - last_activity_;
    arm_stall_timer(quiet < settings_.stall_timeout ? settings_.stall_timeout - quiet : 0);
  }
}

void Channel::remove_sources() {
  for (guint* source : {&bus_watch_, &restart_timer_, &stall_timer_}) {
    if (*source) g_source_remove(*source);
    *source = 0;
  }
}

void Channel::stop_pipeline() {
  if (!pipeline_) return;
  // The sync handler stays: SharedContexts outlives every pipeline.
  workers_.set_state(std::move(pipeline_), GST_STATE_NULL, config_.name, started_);
  vmafexact_.reset();
  started_ = {};
}

void Channel::arm_stall_timer(GstClockTime delay) {
  stall_timer_ = g_timeout_add(timeout_ms(delay), stall_callback, this);
}

// Checked at the earliest moment a stall could be due, not on every frame.
void Channel::on_stall_check() {
  stall_timer_ = 0;
  if (ending_ || ended_ || !pipeline_ || settings_.stall_timeout == 0) return;
  const GstClockTime quiet = monotonic_now() - last_activity_;
  if (quiet >= settings_.stall_timeout) {
    std::fprintf(stderr, "vmafexact-monitor: %sno frame scored for %.3g s: stalled.\n",
                 prefix_.c_str(), static_cast<double>(quiet) / GST_SECOND);
    on_end(EndReason::kStall);
    return;
  }
  arm_stall_timer(settings_.stall_timeout - quiet);
}

void Channel::on_restart_timer() {
  restart_timer_ = 0;
  if (ending_) return;
  try {
    start(prepare_pipeline(config_, "property."));
  } catch (const std::exception& error) {
    // An input that is gone for now (a file, a device): the same backoff.
    std::fprintf(stderr, "vmafexact-monitor: %s%s\n", prefix_.c_str(), error.what());
    started_at_ = monotonic_now();
    on_end(EndReason::kError);
  }
}

void Channel::on_end(EndReason reason) {
  if (ended_) return;
  figures_.up = false;
  if (!settings_.restart || ending_) {
    // The program decides: it exits, or waits for the other channels.
    ended_ = true;
    if (stall_timer_) g_source_remove(stall_timer_);
    stall_timer_ = 0;
    host_.on_channel_ended(*this, reason);
    return;
  }
  ++figures_.restarts[reason_name(reason)];
  remove_sources();
  stop_pipeline();
  const GstClockTime delay = backoff_.delay_after_failure(started_at_, monotonic_now());
  std::fprintf(stderr, "vmafexact-monitor: %sdown (%s); restarting in %.3g s.\n", prefix_.c_str(),
               reason_name(reason), static_cast<double>(delay) / GST_SECOND);
  restart_timer_ = g_timeout_add(timeout_ms(delay), restart_callback, this);
}

gboolean Channel::on_bus_message(GstMessage* message) {
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_ELEMENT: {
      if (GST_MESSAGE_SRC(message) != GST_OBJECT(vmafexact_.get())) break;
      const GstStructure* s = gst_message_get_structure(message);
      if (gst_structure_has_name(s, "vmafexact-frame")) {
        take_frame(figures_.run, s);
        last_activity_ = monotonic_now();
        if (!figures_.up && !ending_ && !ended_) {
          figures_.up = true;
          if (runs_ > 1)
            std::fprintf(stderr, "vmafexact-monitor: %sup, scoring.\n", prefix_.c_str());
        }
      } else if (gst_structure_has_name(s, "vmafexact-window")) {
        take_window(figures_.run, s);
      } else if (gst_structure_has_name(s, "vmafexact-alert")) {
        take_alert(figures_.run, s);
        const gchar* alert = gst_structure_get_string(s, "alert");
        const gchar* state = gst_structure_get_string(s, "state");
        const gchar* input = gst_structure_get_string(s, "input");
        std::fprintf(stderr, "%salert %s%s%s: %s\n", prefix_.c_str(), alert ? alert : "?",
                     input ? " on " : "", input ? input : "", state ? state : "?");
      } else if (gst_structure_has_name(s, "vmafexact-summary")) {
        take_summary(figures_.run, s);
      } else {
        break;
      }
      host_.write_json_line(*this, s);
      break;
    }
    case GST_MESSAGE_WARNING:
    case GST_MESSAGE_ERROR: {
      const bool error = GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR;
      GError* raw_error = nullptr;
      gchar* raw_debug = nullptr;
      if (error)
        gst_message_parse_error(message, &raw_error, &raw_debug);
      else
        gst_message_parse_warning(message, &raw_error, &raw_debug);
      tools::ErrorPtr parsed(raw_error);
      GCharPtr debug(raw_debug);
      std::fprintf(stderr, "%s%s from %s: %s\n", prefix_.c_str(), error ? "ERROR" : "WARNING",
                   GST_OBJECT_NAME(GST_MESSAGE_SRC(message)), parsed ? parsed->message : "?");
      if (debug) std::fprintf(stderr, "  %s\n", debug.get());
      if (error) on_end(EndReason::kError);
      break;
    }
    case GST_MESSAGE_EOS:
      figures_.run.end_of_stream = true;
      on_end(EndReason::kEos);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

void Channel::end_stream() {
  if (ending_) return;
  ending_ = true;
  up_when_ending_ = figures_.up;
  if (restart_timer_) {
    // Down, waiting to restart: nothing to end.
    g_source_remove(restart_timer_);
    restart_timer_ = 0;
  }
  if (!pipeline_ || ended_) {
    if (!ended_) on_end(EndReason::kEos);
    return;
  }
  std::promise<void> sent;
  eos_sent_ = sent.get_future();
  eos_sender_ = std::thread([pipeline = ref(pipeline_.get()), sent = std::move(sent)]() mutable {
    tools::send_eos_once_settled(pipeline.get());
    sent.set_value();
  });
}

bool Channel::eos_blocked(std::chrono::milliseconds wait) {
  if (!eos_sender_.joinable()) return false;
  if (eos_sent_.wait_for(wait) != std::future_status::ready) return true;
  eos_sender_.join();
  return false;
}

void Channel::stop() {
  remove_sources();
  stop_pipeline();
}

}  // namespace vmafexact::monitor_tool
