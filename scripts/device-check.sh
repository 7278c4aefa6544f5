#!/usr/bin/env bash
# device-check.sh: run on the GPU machine from the repository root, in the
# bundle scripts/device-bundle.sh made (its folder is this script's). Runs the
# twin harness's device checks, the CUDA parity and pipeline suites, the benches
# a literal gst-launch comparison of every VMAF v1 model on CUDA memory against
# backend=cpu, and a live CUDA pipeline with windows, an alert and a rotated log
# (LIVE_SECONDS, default 90), and the element after a device fault made on
# purpose. CHECKS="twins parity pipeline fault bench gst launch live"
# picks. CHECKS=cpu, in the bundle scripts/device-cpu-bundle.sh made, runs the
# host CPU's figures instead: vmafexact-bench against libvmaf's vmaf tool at 1 to
# CPU_THREADS threads (default "1 2 4 8 16") on synthetic 1080p (VMAF v0.6.1, then
# VMAF v1 on synthetic frames and on fixture b), and
# cpu-bench.sh (the element as a whole process and over frames in memory, the
# scorer alone, the vmaf tool) on fixture b.
# Not in the default list (issue 44; device-bundle.sh with MEDIA, FFMPEG_PREFIX
# and VMAF_CUDA packs what they need): CHECKS=nvdec runs the NVDEC test program
# (NVDEC_TESTS, default nvdec-tool-tests) on the carried media, and skips when the
# bundle has none; CHECKS=e2e runs e2e_bench.py: files to scores, CPU decode
# against NVDEC, libvmaf's CUDA tool on the same frames decoded to raw, and 1, 4
# and 8 tool processes at once on one GPU (E2E_ARGS adds its options);
# CHECKS=startup times an NVDEC run's start-up, piece by piece. PACK_LOGS=1
# leaves the logs in one $OUT/logs.tgz.
set -uo pipefail
bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$bundle/out}"
mkdir -p "$out"
checks="${CHECKS:-twins parity pipeline fault bench gst launch live}"
bin="$bundle/bin"
work="$(mktemp -d)"
# device-bundle.sh packs the programs, plugins and libraries in one xz archive.
[[ -f "$bundle/payload.tar.xz" ]] && tar -C "$bundle" -xJf "$bundle/payload.tar.xz"
[[ -f "$bundle/fx.tar.xz" ]] && tar -C "$work" -xJf "$bundle/fx.tar.xz"
export VMAFEXACT_SHARED_DIR="$work/fx/shared" VMAFEXACT_FIXTURE_YUV_DIR="$work/fx/yuv"
# DEVICEGST=1 bundles carry GStreamer (.devicegst) in xz: unpacked here once.
if [[ ! -f .devicegst/env.sh && -f "$bundle/devicegst.tar.xz" ]]; then
  tar -xJf "$bundle/devicegst.tar.xz"
fi
if [[ -f .devicegst/env.sh ]]; then
  # shellcheck disable=SC1091
  . .devicegst/env.sh
fi
export GST_PLUGIN_PATH="$bundle/gst"
# FFmpeg's libswscale and libavutil for vmafexactscale (device-bundle.sh packs them).
[[ -d "$bundle/lib" ]] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$bundle/lib"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
echo "$(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)" | tee "$out/cpu.txt"
status=0
step() { # step NAME COMMAND...: runs it, its output to $OUT/NAME.log and a tail here
  local name=$1; shift
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc $rc, $((SECONDS - start)) s"
  tail -n "${TAIL:-6}" "$out/$name.log"
  ((rc == 0)) || status=1
}
has() { [[ " $checks " == *" $1 "* ]]; }
if has cpu; then
  cpu_threads=${CPU_THREADS:-1 2 4 8 16}
  vmaf=()
  [[ -x "$bundle/vmaf" ]] && vmaf=(--libvmaf "$bundle/vmaf")
  step cpu-synthetic sh -c "for t in $cpu_threads; do
      '$bundle/tests/vmafexact-bench' --backend cpu --size 1920x1080 --frames \$((24 * t)) \
        --warmup 2 --threads \$t ${vmaf[*]} || exit 1
    done"
  for file in b_1920x1080_420p8_ref.yuv b_1920x1080_420p8_dis_x264crf28.yuv; do
    xz -dc "$bundle/fx/$file.xz" > "$work/$file"
  done
  # VMAF v1 (no VIF; CAMBI, SpEED chroma, ADM with the Barten CSF), synthetic
  # and fixture b, against the same tool with the same built-in model.
  TAIL=16 step cpu-v1 sh -c "for t in $cpu_threads; do
      '$bundle/tests/vmafexact-bench' --backend cpu --size 1920x1080 --frames \$((12 * t)) \
        --warmup 2 --threads \$t --model vmaf_v1.0.16_3d0h ${vmaf[*]} || exit 1
      '$bundle/tests/vmafexact-bench' --backend cpu --size 1920x1080 --frames \$((12 * t)) \
        --warmup 2 --threads \$t --model vmaf_v1.0.16_3d0h ${vmaf[*]} \
        --yuv '$work/b_1920x1080_420p8_ref.yuv' '$work/b_1920x1080_420p8_dis_x264crf28.yuv' || exit 1
    done"
  TAIL=12 step cpu-element env BUILD_DIR="$bundle" VMAF="${vmaf[1]:-}" \
    REF="$work/b_1920x1080_420p8_ref.yuv" DIST="$work/b_1920x1080_420p8_dis_x264crf28.yuv" \
    bash "$bundle/cpu-bench.sh" $cpu_threads
