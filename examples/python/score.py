#!/usr/bin/python3
"""Scores a distorted video file against its reference with vmafexact, from Python.

    score.py REF DIST [--model LIST] [--features LIST] [--set NAME=VALUE]...
                      [--format NAME] [--json FILE] [--log FILE] [--summary-only]

Both files are decoded by decodebin (anything GStreamer reads: mkv, mp4, y4m,
...). The distorted video is scaled (videoscale) and converted (videoconvert)
to the reference's size and to one sample format, the reference's when
vmafexact takes it (--format to choose). Prints one JSON line per
vmafexact-frame message and one for the vmafexact-summary, as
{"message": NAME, "fields": {...}} (docs/python.md); --json also writes them
to a file as one JSON document {"frames": [...], "summary": {...}}.

A small example of embedding vmafexact in Python: for raw .yuv files, frame
rate changes, delays and plots, the vmafexact command-line tool is the full one
(docs/tool.md). Needs python3-gi and gir1.2-gst-plugins-base-1.0 (Debian 12),
and the plugin on GStreamer's path (GST_PLUGIN_PATH=$PWD/build/gst).

Exit status: 0 scored, 1 the pipeline failed (an input that cannot be read,
an element error) or nothing was scored, 2 a malformed command line.
"""

import argparse
import os
import sys
import tempfile

import vmafexact_run  # first: it checks that PyGObject and GStreamer's typelibs are there

from gi.repository import GLib, Gst, GstPbutils  # noqa: E402

import vmafexact_messages  # noqa: E402

PROGRAM = "score.py"

# The sample formats vmafexact takes (its pad template).
ELEMENT_FORMATS = (
    "I420 YV12 Y42B Y444 NV12 NV21 NV16 NV61 NV24 GRAY8 I420_10LE I420_12LE I422_10LE "
    "I422_12LE Y444_10LE Y444_12LE Y444_16LE P010_10LE P012_LE P016_LE GRAY16_LE"
).split()

# A coded stream's chroma format and bit depth (as h264parse, h265parse, ...
# put them in the caps) and the planar format that holds its samples.
CODED_FORMATS = {
    ("4:2:0", 8): "I420",
    ("4:2:0", 10): "I420_10LE",
    ("4:2:0", 12): "I420_12LE",
    ("4:2:2", 8): "Y42B",
    ("4:2:2", 10): "I422_10LE",
    ("4:2:2", 12): "I422_12LE",
    ("4:4:4", 8): "Y444",
    ("4:4:4", 10): "Y444_10LE",
    ("4:4:4", 12): "Y444_12LE",
    ("4:0:0", 8): "GRAY8",
}


def fail(message):
    sys.stderr.write(f"{PROGRAM}: {message}\n")
    sys.exit(vmafexact_run.EXIT_FAILED)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Score DIST against REF with vmafexact; print each frame's scores and the "
        "summary as JSON lines.",
        epilog="Example: GST_PLUGIN_PATH=$PWD/build/gst examples/python/score.py ref.mkv "
        "dist.mkv --features psnr --json scores.json. Exit status: 0 scored, 1 failed or "
        "nothing scored, 2 bad command line.",
    )
    parser.add_argument("ref", metavar="REF", help="the reference video file")
    parser.add_argument("dist", metavar="DIST", help="the distorted video file")
    parser.add_argument(
        "--model",
        help="vmafexact's model property (default: the element's, vmaf_v0.6.1; '' for "
        "features only)",
    )
    parser.add_argument(
        "--features", help="vmafexact's features property, e.g. psnr or psnr,float_ssim"
    )
    parser.add_argument(
        "--set",
        dest="properties",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set any vmafexact property, as gst-launch-1.0 reads it (repeatable), e.g. "
        "--set threads=2",
    )
    parser.add_argument(
        "--format",
        help="sample format both videos are scored in, GStreamer's name (default: the "
        "reference's if vmafexact takes it, else I420 or the one of its bit depth)",
    )
    parser.add_argument(
        "--json", metavar="FILE", help="also write the frames and the summary to FILE"
    )
    parser.add_argument(
        "--log", metavar="FILE", help="vmafexact's log-location: libvmaf's log (.json, .xml, .csv, .sub)"
    )
    parser.add_argument(
        "--summary-only", action="store_true", help="print the summary line only"
    )
    return parser.parse_args(argv)


