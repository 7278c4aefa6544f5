// The vmafexactscale element: a GstVideoFilter over SwsScaler (sws_scaler.h).
// Caps: the same format in and out, in system memory; width, height and
// pixel-aspect-ratio free across it (transform_caps), the output's fixed from
// downstream, keeping the display aspect ratio where downstream leaves a value
// open (fixate_caps, as videoscale does). Same size: passthrough, as FFmpeg's
// scale filter passes such frames on untouched. The libswscale context is made
// in set_info(), so once per caps.
#include "swscale_element.h"

#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "element_guard.h"
#include "entry_point.h"
#include "gst_handles.h"
#include "sws_scaler.h"
#include "utf8_messages.h"

GST_DEBUG_CATEGORY_STATIC(gst_vmaf_exact_scale_debug);
#define GST_CAT_DEFAULT gst_vmaf_exact_scale_debug

using namespace vmafexact::gst;

namespace {

constexpr const char* kDefaultFlags = "bicubic";

enum Property : guint { kPropFlags = 1, kPropScaler, kPropYuvj };

}  // namespace

struct GstVmafExactScalePrivate {
  std::string flags = kDefaultFlags;  // guarded by the object lock, as yuvj
  bool yuvj = true;
  std::unique_ptr<SwsScaler> scaler;  // none in passthrough
};

struct _GstVmafExactScale {
  GstVideoFilter parent;
};

G_DEFINE_TYPE_WITH_PRIVATE(GstVmafExactScale, gst_vmaf_exact_scale, GST_TYPE_VIDEO_FILTER)
GST_ELEMENT_REGISTER_DEFINE(vmafexactscale, "vmafexactscale", GST_RANK_NONE,
                            GST_TYPE_VMAF_EXACT_SCALE)

