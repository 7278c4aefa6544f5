#include "pipeline_files.h"

#include <filesystem>
#include <system_error>

#include "gst_handles.h"

namespace vmafexact::gst {
namespace {

// The string value of `element`'s property `name`, if it has one.
std::optional<std::string> string_property(GstElement* element, const char* name) {
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name);
  if (!spec || spec->value_type != G_TYPE_STRING || !(spec->flags & G_PARAM_READABLE))
    return std::nullopt;
  gchar* value = nullptr;
  g_object_get(element, name, &value, nullptr);
  GCharPtr owned(value);
  if (!value) return std::nullopt;
  return std::string(value);
}

// The local file an element reads or writes, if it names one.
std::optional<std::string> file_of(GstElement* element) {
  if (auto location = string_property(element, "location")) return location;
  if (auto uri = string_property(element, "uri")) {
    GCharPtr filename(g_filename_from_uri(uri->c_str(), nullptr, nullptr));
    if (filename) return std::string(filename.get());
  }
  return std::nullopt;
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::equivalent(a, b, error) && !error;
}

std::optional<PipelineFile> pipeline_element_using(GstElement* element, const std::string& path) {
  // The outermost bin: the pipeline, or the bin an application keeps it in.
  GstObject* top = GST_OBJECT(gst_object_ref(element));
  while (GstObject* parent = gst_object_get_parent(top)) {
    gst_object_unref(top);
    top = parent;
  }
  std::optional<PipelineFile> found;
  if (GST_IS_BIN(top)) {
    GstIterator* elements = gst_bin_iterate_recurse(GST_BIN(top));
    GValue item = G_VALUE_INIT;
    bool done = false;
    while (!done && !found) {
      switch (gst_iterator_next(elements, &item)) {
        case GST_ITERATOR_OK: {
          auto* other = GST_ELEMENT(g_value_get_object(&item));
          if (other != element) {
            const auto file = file_of(other);
            if (file && same_file(*file, path)) {
              GCharPtr name(gst_element_get_name(other));
              found = PipelineFile{name.get(), *file};
            }
          }
          g_value_reset(&item);
          break;
        }
        case GST_ITERATOR_RESYNC: gst_iterator_resync(elements); break;
        case GST_ITERATOR_ERROR:
        case GST_ITERATOR_DONE: done = true; break;
      }
    }
    g_value_unset(&item);
    gst_iterator_free(elements);
  }
  gst_object_unref(top);
  return found;
}

}  // namespace vmafexact::gst
