#!/usr/bin/env bash
# nvdec-media.sh DIR: encodes the small test media of the NVDEC path (issue 44)
# and of the end-to-end bench (tests/bench/e2e_bench.sh) with ffmpeg (libx264,
# libx265; libvpx-vp9 and libsvtav1 when present) from ffmpeg's testsrc2, a
# moving synthetic picture, so that a GPU machine without an encoder gets them
# carried (scripts/device-bundle.sh MEDIA=DIR). Never committed: DIR lies
# outside the repository or is git-ignored.
#
#   parity (the nvdec helper's tests, VMAFEXACT_NVDEC_MEDIA=DIR):
#     h264_1080_ref.mp4  h264_1080_dist.mp4   1920x1080 8-bit 4:2:0 High, 48 frames
#     h264_720_dist.mp4                       the same content at 1280x720 (scaled case)
#     hevc10_1080_ref.mkv hevc10_1080_dist.mkv HEVC Main10 (yuv420p10le), 24 frames
#     vp9_1080_ref.webm vp9_1080_dist.webm     VP9 8-bit, 24 frames (when libvpx-vp9 is there)
#     av1_1080_ref.mkv av1_1080_dist.mkv       AV1 8-bit, 24 frames (when libsvtav1 is there)
#   bench (BENCH=0 leaves them out):
#     h264_1080_{ref,dist}_long.mp4  hevc_1080_{ref,dist}_long.mkv    600 frames (BENCH_FRAMES_1080)
#     h264_2160_{ref,dist}_long.mp4  hevc_2160_{ref,dist}_long.mkv    240 frames (BENCH_FRAMES_2160)
#     (HEVC bench pairs are 8-bit Main, as the H.264 ones.)
# Every reference is encoded at a bitrate well above its distorted copy's; the
# bitrates are low (the device's carry is 64 MiB for everything), so decoders run
# faster than on broadcast bitrates (docs/benchmarks.md says so beside the
# figures). x264 uses -preset veryfast, not ultrafast: ultrafast turns CABAC, B
# frames and the deblocking filter off, which no real stream does, and would
# flatter both decoders. Encoder threads are pinned so that a rerun gives the
# same bytes with the same ffmpeg build. Files already there are kept (FORCE=1
# remakes them). Prints each file's size and the total.
set -euo pipefail
dir=${1:?usage: nvdec-media.sh DIR}
mkdir -p "$dir"
bench=${BENCH:-1}
frames_1080=${BENCH_FRAMES_1080:-600}
frames_2160=${BENCH_FRAMES_2160:-240}
command -v ffmpeg >/dev/null || { echo "nvdec-media: ffmpeg is missing (apt-get install ffmpeg)" >&2; exit 1; }
encoders=$(ffmpeg -hide_banner -encoders 2>/dev/null)
has_encoder() { grep -q " $1 " <<<"$encoders"; }
for encoder in libx264 libx265; do
  has_encoder "$encoder" || { echo "nvdec-media: ffmpeg has no $encoder (Debian's ffmpeg has it)" >&2; exit 1; }
done

# encode OUT SIZE FRAMES ENCODER-ARGS...: testsrc2 at 24 fps, SIZE, FRAMES frames.
encode() {
  local out=$1 size=$2 frames=$3; shift 3
  if [[ -s "$dir/$out" && -z ${FORCE:-} ]]; then return; fi
  # bitexact: no encoder or muxer version strings or dates that would change the bytes.
  ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=$size:rate=24" \
    -frames:v "$frames" "$@" -fflags +bitexact -flags:v +bitexact -map_metadata -1 \
    "$dir/$out.part.${out##*.}"
  mv "$dir/$out.part.${out##*.}" "$dir/$out"
}
x264() { echo -c:v libx264 -preset veryfast -threads 4 -pix_fmt yuv420p -b:v "$1" -maxrate "$1" -bufsize "$1"; }
x265() { # x265 [BITRATE] [PIXFMT]
  echo -c:v libx265 -preset ultrafast -pix_fmt "${2:-yuv420p}" -b:v "$1" \
    -x265-params "pools=4:frame-threads=2:log-level=error"
}
# shellcheck disable=SC2046  # the encoder arguments are words on purpose
{
  encode h264_1080_ref.mp4 1920x1080 48 $(x264 2500k)
  encode h264_1080_dist.mp4 1920x1080 48 $(x264 300k)
  encode h264_720_dist.mp4 1920x1080 48 -vf scale=1280:720 $(x264 300k)
  encode hevc10_1080_ref.mkv 1920x1080 24 $(x265 2500k yuv420p10le)
  encode hevc10_1080_dist.mkv 1920x1080 24 $(x265 250k yuv420p10le)
  if has_encoder libvpx-vp9; then
    encode vp9_1080_ref.webm 1920x1080 24 -c:v libvpx-vp9 -deadline realtime -cpu-used 8 \
      -threads 4 -row-mt 1 -b:v 2000k
    encode vp9_1080_dist.webm 1920x1080 24 -c:v libvpx-vp9 -deadline realtime -cpu-used 8 \
      -threads 4 -row-mt 1 -b:v 250k
  fi
  if has_encoder libsvtav1; then
    encode av1_1080_ref.mkv 1920x1080 24 -c:v libsvtav1 -preset 12 -b:v 2000k -svtav1-params lp=4
    encode av1_1080_dist.mkv 1920x1080 24 -c:v libsvtav1 -preset 12 -b:v 250k -svtav1-params lp=4
  fi
  if [[ $bench != 0 ]]; then
    encode h264_1080_ref_long.mp4 1920x1080 "$frames_1080" $(x264 1000k)
    encode h264_1080_dist_long.mp4 1920x1080 "$frames_1080" $(x264 250k)
    encode hevc_1080_ref_long.mkv 1920x1080 "$frames_1080" $(x265 1000k)
    encode hevc_1080_dist_long.mkv 1920x1080 "$frames_1080" $(x265 250k)
    encode h264_2160_ref_long.mp4 3840x2160 "$frames_2160" $(x264 2500k)
    encode h264_2160_dist_long.mp4 3840x2160 "$frames_2160" $(x264 500k)
    encode hevc_2160_ref_long.mkv 3840x2160 "$frames_2160" $(x265 2500k)
    encode hevc_2160_dist_long.mkv 3840x2160 "$frames_2160" $(x265 500k)
  fi
}
# Frame counts, for the bench's frames-per-second figures.
for file in "$dir"/*.mp4 "$dir"/*.mkv "$dir"/*.webm; do
  [[ -e "$file" ]] || continue
  [[ -s "$file.frames" && "$file.frames" -nt "$file" ]] && continue
  ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets \
    -of csv=p=0 "$file" > "$file.frames"
done
du -b "$dir"/*.mp4 "$dir"/*.mkv "$dir"/*.webm 2>/dev/null | awk '{printf "%9d %s\n", $1, $2; t += $1} END {printf "%9d total (%.1f MiB)\n", t, t / 1048576}'
