#!/usr/bin/env bash
# device-check.sh: run on the GPU machine from the repository root, in the
# bundle scripts/device-bundle.sh made (its folder is this script's). Runs the
# twin harness's device checks, the CUDA parity and pipeline suites, the benches
# and a literal gst-launch comparison of every VMAF v1 model on CUDA memory
# against backend=cpu. CHECKS="twins parity pipeline bench gst launch" picks.
set -uo pipefail
bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$bundle/out}"
mkdir -p "$out"
checks="${CHECKS:-twins parity pipeline bench gst launch}"
bin="$bundle/bin"
work="$(mktemp -d)"
tar -C "$work" -xJf "$bundle/fx.tar.xz"
export VMAFEXACT_SHARED_DIR="$work/fx/shared" VMAFEXACT_FIXTURE_YUV_DIR="$work/fx/yuv"
if [[ -f .devicegst/env.sh ]]; then
  # shellcheck disable=SC1091
  . .devicegst/env.sh
fi
export GST_PLUGIN_PATH="$bundle/gst"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
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
has twins && step checktwins "$bin/vmafexact-checktwins" --isa cuda_device
has parity && step parity "$bin/cuda-parity-tests"
has pipeline && step pipeline "$bin/cuda-pipeline-tests"
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
rm -rf "$work"
exit $status