def describe_reference(path, requested_format):
    """(width, height, sample format) of the reference's first video stream."""
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    discoverer = GstPbutils.Discoverer.new(30 * Gst.SECOND)
    try:
        info = discoverer.discover_uri(Gst.filename_to_uri(os.path.abspath(path)))
    except GLib.Error as error:
        fail(f"{path}: GStreamer cannot read it: {error.message}")
    streams = info.get_video_streams()
    if not streams:
        fail(f"{path}: no video stream in it")
    video = streams[0]
    structure = video.get_caps().get_structure(0)
    if requested_format:
        if requested_format not in ELEMENT_FORMATS:
            fail(f"--format {requested_format}: vmafexact takes {', '.join(ELEMENT_FORMATS)}")
        sample_format = requested_format
    elif structure.get_name() == "video/x-raw":
        raw = structure.get_string("format")
        if raw in ELEMENT_FORMATS:
            sample_format = raw
        else:
            sample_format = "I420_10LE" if video.get_depth() > 8 else "I420"
    else:
        chroma = structure.get_string("chroma-format")
        found, depth = structure.get_uint("bit-depth-luma")
        sample_format = CODED_FORMATS.get((chroma, depth if found else 8), "I420")
    return video.get_width(), video.get_height(), sample_format


def input_branch(path, pad, caps):
    return (
        f"filesrc location={vmafexact_run.quote(path)} ! decodebin ! videoconvert ! videoscale "
        f"! {caps} ! v.{pad}"
    )


def write_atomically(path, text):
    """Writes the whole file beside itself, then renames it into place."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".score-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        # mkstemp makes the file private (0600): give it the mode a new file gets.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def main(argv):
    options = parse_arguments(argv)
    Gst.init(None)
    vmafexact_run.check_element(PROGRAM)
    width, height, sample_format = describe_reference(options.ref, options.format)
    if not os.path.isfile(options.dist):
        fail(f"{options.dist}: no such file")
    if options.json:
        folder = os.path.dirname(os.path.abspath(options.json))
        if not os.access(folder, os.W_OK):
            fail(f"--json {options.json}: cannot write in {folder}")
    sys.stderr.write(f"{PROGRAM}: scoring at {width}x{height} {sample_format}\n")

    caps = f"video/x-raw,format={sample_format},width={width},height={height}"
    pipeline = Gst.parse_launch(
        f"{input_branch(options.ref, 'ref_sink', caps)} "
        f"{input_branch(options.dist, 'dist_sink', caps)} "
        "vmafexact name=v ! fakesink sync=false"
    )
    element = pipeline.get_by_name("v")
    assignments = list(options.properties)
    if options.model is not None:
        assignments.insert(0, f"model={options.model}")
    if options.features is not None:
        assignments.insert(0, f"features={options.features}")
    if options.log:
        assignments.append(f"log-location={options.log}")
    for assignment in assignments:
        try:
            vmafexact_run.set_property(element, assignment)
        except ValueError as error:
            sys.stderr.write(f"{PROGRAM}: {error}\n")
            return vmafexact_run.EXIT_USAGE

    frames = []
    summary = {}

    def on_entry(entry):
        if entry["message"] == "vmafexact-frame":
            frames.append(entry["fields"])
        elif entry["message"] == "vmafexact-summary":
            summary.update(entry["fields"])
        else:
            return
        if entry["message"] == "vmafexact-summary" or not options.summary_only:
            print(vmafexact_messages.dumps(entry), flush=True)

    status = vmafexact_run.Runner(PROGRAM, pipeline, on_entry).run()
    if status == vmafexact_run.EXIT_OK and not summary.get("frames-scored"):
        sys.stderr.write(f"{PROGRAM}: no frame pair was scored.\n")
        status = vmafexact_run.EXIT_FAILED
    if options.json and summary:
        document = {"frames": frames, "summary": summary}
        try:
            write_atomically(options.json, vmafexact_messages.dumps(document, indent=1) + "\n")
        except OSError as error:
            sys.stderr.write(f"{PROGRAM}: --json {options.json}: {error.strerror}\n")
            status = vmafexact_run.EXIT_FAILED
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
