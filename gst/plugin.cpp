#include "gstvmafexact.h"
#include "swscale_element.h"
#include "vmafexact_config.h"

static gboolean plugin_init(GstPlugin* plugin) {
  return GST_ELEMENT_REGISTER(vmafexact, plugin) && GST_ELEMENT_REGISTER(vmafexactscale, plugin);
}

// GST_LICENSE is the nearest of the names GStreamer accepts (meson.build says
// why); the description gives the exact license.
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, vmafexact,
                  "VMAF and its features, bit for bit libvmaf " VMAFEXACT_LIBVMAF_VERSION
                  ". License: " VMAFEXACT_LICENSE
                  " (GStreamer's License field takes only its own short names: " GST_LICENSE ")",
                  plugin_init, VMAFEXACT_VERSION, GST_LICENSE, PACKAGE_NAME, GST_PACKAGE_ORIGIN)
