// Helpers for driving the vmafexact element from GoogleTest through GstHarness:
// synthetic frames in any supported layout, and the messages it posts.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/picture.h"

namespace vmafexact::test {

// Planar samples of one picture, kept by the test as the source of truth.
struct RawPicture {
  unsigned width = 0, height = 0, bpc = 8;
  ChromaFormat chroma = ChromaFormat::k420;
  std::vector<std::uint16_t> planes[3];  // GStreamer-sized planes (chroma rounded up)
  unsigned plane_width(unsigned p) const;
  unsigned plane_height(unsigned p) const;
};

RawPicture random_picture(unsigned width, unsigned height, unsigned bpc, ChromaFormat chroma,
                          std::uint32_t seed);
// The same picture with noise of +-amplitude added (clamped), for a distorted copy.
RawPicture distorted(const RawPicture& picture, int amplitude, std::uint32_t seed);

// The metrics' view of a RawPicture, in libvmaf's layout (owned storage inside).
struct OwnedView {
  std::vector<std::uint8_t> storage[3];
  PictureView view;
};
OwnedView view_of(const RawPicture& picture);

// Packs a picture into a buffer with the layout of `format` (I420, NV12, P010_10LE, ...).
GstBuffer* make_buffer(const RawPicture& picture, GstVideoFormat format, GstClockTime pts,
                       GstClockTime duration);

std::string caps_string(GstVideoFormat format, unsigned width, unsigned height, int fps_n = 24,
                        int fps_d = 1);

struct GstObjectUnref {
  void operator()(gpointer object) const { gst_object_unref(object); }
};
struct MessageUnref {
  void operator()(GstMessage* message) const { gst_message_unref(message); }
};
using MessagePtr = std::unique_ptr<GstMessage, MessageUnref>;

// The element with a harness on each sink pad and its own bus.
class ElementHarness {
 public:
  explicit ElementHarness(const char* properties = nullptr);
  // The same, then `configure` sets what a property string cannot carry (a
  // path that is not UTF-8: gst_util_set_object_arg() refuses it), before the
  // element starts.
  ElementHarness(const char* properties, const std::function<void(GstElement*)>& configure);
  ~ElementHarness();
  ElementHarness(const ElementHarness&) = delete;
  ElementHarness& operator=(const ElementHarness&) = delete;

  GstElement* element() const { return ref_->element; }
  GstHarness* ref() const { return ref_; }
  GstHarness* dist() const { return dist_; }

  void set_caps(const std::string& ref_caps, const std::string& dist_caps);
  GstFlowReturn push_ref(GstBuffer* buffer) { return gst_harness_push(ref_, buffer); }
  GstFlowReturn push_dist(GstBuffer* buffer) { return gst_harness_push(dist_, buffer); }
  void push_eos_ref() { gst_harness_push_event(ref_, gst_event_new_eos()); }
  void push_eos_dist() { gst_harness_push_event(dist_, gst_event_new_eos()); }

  // A flushing seek as it reaches the inputs: FLUSH_START and FLUSH_STOP with
  // the seek's sequence number, then a new time segment, on both.
  void flushing_seek();

  // Pulls output events until EOS; false on timeout.
  bool wait_for_eos();

  // Messages posted so far (drains the bus).
  std::vector<MessagePtr> drain_messages();
  // Messages posted until the element posts one named `name` (scoring runs on
  // worker threads, so a pushed pair's scores come later), that one included;
  // stops at an error, or after `timeout` without it.
  std::vector<MessagePtr> messages_until(const char* name, GstClockTime timeout = 60 * GST_SECOND);

 private:
  GstHarness* ref_ = nullptr;
  GstHarness* dist_ = nullptr;
  GstBus* bus_ = nullptr;
};

// Element messages of one name, and errors/warnings, from a drained list.
std::vector<const GstStructure*> element_messages(const std::vector<MessagePtr>& messages,
                                                  const char* name);
std::vector<std::string> message_texts(const std::vector<MessagePtr>& messages,
                                       GstMessageType type);

double field_double(const GstStructure* structure, const char* name);
guint64 field_uint64(const GstStructure* structure, const char* name);

// The element's own checks (tests/element/test_*.cpp): pairs of frames pushed
// in step and their psnr scores against the metrics' own. A namespace of their
// own, as other tests of this binary keep helpers of the same names.
namespace checks {

constexpr GstClockTime kFrame = GST_SECOND / 24;

// psnr_y/cb/cr of a pair, from the metrics' own functions.
std::vector<double> expected_psnr(const RawPicture& ref, const RawPicture& dist);

bool contains(const std::vector<std::string>& texts, const std::string& needle);
std::string joined(const std::vector<std::string>& texts);

struct Frames {
  std::vector<RawPicture> ref, dist;
};

Frames make_frames(unsigned count, unsigned width, unsigned height, unsigned bpc,
                   ChromaFormat chroma);

// Pushes pairs in step and checks each frame message against the metrics.
void run_pairs(ElementHarness& harness, const Frames& frames, GstVideoFormat ref_format,
               GstVideoFormat dist_format);

void expect_frame_scores(const std::vector<const GstStructure*>& frames_posted,
                         const Frames& frames);

std::filesystem::path temp_path(const std::string& name);
std::string read_text(const std::filesystem::path& path);

}  // namespace checks

}  // namespace vmafexact::test
