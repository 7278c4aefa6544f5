// One channel of vmafexact-monitor: its pipeline (built by channel_pipeline.h
// from its ChannelConfig, config.h), the element's properties and input
// offsets applied to it, the bus read into its figures (figures.h), and, for
// a station (--config), its restarts: a pipeline that posts an error or an end
// of stream, or scores no frame for stall-timeout, is stopped, marked down and
// built again after a backoff. Everything here runs on the program's one GLib
// main loop, except the teardowns (pipeline to NULL), which run on threads of
// their own so that a streaming thread that does not return cannot hold the
// loop (and with it the other channels and /metrics).
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "channel_pipeline.h"
#include "config.h"
#include "figures.h"
#include "support/handles.h"

namespace vmafexact::monitor_tool {

// Why a channel's pipeline ended: restarts are counted by it.
enum class EndReason { kError, kEos, kStall };
const char* reason_name(EndReason reason);  // "error", "eos", "stall"

// The delay before a failed channel starts again: `first`, doubled after each
// failure up to `max`; a run that lasted `max` without failing starts the
// series again from `first`. Pure: the caller gives the times (monotonic ns).
class RestartBackoff {
 public:
  RestartBackoff(GstClockTime first, GstClockTime max);
  // A run that started at `started` failed at `failed`: how long to wait.
  GstClockTime delay_after_failure(GstClockTime started, GstClockTime failed);
  // After a reload changed the channel: the next failure waits `first` again.
  void reset() { next_ = first_; }

 private:
  GstClockTime first_, max_, next_;
};

// The pipeline-wide settings of a station's channels ([monitor] in the file).
struct RestartSettings {
  bool restart = false;  // false: the command line's channel, which ends the program
  GstClockTime restart_delay = 1 * GST_SECOND;
  GstClockTime restart_delay_max = 60 * GST_SECOND;
  GstClockTime stall_timeout = 10 * GST_SECOND;  // 0: never
};

// One GPU for every channel: the first CUDA context a pipeline posts
// (HAVE_CONTEXT) answers every later NEED_CONTEXT for that type, from a sync
// bus handler (it runs in the streaming thread that asks). GstContext is
// generic: no CUDA library is needed here.
class SharedContexts {
 public:
  static constexpr const char* kCudaContextType = "gst.cuda.context";

  SharedContexts() = default;
  ~SharedContexts();
  SharedContexts(const SharedContexts&) = delete;
  SharedContexts& operator=(const SharedContexts&) = delete;

  // Installs the handler on `bus`; this object must outlive the bus's pipeline.
  void watch(GstBus* bus);
  // The context kept for `type`, with a reference, or null.
  GstContext* context(const char* type) const;

 private:
  static GstBusSyncReply on_sync_message(GstBus*, GstMessage* message, gpointer self);

  mutable std::mutex lock_;
  std::map<std::string, GstContext*> contexts_;  // owned references
};

// Pipelines changing state on threads of their own: gst_element_set_state()
// blocks while a streaming thread does not return (a source stuck in a read
// or a connect), and the main loop must go on for the other channels and
// /metrics. A pipeline that never gets there leaves its thread waiting; the
// program then exits without it (wait_all says so).
class PipelineWorkers {
 public:
  PipelineWorkers() = default;
  ~PipelineWorkers();  // joins the threads that finished; detaches the others
  PipelineWorkers(const PipelineWorkers&) = delete;
  PipelineWorkers& operator=(const PipelineWorkers&) = delete;

  // Sets `pipeline` to `state` once `after` (an earlier change of the same
  // pipeline, if valid) has finished; the result says when this one has.
  std::shared_future<void> set_state(tools::GstObjectPtr<GstElement> pipeline, GstState state,
                                     std::string channel, std::shared_future<void> after = {});
  // Waits for every change to finish, each up to `timeout` after it was
  // asked for (one stuck since long ago is not waited for again); false with
  // the channels whose pipelines are still changing in `stuck` (", "-separated).
  bool wait_all(std::chrono::milliseconds timeout, std::string& stuck);

 private:
  struct Job {
    std::string channel;
    std::thread thread;
    std::shared_future<void> done;
    std::chrono::steady_clock::time_point asked;
  };
  void join_finished();

