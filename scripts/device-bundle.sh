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
#
# For the NVDEC checks and the end-to-end bench (CHECKS="nvdec e2e", issue 44)
# it also packs the tool (tools/vmafexact), the NVDEC test program (NVDEC_TESTS,
# default nvdec-tool-tests, when the build has it), the GStreamer plugins that
# the tool's decoding needs and .devicegst lacks (qtdemux, matroskademux,
# h264parse/h265parse, uridecodebin, typefind, libav's avdec_h264/avdec_h265;
# taken from this machine's Debian 1.22, the same packages as .devicegst's) with
# the libraries they and the tool load that neither .devicegst nor the GPU
# image has (cairo, pango, ... for the tool's plots), and:
#   MEDIA=DIR       the media of scripts/nvdec-media.sh DIR (carried as they are;
#                   MEDIA_BENCH=0 leaves the bench's long clips out)
#   FFMPEG_PREFIX=D a small FFmpeg 5.1 of the same ABI as Debian 12's, built with
#                   only the H.264, HEVC and VP9 decoders (docs/benchmarks.md,
#                   "End to end"): its libavcodec/avformat/avfilter/avutil/swscale
#                   replace Debian's, whose dependencies (x265, codec2, rsvg, ...)
#                   weigh 230 MB; without it neither libav's plugin nor CPU
#                   decoding of H.264/HEVC is carried
#   VMAF_CUDA=PATH  libvmaf's vmaf tool built with -Denable_cuda=true, static
#   FIXTURES=0      leaves the fixture slice out (for CHECKS="nvdec e2e" alone)
#   DEVICEGST=1     packs .devicegst too, in xz (then carry the bundle alone)
# Programs, plugins and libraries go into one payload.tar.xz, which
# device-check.sh unpacks (COMPRESS=0: plain folders).
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
  tools/vmafexact-monitor tools/vmafexact"
# The NVDEC test program (the nvdec helper's, issue 44): packed when built.
nvdec_tests=${NVDEC_TESTS:-nvdec-tool-tests}
nvdec_program=$(cd "$build" && find -L tests tools -name "$nvdec_tests" -type f -perm -u+x 2>/dev/null | head -1 || true)
if [[ -n $nvdec_program ]]; then
  all_programs="$all_programs $nvdec_program"
elif [[ -z ${PROGRAMS:-} || " $PROGRAMS " == *" $nvdec_tests "* ]]; then
  echo "device-bundle: no $nvdec_tests in $build (not built yet): CHECKS=nvdec will skip" >&2
fi
known="$(for program in $all_programs; do basename "$program"; done | tr '\n' ' ')$nvdec_tests "
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
# Every image has the C and C++ runtimes; the GPU image (Ubuntu 24.04) also has
# newer copies of these (../shared/device/README.md), which must not be shadowed.
carried_elsewhere='^(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux.*|libX11|libxcb|libXau|libXdmcp|libdrm|libelf|libffi|libpcre2-8|libz|liblzma|libbz2|libexpat|libudev|libbsd|libmd|libmount|libselinux|libblkid)\.so'
mkdir -p "$bundle/lib"
ffmpeg_prefix=${FFMPEG_PREFIX:-}
if [[ -n $ffmpeg_prefix ]]; then
  # The small FFmpeg: its libraries load nothing but the C library, so they
  # replace Debian's (and their 230 MB of dependencies) for libav's plugin and
  # for the plugin's vmafexactscale (libswscale, libavutil) alike.
  for name in avcodec avformat avfilter avutil swscale; do
    library=$(ls "$ffmpeg_prefix"/lib/lib$name.so.[0-9]* 2>/dev/null | grep -E '\.so\.[0-9]+$' | head -1 || true)
    [[ -n $library ]] || { echo "device-bundle: FFMPEG_PREFIX=$ffmpeg_prefix has no lib$name.so.N" >&2; exit 1; }
    strip -o "$bundle/lib/$(basename "$library")" "$library"
  done
  export LD_LIBRARY_PATH="$ffmpeg_prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  # The plugin's vmafexactscale links FFmpeg's libswscale and libavutil, which the
  # carried GStreamer (.devicegst) does not hold: pack them and the libraries they
  # need (C and C++ runtimes aside, which every image has); device-check.sh puts
  # them on LD_LIBRARY_PATH.
  ffmpeg_libs=$(ldd "$build/gst/libgstvmafexact.so" | awk '$1 ~ /^lib(swscale|avutil)\./ {print $3}')
  for library in $ffmpeg_libs $(ldd $ffmpeg_libs | awk '$3 ~ /^\// {print $3}' | sort -u); do
    case "$(basename "$library")" in
      libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
      *) strip -o "$bundle/lib/$(basename "$library")" "$library" ;;
    esac
  done
