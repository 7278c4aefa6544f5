#include "element_harness.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "psnr/psnr.h"

namespace vmafexact::test {

unsigned RawPicture::plane_width(unsigned p) const {
  if (p == 0 || chroma == ChromaFormat::k444) return width;
  return (width + 1) / 2;
}

unsigned RawPicture::plane_height(unsigned p) const {
  if (p == 0 || chroma != ChromaFormat::k420) return height;
  return (height + 1) / 2;
}

RawPicture random_picture(unsigned width, unsigned height, unsigned bpc, ChromaFormat chroma,
                          std::uint32_t seed) {
  RawPicture picture;
  picture.width = width;
  picture.height = height;
  picture.bpc = bpc;
  picture.chroma = chroma;
  std::mt19937 random(seed);
  std::uniform_int_distribution<unsigned> sample(0, (1u << bpc) - 1);
  const unsigned planes = chroma == ChromaFormat::k400 ? 1 : 3;
  for (unsigned p = 0; p < planes; ++p) {
    picture.planes[p].resize(std::size_t{picture.plane_width(p)} * picture.plane_height(p));
    for (auto& value : picture.planes[p]) value = static_cast<std::uint16_t>(sample(random));
  }
  return picture;
}

RawPicture distorted(const RawPicture& picture, int amplitude, std::uint32_t seed) {
  RawPicture copy = picture;
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> noise(-amplitude, amplitude);
  const int max_value = (1 << picture.bpc) - 1;
  for (auto& plane : copy.planes)
    for (auto& value : plane) value = static_cast<std::uint16_t>(std::clamp(value + noise(random), 0, max_value));
  return copy;
}

OwnedView view_of(const RawPicture& picture) {
  OwnedView owned;
  PictureView& view = owned.view;
  view.width = picture.width;
  view.height = picture.height;
  view.bpc = picture.bpc;
  view.chroma = picture.chroma;
  const std::size_t sample_bytes = picture.bpc > 8 ? 2 : 1;
  for (unsigned p = 0; p < view.plane_count(); ++p) {
    const unsigned stored_width = picture.plane_width(p);
    auto& bytes = owned.storage[p];
    bytes.resize(picture.planes[p].size() * sample_bytes);
    for (std::size_t i = 0; i < picture.planes[p].size(); ++i) {
      if (sample_bytes == 1)
        bytes[i] = static_cast<std::uint8_t>(picture.planes[p][i]);
      else
        std::memcpy(&bytes[i * 2], &picture.planes[p][i], 2);
    }
    view.planes[p].data = bytes.data();
    view.planes[p].stride = static_cast<std::ptrdiff_t>(stored_width * sample_bytes);
    view.planes[p].width = p == 0 ? picture.width : chroma_plane_width(picture.width, picture.chroma);
    view.planes[p].height =
        p == 0 ? picture.height : chroma_plane_height(picture.height, picture.chroma);
  }
  return owned;
}

GstBuffer* make_buffer(const RawPicture& picture, GstVideoFormat format, GstClockTime pts,
                       GstClockTime duration) {
  GstVideoInfo info;
  if (!gst_video_info_set_format(&info, format, picture.width, picture.height))
    throw std::runtime_error("bad test format");
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  gst_buffer_memset(buffer, 0, 0xA5, GST_VIDEO_INFO_SIZE(&info));  // padding is not read
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE))
    throw std::runtime_error("cannot map test buffer");
  // The layout is written from what each format is, not from GStreamer's
  // component offsets (1.22.0 has P010's V offset wrong): planar formats
  // have one plane per component; semi-planar ones interleave U,V (V,U for
  // NV21/NV61) in plane 1; P0xx keep the samples in the top bits.
  const bool semi_planar = GST_VIDEO_INFO_N_PLANES(&info) == 2;
  const bool v_first = format == GST_VIDEO_FORMAT_NV21 || format == GST_VIDEO_FORMAT_NV61;
  const unsigned sample_bytes = picture.bpc > 8 ? 2 : 1;
  const unsigned components = GST_VIDEO_INFO_N_COMPONENTS(&info);
  for (unsigned c = 0; c < components; ++c) {
    const unsigned plane = semi_planar ? (c == 0 ? 0 : 1) : c;
    const unsigned first = v_first ? 2 : 1;
    const unsigned offset = semi_planar && c > 0 && c != first ? sample_bytes : 0;
    const unsigned yv12_plane = format == GST_VIDEO_FORMAT_YV12 && c > 0 ? 3 - c : plane;
    auto* data = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, yv12_plane)) + offset;
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, yv12_plane);
    const int pixel_stride = static_cast<int>(semi_planar && c > 0 ? 2 * sample_bytes : sample_bytes);
    const unsigned shift = GST_VIDEO_FORMAT_INFO_SHIFT(info.finfo, c);
    const unsigned width = picture.plane_width(c);
    const unsigned height = picture.plane_height(c);
    for (unsigned y = 0; y < height; ++y)
      for (unsigned x = 0; x < width; ++x) {
        const std::uint16_t value = picture.planes[c][std::size_t{y} * width + x];
        std::uint8_t* dst = data + static_cast<std::ptrdiff_t>(y) * stride +
                            static_cast<std::ptrdiff_t>(x) * pixel_stride;
        if (picture.bpc == 8) {
          *dst = static_cast<std::uint8_t>(value);
        } else {
          const auto shifted = static_cast<std::uint16_t>(value << shift);
          std::memcpy(dst, &shifted, 2);
        }
      }
  }
  gst_video_frame_unmap(&frame);
  GST_BUFFER_PTS(buffer) = pts;
  GST_BUFFER_DURATION(buffer) = duration;
  return buffer;
}

