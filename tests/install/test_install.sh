#!/bin/sh
# `meson install` into a staging folder (DESTDIR): the plugin lands in
# <prefix>/<libdir>/gstreamer-1.0, the note printed at the end says where and
# whether GStreamer looks there, and gst-inspect-1.0 loads the installed plugin
# with its real license and origin. Then the note's three verdicts. With
# PYTHON: the vmafexact Python module lands in PYTHON_DIR, importable, naming
# the installed tool TOOL.
#
# Usage: test_install.sh MESON BUILD_DIR PLUGIN_DIR GST_PLUGIN_DIR NOTE_SCRIPT PACKAGE ORIGIN
#                        [PYTHON PYTHON_DIR TOOL]
set -eu
meson=$1
build=$2
plugin_dir=$3
gst_dir=$4
note=$5
package=$6
origin=$7
python=${8:-}
python_dir=${9:-}
python_dir=${python_dir%/}
tool=${10:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/vmafexact-install-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
expect() {  # expect FILE TEXT: TEXT is a line, or part of one, of FILE
  grep -F -q -- "$2" "$1" || fail "$(basename "$1") lacks: $2"
}

# Through a pipe, as a terminal would see it (meson 1.0 swallows a script's own output).
"$meson" install -C "$build" --no-rebuild --destdir "$work/stage" 2>&1 | cat >"$work/install.txt"
cat "$work/install.txt"
staged="$work/stage$plugin_dir"
[ -f "$staged/libgstvmafexact.so" ] || fail "no plugin in $staged"
expect "$work/install.txt" "vmafexact: the plugin is staged as $staged/libgstvmafexact.so"
expect "$work/install.txt" "(installed from the staging folder, it goes to $plugin_dir)."
if [ "$plugin_dir" = "$gst_dir" ]; then
  expect "$work/install.txt" "GStreamer looks there (its plugin folder)"
else
  expect "$work/install.txt" "GStreamer does not look there (its plugin folder is $gst_dir)"
  expect "$work/install.txt" "export GST_PLUGIN_PATH=$plugin_dir"
fi

# The installed plugin, and no other.
GST_REGISTRY="$work/registry.bin" GST_PLUGIN_PATH="$staged" GST_PLUGIN_SYSTEM_PATH="$staged" \
  gst-inspect-1.0 vmafexact >"$work/inspect.txt" 2>&1 || fail "gst-inspect-1.0 vmafexact failed"
expect "$work/inspect.txt" "Filename                 $staged/libgstvmafexact.so"
expect "$work/inspect.txt" "License                  BSD"
expect "$work/inspect.txt" "License: BSD-2-Clause-Patent"
expect "$work/inspect.txt" "Binary package           $package"
expect "$work/inspect.txt" "Origin URL               $origin"
for message in vmafexact-frame vmafexact-summary vmafexact-window vmafexact-alert docs/element.md; do
  grep -q "^  Messages .*$message" "$work/inspect.txt" || fail "Messages lacks $message"
done
if grep -q example.invalid "$work/inspect.txt"; then fail "a made-up origin URL"; fi

# The note's verdicts, run as meson runs it.
sh "$note" /usr/lib/x86_64-linux-gnu/gstreamer-1.0 /usr/lib/x86_64-linux-gnu/gstreamer-1.0 \
  libgstvmafexact.so >"$work/same.txt"
expect "$work/same.txt" "vmafexact: the plugin is installed as /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstvmafexact.so."
expect "$work/same.txt" "GStreamer looks there (its plugin folder): gst-inspect-1.0 vmafexact shows it."
GST_PLUGIN_PATH=/elsewhere:/opt/gst sh "$note" /opt/gst /usr/lib/x86_64-linux-gnu/gstreamer-1.0 \
  libgstvmafexact.so >"$work/path.txt"
expect "$work/path.txt" "GStreamer finds it there through GST_PLUGIN_PATH, as set here."
MESON_BUILD_ROOT=/src/build GST_PLUGIN_PATH= sh "$note" /usr/lib/gstreamer-1.0 \
  /usr/lib/x86_64-linux-gnu/gstreamer-1.0 libgstvmafexact.so >"$work/other.txt"
expect "$work/other.txt" "GStreamer does not look there (its plugin folder is /usr/lib/x86_64-linux-gnu/gstreamer-1.0)."
expect "$work/other.txt" "export GST_PLUGIN_PATH=/usr/lib/gstreamer-1.0"
expect "$work/other.txt" "meson configure /src/build -Dprefix=/usr"
expect "$work/other.txt" "-Dlibdir=lib/x86_64-linux-gnu, then meson install -C /src/build again"

# The Python module: staged, importable from there, naming the installed tool;
# and where the python3 it was installed for reads modules, when the prefix is
# that python's own (/usr/local is Debian's python3's too).
if [ -n "$python" ]; then
  staged_module="$work/stage$python_dir/vmafexact"
  for file in __init__.py _config.py; do
    [ -f "$staged_module/$file" ] || fail "no $file in $staged_module"
  done
  found=$(env -u VMAFEXACT_TOOL PYTHONPATH="$work/stage$python_dir" "$python" -c \
    'import vmafexact; print(vmafexact.__file__); print(vmafexact.tool_path())' 2>&1) ||
    fail "the staged module does not import: $found"
  [ "$found" = "$staged_module/__init__.py
$tool" ] || fail "the staged module is not the one imported, or names another tool: $found"
  "$python" - "$python_dir" "$tool" <<'PY' || fail "$python does not read $python_dir"
import os, sys, sysconfig
folder, tool = os.path.realpath(sys.argv[1]), sys.argv[2]
prefix = os.path.dirname(os.path.dirname(tool))
scheme = getattr(sysconfig, "get_default_scheme", lambda: "")()
debian = scheme == "posix_local"
if prefix == sys.prefix or (debian and prefix == "/usr/local"):
    sys.exit(folder not in [os.path.realpath(entry) for entry in sys.path])
PY
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "install: every check passed"