fi
if [[ -x "$bundle/bin/vmafexact" ]]; then
  # The tool decodes files: the plugins its pipelines use that .devicegst's
  # default list leaves out, from this machine's GStreamer (Debian 12's 1.22, as
  # .devicegst's), and every library they and the tool load that neither
  # .devicegst nor the image holds.
  devicegst_libs="$repo/.devicegst/root"
  [[ -d $devicegst_libs ]] || { echo "device-bundle: $repo/.devicegst is missing: make it first (sh ../shared/device/gst-on-device.sh), the tool's libraries are counted against it" >&2; exit 1; }
  system_plugins=/usr/lib/x86_64-linux-gnu/gstreamer-1.0
  plugins="isomp4 matroska videoparsersbad playback typefindfunctions pbtypes"
  [[ -n $ffmpeg_prefix ]] && plugins="$plugins libav"
  roots=("$build/tools/vmafexact")
  [[ -n $nvdec_program && -x "$bundle/bin/$nvdec_tests" ]] && roots+=("$build/$nvdec_program")
  for name in $plugins; do
    [[ -e "$devicegst_libs/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgst$name.so" ]] && continue
    [[ -e "$system_plugins/libgst$name.so" ]] ||
      { echo "device-bundle: $system_plugins/libgst$name.so is missing (apt-get install gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav)" >&2; exit 1; }
    strip -o "$bundle/gst/libgst$name.so" "$system_plugins/libgst$name.so"
    roots+=("$system_plugins/libgst$name.so")
  done
  known_libs=$(find "$devicegst_libs" -name 'lib*.so*' -printf '%f\n' | sort -u)
  for library in $(ldd "${roots[@]}" | awk '$3 ~ /^\// {print $3}' | sort -u); do
    name=$(basename "$library")
    [[ $name =~ $carried_elsewhere ]] && continue
    [[ $name =~ ^lib(avcodec|avformat|avfilter|avutil|swscale|swresample|postproc)\.so ]] && continue
    grep -qxF "$name" <<<"$known_libs" && continue
    [[ -e "$bundle/lib/$name" ]] || strip -o "$bundle/lib/$name" "$library"
  done
fi
if [[ -n ${VMAF_CUDA:-} ]]; then
  if ldd "$VMAF_CUDA" | grep -q 'libvmaf\|not found'; then
    echo "device-bundle: $VMAF_CUDA links libvmaf dynamically or lacks a library; give a static build (-Ddefault_library=static)" >&2
    exit 1
  fi
  strip -o "$bundle/bin/vmaf-cuda" "$VMAF_CUDA"
fi
if [[ -n ${MEDIA:-} ]]; then
  mkdir -p "$bundle/media"
  # scripts/nvdec-media.sh's names only (other files may share the folder).
  for file in "$MEDIA"/{h264,hevc,hevc10,vp9,av1}_*.{mp4,mkv,webm,mp4.frames,mkv.frames,webm.frames}; do
    [[ -e $file && $file != *.part.* ]] || continue
    # MEDIA_BENCH=0: the parity media only, without the bench's long clips.
    [[ ${MEDIA_BENCH:-1} == 0 && $file == *_long.* ]] && continue
    cp "$file" "$bundle/media/"
  done
  [[ -n $(ls "$bundle/media") ]] || { echo "device-bundle: MEDIA=$MEDIA holds none of scripts/nvdec-media.sh's files" >&2; exit 1; }
fi
fixtures="$(mktemp -d)"
trap 'rm -rf "$fixtures"' EXIT
if [[ ${FIXTURES:-1} != 0 ]]; then
  "$repo/scripts/device-fixtures.sh" "$fixtures/fx" "${FRAMES:-3}" "${LARGE_FRAMES:-2}" >/dev/null
  tar -C "$fixtures" -cJf "$bundle/fx.tar.xz" fx
fi
if [[ -d "$bundle/gst" && -d $repo/.devicegst/root ]]; then
  # Every library a packed program, plugin or library names must be in lib/,
  # in .devicegst or in the image (the runtimes and the list above).
  known_libs=$( (ls "$bundle/lib"; find "$repo/.devicegst/root" -name 'lib*.so*' -printf '%f\n') | sort -u)
  for file in "$bundle"/bin/* "$bundle"/gst/* "$bundle"/lib/*; do
    for name in $(readelf -d "$file" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [[ $name =~ $carried_elsewhere ]] || grep -qxF "$name" <<<"$known_libs" ||
        echo "device-bundle: warning: $(basename "$file") needs $name, which nothing carried holds" >&2
    done
  done
fi
if [[ ${DEVICEGST:-0} != 0 ]]; then
  # .devicegst in xz (16 -> about 5 MB): device-check.sh unpacks it into the
  # repository root when no .devicegst was carried, so `carry` names the bundle alone.
  [[ -f $repo/.devicegst/env.sh ]] || { echo "device-bundle: DEVICEGST=1 but $repo/.devicegst is missing" >&2; exit 1; }
  tar -C "$repo" -cf - .devicegst | xz -T2 -6 > "$bundle/devicegst.tar.xz"
fi
if [[ ${COMPRESS:-1} != 0 ]]; then
  # The carry is 64 MiB for everything: programs and libraries shrink to about
  # a third in xz; device-check.sh unpacks them.
  tar -C "$bundle" -cf - bin gst lib | xz -T2 -6 > "$bundle/payload.tar.xz"
  rm -rf "$bundle/bin" "$bundle/gst" "$bundle/lib"
fi
cp "$repo/scripts/device-check.sh" "$repo/tests/bench/e2e_bench.py" "$bundle/"
grep -qx '/.devbundle/' "$repo/.git/info/exclude" 2>/dev/null || echo '/.devbundle/' >> "$(git -C "$repo" rev-parse --git-common-dir)/info/exclude"
du -sh "$bundle"