  std::vector<Job> jobs_;
};

// Applies `properties` to the vmafexact element, in order, each value read as
// gst-launch-1.0 reads it for the property's type. False with the problem in
// `problem`: "<property_option>NAME=VALUE: why" (an unknown property's lists
// those the element has).
bool set_element_properties(GstElement* vmafexact,
                            const std::vector<std::pair<std::string, std::string>>& properties,
                            std::string_view property_option, std::string& problem);

// A built channel pipeline, its properties and offsets applied, not started.
struct PreparedPipeline {
  tools::GstObjectPtr<GstElement> pipeline;
  tools::GstObjectPtr<GstElement> vmafexact;
  std::string model, backend;  // the element's properties as set
};
// Builds `config`'s pipeline (channel_pipeline.h) and applies its properties
// and offsets. Throws PipelineError (what(): the problem and the fix; a
// property named as `property_option` NAME=VALUE, "--set " or "property.").
PreparedPipeline prepare_pipeline(const ChannelConfig& config, std::string_view property_option);

class Channel;

// What a channel needs from the program.
class ChannelHost {
 public:
  virtual ~ChannelHost() = default;
  virtual void write_json_line(const Channel& channel, const GstStructure* message) = 0;
  // The channel's pipeline ended and it does not restart (the command line's
  // channel, or any channel once the program is stopping).
  virtual void on_channel_ended(Channel& channel, EndReason reason) = 0;
};

class Channel {
 public:
  // `settings`, `host`, `contexts` and `workers` outlive the channel.
  Channel(ChannelConfig config, const RestartSettings& settings, ChannelHost& host,
          SharedContexts& contexts, PipelineWorkers& workers);
  ~Channel();  // stops the pipeline (on a worker)
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  const std::string& name() const { return config_.name; }
  const ChannelConfig& config() const { return config_; }
  const ChannelFigures& figures() const { return figures_; }
  // "channel NAME: " before a station's messages on standard error; "" for
  // the command line's channel (whose messages stay as they were).
  const std::string& prefix() const { return prefix_; }

  // Starts `prepared` (from prepare_pipeline(config())).
  void start(PreparedPipeline prepared);
  // A reload changed the channel: stops the running pipeline and starts
  // `prepared`, made for `config` (counters carry over; not a restart).
  void replace(ChannelConfig config, PreparedPipeline prepared);

  // A reload changed the settings: the next failure waits the new first
  // delay, and a stall is judged by the new timeout from now on.
  void settings_changed();

  // SIGINT/SIGTERM: sends EOS (from a thread: the call blocks while a source
  // is stuck); a channel waiting to restart has ended at once. No restart
  // after this.
  void end_stream();
  bool ended() const { return ended_; }
  // Whether it was scoring when end_stream() came: a channel that was down or
  // still starting has nothing to drain, and its start failing then (an
  // input still missing) is no failure of the shutdown.
  bool up_when_ending() const { return up_when_ending_; }
  // A station's channel, restarted after failures (not the command line's).
  bool restarts() const { return settings_.restart; }
  // At exit: true when the EOS that end_stream() sent is still blocked in a
  // source after `wait`; the pipeline must then be left alone, since going to
  // NULL would block as well.
  bool eos_blocked(std::chrono::milliseconds wait);
  // At exit: stops the pipeline on a worker (the element writes its log).
  void stop();

 private:
  gboolean on_bus_message(GstMessage* message);
  void on_end(EndReason reason);
  void on_restart_timer();
  void on_stall_check();
  void arm_stall_timer(GstClockTime delay);
  void remove_sources();
  void stop_pipeline();

  static gboolean bus_callback(GstBus*, GstMessage* message, gpointer self) {
    return static_cast<Channel*>(self)->on_bus_message(message);
  }
  static gboolean restart_callback(gpointer self) {
    static_cast<Channel*>(self)->on_restart_timer();
    return G_SOURCE_REMOVE;
  }
  static gboolean stall_callback(gpointer self) {
    static_cast<Channel*>(self)->on_stall_check();
    return G_SOURCE_REMOVE;
  }

  ChannelConfig config_;
  const RestartSettings& settings_;
  ChannelHost& host_;
  SharedContexts& contexts_;
  PipelineWorkers& workers_;
  std::string prefix_;
  ChannelFigures figures_;
  RestartBackoff backoff_;

  tools::GstObjectPtr<GstElement> pipeline_;
  tools::GstObjectPtr<GstElement> vmafexact_;
  std::shared_future<void> started_;  // the pipeline's change to PLAYING
  guint bus_watch_ = 0;
  guint restart_timer_ = 0;
  guint stall_timer_ = 0;
  unsigned runs_ = 0;               // pipelines started
  GstClockTime started_at_ = 0;     // monotonic: the current run's start
  GstClockTime last_activity_ = 0;  // the run's start or its last frame message
  bool ending_ = false;             // end_stream() was called
  bool up_when_ending_ = false;
  bool ended_ = false;
  // The EOS end_stream() sends, from a thread of its own.
  std::thread eos_sender_;
  std::future<void> eos_sent_;
};

}  // namespace vmafexact::monitor_tool
