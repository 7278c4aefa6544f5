#!/usr/bin/env python3
"""monitor_capacity.py: how many 1080p channels one CPU core, or one GPU,
scores in real time in one vmafexact-monitor (docs/live-monitoring.md,
"Capacity").

Each run starts one vmafexact-monitor with N channels (--config; every channel
its own pipeline, ref and dist from the same media), waits --warmup seconds,
then reads each channel's vmafexact_frames_scored_total,
vmafexact_frames_skipped_late_total and vmafexact_frames_unpaired_total from
/metrics and the monitor's CPU time from /proc at the start and the end of
--seconds, and prints per channel frames per second and, for the whole
process, frames per CPU second (the cost of a channel, whatever else the
machine runs).

  throughput (default): the inputs are files looped for ever (multifilesrc),
    not live: each channel scores as fast as it can. With --cores 0 (one core)
    and one channel, frames per CPU second / 30 (or 60) is how many 1080p30
    (1080p60) channels the core holds.
  --live FPS: the inputs are live (shmsrc is-live=true from a producer
    process, gst-launch-1.0 on --producer-cores, sending the same media at FPS
    in real time), as a station's network inputs are: a channel keeps up when
    it scores FPS frames per second with no pair skipped late or unpaired;
    the run says "sustained" or "NOT sustained".

Inputs (--inputs): raw (the fixture's 4:2:0 frames, decoding excluded) and
h264 (H.264 of the same frames made here with ffmpeg/libx264, decoded in the
channel: avdec_h264 max-threads=1 on the CPU, nvh264dec into CUDA memory with
--backend cuda, so decoding is included).

The media: --make-media writes into --work, from fixture b (1920x1080, 20
frames, looped): frames/ref-NN.yuv and frames/dist-NN.yuv (one raw frame per
file), and ref-30.264, dist-30.264, ref-60.264, dist-60.264.

Examples (the figures of docs/live-monitoring.md):
  tests/bench/monitor_capacity.py --make-media
  tests/bench/monitor_capacity.py --cores 0 --models vmaf_v0.6.1,vmaf_v1.0.16_3d0h --inputs raw,h264
  tests/bench/monitor_capacity.py --cores 0 --live 30 --channels 2 --models vmaf_v0.6.1 --inputs h264
  tests/bench/monitor_capacity.py --backend cuda --cores '' --channels 8,16 --inputs h264
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WIDTH, HEIGHT = 1920, 1080
FRAME_BYTES = WIDTH * HEIGHT * 3 // 2
REF_YUV = "b_1920x1080_420p8_ref.yuv"
DIST_YUV = "b_1920x1080_420p8_dis_x264crf28.yuv"
# H.264 as a station receives it: no B-frames (the live inputs are stamped as
# they arrive), a key frame every 20 frames (the fixture's length, so a loop
# starts on one). Peak bitrates (a buffer of a quarter second, so that they
# hold over the 20 frames) for 30 fps, doubled for 60: a contribution feed and
# a distribution rendition.
ENCODINGS = {"ref": ("18", 25), "dist": ("28", 8)}


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(REPO, "build")),
                        help="meson build directory (tools/vmafexact-monitor, gst/); default build/")
    parser.add_argument("--monitor", help="the vmafexact-monitor program (default BUILD/tools/...)")
    parser.add_argument("--plugin-path", help="GST_PLUGIN_PATH for the plugin (default BUILD/gst)")
    parser.add_argument("--work", default="/tmp/vmafexact-capacity", help="media and run files")
    parser.add_argument("--fixtures", default=os.environ.get(
        "VMAFEXACT_FIXTURE_YUV_DIR",
        os.path.expanduser(os.path.join(os.environ.get("VMAFEXACT_FIXTURE_CACHE",
                                                       "~/.cache/vmafexact/fixtures"), "yuv"))),
                        help="folder of the raw fixtures (b_1920x1080_420p8_*.yuv)")
    parser.add_argument("--make-media", action="store_true", help="encode the H.264 inputs and exit")
    parser.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--models", default="vmaf_v0.6.1", help="comma-separated")
    parser.add_argument("--inputs", default="raw,h264", help="raw, h264 (comma-separated)")
    parser.add_argument("--channels", default="1", help="channel counts to run, comma-separated")
    parser.add_argument("--threads", type=int, default=1, help="the element's threads (CPU)")
    parser.add_argument("--cores", default="0",
                        help="taskset CPU list for the monitor ('' : no pinning); default 0")
    parser.add_argument("--producer-cores", default="1",
                        help="taskset CPU list for the live producer ('' : none); default 1")
    parser.add_argument("--live", type=int, default=0, metavar="FPS",
                        help="live inputs at FPS (30 or 60) instead of files as fast as they go")
    parser.add_argument("--seconds", type=float, default=30, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=8, help="seconds before measuring")
    parser.add_argument("--jsonl", action="store_true",
                        help="also write --jsonl (frame lines), as a station may")
    return parser.parse_args()


def run_quiet(command, **kwargs):
    return subprocess.run(command, check=True, stdout=subprocess.DEVNULL, **kwargs)


def make_media(args):
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.fixtures, REF_YUV)
    if not os.path.exists(source):
        sys.exit(f"monitor_capacity: {source} is missing (the fixture cache: see README, Test fixtures)")
    if not shutil.which("ffmpeg"):
        sys.exit("monitor_capacity: ffmpeg (with libx264) is needed to encode the H.264 inputs")
    frames = os.path.join(args.work, "frames")
    os.makedirs(frames, exist_ok=True)
    for which, name in (("ref", REF_YUV), ("dist", DIST_YUV)):
        with open(os.path.join(args.fixtures, name), "rb") as raw:
            for index in range(20):
                with open(os.path.join(frames, f"{which}-{index:02d}.yuv"), "wb") as frame:
                    frame.write(raw.read(FRAME_BYTES))
    for fps in (30, 60):
        for name, (crf, mbits) in ENCODINGS.items():
            target = os.path.join(args.work, f"{name}-{fps}.264")
            rate = mbits * fps // 30
            run_quiet(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-s", f"{WIDTH}x{HEIGHT}",
                       "-pix_fmt", "yuv420p", "-r", str(fps), "-i", source, "-c:v", "libx264",
                       "-preset", "medium", "-crf", crf, "-maxrate", f"{rate}M", "-bufsize", f"{rate / 4}M",
                       "-bf", "0", "-g", "20", target])
            size = os.path.getsize(target)
            print(f"monitor_capacity: {target}: {size // 20 // 1024} KiB per frame, "
                  f"{size * 8 * fps / 20 / 1e6:.1f} Mbit/s at {fps} fps")


def raw_pattern(args, which):
    """multifilesrc's pattern of the raw frames, one file per frame (a whole
    62 MB file per buffer would cost more in page faults than the scoring)."""
    pattern = os.path.join(args.work, "frames", f"{which}-%02d.yuv")
    if not os.path.exists(pattern % 0):
        sys.exit(f"monitor_capacity: {pattern % 0} is missing: run with --make-media first")
    return pattern


def decoder(args):
    if args.backend == "cuda":
        return "nvh264dec ! video/x-raw(memory:CUDAMemory)"
    return "avdec_h264 max-threads=1"


def upload(args):
    return " ! cudaupload ! video/x-raw(memory:CUDAMemory)" if args.backend == "cuda" else ""


def file_branch(args, kind, which, fps):
    """An input read from a file for ever, as fast as it goes."""
    if kind == "raw":
        return (f"multifilesrc location={raw_pattern(args, which)} stop-index=19 loop=true ! rawvideoparse width={WIDTH} height={HEIGHT} "
                f"format=i420 framerate={fps}/1{upload(args)}")
    path = os.path.join(args.work, f"{which}-{fps}.264")
    return (f"multifilesrc location={path} loop=true caps=video/x-h264,stream-format=byte-stream "
            f"! h264parse ! {decoder(args)}")


def socket_path(args, kind, which):
    return os.path.join(args.work, f"live-{kind}-{which}.sock")


def live_branch(args, kind, which, fps):
    """An input from the producer's shared memory: live, stamped as it comes."""
    if kind == "raw":
        caps = f"video/x-raw,format=I420,width={WIDTH},height={HEIGHT},framerate={fps}/1"
        tail = upload(args)
    else:
        # Fixed caps (libx264 writes High profile): decoders list the profiles
        # they take, which would leave the caps unfixed.
        caps = (f"video/x-h264,stream-format=byte-stream,alignment=au,framerate={fps}/1,"
                f"width={WIDTH},height={HEIGHT},profile=high")
        tail = f" ! h264parse ! {decoder(args)}"
    # The queue takes each frame off the socket as it comes (stamped then), so
    # that a scorer behind real time shows as pairs skipped late (max-lateness
    # 1 s), or, when decoding is what falls behind, as fewer frames scored
    # than sent: the queue fills, then the socket, then the producer waits.
    return (f"shmsrc socket-path={socket_path(args, kind, which)} is-live=true do-timestamp=true "
            f"! {caps} ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=1500000000{tail}")


