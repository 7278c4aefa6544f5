#!/usr/bin/env bash
# soak-monitor.sh: a station soak (docs/reliability.md, "Soak: a station of four
# channels"). One vmafexact-monitor scores CHANNELS live channels (--config) for
# DURATION seconds while a real Prometheus (Debian's `prometheus`, on its own
# port and temporary storage) scrapes it every second. Every SAMPLE seconds the
# monitor's resident size, open descriptors and threads are read from /proc
# (and the machine's load average). At the end it prints:
#   - RSS, descriptors and threads: first (after WARMUP), last, largest;
#   - scrapes: how many, how many failed (up == 0, through PromQL), the longest
#     scrape_duration_seconds, counter resets;
#   - per channel: vmafexact_frames_scored_total (Prometheus' last sample and
#     the summary's count) against the channel's JSONL frame lines and against
#     the frames the live source sent (duration x fps), skipped-late counted.
# Exit status 0 when all is flat and counted, 1 when not (the reasons printed),
# 2 when it could not run.
#
# Each channel: videotestsrc is-live=true (a moving ball, one motion per
# channel) teed into both inputs, the distorted branch through videobalance;
# the default model, 10 s windows, an alert, frame messages into --jsonl.
#
# Usage: scripts/soak-monitor.sh   (long runs: nohup scripts/soak-monitor.sh > /tmp/soak.log 2>&1 &)
# Environment:
#   DURATION   seconds of scoring (default 3600)
#   CHANNELS   channels (default 4)
#   SIZE, FPS  each channel's frames (default 640x360, 25)
#   MODEL      the element's model (default vmaf_v0.6.1)
#   SAMPLE     seconds between /proc samples (default 10)
#   WARMUP     seconds before the "first" sample of the flatness check (default 300,
#              a fifth of shorter runs than 20 minutes): a live element keeps the
#              summary's percentiles exact for its first 4,096 frames (164 s at 25 fps),
#              then in a bounded histogram
#   RSS_SLACK  KiB the resident size may rise above its first sample (default 4096)
#   FD_SLACK, THREAD_SLACK  the same for descriptors and threads (default 2, 0)
#   BUILD_DIR  meson build directory (default <repo>/build)
#   OUTDIR     where the config, JSONL, samples and Prometheus' data go
#              (default: a new /tmp/soak-monitor.XXXXXX; Prometheus' data is removed at the end)
set -euo pipefail
duration=${DURATION:-3600} channels=${CHANNELS:-4} size=${SIZE:-640x360} fps=${FPS:-25}
model=${MODEL:-vmaf_v0.6.1} sample=${SAMPLE:-10}
warmup=${WARMUP:-$((duration >= 1200 ? 300 : duration / 5))}
rss_slack=${RSS_SLACK:-4096} fd_slack=${FD_SLACK:-2} thread_slack=${THREAD_SLACK:-0}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$repo/build}"
monitor="$build_dir/tools/vmafexact-monitor"
export GST_PLUGIN_PATH="$build_dir/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
out=${OUTDIR:-$(mktemp -d /tmp/soak-monitor.XXXXXX)}
mkdir -p "$out"
die() { echo "soak-monitor: $*" >&2; exit 2; }
[[ -x $monitor ]] || die "$monitor is missing: build it (meson compile -C $build_dir vmafexact-monitor)"
command -v prometheus >/dev/null || die "prometheus is missing: apt-get install -y prometheus"
command -v curl >/dev/null || die "curl is missing: apt-get install -y curl"
command -v python3 >/dev/null || die "python3 is missing"