std::string caps_string(GstVideoFormat format, unsigned width, unsigned height, int fps_n,
                        int fps_d) {
  return "video/x-raw,format=" + std::string(gst_video_format_to_string(format)) +
         ",width=" + std::to_string(width) + ",height=" + std::to_string(height) +
         ",framerate=" + std::to_string(fps_n) + "/" + std::to_string(fps_d);
}

ElementHarness::ElementHarness(const char* properties) : ElementHarness(properties, nullptr) {}

ElementHarness::ElementHarness(const char* properties,
                               const std::function<void(GstElement*)>& configure) {
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  if (!element) throw std::runtime_error("vmafexact element not found (GST_PLUGIN_PATH?)");
  // PSNR alone unless the test says otherwise: its expected values are computed
  // by the test, and it scores pictures of any size.
  g_object_set(element, "model", "", "features", "psnr", nullptr);
  if (properties) {
    // "name=value name=value", as gst-launch would set them.
    gchar** pairs = g_strsplit(properties, " ", -1);
    for (gchar** pair = pairs; *pair; ++pair) {
      gchar** kv = g_strsplit(*pair, "=", 2);
      if (kv[0] && kv[1]) gst_util_set_object_arg(G_OBJECT(element), kv[0], kv[1]);
      g_strfreev(kv);
    }
    g_strfreev(pairs);
  }
  if (configure) configure(element);
  bus_ = gst_bus_new();
  gst_element_set_bus(element, bus_);
  ref_ = gst_harness_new_with_element(element, "ref_sink", "src");
  dist_ = gst_harness_new_with_element(element, "dist_sink", nullptr);
  gst_object_unref(element);
}

ElementHarness::~ElementHarness() {
  // Messages still on the bus hold references to the element, and the element
  // holds the bus: drop both links first, or neither is ever freed.
  gst_bus_set_flushing(bus_, TRUE);
  gst_element_set_bus(ref_->element, nullptr);
  gst_harness_teardown(dist_);
  gst_harness_teardown(ref_);
  gst_object_unref(bus_);
}

void ElementHarness::set_caps(const std::string& ref_caps, const std::string& dist_caps) {
  gst_harness_set_src_caps_str(ref_, ref_caps.c_str());
  gst_harness_set_src_caps_str(dist_, dist_caps.c_str());
}

void ElementHarness::flushing_seek() {
  const guint32 seqnum = gst_util_seqnum_next();
  for (GstHarness* h : {ref_, dist_}) {
    GstEvent* start = gst_event_new_flush_start();
    gst_event_set_seqnum(start, seqnum);
    gst_harness_push_event(h, start);
  }
  for (GstHarness* h : {ref_, dist_}) {
    GstEvent* stop = gst_event_new_flush_stop(TRUE);
    gst_event_set_seqnum(stop, seqnum);
    gst_harness_push_event(h, stop);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
  }
}

bool ElementHarness::wait_for_eos() {
  while (true) {
    GstEvent* event = gst_harness_pull_event(ref_);  // waits up to 60 s
    if (!event) return false;
    const bool eos = GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    gst_event_unref(event);
    if (eos) return true;
  }
}

std::vector<MessagePtr> ElementHarness::drain_messages() {
  std::vector<MessagePtr> messages;
  while (GstMessage* message = gst_bus_pop(bus_)) messages.emplace_back(message);
  return messages;
}

