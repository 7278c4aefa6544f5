#include "align_auto.h"

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>

#include "errors.h"
#include "support/decoded_video.h"
#include "support/handles.h"
#include "support/raw_video.h"
#include "support/y4m.h"

namespace vmafexact::cli {
namespace {

// ---- The core: thumbnails in, offset out ----

// A thumbnail brought to mean 0 and deviation 1 (a brightness or contrast
// change leaves it alone); a flat one (deviation below a level) stays flat.
Thumbnail standardized(const Thumbnail& thumbnail) {
  const double count = static_cast<double>(thumbnail.size());
  double sum = 0, squares = 0;
  for (const double value : thumbnail) sum += value;
  const double mean = sum / count;
  for (const double value : thumbnail) squares += (value - mean) * (value - mean);
  const double deviation = std::max(std::sqrt(squares / count), 1.0);
  Thumbnail out(thumbnail.size());
  for (std::size_t i = 0; i < thumbnail.size(); ++i) out[i] = (thumbnail[i] - mean) / deviation;
  return out;
}

// The change from each thumbnail to the next (one fewer than the thumbnails).
std::vector<Thumbnail> changes(std::span<const Thumbnail> frames) {
  std::vector<Thumbnail> out;
  for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
    Thumbnail change(frames[i].size());
    for (std::size_t s = 0; s < change.size(); ++s) change[s] = frames[i + 1][s] - frames[i][s];
    out.push_back(std::move(change));
  }
  return out;
}

// Mean absolute change per sample over the first `count` changes.
double mean_motion(const std::vector<Thumbnail>& frame_changes, std::size_t count) {
  double sum = 0;
  std::size_t samples = 0;
  for (std::size_t i = 0; i < std::min(count, frame_changes.size()); ++i) {
    for (const double value : frame_changes[i]) sum += std::fabs(value);
    samples += frame_changes[i].size();
  }
  return samples ? sum / static_cast<double>(samples) : 0.0;
}

}  // namespace

