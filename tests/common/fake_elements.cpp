#include "fake_elements.h"

#include <gst/base/gstbasetransform.h>

#include <string>

namespace vmafexact::test {
namespace {

// The spec of an instance's type.
template <typename Spec>
const Spec& spec_of(GType type) {
  return *static_cast<const Spec*>(
      g_type_get_qdata(type, g_quark_from_static_string("vmafexact-fake-spec")));
}

void add_templates(GstElementClass* element_class, const char* sink_caps, const char* src_caps) {
  gst_element_class_add_pad_template(
      element_class,
      gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, gst_caps_from_string(sink_caps)));
  gst_element_class_add_pad_template(
      element_class,
      gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, gst_caps_from_string(src_caps)));
}

GType register_type(GType parent, const char* name, GClassInitFunc class_init,
                    GInstanceInitFunc instance_init, const void* spec) {
  const std::string type_name = std::string("VmafexactFake_") + name;
  if (const GType existing = g_type_from_name(type_name.c_str())) return existing;
  GTypeQuery query;
  g_type_query(parent, &query);
  GTypeInfo info{};
  info.class_size = static_cast<guint16>(query.class_size);
  info.class_init = class_init;
  info.class_data = spec;
  info.instance_size = static_cast<guint16>(query.instance_size);
  info.instance_init = instance_init;
  const GType type =
      g_type_register_static(parent, type_name.c_str(), &info, static_cast<GTypeFlags>(0));
  g_type_set_qdata(type, g_quark_from_static_string("vmafexact-fake-spec"),
                   const_cast<void*>(spec));
  return type;
}

bool register_once(GstPlugin* plugin, const char* name, guint rank, GType type) {
  if (GstElementFactory* found = gst_element_factory_find(name)) {
    gst_object_unref(found);
    return true;
  }
  return gst_element_register(plugin, name, rank, type);
}

void bin_class_init(gpointer klass, gpointer data) {
  const auto* spec = static_cast<const FakeBinSpec*>(data);
  auto* element_class = GST_ELEMENT_CLASS(klass);
  gst_element_class_set_static_metadata(element_class, spec->name, spec->klass,
                                        "a stand-in for another plugin's element",
                                        "vmafexact tests");
  add_templates(element_class, spec->sink_caps, spec->src_caps);
}

void bin_instance_init(GTypeInstance* instance, gpointer klass) {
  const auto& spec = spec_of<FakeBinSpec>(G_TYPE_FROM_CLASS(klass));
  if (!spec.inner) return;
  // A launch line parsed into a bin whose unlinked pads are ghosted as
  // "sink" and "src" (one element's name is a launch line too).
  GstElement* inner = gst_parse_bin_from_description(spec.inner, TRUE, nullptr);
  if (!inner) return;
  gst_bin_add(GST_BIN(instance), inner);
  for (const char* name : {"sink", "src"}) {
    GstPad* pad = gst_element_get_static_pad(inner, name);
    if (!pad) continue;
    gst_element_add_pad(GST_ELEMENT(instance), gst_ghost_pad_new(name, pad));
    gst_object_unref(pad);
  }
}

GstCaps* relabel_caps(GstBaseTransform* transform, GstPadDirection direction, GstCaps* caps,
                      GstCaps* filter) {
  const auto& spec = spec_of<FakeRelabelSpec>(G_TYPE_FROM_INSTANCE(transform));
  GstCaps* relabelled = gst_caps_copy(caps);
  const char* feature = direction == GST_PAD_SINK ? spec.src_feature : spec.sink_feature;
  for (guint i = 0; i < gst_caps_get_size(relabelled); ++i)
    gst_caps_set_features(relabelled, i, gst_caps_features_new(feature, nullptr));
  if (!filter) return relabelled;
  GstCaps* kept = gst_caps_intersect_full(filter, relabelled, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref(relabelled);
  return kept;
}

GstFlowReturn keep_buffer(GstBaseTransform*, GstBuffer*) { return GST_FLOW_OK; }

void relabel_class_init(gpointer klass, gpointer data) {
  const auto* spec = static_cast<const FakeRelabelSpec*>(data);
  auto* element_class = GST_ELEMENT_CLASS(klass);
  gst_element_class_set_static_metadata(element_class, spec->name, "Filter/Video",
                                        "a stand-in for another plugin's memory transfer",
                                        "vmafexact tests");
  const std::string sink = std::string("video/x-raw(") + spec->sink_feature + ")";
  const std::string src = std::string("video/x-raw(") + spec->src_feature + ")";
  add_templates(element_class, sink.c_str(), src.c_str());
  auto* transform_class = GST_BASE_TRANSFORM_CLASS(klass);
  transform_class->transform_caps = relabel_caps;
  transform_class->transform_ip = keep_buffer;
  transform_class->passthrough_on_same_caps = FALSE;
}

void relabel_instance_init(GTypeInstance* instance, gpointer) {
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(instance), TRUE);
}

}  // namespace

bool register_fake_bin(GstPlugin* plugin, const FakeBinSpec& spec, guint rank) {
  return register_once(plugin, spec.name, rank,
                       register_type(GST_TYPE_BIN, spec.name, bin_class_init, bin_instance_init,
                                     &spec));
}

bool register_fake_relabel(GstPlugin* plugin, const FakeRelabelSpec& spec) {
  return register_once(plugin, spec.name, GST_RANK_NONE,
                       register_type(GST_TYPE_BASE_TRANSFORM, spec.name, relabel_class_init,
                                     relabel_instance_init, &spec));
}

}  // namespace vmafexact::test
