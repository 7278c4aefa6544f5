// vmafexactscale: scales raw video in system memory with libswscale, with the
// options FFmpeg 5.1's command line and `scale` filter give it, so that its
// pictures are byte for byte those of `ffmpeg -i IN -vf scale=W:H OUT` on the
// same machine (docs/scale.md). The output size comes from downstream caps,
// as with videoscale; the format is kept.
#pragma once

#include <gst/gst.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_VMAF_EXACT_SCALE (gst_vmaf_exact_scale_get_type())
G_DECLARE_FINAL_TYPE(GstVmafExactScale, gst_vmaf_exact_scale, GST, VMAF_EXACT_SCALE, GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE(vmafexactscale);

G_END_DECLS