OffsetEstimate estimate_offset(std::span<const Thumbnail> ref, std::span<const Thumbnail> dist,
                               int bound) {
  if (ref.empty() || dist.empty())
    throw std::invalid_argument("estimate_offset: no thumbnails to compare");
  const std::size_t samples = ref.front().size();
  if (samples == 0) throw std::invalid_argument("estimate_offset: empty thumbnails");
  for (const auto sequence : {ref, dist})
    for (const Thumbnail& thumbnail : sequence)
      if (thumbnail.size() != samples)
        throw std::invalid_argument("estimate_offset: thumbnails of different sizes");

  OffsetEstimate estimate;
  const int frames = static_cast<int>(std::min(ref.size(), dist.size()));
  estimate.bound = std::clamp(bound, 0, std::max(frames - kMinAlignWindow, 0));
  estimate.window = frames - estimate.bound;
  const int window = estimate.window;

  std::vector<Thumbnail> ref_standard, dist_standard;
  for (const Thumbnail& thumbnail : ref) ref_standard.push_back(standardized(thumbnail));
  for (const Thumbnail& thumbnail : dist) dist_standard.push_back(standardized(thumbnail));
  const std::vector<Thumbnail> ref_changes = changes(ref);
  const std::vector<Thumbnail> dist_changes = changes(dist);

  // Per offset: the mean absolute difference of the standardized thumbnails,
  // and the correlation of the changes, over the same window of pairs.
  const int offsets = 2 * estimate.bound + 1;
  std::vector<double> differences(offsets), correlations(offsets);
  for (int index = 0; index < offsets; ++index) {
    const int offset = index - estimate.bound;
    const int dist_first = std::max(0, -offset);
    const int ref_first = dist_first + offset;
    double difference = 0;
    for (int pair = 0; pair < window; ++pair) {
      const Thumbnail& a = ref_standard[ref_first + pair];
      const Thumbnail& b = dist_standard[dist_first + pair];
      for (std::size_t s = 0; s < samples; ++s) difference += std::fabs(a[s] - b[s]);
    }
    differences[index] = difference / (static_cast<double>(window) * samples);

    // Pearson's correlation over every sample of window - 1 changes.
    double sum_a = 0, sum_b = 0, sum_aa = 0, sum_bb = 0, sum_ab = 0, count = 0;
    for (int pair = 0; pair + 1 < window; ++pair) {
      const Thumbnail& a = ref_changes[ref_first + pair];
      const Thumbnail& b = dist_changes[dist_first + pair];
      for (std::size_t s = 0; s < samples; ++s) {
        sum_a += a[s];
        sum_b += b[s];
        sum_aa += a[s] * a[s];
        sum_bb += b[s] * b[s];
        sum_ab += a[s] * b[s];
      }
      count += static_cast<double>(samples);
    }
    double correlation = 0;
    if (count > 0) {
      const double var_a = sum_aa - sum_a * sum_a / count;
      const double var_b = sum_bb - sum_b * sum_b / count;
      const double cov = sum_ab - sum_a * sum_b / count;
      // Changes that are only rounding noise correlate with nothing.
      if (var_a > 1e-9 * count && var_b > 1e-9 * count)
        correlation = cov / std::sqrt(var_a * var_b);
    }
    correlations[index] = std::clamp(correlation, -1.0, 1.0);
  }

  // Each measure in [0, 1], lower fitting better; their mean is the cost. The
  // difference counts relative to the worst offset's, so that content whose
  // every offset differs alike (static) has no clear best.
  const double worst_difference = *std::max_element(differences.begin(), differences.end());
  estimate.costs.resize(offsets);
  for (int index = 0; index < offsets; ++index) {
    const double difference = worst_difference > 0 ? differences[index] / worst_difference : 0.0;
    estimate.costs[index] = 0.5 * difference + 0.25 * (1.0 - correlations[index]);
  }

  // The best: lowest cost; ties to the smaller |offset|, then the negative.
  int best = 0;
  for (int index = 1; index < offsets; ++index) {
    const int offset = index - estimate.bound, best_offset = best - estimate.bound;
    const double cost = estimate.costs[index], best_cost = estimate.costs[best];
    // Costs a rounding error apart are a tie (a still scene's are).
    constexpr double kTie = 1e-9;
    if (cost < best_cost - kTie ||
        (cost <= best_cost + kTie && std::abs(offset) < std::abs(best_offset)))
      best = index;
  }
  estimate.motion = std::min(mean_motion(ref_changes, static_cast<std::size_t>(frames - 1)),
                             mean_motion(dist_changes, static_cast<std::size_t>(frames - 1)));
  estimate.static_content = estimate.motion < kStaticMotion;
  // Pictures that hardly move cannot tell offsets apart: the best is chance,
  // and none is applied.
  if (estimate.static_content) best = estimate.bound;
  estimate.offset = best - estimate.bound;
  estimate.at_bound = estimate.bound > 0 && std::abs(estimate.offset) == estimate.bound;

  // How much better than the best offset more than a frame away.
  double runner_up = std::numeric_limits<double>::infinity();
  for (int index = 0; index < offsets; ++index)
    if (std::abs(index - best) > 1) runner_up = std::min(runner_up, estimate.costs[index]);
  const double best_cost = estimate.costs[best];
  double margin = 1.0;  // nothing else was tried
  if (std::isfinite(runner_up))
    margin = runner_up > 0 ? std::max(runner_up - best_cost, 0.0) / runner_up : 0.0;
  // Encoding loss puts a floor under the best cost, so a best 15 % below the
  // runner-up (a slow zoom at crf 32) is already fairly sure: 0.48; 30 %:
  // 0.76; unrelated content's 1 % stays near 0.
  const double margin_confidence = 1.0 - std::pow(1.0 - margin, 4);

  // Motion of twice the static bound or more is plenty; less weighs down.
  const double motion_weight = std::min(1.0, estimate.motion / (2 * kStaticMotion));
  estimate.confidence = std::clamp(margin_confidence * motion_weight, 0.0, 1.0);
  return estimate;
}

namespace {

// ---- The front: inputs decoded into thumbnails ----

using tools::CapsPtr;
using tools::ErrorPtr;
using tools::GstObjectPtr;
using tools::MessagePtr;

void release_sample(GstSample* sample) { gst_sample_unref(sample); }
using SamplePtr = std::unique_ptr<GstSample, tools::Releaser<GstSample, release_sample>>;

// A thumbnail of one luma plane (`bytes_per_sample` 1 or 2, little-endian, of
// `depth` bits above `shift` bits): each thumbnail sample the mean of its box
// of the picture.
class Shrinker {
 public:
  Shrinker(int width, int height) : columns_(kThumbnailWidth + 1), rows_(kThumbnailHeight + 1) {
    // Box edges; a picture smaller than the thumbnail repeats its samples.
    for (int x = 0; x <= kThumbnailWidth; ++x) columns_[x] = x * width / kThumbnailWidth;
    for (int y = 0; y <= kThumbnailHeight; ++y) rows_[y] = y * height / kThumbnailHeight;
  }

