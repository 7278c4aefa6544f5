// vmafexact: scores a distorted video against its reference, frame by frame,
// with libvmaf 3.2.0's arithmetic, and passes the distorted video through.
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_VMAF_EXACT (gst_vmaf_exact_get_type())
G_DECLARE_FINAL_TYPE(GstVmafExact, gst_vmaf_exact, GST, VMAF_EXACT, GstAggregator)

GST_ELEMENT_REGISTER_DECLARE(vmafexact);

G_END_DECLS
