#!/usr/bin/env bash
# device-bundle.sh [BUNDLE]: packs what the GPU machine needs to run the CUDA
# checks (it has no compiler, GStreamer or ffmpeg) into BUNDLE (default
# .devbundle, git-ignored): the stripped CUDA test programs, benches and plugin
# of the build, a slice of the fixtures (scripts/device-fixtures.sh, xz), and
# scripts/device-check.sh, and the FFmpeg libraries the plugin links (lib/).
# Then, with GStreamer carried as the workplace's device
# README says (.devicegst), run on the device from the repository root:
#   bash BUNDLE/device-check.sh        (carry: BUNDLE and .devicegst)
# Everything it prints is also written under $OUT (parity.log, pipeline.log,
# bench.log, gstlaunch.log, ...).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build}"
bundle="${1:-$repo/.devbundle}"
# PROGRAMS names the programs to pack (default: all); the bundle and
# .devicegst must fit the device's carry of 64 MiB beside the repository, so a
# run of some checks may pack only theirs, e.g.
# PROGRAMS="vmafexact-checktwins cuda-parity-tests cuda-pipeline-tests"; the
# monitor's capacity run (tests/bench/monitor_capacity.py) packs
# PROGRAMS=vmafexact-monitor.
all_programs="tests/cuda-parity-tests tests/cuda-pipeline-tests tests/cuda-fault-tests
  tests/vmafexact-bench tests/vmafexact-gst-bench tests/harness/vmafexact-checktwins
  tools/vmafexact-monitor"
known=$(for program in $all_programs; do basename "$program"; done | tr '\n' ' ')
for name in ${PROGRAMS:-}; do
  [[ " $known" == *" $name "* ]] ||
    { echo "device-bundle: PROGRAMS names $name, which is none of: $known" >&2; exit 1; }
done
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/gst"
for program in $all_programs; do
  if [[ -n ${PROGRAMS:-} && " $PROGRAMS " != *" $(basename "$program") "* ]]; then continue; fi
  [[ -x "$build/$program" ]] || { echo "device-bundle: $build/$program is missing (a CUDA build: -Dcuda=enabled -Dtests=enabled)" >&2; exit 1; }
  strip -o "$bundle/bin/$(basename "$program")" "$build/$program"
done
strip -o "$bundle/gst/libgstvmafexact.so" "$build/gst/libgstvmafexact.so"
# The plugin's vmafexactscale links FFmpeg's libswscale and libavutil, which the
# carried GStreamer (.devicegst) does not hold: pack them and the libraries they
# need (C and C++ runtimes aside, which every image has); device-check.sh puts
# them on LD_LIBRARY_PATH.
mkdir -p "$bundle/lib"
ffmpeg_libs=$(ldd "$build/gst/libgstvmafexact.so" | awk '$1 ~ /^lib(swscale|avutil)\./ {print $3}')
for library in $ffmpeg_libs $(ldd $ffmpeg_libs | awk '$3 ~ /^\// {print $3}' | sort -u); do
  case "$(basename "$library")" in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
    *) strip -o "$bundle/lib/$(basename "$library")" "$library" ;;
  esac
done
fixtures="$(mktemp -d)"
trap 'rm -rf "$fixtures"' EXIT
"$repo/scripts/device-fixtures.sh" "$fixtures/fx" "${FRAMES:-3}" "${LARGE_FRAMES:-2}" >/dev/null
tar -C "$fixtures" -cJf "$bundle/fx.tar.xz" fx
cp "$repo/scripts/device-check.sh" "$bundle/"
grep -qx '/.devbundle/' "$repo/.git/info/exclude" 2>/dev/null || echo '/.devbundle/' >> "$(git -C "$repo" rev-parse --git-common-dir)/info/exclude"
du -sh "$bundle"
