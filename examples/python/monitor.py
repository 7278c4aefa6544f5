#!/usr/bin/python3
"""Watches a live channel with vmafexact from Python: rolling windows and alerts.

    monitor.py --ref URI --dist URI [OPTIONS]
    monitor.py --pipeline "DESCRIPTION with vmafexact name=v" [OPTIONS]

Runs the pipeline with vmafexact's window, window-step, alert and
input-timeout properties set, and prints one JSON line per vmafexact-window and
vmafexact-alert message (with --frames also per vmafexact-frame), as
{"message": NAME, "fields": {...}} (docs/python.md), each flushed at once.
Alert changes are also printed on stderr. SIGINT (Ctrl-C) or SIGTERM sends end
of stream into the pipeline: the element posts the last, partial window and its
summary, printed as the last line, and the program exits 0; a second signal, or
no end of stream within --eos-timeout seconds, stops at once (status 1).

--ref/--dist take anything uridecodebin opens (file paths, file://, rtsp://,
srt://, udp://, ...); each input's video goes through queue ! videoconvert into
vmafexact. A small example of embedding vmafexact in Python; the full station
(OpenMetrics for Prometheus) is vmafexact-monitor (docs/live-monitoring.md).

Exit status: 0 ended with the summary, 1 the pipeline failed or stopped without
the summary, 2 a malformed command line.
"""

import argparse
import os
import sys

import vmafexact_run  # first: it checks that PyGObject and GStreamer's typelibs are there

from gi.repository import GLib, Gst  # noqa: E402

import vmafexact_messages  # noqa: E402

PROGRAM = "monitor.py"


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Run a live vmafexact pipeline and print its window and alert messages "
        "as JSON lines; Ctrl-C ends it with the summary.",
        epilog="Example: GST_PLUGIN_PATH=$PWD/build/gst examples/python/monitor.py --ref "
        "srt://feed:9000 --dist udp://239.1.1.1:5000 --window 10s --alert 'vmaf<60:for=2s'. "
        "Exit status: 0 ended with the summary, 1 failed or stopped without it, 2 bad "
        "command line.",
    )
    inputs = parser.add_argument_group("inputs (either --ref and --dist, or --pipeline)")
    inputs.add_argument("--ref", metavar="URI", help="the reference: a URI or a file path")
    inputs.add_argument("--dist", metavar="URI", help="the distorted input: a URI or a file path")
    inputs.add_argument(
        "--pipeline",
        metavar="DESCRIPTION",
        help="a gst-launch-1.0 description with a vmafexact element named v, instead",
    )
    parser.add_argument(
        "--window",
        default="10s",
        help="vmafexact's window: a duration (10s, 500ms) or frames (300f); default 10s",
    )
    parser.add_argument(
        "--window-step", help="vmafexact's window-step (default: the window, tumbling windows)"
    )
    parser.add_argument(
        "--alert", help="vmafexact's alert, e.g. 'vmaf<60:for=2s:clear=65;psnr_y<30'"
    )
    parser.add_argument(
        "--input-timeout", help="vmafexact's input-timeout: alert when an input stalls (2s)"
    )
    parser.add_argument(
        "--set",
        dest="properties",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set any vmafexact property, as gst-launch-1.0 reads it (repeatable), e.g. "
        "--set latency=300000000",
    )
    parser.add_argument(
        "--frames", action="store_true", help="also print every vmafexact-frame message"
    )
    parser.add_argument(
        "--eos-timeout",
        type=float,
        default=10,
        metavar="SECONDS",
        help="after SIGINT/SIGTERM, how long to wait for the end of stream (default 10; 0: "
        "forever)",
    )
    options = parser.parse_args(argv)
    if options.pipeline and (options.ref or options.dist):
        parser.error("give either --ref and --dist, or --pipeline, not both")
    if not options.pipeline and not (options.ref and options.dist):
        parser.error("give --ref URI and --dist URI, or --pipeline DESCRIPTION")
    if options.eos_timeout < 0:
        parser.error("--eos-timeout takes a number of seconds, 0 or more")
    return options


def uri_of(text):
    """A URI as given, or a file path made into one."""
    if Gst.uri_is_valid(text):
        return text
    return Gst.filename_to_uri(os.path.abspath(text))


def build_pipeline(options):
    if options.pipeline:
        description = options.pipeline
    else:
        description = " ".join(
            f"uridecodebin uri={vmafexact_run.quote(uri_of(uri))} ! queue ! videoconvert "
            f"! v.{pad}"
            for uri, pad in ((options.ref, "ref_sink"), (options.dist, "dist_sink"))
        )
        description += " vmafexact name=v ! fakesink sync=false"
    try:
        pipeline = Gst.parse_launch(description)
    except GLib.Error as error:
        sys.stderr.write(f"{PROGRAM}: the pipeline does not parse: {error.message}\n")
        sys.exit(vmafexact_run.EXIT_USAGE)
    element = pipeline.get_by_name("v") if isinstance(pipeline, Gst.Bin) else None
    if element is None or element.get_factory().get_name() != "vmafexact":
        sys.stderr.write(f"{PROGRAM}: --pipeline needs a vmafexact element named v\n")
        sys.exit(vmafexact_run.EXIT_USAGE)
    return pipeline, element


def main(argv):
    options = parse_arguments(argv)
    Gst.init(None)
    vmafexact_run.check_element(PROGRAM)
    pipeline, element = build_pipeline(options)

    assignments = [f"window={options.window}"]
    for name in ("window_step", "alert", "input_timeout"):
        value = getattr(options, name)
        if value is not None:
            assignments.append(f"{name.replace('_', '-')}={value}")
    for assignment in assignments + options.properties:
        try:
            vmafexact_run.set_property(element, assignment)
        except ValueError as error:
            sys.stderr.write(f"{PROGRAM}: {error}\n")
            return vmafexact_run.EXIT_USAGE

    wanted = {"vmafexact-window", "vmafexact-alert", "vmafexact-summary"}
    if options.frames:
        wanted.add("vmafexact-frame")
    ended = []

    def on_entry(entry):
        name, fields = entry["message"], entry["fields"]
        if name == "vmafexact-alert":
            detail = f" ({fields['input']})" if "input" in fields else ""
            sys.stderr.write(f"alert {fields.get('alert')}{detail} {fields.get('state')}\n")
        if name == "vmafexact-summary":
            ended.append(True)
        if name in wanted:
            print(vmafexact_messages.dumps(entry), flush=True)

    runner = vmafexact_run.Runner(PROGRAM, pipeline, on_entry, eos_timeout=options.eos_timeout)
    status = runner.run()
    if status == vmafexact_run.EXIT_OK and not ended:
        sys.stderr.write(f"{PROGRAM}: the pipeline ended without a summary.\n")
        status = vmafexact_run.EXIT_FAILED
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