  Thumbnail shrink(const guint8* plane, std::size_t stride, int bytes_per_sample, int depth,
                   int shift = 0) const {
    const double scale = 1.0 / static_cast<double>(1 << (depth - 8));
    Thumbnail thumbnail(static_cast<std::size_t>(kThumbnailWidth) * kThumbnailHeight);
    for (int ty = 0; ty < kThumbnailHeight; ++ty) {
      const int y0 = rows_[ty], y1 = std::max(rows_[ty + 1], y0 + 1);
      for (int tx = 0; tx < kThumbnailWidth; ++tx) {
        const int x0 = columns_[tx], x1 = std::max(columns_[tx + 1], x0 + 1);
        double sum = 0;
        for (int y = y0; y < y1; ++y) {
          const guint8* row = plane + static_cast<std::size_t>(y) * stride;
          for (int x = x0; x < x1; ++x)
            sum += bytes_per_sample == 1 ? row[x] : GST_READ_UINT16_LE(row + 2 * x) >> shift;
        }
        thumbnail[static_cast<std::size_t>(ty) * kThumbnailWidth + tx] =
            sum * scale / static_cast<double>((y1 - y0) * (x1 - x0));
      }
    }
    return thumbnail;
  }

 private:
  std::vector<int> columns_, rows_;
};

// Thumbnails with their timestamps (from the first frame's), in decoding order.
struct TimedThumbnails {
  std::vector<Thumbnail> thumbnails;
  std::vector<GstClockTime> times;
};

std::string input_name(const VideoInput& input) { return "the " + input.role + " " + input.path; }

// A y4m input, read by vmafexact itself (as the scoring pipeline reads it),
// from a reader of its own: the one discovery opened is the scoring's.
TimedThumbnails read_y4m_thumbnails(const VideoInput& input, std::size_t max_frames) {
  TimedThumbnails out;
  try {
    tools::Y4mReader reader(input.path);
    const tools::Y4mHeader& header = reader.header();
    const GstVideoFormatInfo* info = gst_video_format_get_info(header.format);
    const int depth = static_cast<int>(GST_VIDEO_FORMAT_INFO_DEPTH(info, 0));
    const int bytes_per_sample = depth > 8 ? 2 : 1;
    const Shrinker shrinker(header.width, header.height);
    std::vector<std::uint8_t> frame(header.frame_bytes);
    while (out.thumbnails.size() < max_frames && reader.read_frame(frame.data())) {
      out.times.push_back(gst_util_uint64_scale(out.thumbnails.size(),
                                                GST_SECOND * static_cast<guint64>(header.fps_den),
                                                static_cast<guint64>(header.fps_num)));
      // The luma plane comes first, tightly packed.
      out.thumbnails.push_back(
          shrinker.shrink(frame.data(), static_cast<std::size_t>(header.width) * bytes_per_sample,
                          bytes_per_sample, depth));
    }
  } catch (const tools::Y4mError& error) {
    throw CliError(kExitInput,
                   "cannot read " + input_name(input) + " to line it up: " + error.what());
  }
  return out;
}

GstObjectPtr<GstElement> element(const char* factory) {
  auto made = tools::make_element(factory, nullptr);
  if (!made)
    throw CliError(kExitScoring, std::string("GStreamer's ") + factory + " element is missing",
                   "Install gstreamer1.0-plugins-base (and -good for more formats).");
  return made;
}

// The formats whose first plane is the luma, 8 or 16 bits a sample, taken as
// decoded; any other is converted to the first, I420.
constexpr const char* kLumaFirstFormats[] = {
    "I420",      "YV12",      "NV12",      "NV21",      "Y42B",      "Y444",      "Y41B",
    "GRAY8",     "I420_10LE", "I420_12LE", "I422_10LE", "I422_12LE", "Y444_10LE", "Y444_12LE",
    "Y444_16LE", "P010_10LE", "P012_LE",   "P016_LE",   "GRAY16_LE"};

// Decodes (or parses, raw) the input's first `max_frames` frames, whose luma
// each becomes a thumbnail. Fails when no frame comes for `timeout`.
TimedThumbnails decode_thumbnails(const VideoInput& input, std::size_t max_frames,
                                  GstClockTime timeout) {
  GstObjectPtr<GstElement> pipeline(
      static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("align"))));
  GstBin* bin = GST_BIN(pipeline.get());
  auto queue = element("queue");
  auto convert = element("videoconvert");
  auto filter = element("capsfilter");
  auto sink = element("appsink");
  gst_bin_add_many(bin, queue.get(), convert.get(), filter.get(), sink.get(), nullptr);
  if (input.raw) {
    auto source = element("filesrc");
    auto parser = element("rawvideoparse");
    g_object_set(source.get(), "location", input.path.c_str(), nullptr);
    for (const auto& [property, value] : tools::rawvideoparse_properties(
             input.format, input.width, input.height, input.framerate.num, input.framerate.den))
      gst_util_set_object_arg(G_OBJECT(parser.get()), property.c_str(), value.c_str());
    gst_bin_add_many(bin, source.get(), parser.get(), nullptr);
    if (!gst_element_link_many(source.get(), parser.get(), queue.get(), nullptr))
      throw CliError(kExitScoring, "cannot link the " + input.role + "'s raw parser");
  } else {
    auto decoder = element("uridecodebin");
    g_object_set(decoder.get(), "uri", input.uri.c_str(), nullptr);
    gst_bin_add(bin, decoder.get());
    tools::link_decoded_video(decoder.get(), queue.get());
  }
  CapsPtr caps(gst_caps_new_empty_simple("video/x-raw"));
  {
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    for (const char* format : kLumaFirstFormats) {
      GValue name = G_VALUE_INIT;
      g_value_init(&name, G_TYPE_STRING);
      g_value_set_static_string(&name, format);
      gst_value_list_append_and_take_value(&list, &name);
    }
    gst_caps_set_value(caps.get(), "format", &list);
    g_value_unset(&list);
  }
  g_object_set(filter.get(), "caps", caps.get(), nullptr);
  // Pulled frame by frame: two at most wait, so memory stays bounded.
  g_object_set(sink.get(), "sync", FALSE, "max-buffers", 2u, "drop", FALSE, nullptr);
  if (!gst_element_link_many(queue.get(), convert.get(), filter.get(), sink.get(), nullptr))
    throw CliError(kExitScoring, "cannot link the " + input.role + "'s thumbnail branch");

  // Stopped on every path, before the handles go.
  struct Stopper {
    GstElement* pipeline;
    ~Stopper() { gst_element_set_state(pipeline, GST_STATE_NULL); }
  } stopper{pipeline.get()};
  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline.get()));
  const auto fail = [&](const std::string& reason) {
    return CliError(kExitInput, "cannot decode " + input_name(input) + " to line it up: " + reason,
                    "Check the file, or line it up by hand with --dist-delay.");
  };
  if (gst_element_set_state(pipeline.get(), GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    throw fail("its pipeline does not start");

  TimedThumbnails out;
  std::unique_ptr<Shrinker> shrinker;
  GstClockTime first_time = GST_CLOCK_TIME_NONE;
  const auto stall_deadline = [&] {
    return g_get_monotonic_time() + static_cast<gint64>(timeout / GST_USECOND);
  };
  gint64 deadline = stall_deadline();
  GstAppSink* appsink = GST_APP_SINK(sink.get());
  while (out.thumbnails.size() < max_frames) {
    if (MessagePtr message{gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR)}) {
      GError* raw_error = nullptr;
      gst_message_parse_error(message.get(), &raw_error, nullptr);
      ErrorPtr error(raw_error);
      throw fail(error ? error->message : "unknown error");
    }
    if (g_get_monotonic_time() > deadline)
      throw fail("no frame for " + std::to_string(timeout / GST_SECOND) + " s");
    // A bounded wait for the next frame; in between, the bus is looked at.
    SamplePtr sample(gst_app_sink_try_pull_sample(appsink, 100 * GST_MSECOND));
    if (!sample) {
      if (gst_app_sink_is_eos(appsink)) break;
      continue;
    }
    GstVideoInfo info;
    GstBuffer* buffer = gst_sample_get_buffer(sample.get());
    if (!buffer || !gst_video_info_from_caps(&info, gst_sample_get_caps(sample.get())))
      throw fail("a frame without video caps");
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) throw fail("a frame unmapped");
    deadline = stall_deadline();
    if (!shrinker) shrinker = std::make_unique<Shrinker>(info.width, info.height);
    const GstVideoFormatInfo* format = info.finfo;
    out.thumbnails.push_back(
        shrinker->shrink(static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)),
                         static_cast<std::size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0)),
                         GST_VIDEO_FORMAT_INFO_PSTRIDE(format, 0),
                         static_cast<int>(GST_VIDEO_FORMAT_INFO_DEPTH(format, 0)),
                         GST_VIDEO_FORMAT_INFO_SHIFT(format, 0)));
    gst_video_frame_unmap(&frame);
    GstClockTime time = GST_BUFFER_PTS(buffer);
    if (!GST_CLOCK_TIME_IS_VALID(first_time)) first_time = time;
    out.times.push_back(GST_CLOCK_TIME_IS_VALID(time) && GST_CLOCK_TIME_IS_VALID(first_time) &&
                                time >= first_time
                            ? time - first_time
                            : GST_CLOCK_TIME_NONE);
  }
  return out;
}