def producer_command(args, kind, fps, channels):
    parts = []
    for which in ("ref", "dist"):
        if kind == "raw":
            source = (f"multifilesrc location={raw_pattern(args, which)} stop-index=19 loop=true ! rawvideoparse width={WIDTH} "
                      f"height={HEIGHT} format=i420 framerate={fps}/1")
            # Room for every channel's queue (1.5 s) and the frames in flight.
            shm_size = channels * (2 * fps + 16) * FRAME_BYTES
        else:
            path = os.path.join(args.work, f"{which}-{fps}.264")
            source = (f"multifilesrc location={path} loop=true caps=video/x-h264,stream-format=byte-stream "
                      f"! h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au")
            shm_size = channels * (2 * fps + 16) * (192 << 10)
        socket = socket_path(args, kind, which)
        if os.path.exists(socket):
            os.unlink(socket)
        parts.append(f"{source} ! shmsink socket-path={socket} shm-size={shm_size} "
                     "wait-for-connection=false sync=true")
    command = ["gst-launch-1.0", "-q"] + " ".join(parts).split()
    return pinned(args.producer_cores, command)


def pinned(cores, command):
    return ["taskset", "-c", cores] + command if cores else command


def write_config(args, path, kind, model, channels, fps):
    branch = live_branch if args.live else file_branch
    element = f"vmafexact name=v"
    with open(path, "w") as config:
        config.write("[monitor]\n")
        if args.jsonl:
            config.write(f"jsonl={os.path.join(args.work, 'capacity.jsonl')}\n")
        config.write(f"property.model={model}\nproperty.backend={args.backend}\n")
        if args.backend == "cpu":
            config.write(f"property.threads={args.threads}\n")
        for index in range(channels):
            description = (f"{branch(args, kind, 'ref', fps)} ! v.ref_sink "
                           f"{branch(args, kind, 'dist', fps)} ! v.dist_sink {element} ! fakesink sync=false")
            config.write(f"\n[channel c{index + 1}]\npipeline={description}\n")