fi
has twins && step checktwins "$bin/vmafexact-checktwins" --isa cuda_device
has parity && step parity "$bin/cuda-parity-tests"
has pipeline && step pipeline "$bin/cuda-pipeline-tests"
# Last of the suites: the fault it makes on purpose may spoil CUDA for its process.
has fault && step fault "$bin/cuda-fault-tests"
if has nvdec; then
  nvdec_tests=${NVDEC_TESTS:-nvdec-tool-tests}
  if [[ -x "$bin/$nvdec_tests" ]]; then
    TAIL=12 step nvdec env VMAFEXACT_NVDEC_MEDIA="$bundle/media" VMAFEXACT_TOOL="$bin/vmafexact" \
      "$bin/$nvdec_tests"
  else
    echo "== nvdec: skipped, the bundle has no $nvdec_tests (not built when it was packed)"
  fi
fi
if has e2e; then
  vmaf_cuda=()
  [[ -x "$bin/vmaf-cuda" ]] && vmaf_cuda=(--libvmaf "$bin/vmaf-cuda")
  # shellcheck disable=SC2086  # E2E_ARGS: options, split on purpose
  TAIL=40 step e2e python3 "$bundle/e2e_bench.py" --tool "$bin/vmafexact" --media "$bundle/media" \
    --work "$work/e2e" --json "$out/e2e.json" "${vmaf_cuda[@]}" ${E2E_ARGS:-}
fi
if has startup; then
  # Where an NVDEC run's start-up goes (docs/benchmarks.md, "End to end"):
  # nvcodec's plugin load, a decode alone, the tool on 2 frames with each
  # backend, and the gaps over 40 ms in a GST_DEBUG="*:4" log of one such run.
  startup() {
    local ref="$bundle/media/h264_1080_ref_long.mp4" dist="$bundle/media/h264_1080_dist_long.mp4"
    [[ -f "$ref" && -f "$dist" ]] || { echo "no media (device-bundle.sh MEDIA=...)"; return 1; }
    timed() { # timed LABEL COMMAND...: its wall time and exit status
      local label=$1 start=$EPOCHREALTIME rc; shift
      "$@" > "$work/timed.txt" 2>&1; rc=$?
      ((rc == 0)) || tail -n 2 "$work/timed.txt" | sed "s/^/      /"
      python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):7.3f} s  rc {sys.argv[3]}  {sys.argv[4]}")' \
        "$start" "$EPOCHREALTIME" "$rc" "$label"
    }
    local tool=("$bin/vmafexact" --quiet --precision max --json "$work/startup.json" --frames 2 "$ref" "$dist")
    timed "gst-inspect-1.0 nvh264dec (loads nvcodec)" gst-inspect-1.0 nvh264dec
    timed "NVDEC decode alone, 600 frames into CUDA memory" gst-launch-1.0 -q filesrc location="$ref" ! \
      qtdemux ! h264parse ! nvh264dec ! "video/x-raw(memory:CUDAMemory)" ! fakesink
    local run
    for run in 1 2; do
      timed "vmafexact --backend cuda, 2 frames" "${tool[0]}" --backend cuda "${tool[@]:1}"
      timed "vmafexact --backend cpu, 2 frames" "${tool[0]}" --backend cpu "${tool[@]:1}"
    done
    GST_DEBUG_NO_COLOR=1 GST_DEBUG="*:4" GST_DEBUG_FILE="$work/startup-debug.log" \
      timed "vmafexact --backend cuda, 2 frames, GST_DEBUG=*:4" "${tool[0]}" --backend cuda "${tool[@]:1}"
    python3 - "$work/startup-debug.log" <<'PY'
