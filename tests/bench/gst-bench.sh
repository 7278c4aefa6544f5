#!/usr/bin/env bash
# gst-bench.sh [FRAMES]: frames per second of vmafexact inside a GStreamer
# pipeline: videotestsrc -> (cudaupload) -> tee -> vmafexact (default model)
# -> fakesink, and of the same pipeline without vmafexact (both branches into
# fakesinks), so the element's own cost can be read off. Needs GST_PLUGIN_PATH
# to hold the plugin. BACKENDS="cuda cpu" chooses the paths (default: cuda).
set -euo pipefail
frames=${1:-300}
backends=${BACKENDS:-cuda}
now() { date +%s.%N; }
fps() { awk -v n="$frames" -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", n / (b - a) }'; }
for backend in $backends; do
  for size in 1920x1080 3840x2160; do
    for format in NV12 P010_10LE; do
      w=${size%x*}; h=${size#*x}
      caps="video/x-raw,format=$format,width=$w,height=$h,framerate=60/1"
      upload=""
      [[ $backend == cuda ]] && upload="cudaupload ! video/x-raw(memory:CUDAMemory) !"
      src="videotestsrc num-buffers=$frames pattern=ball ! $caps ! $upload tee name=t"
      t0=$(now)
      gst-launch-1.0 -q $src t. ! queue ! fakesink t. ! queue ! fakesink
      t1=$(now)
      gst-launch-1.0 -q $src t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink \
        vmafexact name=v backend=$backend frame-message=false ! fakesink
      t2=$(now)
      echo "gst $backend $size $format: pipeline without vmafexact $(fps "$t0" "$t1") fps," \
           "with vmafexact $(fps "$t1" "$t2") fps ($frames frames)"
    done
  done
done