// The thumbnails picked to `rate` by their timestamps, as videorate picks
// frames: for each slot, the frame nearest to its time (the earlier on a tie),
// until the last frame (of `frame_duration`) ends. Frames without a timestamp
// cannot be placed: then they are taken as they come.
std::vector<Thumbnail> picked_to_rate(TimedThumbnails input, const Fraction& rate,
                                      GstClockTime frame_duration, std::size_t max_frames) {
  const auto& times = input.times;
  if (std::any_of(times.begin(), times.end(),
                  [](GstClockTime time) { return !GST_CLOCK_TIME_IS_VALID(time); }))
    return std::move(input.thumbnails);
  const auto distance = [](GstClockTime a, GstClockTime b) { return a > b ? a - b : b - a; };
  std::vector<Thumbnail> out;
  std::size_t next = 0;
  for (std::size_t slot = 0; slot < max_frames && !times.empty(); ++slot) {
    const GstClockTime time = gst_util_uint64_scale(
        slot, GST_SECOND * static_cast<guint64>(rate.den), static_cast<guint64>(rate.num));
    if (time >= times.back() + frame_duration) break;
    while (next + 1 < times.size() && distance(times[next + 1], time) < distance(times[next], time))
      ++next;
    out.push_back(input.thumbnails[next]);
  }
  return out;
}