import re, sys
first = previous = None
previous_line = ""
for line in open(sys.argv[1], errors="replace"):
    match = re.match(r"(\d+):(\d+):(\d+\.\d+)", line)
    if not match:
        continue
    t = int(match[1]) * 3600 + int(match[2]) * 60 + float(match[3])
    first = t if first is None else first
    if previous is not None and t - previous > 0.04:
        print(f"gap {t - previous:.3f} s at {previous - first:.3f} s: after {previous_line.split(None, 4)[-1].strip()[:160]}")
        print(f"    before {line.split(None, 4)[-1].strip()[:160]}")
    previous, previous_line = t, line
print(f"the log spans {previous - first:.3f} s" if first is not None else "empty log")
PY
  }
  TAIL=40 step startup startup
fi
if has bench; then
  step bench sh -c "
    '$bin/vmafexact-bench' --backend cuda --size 1920x1080 --frames 1000 --warmup 50 &&
    '$bin/vmafexact-bench' --backend cuda --size 3840x2160 --frames 500 --warmup 30 &&
    '$bin/vmafexact-bench' --backend cuda --size 1920x1080 --frames 500 --warmup 30 --model vmaf_v1.0.16_3d0h &&
    '$bin/vmafexact-bench' --backend cuda --size 3840x2160 --frames 300 --warmup 30 --model vmaf_v1.0.16_3d0h_2160 &&
    '$bin/vmafexact-bench' --backend cuda --size 3840x2160 --bpc 10 --frames 300 --warmup 30 --model vmaf_v1.0.16_3d0h_2160"
fi
if has gst; then
  step gstbench sh -c "
    '$bin/vmafexact-gst-bench' --size 1920x1080 --frames 2000 --model vmaf_v0.6.1 &&
    '$bin/vmafexact-gst-bench' --size 3840x2160 --frames 600 --model vmaf_v0.6.1 &&
    '$bin/vmafexact-gst-bench' --size 1920x1080 --frames 1000 --model vmaf_v1.0.16_3d0h &&
    '$bin/vmafexact-gst-bench' --size 3840x2160 --frames 400 --model vmaf_v1.0.16_3d0h_2160"