width=${size%x*} height=${size#*x}
caps="video/x-raw,format=I420,width=$width,height=$height,framerate=$fps/1"
queue="queue max-size-buffers=4 max-size-bytes=0 max-size-time=0"
motions=(wavy sweep hsweep wavy)
{
  echo "[monitor]"
  echo "jsonl=$out/station.jsonl"
  echo "property.model=$model"
  echo "property.threads=1"
  echo "property.window=10s"
  echo "property.window-step=10s"
  echo "property.alert=vmaf<20:for=2s"
  for ((i = 1; i <= channels; i++)); do
    echo
    echo "[channel soak-$i]"
    echo "pipeline=videotestsrc is-live=true pattern=ball motion=${motions[(i - 1) % 4]}" \
         "! $caps ! tee name=t t. ! $queue ! v.ref_sink" \
         "t. ! $queue ! videobalance brightness=0.0$i ! v.dist_sink" \
         "vmafexact name=v ! fakesink sync=false"
  done
} > "$out/station.conf"

monitor_pid="" prometheus_pid=""
cleanup() {
  [[ -n $monitor_pid ]] && kill -INT "$monitor_pid" 2>/dev/null || true
  [[ -n $prometheus_pid ]] && kill "$prometheus_pid" 2>/dev/null || true
}
trap cleanup EXIT

start=$SECONDS
"$monitor" --config "$out/station.conf" --listen 127.0.0.1:0 --eos-timeout 30 \
  > "$out/monitor.log" 2>&1 &
monitor_pid=$!
port=""
for _ in $(seq 100); do
  port=$(grep -o 'serving http://127.0.0.1:[0-9]*' "$out/monitor.log" | head -1 | sed 's/.*://') || true
  [[ -n $port ]] && break
  kill -0 "$monitor_pid" 2>/dev/null || { cat "$out/monitor.log" >&2; die "the monitor ended at start"; }
  sleep 0.1
done
[[ -n $port ]] || die "the monitor printed no address in 10 s (see $out/monitor.log)"

# Prometheus on a free port of its own, its data in OUTDIR.
prometheus_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$out/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: vmafexact
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/tsdb" \
  --web.listen-address="127.0.0.1:$prometheus_port" --storage.tsdb.retention.time=1d \
  > "$out/prometheus.log" 2>&1 &
prometheus_pid=$!
api="http://127.0.0.1:$prometheus_port"
for _ in $(seq 100); do
  curl -sf "$api/-/ready" >/dev/null 2>&1 && break
  kill -0 "$prometheus_pid" 2>/dev/null || { tail "$out/prometheus.log" >&2; die "prometheus ended at start"; }
  sleep 0.2
done
curl -sf "$api/-/ready" >/dev/null || die "prometheus not ready in 20 s (see $out/prometheus.log)"
prometheus_ready=$(date +%s.%N)
echo "soak-monitor: $channels channels of ${size}@${fps} ($model), monitor pid $monitor_pid on :$port," \
     "Prometheus on :$prometheus_port scraping every 1 s, $duration s; output in $out"

# seconds rss_kib fds threads load1
: > "$out/samples.txt"
take_sample() {
  local rss threads fds load
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$monitor_pid/status" 2>/dev/null) || return 1
  threads=$(awk '/^Threads/ {print $2}' "/proc/$monitor_pid/status" 2>/dev/null) || return 1
  fds=$(ls "/proc/$monitor_pid/fd" 2>/dev/null | wc -l)
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "$((SECONDS - start)) $rss $fds $threads $load" | tee -a "$out/samples.txt"
}
while ((SECONDS - start < duration)); do
  kill -0 "$monitor_pid" 2>/dev/null || break
  take_sample || break
  left=$((duration - (SECONDS - start)))
  ((left > 0)) && sleep "$((sample < left ? sample : left))"
done
monitor_alive=0
kill -0 "$monitor_pid" 2>/dev/null && monitor_alive=1 && take_sample || true
wall=$((SECONDS - start))

# PromQL over the run, all at one instant, while the monitor still runs.
sleep 2
at=$(date +%s.%N)
query() { curl -sf --get "$api/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$at"; }
range="$(python3 -c "print(int($at - $prometheus_ready))")s"
up="up{job=\"vmafexact\"}"
{
  echo "scrapes $(query "count_over_time($up[$range])")"
  echo "failed $(query "count_over_time($up[$range]) - sum_over_time($up[$range])")"
  echo "duration_max $(query "max_over_time(scrape_duration_seconds{job=\"vmafexact\"}[$range])")"
  echo "scored $(query "vmafexact_frames_scored_total")"
  echo "scored_at $(query "timestamp(vmafexact_frames_scored_total)")"
  echo "resets $(query "resets(vmafexact_frames_scored_total[$range])")"
  echo "restarts $(query "sum by (channel) (vmafexact_channel_restarts_total)")"
} > "$out/promql.txt"

# Stop: SIGINT sends EOS, the summaries are written, the monitor exits.
kill -INT "$monitor_pid" 2>/dev/null || true
ran=$((SECONDS - start))
echo "$ran ${range%s}" > "$out/ran.txt"
monitor_status=0
wait "$monitor_pid" || monitor_status=$?
monitor_pid=""
kill "$prometheus_pid" 2>/dev/null || true
wait "$prometheus_pid" 2>/dev/null || true
prometheus_pid=""
rm -rf "$out/tsdb"

python3 - "$out" "$ran" "${range%s}" "$warmup" "$fps" "$channels" "$rss_slack" "$fd_slack" \
  "$thread_slack" "$monitor_alive" "$monitor_status" <<'PY'
import datetime, json, sys
out = sys.argv[1]
ran, prometheus_range, warmup, fps, channels, rss_slack, fd_slack, thread_slack, alive, status = map(int, sys.argv[2:])
problems = []
if not alive:
    problems.append("the monitor ended before the run did (see monitor.log)")
if status != 0:
    problems.append(f"the monitor exited with status {status} after SIGINT")

# /proc samples: seconds rss_kib fds threads load1
samples = [list(map(float, line.split())) for line in open(f"{out}/samples.txt") if line.strip()]
steady = [s for s in samples if s[0] >= warmup] or samples[-1:]
if not steady:
    problems.append("no sample taken")
else:
    for column, name, unit, slack in ((1, "RSS", " KiB", rss_slack), (2, "descriptors", "", fd_slack),
                                      (3, "threads", "", thread_slack)):
        values = [int(s[column]) for s in steady]
        first, last, largest = values[0], values[-1], max(values)
        print(f"{name}: first {first}{unit} (at {int(steady[0][0])} s), last {last}{unit}, "
              f"largest {largest}{unit} ({largest - first:+d}), smallest {min(values)}{unit}; "
              f"at start {int(samples[0][column])}{unit}")
        if largest > first + slack:
            problems.append(f"{name} not flat: largest {largest} > first {first} + {slack}")
    loads = [s[4] for s in samples]
    print(f"load average (1 min) over the run: {min(loads):.2f} to {max(loads):.2f}, "
          f"mean {sum(loads) / len(loads):.2f} ({len(samples)} samples)")

promql = {}
for line in open(f"{out}/promql.txt"):
    key, _, text = line.partition(" ")
    try:
        promql[key] = json.loads(text)["data"]["result"]
    except (ValueError, KeyError, TypeError):
        promql[key] = None
        problems.append(f"PromQL {key} gave no answer")
def scalar(key):
    result = promql.get(key)
    return float(result[0]["value"][1]) if result else None
def by_channel(key, field=1):
    return {r["metric"].get("channel", "?"): float(r["value"][field]) for r in promql.get(key) or []}
scrapes, failed, longest = scalar("scrapes"), scalar("failed"), scalar("duration_max")
if scrapes is not None and failed is not None:
    print(f"scrapes: {int(scrapes)} in the {prometheus_range} s since Prometheus was ready, "
          f"failed (up == 0) {int(failed)}, longest scrape {longest * 1000:.1f} ms")
    if failed:
        problems.append(f"{int(failed)} scrapes failed")
    # Prometheus' first scrape comes a few seconds after it is ready.
    if scrapes < 0.95 * (prometheus_range - 5):
        problems.append(f"only {int(scrapes)} scrapes in {prometheus_range} s")
resets = by_channel("resets")
restarts = by_channel("restarts")
if any(resets.values()):
    problems.append(f"frames_scored_total went down: {resets}")

# Prometheus' last sample of each channel's counter, and when it was taken.
prometheus_scored = by_channel("scored")
scored_at = {r["metric"].get("channel", "?"): float(r["value"][1]) for r in promql.get("scored_at") or []}

def epoch(wallclock):
    # "2026-12-06T15:13:50.123456Z", or without the fraction when it is 0.
    seconds, _, fraction = wallclock.rstrip("Z").partition(".")
    whole = datetime.datetime.strptime(seconds, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc).timestamp()
    return whole + (float("0." + fraction) if fraction else 0.0)

lines, lines_by_scrape, first_running_time, last_running_time, summaries = {}, {}, {}, {}, {}
with open(f"{out}/station.jsonl") as jsonl:
    for text in jsonl:
        try:
            line = json.loads(text)
        except ValueError:
            problems.append("a JSONL line that is not JSON")
            continue
        channel = line.get("channel", "?")
        if line.get("message") == "vmafexact-frame":
            lines[channel] = lines.get(channel, 0) + 1
            if channel in scored_at and epoch(line["wallclock"]) <= scored_at[channel]:
                lines_by_scrape[channel] = lines_by_scrape.get(channel, 0) + 1
            first_running_time.setdefault(channel, line["fields"].get("running-time"))
            last_running_time[channel] = line["fields"].get("running-time")
        elif line.get("message") == "vmafexact-summary":
            summaries[channel] = line["fields"]
names = sorted(set(lines) | set(summaries) | set(prometheus_scored))
if len(names) != channels:
    problems.append(f"{len(names)} channels seen, {channels} configured: {names}")
sent_wall = ran * fps
print(f"frames per channel: the monitor ran {ran} s, its live sources at {fps} fps (about {sent_wall} frames)")
for name in names:
    summary = summaries.get(name, {})
    scored = summary.get("frames-scored")
    skipped = summary.get("frames-skipped-late", 0)
    unpaired = summary.get("frames-unpaired", 0)
    prom = prometheus_scored.get(name)
    jsonl_frames = lines.get(name, 0)
    at_scrape = lines_by_scrape.get(name, 0)
    first, last = first_running_time.get(name), last_running_time.get(name)
    # Pairs the source sent from the first scored frame to the last (a live
    # source's first frame comes at the running time it started).
    sent = round((last - first) * fps / 1e9) + 1 if first is not None and last is not None else None
    print(f"  {name}: summary {scored} scored, {skipped} skipped late, {unpaired} unpaired, "
          f"{int(restarts.get(name, 0))} restarts; JSONL frame lines {jsonl_frames}; "
          f"Prometheus' last sample {None if prom is None else int(prom)} = JSONL lines by then {at_scrape}; "
          f"scored + skipped {None if scored is None else scored + skipped} of {sent} sent between the "
          f"first and the last scored frame, {0 if scored is None else 100.0 * (scored + skipped) / sent_wall:.2f} % "
          f"of {ran} s x {fps} fps")
    if scored is None:
        problems.append(f"{name}: no summary in the JSONL")
        continue
    if jsonl_frames != scored:
        problems.append(f"{name}: {jsonl_frames} JSONL frame lines, summary says {scored} scored")
    # A scrape and the message being taken may cross by a frame or two.
    if prom is None or abs(prom - at_scrape) > 2:
        problems.append(f"{name}: Prometheus' frames_scored_total {prom} against {at_scrape} JSONL lines by then")
    if sent is not None and abs(scored + skipped - sent) > 2:
        problems.append(f"{name}: {scored + skipped} scored or skipped, {sent} sent from the first scored frame to the last")
    # The pipelines start (and the last frames end) within a few seconds of the process.
    if scored + skipped < sent_wall - 5 * fps:
        problems.append(f"{name}: {scored + skipped} frames scored or skipped, about {sent_wall} sent")
    if restarts.get(name, 0):
        problems.append(f"{name}: restarted {int(restarts[name])} times")

if problems:
    print("soak-monitor: FAILED:")
    for problem in problems:
        print(f"  - {problem}")
    sys.exit(1)
print("soak-monitor: passed: flat, every scrape answered, every frame counted")
PY
