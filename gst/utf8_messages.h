// Every error and warning the element posts carries valid UTF-8. Their texts
// quote what came from outside (a model file's keys and values, a path, a
// property), and the applications that read them must not fail on a stray
// byte: PyGObject decodes each string as UTF-8 and raises on any other byte.
// GStreamer's GST_ELEMENT_ERROR and GST_ELEMENT_WARNING are redefined here,
// for every part of the element (element_debug.h and element_guard.h include
// this header), to pass both texts through g_utf8_make_valid() (a byte that
// is not UTF-8 becomes U+FFFD); otherwise they are GStreamer's own.
#pragma once

#include <gst/gst.h>

namespace vmafexact::gst {

// Takes `text` (g_malloc'd, may be null) and returns it as valid UTF-8.
inline gchar* valid_utf8_taking(gchar* text) {
  if (!text || g_utf8_validate(text, -1, nullptr)) return text;
  gchar* valid = g_utf8_make_valid(text, -1);
  g_free(text);
  return valid;
}

}  // namespace vmafexact::gst

#define VMAFEXACT_ELEMENT_MESSAGE(el, type, kind, domain, code, text, debug)                      \
  G_STMT_START {                                                                                  \
    gchar* vmafexact_text_ = ::vmafexact::gst::valid_utf8_taking(_gst_element_error_printf text); \
    gchar* vmafexact_debug_ =                                                                     \
        ::vmafexact::gst::valid_utf8_taking(_gst_element_error_printf debug);                     \
    if (vmafexact_text_) GST_WARNING_OBJECT(el, kind ": %s", vmafexact_text_);                    \
    if (vmafexact_debug_) GST_WARNING_OBJECT(el, kind ": %s", vmafexact_debug_);                  \
    gst_element_message_full(GST_ELEMENT(el), type, GST_##domain##_ERROR,                         \
                             GST_##domain##_ERROR_##code, vmafexact_text_, vmafexact_debug_,      \
                             __FILE__, GST_FUNCTION, __LINE__);                                   \
  }                                                                                               \
  G_STMT_END

#undef GST_ELEMENT_ERROR
#define GST_ELEMENT_ERROR(el, domain, code, text, debug) \
  VMAFEXACT_ELEMENT_MESSAGE(el, GST_MESSAGE_ERROR, "error", domain, code, text, debug)
#undef GST_ELEMENT_WARNING
#define GST_ELEMENT_WARNING(el, domain, code, text, debug) \
  VMAFEXACT_ELEMENT_MESSAGE(el, GST_MESSAGE_WARNING, "warning", domain, code, text, debug)
