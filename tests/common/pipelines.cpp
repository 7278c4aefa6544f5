#include "pipelines.h"

#include <gst/gst.h>

#include <cctype>

namespace vmafexact::test {

// rawvideoparse for a tightly packed file (it pads rows by default).
std::string raw_parser(const FixturePair& pair) {
  const unsigned w = pair.format.width, h = pair.format.height;
  const unsigned sample = pair.format.bpc > 8 ? 2 : 1;
  unsigned cw = w, ch = h;
  if (pair.format.chroma == ChromaFormat::k420) cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (pair.format.chroma == ChromaFormat::k422) cw = (w + 1) / 2;
  const std::size_t luma = std::size_t{w} * h * sample, chroma = std::size_t{cw} * ch * sample;
  std::string format = pair.gst_format;
  for (char& c : format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : format)
    if (c == '_') c = '-';
  return "rawvideoparse width=" + std::to_string(w) + " height=" + std::to_string(h) +
         " format=" + format + " framerate=24/1 plane-strides=\"<" + std::to_string(w * sample) +
         "," + std::to_string(cw * sample) + "," + std::to_string(cw * sample) +
         ">\" plane-offsets=\"<0," + std::to_string(luma) + "," + std::to_string(luma + chroma) +
         ">\" frame-size=" + std::to_string(luma + 2 * chroma);
}

// Runs the pipeline to EOS; returns the error text, empty on success.
std::string run_pipeline(const std::string& description) {
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  if (!pipeline) {
    std::string text = error ? error->message : "parse failed";
    g_clear_error(&error);
    return text;
  }
  g_clear_error(&error);  // a parse warning, if any
  std::string result = run_to_eos(pipeline);
  gst_object_unref(pipeline);
  return result;
}

std::string run_to_eos(GstElement* pipeline) {
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, 600 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string result;
  if (!message) {
    result = "timed out";
  } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError* gerror = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(message, &gerror, &debug);
    result = std::string(gerror->message) + " | " + (debug ? debug : "");
    g_error_free(gerror);
    g_free(debug);
  }
  if (message) gst_message_unref(message);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  return result;
}

}  // namespace vmafexact::test