std::vector<MessagePtr> ElementHarness::messages_until(const char* name, GstClockTime timeout) {
  std::vector<MessagePtr> messages;
  const gint64 deadline = g_get_monotonic_time() + static_cast<gint64>(timeout / GST_USECOND);
  for (gint64 now = g_get_monotonic_time(); now < deadline; now = g_get_monotonic_time()) {
    GstMessage* message =
        gst_bus_timed_pop(bus_, static_cast<GstClockTime>(deadline - now) * GST_USECOND);
    if (!message) break;
    messages.emplace_back(message);
    // An error ends the wait too: no scores come after it.
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) break;
    const GstStructure* structure = gst_message_get_structure(message);
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ELEMENT && structure &&
        gst_structure_has_name(structure, name))
      break;
  }
  return messages;
}

std::vector<const GstStructure*> element_messages(const std::vector<MessagePtr>& messages,
                                                  const char* name) {
  std::vector<const GstStructure*> found;
  for (const auto& message : messages) {
    if (GST_MESSAGE_TYPE(message.get()) != GST_MESSAGE_ELEMENT) continue;
    const GstStructure* structure = gst_message_get_structure(message.get());
    if (structure && gst_structure_has_name(structure, name)) found.push_back(structure);
  }
  return found;
}

std::vector<std::string> message_texts(const std::vector<MessagePtr>& messages,
                                       GstMessageType type) {
  std::vector<std::string> texts;
  for (const auto& message : messages) {
    if (GST_MESSAGE_TYPE(message.get()) != type) continue;
    GError* error = nullptr;
    gchar* debug = nullptr;
    if (type == GST_MESSAGE_ERROR)
      gst_message_parse_error(message.get(), &error, &debug);
    else if (type == GST_MESSAGE_WARNING)
      gst_message_parse_warning(message.get(), &error, &debug);
    else
      continue;
    texts.push_back(std::string(error ? error->message : "") + " | " + (debug ? debug : ""));
    g_clear_error(&error);
    g_free(debug);
  }
  return texts;
}

double field_double(const GstStructure* structure, const char* name) {
  double value = 0;
  if (!gst_structure_get_double(structure, name, &value))
    throw std::runtime_error(std::string("no double field ") + name);
  return value;
}

guint64 field_uint64(const GstStructure* structure, const char* name) {
  guint64 value = 0;
  if (!gst_structure_get_uint64(structure, name, &value))
    throw std::runtime_error(std::string("no guint64 field ") + name);
  return value;
}

namespace checks {

std::vector<double> expected_psnr(const RawPicture& ref, const RawPicture& dist) {
  const OwnedView r = view_of(ref), d = view_of(dist);
  std::vector<double> scores;
  for (unsigned p = 0; p < r.view.plane_count(); ++p) {
    const auto sse = psnr::plane_sse(r.view.planes[p], d.view.planes[p], ref.bpc);
    scores.push_back(psnr::psnr_from_sse(sse, r.view.planes[p].width, r.view.planes[p].height,
                                         ref.bpc, psnr::default_psnr_max(ref.bpc)));
  }
  return scores;
}

bool contains(const std::vector<std::string>& texts, const std::string& needle) {
  for (const auto& text : texts)
    if (text.find(needle) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& texts) {
  std::string all;
  for (const auto& text : texts) all += text + "\n";
  return all;
}

Frames make_frames(unsigned count, unsigned width, unsigned height, unsigned bpc,
                   ChromaFormat chroma) {
  Frames frames;
  for (unsigned i = 0; i < count; ++i) {
    frames.ref.push_back(random_picture(width, height, bpc, chroma, 100 + i));
    frames.dist.push_back(distorted(frames.ref.back(), 3 + static_cast<int>(i) % 5, 200 + i));
  }
  return frames;
}

void run_pairs(ElementHarness& harness, const Frames& frames, GstVideoFormat ref_format,
               GstVideoFormat dist_format) {
  for (std::size_t i = 0; i < frames.ref.size(); ++i) {
    ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[i], ref_format, i * kFrame, kFrame)),
              GST_FLOW_OK);
    ASSERT_EQ(harness.push_dist(make_buffer(frames.dist[i], dist_format, i * kFrame, kFrame)),
              GST_FLOW_OK);
  }
}

void expect_frame_scores(const std::vector<const GstStructure*>& frames_posted,
                         const Frames& frames) {
  ASSERT_EQ(frames_posted.size(), frames.ref.size());
  const char* names[] = {"psnr_y", "psnr_cb", "psnr_cr"};
  for (std::size_t i = 0; i < frames_posted.size(); ++i) {
    EXPECT_EQ(field_uint64(frames_posted[i], "index"), i);
    const auto expected = expected_psnr(frames.ref[i], frames.dist[i]);
    for (std::size_t p = 0; p < expected.size(); ++p)
      EXPECT_EQ(field_double(frames_posted[i], names[p]), expected[p]) << "frame " << i << " " << names[p];
  }
}

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("vmafexact-test-" + std::to_string(::getpid()) + "-" + name);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace checks

}  // namespace vmafexact::test