SAMPLE = re.compile(r'^(vmafexact_[a-z_]+?)(?:_total)?(?:\{([^}]*)\})? (\S+)')


def scrape(url):
    """{(family without _total, channel, input): value} for the counters used here."""
    request = urllib.request.Request(url, headers={"Accept": "text/plain"})
    # A monitor whose host is saturated answers late: a scrape that times out
    # is a finding, not a crash of the bench.
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        match = SAMPLE.match(line)
        if not match:
            continue
        family, labels, value = match.groups()
        if family not in ("vmafexact_frames_scored", "vmafexact_frames_skipped_late",
                          "vmafexact_frames_unpaired"):
            continue
        label = dict(re.findall(r'(\w+)="([^"]*)"', labels or ""))
        key = (family, label.get("channel", "main"), label.get("input", ""))
        values[key] = values.get(key, 0.0) + float(value)
    return values


def cpu_seconds(pid):
    """User and system time of the process and its threads, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_channel(values, family):
    result = {}
    for (name, channel, _), value in values.items():
        if name == family:
            result[channel] = result.get(channel, 0.0) + value
    return result


def one_run(args, kind, model, channels):
    fps = args.live or 30
    work = args.work
    config = os.path.join(work, "capacity.conf")
    write_config(args, config, kind, model, channels, fps)
    env = dict(os.environ)
    env["GST_PLUGIN_PATH"] = args.plugin_path + (":" + env["GST_PLUGIN_PATH"] if env.get("GST_PLUGIN_PATH") else "")
    log_path = os.path.join(work, "capacity-monitor.log")
    producer = None
    if args.live:
        producer = subprocess.Popen(producer_command(args, kind, fps, channels), env=env,
                                    stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "capacity-producer.log"), "w"))
        for _ in range(100):
            if all(os.path.exists(socket_path(args, kind, w)) for w in ("ref", "dist")):
                break
            if producer.poll() is not None:
                sys.exit(f"monitor_capacity: the producer ended: see {work}/capacity-producer.log")
            time.sleep(0.1)
    with open(log_path, "w") as log:
        monitor = subprocess.Popen(pinned(args.cores, [args.monitor, "--config", config, "--listen", "127.0.0.1:0"]),
                                   env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = None
        for _ in range(200):
            with open(log_path) as log:
                match = re.search(r"serving (http://\S+/metrics)", log.read())
            if match:
                url = match.group(1)
                break
            if monitor.poll() is not None:
                break
            time.sleep(0.05)
        if not url:
            with open(log_path) as log:
                sys.exit(f"monitor_capacity: the monitor did not start:\n{log.read()[-3000:]}")
        time.sleep(args.warmup)
        load_before = os.getloadavg()[0]
        try:
            before, cpu_before, t_before = scrape(url), cpu_seconds(monitor.pid), time.monotonic()
            time.sleep(args.seconds)
            after, cpu_after, t_after = scrape(url), cpu_seconds(monitor.pid), time.monotonic()
        except OSError as error:
            state = ("still running" if monitor.poll() is None
                     else f"the monitor ended with status {monitor.returncode}")
            print(f"monitor_capacity: {channels} channels: /metrics did not answer ({error}); "
                  f"{state}; see {log_path}", flush=True)
            return []
        load_after = os.getloadavg()[0]
        if monitor.poll() is not None:
            sys.exit(f"monitor_capacity: the monitor ended during the run: see {log_path}")
    finally:
        if monitor.poll() is None:
            monitor.send_signal(signal.SIGINT)
            try:
                monitor.wait(timeout=30)
            except subprocess.TimeoutExpired:
                monitor.kill()
                monitor.wait()
        if producer:
            producer.terminate()
            producer.wait()
    elapsed, cpu = t_after - t_before, cpu_after - cpu_before
    delta = {}
    for family in ("vmafexact_frames_scored", "vmafexact_frames_skipped_late", "vmafexact_frames_unpaired"):
        first, last = per_channel(before, family), per_channel(after, family)
        delta[family] = {c: last[c] - first.get(c, 0.0) for c in last}
    scored = delta["vmafexact_frames_scored"]
    skipped = sum(delta["vmafexact_frames_skipped_late"].values())
    unpaired = sum(delta["vmafexact_frames_unpaired"].values())
    rates = [scored[c] / elapsed for c in sorted(scored)]
    total = sum(scored.values())
    per_cpu_second = total / cpu if cpu > 0 else float("nan")
    mode = f"live {fps} fps" if args.live else "not live"
    head = (f"{args.backend} {model} {kind} {channels} channel{'s' if channels > 1 else ''} {mode}"
            f" ({elapsed:.0f} s, cores {args.cores or 'all'})")
    rates_text = " ".join(f"{r:.1f}" for r in rates)
    summary = (f"{head}: {total / elapsed:.1f} fps in all (per channel {rates_text}), "
               f"{per_cpu_second:.1f} frames per CPU second, the monitor at {100 * cpu / elapsed:.0f} % of a core, "
               f"skipped late {skipped:.0f}, unpaired {unpaired:.0f}; load {load_before:.2f}/{load_after:.2f}")
    if args.live:
        kept_up = len(rates) == channels and min(rates) >= 0.98 * fps and skipped == 0 and unpaired == 0
        summary += ": " + ("sustained" if kept_up else "NOT sustained")
    elif args.backend == "cpu":
        summary += (f"; by CPU time 1080p30 channels per core: {int(per_cpu_second // 30)}, "
                    f"1080p60: {int(per_cpu_second // 60)}")
    else:
        summary += (f"; by throughput 1080p30 channels: {int(total / elapsed // 30)}, "
                    f"1080p60: {int(total / elapsed // 60)}")
    print(f"monitor_capacity: {summary}", flush=True)
    return rates


def main():
    args = parse_arguments()
    if args.make_media:
        make_media(args)
        return
    args.monitor = args.monitor or os.path.join(args.build, "tools", "vmafexact-monitor")
    args.plugin_path = args.plugin_path or os.path.join(args.build, "gst")
    if not os.access(args.monitor, os.X_OK):
        sys.exit(f"monitor_capacity: {args.monitor} is missing: build it (meson compile -C BUILD vmafexact-monitor)")
    os.makedirs(args.work, exist_ok=True)
    inputs = [i for i in args.inputs.split(",") if i]
    fps = args.live or 30
    if "h264" in inputs and not os.path.exists(os.path.join(args.work, f"ref-{fps}.264")):
        sys.exit(f"monitor_capacity: {args.work}/ref-{fps}.264 is missing: run with --make-media first")
    with open("/proc/cpuinfo") as cpuinfo:
        model_name = next((l.split(":", 1)[1].strip() for l in cpuinfo if l.startswith("model name")), "?")
    print(f"monitor_capacity: {os.cpu_count()} CPUs ({model_name}), load {os.getloadavg()[0]:.2f}", flush=True)
    for model in args.models.split(","):
        for kind in inputs:
            for channels in map(int, args.channels.split(",")):
                one_run(args, kind, model, channels)


if __name__ == "__main__":
    main()
