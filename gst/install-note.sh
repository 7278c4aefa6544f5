#!/bin/sh
# Run by `meson install` after it has copied the files (meson.add_install_script
# in gst/meson.build): says where the plugin went and whether GStreamer looks
# there, and if not, what to do (README.md, "Installing").
#
# Arguments: the plugin's folder (<prefix>/<libdir>/gstreamer-1.0), GStreamer's
# own plugin folder (pkg-config's pluginsdir, may be empty), the plugin's file name.
set -eu
plugin_dir=$1
gst_dir=$2
file=$3

# meson 1.0 (Debian 12's) shows an install script's output only when the
# script fails. Write to meson's own output instead, when that is a terminal or
# a pipe and not already ours (a regular file is left alone: writing at our
# offset would clash with meson's).
meson_out=/proc/$PPID/fd/1
if [ "$(readlink /proc/$$/fd/1 2>/dev/null)" != "$(readlink "$meson_out" 2>/dev/null)" ] &&
  { [ -p "$meson_out" ] || [ -c "$meson_out" ]; } && [ -w "$meson_out" ]; then
  exec >"$meson_out"
fi

if [ -n "${DESTDIR:-}" ]; then
  echo "vmafexact: the plugin is staged as ${DESTDIR}${plugin_dir}/${file}"
  echo "  (installed from the staging folder, it goes to ${plugin_dir})."
else
  echo "vmafexact: the plugin is installed as ${plugin_dir}/${file}."
fi

same_folder() {
  [ "$1" = "$2" ] && return 0
  [ -d "$1" ] && [ -d "$2" ] && [ "$(cd "$1" && pwd -P)" = "$(cd "$2" && pwd -P)" ]
}

if [ -n "$gst_dir" ] && same_folder "$plugin_dir" "$gst_dir"; then
  echo "  GStreamer looks there (its plugin folder): gst-inspect-1.0 vmafexact shows it."
  exit 0
fi
case ":${GST_PLUGIN_PATH:-}:" in
  *":${plugin_dir}:"*)
    echo "  GStreamer finds it there through GST_PLUGIN_PATH, as set here."
    exit 0
    ;;
esac

echo "  GStreamer does not look there${gst_dir:+ (its plugin folder is ${gst_dir})}. Either"
echo "  - tell it: export GST_PLUGIN_PATH=${plugin_dir} (e.g. in your shell profile), or"
case "$gst_dir" in
  /usr/*/gstreamer-1.0)
    libdir=${gst_dir#/usr/}
    libdir=${libdir%/gstreamer-1.0}
    build=${MESON_BUILD_ROOT:-build}
    echo "  - install into GStreamer's folder: meson configure ${build} -Dprefix=/usr"
    echo "    -Dlibdir=${libdir}, then meson install -C ${build} again (as root)."
    ;;
  *)
    echo "  - install into GStreamer's folder: configure with the --prefix and --libdir that"
    echo "    give ${gst_dir:-GStreamer's plugin folder (pkg-config --variable=pluginsdir gstreamer-1.0)}."
    ;;
esac
