#include "decoded_video.h"

#include "handles.h"

namespace vmafexact::tools {

void link_decoded_video(GstElement* decoder, GstElement* branch_head) {
  g_signal_connect(decoder, "pad-added", G_CALLBACK(link_video_pad), branch_head);
  g_signal_connect(decoder, "no-more-pads", G_CALLBACK(check_video_found), branch_head);
}

void link_video_pad(GstElement* decoder, GstPad* pad, gpointer branch_head) {
  link_pad_of_type(decoder, pad, GST_ELEMENT(branch_head), "video/x-raw", "decoded video");
}

void link_pad_of_type(GstElement* decoder, GstPad* pad, GstElement* head, const char* media_type,
                      const char* what) {
  CapsPtr caps(gst_pad_get_current_caps(pad));
  if (!caps) caps.reset(gst_pad_query_caps(pad, nullptr));
  const GstStructure* s =
      caps && !gst_caps_is_empty(caps.get()) ? gst_caps_get_structure(caps.get(), 0) : nullptr;
  if (!s || !gst_structure_has_name(s, media_type)) return;
  GstObjectPtr<GstPad> sink(gst_element_get_static_pad(head, "sink"));
  if (gst_pad_is_linked(sink.get())) return;
  if (GST_PAD_LINK_FAILED(gst_pad_link(pad, sink.get()))) {
    GError* error =
        g_error_new(GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "Could not link the %s of %s to %s.",
                    what, GST_ELEMENT_NAME(decoder), GST_ELEMENT_NAME(head));
    gst_element_post_message(decoder, gst_message_new_error(GST_OBJECT(decoder), error, nullptr));
    g_error_free(error);
  }
}

void check_video_found(GstElement* decoder, gpointer branch_head) {
  GstObjectPtr<GstPad> sink(gst_element_get_static_pad(GST_ELEMENT(branch_head), "sink"));
  if (gst_pad_is_linked(sink.get())) return;
  GCharPtr uri;
  if (g_object_class_find_property(G_OBJECT_GET_CLASS(decoder), "uri"))
    g_object_get(decoder, "uri", &uri, nullptr);
  GError* error = g_error_new(GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
                              "%s has no video stream that could be decoded.",
                              uri ? uri.get() : GST_ELEMENT_NAME(decoder));
  gst_element_post_message(decoder,
                           gst_message_new_error(GST_OBJECT(decoder), error,
                                                 "Check the URI, and that GStreamer has a "
                                                 "demuxer and decoder for it (gst-discoverer-1.0 "
                                                 "URI)."));
  g_error_free(error);
}

}  // namespace vmafexact::tools
