// vmafexact: scores a distorted video against its reference, frame by frame,
// with libvmaf 3.2.0's arithmetic, and passes the distorted video through.
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_VMAF_EXACT (gst_vmaf_exact_get_type())
G_DECLARE_FINAL_TYPE(GstVmafExact, gst_vmaf_exact, GST, VMAF_EXACT, GstAggregator)

#define GST_TYPE_VMAF_EXACT_LOG_FORMAT (gst_vmaf_exact_log_format_get_type())
GType gst_vmaf_exact_log_format_get_type(void);

#define GST_TYPE_VMAF_EXACT_LOG_PRECISION (gst_vmaf_exact_log_precision_get_type())
GType gst_vmaf_exact_log_precision_get_type(void);

#define GST_TYPE_VMAF_EXACT_BACKEND (gst_vmaf_exact_backend_get_type())
GType gst_vmaf_exact_backend_get_type(void);
GType gst_vmaf_exact_log_precision_get_type(void);

GST_ELEMENT_REGISTER_DECLARE(vmafexact);

G_END_DECLS
