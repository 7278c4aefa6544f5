// The element's debug category, shared by its parts (GST_ELEMENT_ERROR logs
// through GST_CAT_DEFAULT too).
#pragma once

#include <gst/gst.h>

GST_DEBUG_CATEGORY_EXTERN(gst_vmaf_exact_debug);
#define GST_CAT_DEFAULT gst_vmaf_exact_debug