std::string seconds_text(double seconds, const char* format = "%.3f") {
  char text[32];
  std::snprintf(text, sizeof text, format, seconds);
  return text;
}

std::string frames_text(int frames) {
  return std::to_string(frames) + (std::abs(frames) == 1 ? " frame" : " frames");
}

}  // namespace

AutoAligner::AutoAligner(const VideoInput& ref, double range_seconds, GstClockTime timeout)
    : ref_(ref), timeout_(timeout) {
  if (ref.framerate.num <= 0)
    throw CliError(kExitUsage,
                   "--align auto counts frames at the reference's frame rate, and the reference " +
                       ref.path + " has a variable or unknown one",
                   "Line the videos up by hand with --dist-delay SECONDS.");
  const double fps = static_cast<double>(ref.framerate.num) / ref.framerate.den;
  bound_ = static_cast<int>(std::lround(range_seconds * fps));
  frames_ = static_cast<std::size_t>(std::lround(kAlignWindowSeconds * fps)) + bound_;
}

AutoAlignment AutoAligner::align(const VideoInput& dist) {
  const VideoInput& ref = ref_;
  const auto read = [&](const VideoInput& input, std::size_t count) {
    return input.y4m ? read_y4m_thumbnails(input, count)
                     : decode_thumbnails(input, count, timeout_);
  };
  if (!ref_read_) {
    ref_thumbnails_ = std::move(read(ref, frames_).thumbnails);
    ref_read_ = true;
  }
  // The distorted video's frames at the reference's rate, as scoring sees them.
  const bool other_rate =
      dist.framerate.num > 0 && static_cast<gint64>(dist.framerate.num) * ref.framerate.den !=
                                    static_cast<gint64>(ref.framerate.num) * dist.framerate.den;
  std::vector<Thumbnail> dist_thumbnails;
  if (other_rate) {
    const double ratio = (static_cast<double>(dist.framerate.num) / dist.framerate.den) /
                         (static_cast<double>(ref.framerate.num) / ref.framerate.den);
    const auto dist_frames = static_cast<std::size_t>(std::ceil(frames_ * ratio)) + 1;
    const GstClockTime dist_frame =
        gst_util_uint64_scale(GST_SECOND, static_cast<guint64>(dist.framerate.den),
                              static_cast<guint64>(dist.framerate.num));
    dist_thumbnails = picked_to_rate(read(dist, dist_frames), ref.framerate, dist_frame, frames_);
  } else {
    dist_thumbnails = std::move(read(dist, frames_).thumbnails);
  }
  for (const auto& [input, count] :
       {std::pair{&ref, ref_thumbnails_.size()}, std::pair{&dist, dist_thumbnails.size()}})
    if (count < static_cast<std::size_t>(kMinAlignWindow) + 1)
      throw CliError(kExitNothingToCompare,
                     "--align auto compares at least " + std::to_string(kMinAlignWindow + 1) +
                         " frames of each video, and " + input_name(*input) + " has " +
                         std::to_string(count),
                     "Line the videos up by hand with --dist-delay SECONDS.");

  AutoAlignment alignment;
  alignment.rate = ref.framerate;
  alignment.estimate = estimate_offset(ref_thumbnails_, dist_thumbnails, bound_);
  // The reference's timestamp of frame |offset|, as its frames are stamped
  // (rounded down), so that --dist-delay drops exactly the frames before it.
  const GstClockTime delay =
      gst_util_uint64_scale(static_cast<guint64>(std::abs(alignment.estimate.offset)),
                            GST_SECOND * static_cast<guint64>(ref.framerate.den),
                            static_cast<guint64>(ref.framerate.num));
  alignment.dist_delay =
      (alignment.estimate.offset > 0 ? -1.0 : 1.0) * static_cast<double>(delay) / GST_SECOND;
  if (alignment.estimate.offset == 0) alignment.dist_delay = 0;
  return alignment;
}