fi
if has launch; then
  # Every v1 model on each pair of the fixture slice, cudaupload on both inputs
  # against backend=cpu: the two max-precision logs must be equal but for fps
  # and the backend and threads named in the provenance.
  launch() {
    local fails=0 runs=0
    local models="vmaf_v1.0.16_3d0h vmaf_v1.0.16_5d0h vmaf_v1.0.16_3d0h_2160 vmaf_v1.0.16_1d5h_2160
                  vmaf_v1.0.16_hfr_3d0h vmaf_v1.0.16_hfr_5d0h vmaf_v1.0.16_hfr_3d0h_2160 vmaf_v1.0.16_hfr_1d5h_2160"
    local dist
    for dist in "$work"/fx/yuv/*_dis_*.yuv; do
      local name; name=$(basename "$dist")
      [[ "$name" =~ ^([a-z])_([0-9]+)x([0-9]+)_(4[0-4]{2})p([0-9]+)_ ]] || continue
      local w=${BASH_REMATCH[2]} h=${BASH_REMATCH[3]} sub=${BASH_REMATCH[4]} bits=${BASH_REMATCH[5]}
      ((w % 8 == 0 && h % 2 == 0 && w >= 216 && h >= 216)) || continue
      local format
      case "$sub$bits" in
        4208) format=i420;; 42010) format=i420-10le;; 4228) format=y42b;; 42210) format=i422-10le;;
        4448) format=y444;; 44410) format=y444-10le;; *) continue;;
      esac
      local ref="${dist%%_dis_*}_ref.yuv"
      [[ -f "$ref" ]] || continue
      local parse="rawvideoparse width=$w height=$h format=$format framerate=24/1"
      # cudaupload passes system memory through when downstream takes it too:
      # the capsfilter makes it upload.
      local upload="cudaupload ! video/x-raw(memory:CUDAMemory)"
      local model
      for model in $models; do
        runs=$((runs + 1))
        rm -f "$work/cuda.json" "$work/cpu.json"
        gst-launch-1.0 -q filesrc location="$ref" ! $parse ! $upload ! v.ref_sink \
          filesrc location="$dist" ! $parse ! $upload ! v.dist_sink \
          vmafexact name=v model=$model log-location="$work/cuda.json" log-precision=max ! fakesink
        gst-launch-1.0 -q filesrc location="$ref" ! $parse ! v.ref_sink \
          filesrc location="$dist" ! $parse ! v.dist_sink \
          vmafexact name=v backend=cpu model=$model log-location="$work/cpu.json" log-precision=max ! fakesink
        local backend
        backend=$(grep -o '"backend": *"[^"]*"' "$work/cuda.json")
        if diff <(grep -v '"fps"\|"backend"\|"threads"' "$work/cuda.json") <(grep -v '"fps"\|"backend"\|"threads"' "$work/cpu.json") > /dev/null &&
           [[ "$backend" == *CUDA* ]] && grep -q '"frames"' "$work/cuda.json"; then
          echo "identical: $name $model ($(grep -c '"frameNum"' "$work/cuda.json") frames, $backend)"
        else
          echo "DIFFERENT: $name $model ($backend)"
          diff <(grep -v '"fps"\|"backend"\|"threads"' "$work/cuda.json") <(grep -v '"fps"\|"backend"\|"threads"' "$work/cpu.json") | head -6
          fails=$((fails + 1))
        fi
      done
    done
    echo "gst-launch: $((runs - fails)) of $runs logs identical to backend=cpu"
    ((fails == 0 && runs > 0))
  }
  step gstlaunch launch
fi
if has live; then
  # A live 1080p60 pipeline on the GPU for LIVE_SECONDS: RSS sampled, windows
  # and an alert posted, the log rotated every 20 s. Every rotated file must be a
  # complete log, and together they must hold every scored frame once.
  live() {
    local dir="$work/live" seconds=${LIVE_SECONDS:-90}
    mkdir -p "$dir"
    local caps="video/x-raw,format=I420,width=1920,height=1080,framerate=60/1"
    local up="cudaupload ! video/x-raw(memory:CUDAMemory)"
    gst-launch-1.0 -e -m videotestsrc is-live=true pattern=ball ! $caps ! $up ! tee name=t \
      t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink \
      vmafexact name=v frame-message=false window=5s alert="vmaf<101:for=1s" \
        log-location="$dir/live-{index}.json" log-rotate=20s ! fakesink > "$dir/bus.txt" 2>&1 &
    local pid=$! t=0
    while ((t < seconds)); do
      sleep 10; t=$((t + 10))
      echo "rss after $t s: $(awk '/VmRSS/ {print $2}' /proc/$pid/status) KiB"
    done
    kill -INT $pid; wait $pid
    echo "windows posted: $(grep -c 'vmafexact-window' "$dir/bus.txt"), alerts: $(grep -c 'vmafexact-alert' "$dir/bus.txt")"
    grep -o 'vmafexact-summary.*' "$dir/bus.txt" | grep -o 'frames-scored=([a-z0-9]*)[0-9]*\|backend=([a-z]*)"[^"]*"' | head -3
    python3 - "$dir" <<'PY'
import glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/live-*.json"))
frames = 0
for f in files:
    log = json.load(open(f))
    n = len(log["frames"])
    # frame numbers of the whole run, each frame in one file
    assert [fr["frameNum"] for fr in log["frames"]] == list(range(frames, frames + n)), f
    assert "vmaf" in log["pooled_metrics"], f
    frames += n
    print("%s: %d frames, pooled vmaf mean %.6f, backend %s" % (f.split("/")[-1], n, log["pooled_metrics"]["vmaf"]["mean"], log["provenance"]["backend"]))
print("rotated logs: %d files, %d frames in all" % (len(files), frames))
sys.exit(0 if len(files) >= 2 and frames > 0 else 1)
PY
  }
  step live live
fi
rm -rf "$work"
# PACK_LOGS=1: every file under $OUT in one logs.tgz, since the device's reply
# brings back a few files only (at most 8 in 2026-12: the others were left out).
if [[ -n ${PACK_LOGS:-} ]]; then
  tar -czf "$work.logs.tgz" -C "$out" . && find "$out" -mindepth 1 -delete && mv "$work.logs.tgz" "$out/logs.tgz"
fi
exit $status
