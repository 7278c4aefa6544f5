// tools/support/end_of_stream: the EOS a shutdown sends (vmafexact-monitor's
// SIGTERM) reaches the end of the pipeline even when it comes between a sink's
// preroll and PLAYING, the moment that blocked gst_element_send_event for ever
// (CI saw it as a monitor that never wrote its summary).
#include "support/end_of_stream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

#include "support/handles.h"

namespace {

using namespace std::chrono_literals;
using vmafexact::tools::GstObjectPtr;
using vmafexact::tools::send_eos_once_settled;

GstObjectPtr<GstElement> launch(const char* description) {
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description, &error);
  if (error) {
    ADD_FAILURE() << description << ": " << error->message;
    g_error_free(error);
  }
  return GstObjectPtr<GstElement>(pipeline);
}

// The pipeline's EOS or ERROR within `timeout`: true for the EOS.
bool ends_with_eos(GstElement* pipeline, std::chrono::milliseconds timeout) {
  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline));
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus.get(), static_cast<GstClockTime>(timeout.count()) * GST_MSECOND,
      static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const bool eos = message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
  if (message) gst_message_unref(message);
  return eos;
}

struct PrerollRace {
  GstElement* pipeline;
  std::promise<void> eos_taken;
  std::thread sender;
};

// On the sink's preroll, in the streaming thread: the shutdown starts and gets
// a head start while the preroll (and the pipeline's step to PLAYING after
// it) waits; this thread's push is the one the source's stream lock guards.
void on_preroll(GstElement*, GstBuffer*, GstPad*, gpointer data) {
  auto* race = static_cast<PrerollRace*>(data);
  if (race->sender.joinable()) return;
  race->sender = std::thread([race] {
    send_eos_once_settled(race->pipeline);
    race->eos_taken.set_value();
  });
  std::this_thread::sleep_for(300ms);
}

TEST(SendEosOnceSettled, AnEosBetweenPrerollAndPlayingEndsThePipeline) {
  GstObjectPtr<GstElement> pipeline =
      launch("videotestsrc ! video/x-raw,width=64,height=48,framerate=25/1 ! "
             "fakesink name=sink signal-handoffs=true");
  ASSERT_TRUE(pipeline);
  PrerollRace race{pipeline.get(), {}, {}};
  std::future<void> eos_taken = race.eos_taken.get_future();
  GstObjectPtr<GstElement> sink(gst_bin_get_by_name(GST_BIN(pipeline.get()), "sink"));
  g_signal_connect(sink.get(), "preroll-handoff", G_CALLBACK(on_preroll), &race);
  ASSERT_NE(gst_element_set_state(pipeline.get(), GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  if (eos_taken.wait_for(10s) != std::future_status::ready) {
    // Deadlocked: no teardown can end this pipeline's threads.
    ADD_FAILURE() << "the EOS sent between the preroll and PLAYING was not taken in 10 s";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  race.sender.join();
  EXPECT_TRUE(ends_with_eos(pipeline.get(), 10s));
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
}

TEST(SendEosOnceSettled, APipelineThatCannotPrerollGetsTheEosAfterTheBound) {
  // Nothing ever comes from the appsrc: the step to PLAYING never ends, and
  // the EOS is what ends the preroll.
  GstObjectPtr<GstElement> pipeline = launch("appsrc ! fakesink");
  ASSERT_TRUE(pipeline);
  ASSERT_EQ(gst_element_set_state(pipeline.get(), GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);
  const auto start = std::chrono::steady_clock::now();
  send_eos_once_settled(pipeline.get(), 300ms);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 5s);
  EXPECT_TRUE(ends_with_eos(pipeline.get(), 10s));
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
}

TEST(SendEosOnceSettled, APlayingLivePipelineGetsTheEosAtOnce) {
  GstObjectPtr<GstElement> pipeline =
      launch("videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=25/1 ! "
             "fakesink");
  ASSERT_TRUE(pipeline);
  ASSERT_NE(gst_element_set_state(pipeline.get(), GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  ASSERT_NE(gst_element_get_state(pipeline.get(), nullptr, nullptr, 10 * GST_SECOND),
            GST_STATE_CHANGE_FAILURE);
  const auto start = std::chrono::steady_clock::now();
  send_eos_once_settled(pipeline.get(), 30s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(ends_with_eos(pipeline.get(), 10s));
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