AutoAlignment align_automatically(const VideoInput& ref, const VideoInput& dist,
                                  double range_seconds, GstClockTime timeout) {
  return AutoAligner(ref, range_seconds, timeout).align(dist);
}

std::string alignment_summary(const AutoAlignment& alignment) {
  const int offset = alignment.estimate.offset;
  const std::string confidence = seconds_text(alignment.estimate.confidence, "%.2f");
  if (offset == 0) return "DIST and REF start together (offset 0 frames), confidence " + confidence;
  const std::string span =
      frames_text(std::abs(offset)) + " (" + seconds_text(std::fabs(alignment.dist_delay)) + " s)";
  const std::string how = offset > 0 ? "DIST starts " + span + " later than REF (REF's first " +
                                           frames_text(offset) + " are not in it)"
                                     : "DIST starts " + span + " earlier than REF (it has " +
                                           frames_text(-offset) + " before REF's first)";
  // To the nanosecond, as the delay is applied: %g's 9 digits could round a
  // delay of 10 s or more up past its frame's timestamp.
  std::string delay = seconds_text(alignment.dist_delay, "%.9f");
  delay.erase(delay.find_last_not_of('0') + 1);
  if (delay.back() == '.') delay.pop_back();
  return how + ", confidence " + confidence + "; scored as with --dist-delay " + delay;
}

std::string alignment_warning(const AutoAlignment& alignment, double range_seconds) {
  const OffsetEstimate& estimate = alignment.estimate;
  std::string warning;
  if (estimate.confidence < kLowAlignConfidence) {
    warning = "automatic alignment is unsure (confidence " +
              seconds_text(estimate.confidence, "%.2f") + "): ";
    warning += estimate.static_content
                   ? "the first seconds hardly move (a still or slow scene?), so every offset "
                     "fits alike; "
                   : "different content? a scene with little motion or that repeats? ";
    warning += "check the offset, or give it with --dist-delay";
  }
  if (estimate.at_bound) {
    if (!warning.empty()) warning += "; ";
    const double fps =
        alignment.rate.num > 0 ? static_cast<double>(alignment.rate.num) / alignment.rate.den : 1.0;
    warning += "the offset found is at the edge of the range searched (" +
               frames_text(estimate.bound) + ", " + seconds_text(estimate.bound / fps) +
               " s either way): the true one may be larger; ";
    // The bound shrinks where the videos are too short to judge it.
    warning += estimate.bound < std::lround(range_seconds * fps)
                   ? "the videos are too short to search all of --align-range " +
                         seconds_text(range_seconds, "%g") + " s: give the offset with --dist-delay"
                   : "try a larger --align-range";
  }
  return warning;
}

std::string alignment_provenance(const AutoAlignment& alignment) {
  const int delay_frames = -alignment.estimate.offset;
  return "dist-delay " + std::to_string(delay_frames) + " frames (" +
         seconds_text(alignment.dist_delay) + " s), auto, confidence " +
         seconds_text(alignment.estimate.confidence, "%.2f");
}

}  // namespace vmafexact::cli