namespace {

GstVmafExactScalePrivate* priv_of(gpointer self) {
  return static_cast<GstVmafExactScalePrivate*>(
      gst_vmaf_exact_scale_get_instance_private(GST_VMAF_EXACT_SCALE(self)));
}

std::string flags_of(gpointer self) {
  const ObjectLock lock(self);
  return priv_of(self)->flags;
}

bool yuvj_of(gpointer self) {
  const ObjectLock lock(self);
  return priv_of(self)->yuvj;
}

// ---- caps ------------------------------------------------------------------

// Size and pixel-aspect-ratio free, format and the rest kept; structures in
// another memory than system memory dropped (the pads take none: CUDA memory
// does not link).
GstCaps* transform_caps_unguarded(GstBaseTransform*, GstPadDirection, GstCaps* caps,
                                  GstCaps* filter) {
  GstCaps* transformed = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures* features = gst_caps_get_features(caps, i);
    if (features && !gst_caps_features_is_any(features) &&
        !gst_caps_features_is_equal(features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      continue;
    GstStructure* structure = gst_structure_copy(gst_caps_get_structure(caps, i));
    // The range may change (a full-range YUV input comes out limited, as
    // ffmpeg's): fixate_caps() sets the output's colorimetry.
    gst_structure_remove_field(structure, "colorimetry");
    gst_structure_set(structure, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height",
                      GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
    if (gst_structure_has_field(structure, "pixel-aspect-ratio"))
      gst_structure_set(structure, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1, G_MAXINT,
                        G_MAXINT, 1, nullptr);
    transformed = gst_caps_merge_structure_full(
        transformed, structure, features ? gst_caps_features_copy(features) : nullptr);
  }
  if (filter) {
    GstCaps* intersected = gst_caps_intersect_full(filter, transformed, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(transformed);
    transformed = intersected;
  }
  return transformed;
}

struct Fraction {
  gint n = 1, d = 1;
};

Fraction par_of(const GstStructure* structure) {
  Fraction par;
  if (!gst_structure_get_fraction(structure, "pixel-aspect-ratio", &par.n, &par.d) || par.n <= 0 ||
      par.d <= 0)
    par = {};
  return par;
}

// The output's pixel-aspect-ratio: fixed to `wanted` where still open (or
// absent, when the input carries one).
Fraction fixate_par(GstStructure* out, Fraction wanted) {
  if (!gst_structure_has_field(out, "pixel-aspect-ratio"))
    gst_structure_set(out, "pixel-aspect-ratio", GST_TYPE_FRACTION, wanted.n, wanted.d, nullptr);
  else
    gst_structure_fixate_field_nearest_fraction(out, "pixel-aspect-ratio", wanted.n, wanted.d);
  return par_of(out);
}

gint clamp_to_size(double value) {
  return static_cast<gint>(std::clamp(std::round(value), 1.0, static_cast<double>(G_MAXINT)));
}

// The output's colorimetry: the input's, with the range the scaled pictures
// have (sws_scaler.h, scaled_range()); at the same size, the input's as it is
// (passthrough).
void fixate_colorimetry(GstCaps* in_caps, GstStructure* out, bool yuvj) {
  GstVideoInfo in;
  gint width = 0, height = 0;
  if (!gst_video_info_from_caps(&in, in_caps) || !gst_structure_get_int(out, "width", &width) ||
      !gst_structure_get_int(out, "height", &height))
    return;
  GstVideoColorimetry colorimetry = caps_colorimetry(in_caps, in);
  if (width != GST_VIDEO_INFO_WIDTH(&in) || height != GST_VIDEO_INFO_HEIGHT(&in))
    colorimetry.range = scaled_range(GST_VIDEO_INFO_FORMAT(&in), colorimetry.range, yuvj);
  const GCharPtr text(gst_video_colorimetry_to_string(&colorimetry));
  if (!text) return;
  if (gst_structure_has_field(out, "colorimetry"))
    gst_structure_fixate_field_string(out, "colorimetry", text.get());
  else
    gst_structure_set(out, "colorimetry", G_TYPE_STRING, text.get(), nullptr);
}

// Fixes the other side's size and pixel-aspect-ratio from the fixed side
// (`caps`): what downstream fixed stays; a size left open keeps the display
// aspect ratio (with the pixel-aspect-ratio of the fixed side where that is
// open too); both sizes fixed, the pixel-aspect-ratio that keeps it, as FFmpeg
// computes the output's sample aspect ratio.
GstCaps* fixate_caps_unguarded(GstBaseTransform* trans, GstPadDirection direction, GstCaps* caps,
                               GstCaps* othercaps) {
  othercaps = gst_caps_truncate(othercaps);
  othercaps = gst_caps_make_writable(othercaps);
  const GstStructure* in = gst_caps_get_structure(caps, 0);
  GstStructure* out = gst_caps_get_structure(othercaps, 0);
  gint in_width = 0, in_height = 0;
  if (!gst_structure_get_int(in, "width", &in_width) ||
      !gst_structure_get_int(in, "height", &in_height) || in_width <= 0 || in_height <= 0)
    return gst_caps_fixate(othercaps);
  const Fraction in_par = par_of(in);
  const bool par_field = gst_structure_has_field(in, "pixel-aspect-ratio") ||
                         gst_structure_has_field(out, "pixel-aspect-ratio");
  // Display aspect ratio of the fixed side.
  const double dar =
      static_cast<double>(in_width) * in_par.n / (static_cast<double>(in_height) * in_par.d);

  gint width = 0, height = 0;
  const bool width_fixed = gst_structure_get_int(out, "width", &width);
  const bool height_fixed = gst_structure_get_int(out, "height", &height);
  if (width_fixed && !height_fixed) {
    const Fraction par = par_field ? fixate_par(out, in_par) : Fraction{};
    gst_structure_fixate_field_nearest_int(out, "height",
                                           clamp_to_size(width * par.n / (dar * par.d)));
  } else if (height_fixed && !width_fixed) {
    const Fraction par = par_field ? fixate_par(out, in_par) : Fraction{};
    gst_structure_fixate_field_nearest_int(out, "width",
                                           clamp_to_size(height * dar * par.d / par.n));
  } else {
    if (!width_fixed) gst_structure_fixate_field_nearest_int(out, "width", in_width);
    if (!height_fixed) gst_structure_fixate_field_nearest_int(out, "height", in_height);
    gst_structure_get_int(out, "width", &width);
    gst_structure_get_int(out, "height", &height);
    if (par_field && width > 0 && height > 0) {
      // par_out = par_in * (in_width * height) / (in_height * width), reduced.
      gint n = 0, d = 0;
      if (gst_util_fraction_multiply(in_par.n, in_par.d, in_width, in_height, &n, &d) &&
          gst_util_fraction_multiply(n, d, height, width, &n, &d))
        fixate_par(out, {n, d});
      else
        fixate_par(out, in_par);
    }
  }
  if (direction == GST_PAD_SINK) fixate_colorimetry(caps, out, yuvj_of(trans));
  return gst_caps_fixate(othercaps);
}

// ---- run -------------------------------------------------------------------

// The flags property's value, or nullopt after posting the element error.
std::optional<int> flags_or_error(gpointer self) {
  std::string error;
  const std::optional<int> parsed = parse_sws_flags(flags_of(self), error);
  if (!parsed)
    GST_ELEMENT_ERROR(
        self, RESOURCE, SETTINGS, ("vmafexactscale: %s.", error.c_str()),
        ("Set flags as FFmpeg's scale filter takes them; default \"%s\".", kDefaultFlags));
  return parsed;
}

// Bad flags fail the start rather than the first caps.
gboolean start_unguarded(GstBaseTransform* trans) { return flags_or_error(trans).has_value(); }

gboolean stop_unguarded(GstBaseTransform* trans) {
  priv_of(trans)->scaler.reset();
  return TRUE;
}

gboolean set_info_unguarded(GstVideoFilter* filter, GstCaps* incaps, GstVideoInfo* in_info,
                            GstCaps*, GstVideoInfo* out_info) {
  GstVmafExactScalePrivate* priv = priv_of(filter);
  priv->scaler.reset();
  if (GST_VIDEO_INFO_FORMAT(in_info) != GST_VIDEO_INFO_FORMAT(out_info)) {
    GST_ELEMENT_ERROR(filter, CORE, NEGOTIATION,
                      ("vmafexactscale scales and keeps the format: %s in, %s out.",
                       gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(in_info)),
                       gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(out_info))),
                      ("Put videoconvert before or after it for another format."));
    return FALSE;
  }
  const bool same_size = GST_VIDEO_INFO_WIDTH(in_info) == GST_VIDEO_INFO_WIDTH(out_info) &&
                         GST_VIDEO_INFO_HEIGHT(in_info) == GST_VIDEO_INFO_HEIGHT(out_info);
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(filter), same_size);
  if (same_size) return TRUE;
  // Read with each caps: flags set while playing apply from the next caps.
  const std::optional<int> flags = flags_or_error(filter);
  if (!flags) return FALSE;
  std::string error;
  priv->scaler = SwsScaler::create(*in_info, *out_info, caps_colorimetry(incaps, *in_info), *flags,
                                   yuvj_of(filter), error);
  if (!priv->scaler) {
    GST_ELEMENT_ERROR(filter, CORE, NEGOTIATION, ("vmafexactscale: %s.", error.c_str()), (nullptr));
    return FALSE;
  }
  GST_INFO_OBJECT(filter, "%dx%d -> %dx%d %s, %s", GST_VIDEO_INFO_WIDTH(in_info),
                  GST_VIDEO_INFO_HEIGHT(in_info), GST_VIDEO_INFO_WIDTH(out_info),
                  GST_VIDEO_INFO_HEIGHT(out_info),
                  gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(in_info)),
                  describe_scaler(flags_of(filter), yuvj_of(filter)).c_str());
  return TRUE;
}

