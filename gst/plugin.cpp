#include "gstvmafexact.h"
#include "vmafexact_config.h"

static gboolean plugin_init(GstPlugin* plugin) {
  return GST_ELEMENT_REGISTER(vmafexact, plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, vmafexact,
                  "VMAF and its features, bit for bit libvmaf " VMAFEXACT_LIBVMAF_VERSION,
                  plugin_init, VMAFEXACT_VERSION, GST_LICENSE, PACKAGE_NAME, GST_PACKAGE_ORIGIN)
