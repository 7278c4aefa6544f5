// The element's debug category, shared by its parts (GST_ELEMENT_ERROR logs
// through GST_CAT_DEFAULT too), and the element's error and warning macros,
// whose texts are always valid UTF-8 (utf8_messages.h).
#pragma once

#include <gst/gst.h>

#include "utf8_messages.h"

GST_DEBUG_CATEGORY_EXTERN(gst_vmaf_exact_debug);
#define GST_CAT_DEFAULT gst_vmaf_exact_debug