GstFlowReturn transform_frame_unguarded(GstVideoFilter* filter, GstVideoFrame* in,
                                        GstVideoFrame* out) {
  const GstVmafExactScalePrivate* priv = priv_of(filter);
  if (!priv->scaler) {
    GST_ELEMENT_ERROR(filter, CORE, NEGOTIATION, ("vmafexactscale got a frame before its caps."),
                      (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  std::string error;
  if (!priv->scaler->scale(*in, *out, error)) {
    GST_ELEMENT_ERROR(filter, STREAM, FAILED, ("vmafexactscale: %s.", error.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

// ---- GObject ---------------------------------------------------------------

void set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
  if (prop_id == kPropYuvj) {
    const ObjectLock lock(object);
    priv_of(object)->yuvj = g_value_get_boolean(value);
    return;
  }
  if (prop_id != kPropFlags) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    return;
  }
  const gchar* text = g_value_get_string(value);
  const std::string flags = text ? text : "";
  std::string error;
  // Kept as given: the start (or the next caps) refuses it with the element
  // error (a property setter cannot fail); the debug log says so at once.
  if (!parse_sws_flags(flags, error)) GST_WARNING_OBJECT(object, "%s", error.c_str());
  const ObjectLock lock(object);
  priv_of(object)->flags = flags;
}

void get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
  switch (prop_id) {
    case kPropFlags:
      g_value_set_string(value, flags_of(object).c_str());
      break;
    case kPropScaler:
      g_value_set_string(value, describe_scaler(flags_of(object), yuvj_of(object)).c_str());
      break;
    case kPropYuvj:
      g_value_set_boolean(value, yuvj_of(object));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
}

void finalize(GObject* object) {
  priv_of(object)->~GstVmafExactScalePrivate();
  G_OBJECT_CLASS(gst_vmaf_exact_scale_parent_class)->finalize(object);
}

}  // namespace

static void gst_vmaf_exact_scale_class_init(GstVmafExactScaleClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* transform_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstVideoFilterClass* filter_class = GST_VIDEO_FILTER_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_vmaf_exact_scale_debug, "vmafexactscale", 0,
                          "vmafexactscale element");

  gobject_class->set_property = set_property;
  gobject_class->get_property = get_property;
  gobject_class->finalize = finalize;

  const std::string flags_blurb =
      "libswscale's flags in FFmpeg's syntax, as the scale filter's flags option takes them "
      "(\"bicubic\", \"lanczos+accurate_rnd+full_chroma_int\"); read at start and with each "
      "new caps; words: ";
  std::string words;
  for (const std::string& word : sws_flag_words()) words += (words.empty() ? "" : ", ") + word;
  // The param spec keeps its blurb: interned, since the class lives as long as the process.
  g_object_class_install_property(
      gobject_class, kPropFlags,
      g_param_spec_string("flags", "Flags", g_intern_string((flags_blurb + words).c_str()),
                          kDefaultFlags,
                          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      gobject_class, kPropYuvj,
      g_param_spec_boolean(
          "yuvj", "Full range as yuvj",
          "8-bit full-range I420, Y42B and Y444 taken as FFmpeg's yuvj420p, yuvj422p and "
          "yuvj444p, the formats its H.264, HEVC and MJPEG decoders give such video in: scaled "
          "keeping full range, as ffmpeg does. false: as yuv420p (...) marked full range, as "
          "its VP9 and AV1 decoders give it: scaled to limited range, as ffmpeg does. Other "
          "formats and ranges: no difference. Read with each new caps",
          TRUE,
          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                   GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      gobject_class, kPropScaler,
      g_param_spec_string("scaler", "Scaler",
                          "How provenance names this scaler: \"vmafexactscale flags=FLAGS "
                          "(libswscale VERSION)\" (\" yuvj=false\" after the flags when set), "
                          "the version of the libswscale loaded",
                          nullptr,
                          static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  const std::string caps_text = std::string("video/x-raw, format=(string)") + sws_caps_formats() +
                                ", width=(int)[1, max], height=(int)[1, max], "
                                "framerate=(fraction)[0/1, max]";
  CapsPtr caps(gst_caps_from_string(caps_text.c_str()));
  gst_element_class_add_pad_template(
      element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps.get()));
  gst_element_class_add_pad_template(
      element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps.get()));
  gst_element_class_set_static_metadata(
      element_class, "Scaler (FFmpeg's scale)", "Filter/Converter/Video/Scaler",
      "Scales raw video in system memory with libswscale as `ffmpeg -vf scale=W:H` does "
      "(FFmpeg 5.1: flags bicubic by default, yuv420p's MPEG-2 chroma position), byte for byte; "
      "the output size from downstream caps, the format kept",
      "vmafexact developers");

  transform_class->transform_caps =
      entry_point<transform_caps_unguarded, "transforming caps", nullptr>;
  transform_class->fixate_caps = entry_point<fixate_caps_unguarded, "fixating caps", nullptr>;
  transform_class->start = entry_point<start_unguarded, "starting", FALSE>;
  transform_class->stop = entry_point<stop_unguarded, "stopping", FALSE>;
  filter_class->set_info = entry_point<set_info_unguarded, "setting caps", FALSE>;
  filter_class->transform_frame =
      entry_point<transform_frame_unguarded, "scaling a frame", GST_FLOW_ERROR>;
}

static void gst_vmaf_exact_scale_init(GstVmafExactScale* self) {
  new (priv_of(self)) GstVmafExactScalePrivate();
}
