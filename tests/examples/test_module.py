"""The `vmafexact` Python module (tools/python/vmafexact) against the tool it runs.

Run by meson (suite python) with the python3 the module is installed for:
PYTHONPATH names the build tree's package, VMAFEXACT_TOOL the build's tool. The
media are made here with ffmpeg (x264), small and short. Every score the module
returns must be the tool's own double: compared with == against the tool's JSON
log (%.17g) and against its JSON lines (the element's messages, written with
the shortest text that reads back), two texts of the same numbers.

    python3 tests/examples/test_module.py [EXAMPLES_DIR]
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import vmafexact

TOOL = os.environ.get("VMAFEXACT_TOOL", "")
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCORE_PY = os.path.join(SOURCE_ROOT, "examples", "python", "score.py")

media = None  # the folder the media are made in, once


def setUpModule():
    global media
    if not TOOL or not os.access(TOOL, os.X_OK):
        raise unittest.SkipTest(f"VMAFEXACT_TOOL ({TOOL!r}) is not the built tool")
    if shutil.which("ffmpeg") is None:
        raise unittest.SkipTest("ffmpeg is not installed (Debian: ffmpeg)")
    media = tempfile.mkdtemp(prefix="vmafexact-module-test-")

    def ffmpeg(*arguments):
        subprocess.run(["ffmpeg", "-v", "error", "-y", *arguments], check=True)

    # 320x180, 12 frames: the reference and two H.264 encodes of it.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=24:duration=0.5", "-pix_fmt",
           "yuv420p", path("ref.y4m"))
    for crf in (30, 45):
        ffmpeg("-i", path("ref.y4m"), "-c:v", "libx264", "-preset", "ultrafast", "-crf", str(crf),
               path(f"crf{crf}.mp4"))
    ffmpeg("-i", path("ref.y4m"), "-vf", "scale=160:90", "-c:v", "libx264", "-preset",
           "ultrafast", "-crf", "30", path("small.mp4"))
    # The case: a 640x360 encode of a 1280x720 reference, 12 frames.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=24:duration=0.5", "-pix_fmt",
           "yuv420p", path("ref720.y4m"))
    ffmpeg("-i", path("ref720.y4m"), "-vf", "scale=640:360", "-c:v", "libx264", "-preset",
           "ultrafast", "-crf", "30", path("dist360.mp4"))


def tearDownModule():
    if media:
        shutil.rmtree(media)


def path(name):
    return os.path.join(media, name)


tool_runs = {}  # arguments -> what run_tool() read, to run each once


def run_tool(*arguments):
    """Runs the tool alone: (its JSON log, its JSON lines' frame fields, summary fields)."""
    if arguments in tool_runs:
        return tool_runs[arguments]
    log = path(f"tool{len(tool_runs)}.json")
    lines = path(f"tool{len(tool_runs)}.jsonl")
    subprocess.run([TOOL, "--quiet", "--precision", "max", "--json", log, "--jsonl", lines,
                    *arguments], check=True)
    with open(log, encoding="utf-8") as text:
        document = json.load(text)
    frames, summary = [], None
    with open(lines, encoding="utf-8") as text:
        for line in text:
            entry = json.loads(line)
            if entry["message"] == "vmafexact-frame":
                frames.append(entry["fields"])
            elif entry["message"] == "vmafexact-summary":
                summary = entry["fields"]
    tool_runs[arguments] = document, frames, summary
    return tool_runs[arguments]


# What differs from one run to the next: when, and the command line.
VOLATILE = {"date", "command_line"}


def steady(fields):
    return {key: value for key, value in fields.items() if key not in VOLATILE}


class Base(unittest.TestCase):
    def assertSameScores(self, result, tool):
        """result (a vmafexact.Result) holds exactly what the tool wrote."""
        log, messages, summary = tool
        # The log: every key, every value, but the scoring speed and the run's
        # date and command line.
        self.assertEqual(list(result.log), list(log))
        for key in log:
            if key == "provenance":
                self.assertEqual(list(result.log[key]), list(log[key]))
                self.assertEqual(steady(result.log[key]), steady(log[key]))
            elif key != "fps":
                self.assertEqual(result.log[key], log[key], key)
        # Each frame: its number and every score, in the log's order, as floats
        # equal to the log's %.17g and to the message's shortest text.
        self.assertEqual(len(result.frames), len(log["frames"]))
        self.assertEqual(len(result.frames), len(messages))
        for frame, logged, message in zip(result.frames, log["frames"], messages):
            self.assertEqual(list(frame), ["frameNum", *logged["metrics"]])
            self.assertEqual(frame["frameNum"], logged["frameNum"])
            self.assertEqual(frame["frameNum"], message["index"])
            for score, value in logged["metrics"].items():
                self.assertIs(type(frame[score]), float, score)
                self.assertEqual(frame[score], value, f"frame {frame['frameNum']} {score}")
                self.assertEqual(frame[score], message[score], f"frame {frame['frameNum']} {score}")
        # Pooled: libvmaf's four figures as the log has them, all nine as the summary.
        for score, figures in log["pooled_metrics"].items():
            for figure, value in figures.items():
                self.assertEqual(result.pooled[score][figure], value, f"{score} {figure}")
        self.assertEqual(list(result.summary), list(summary))
        self.assertEqual(steady(result.summary), steady(summary))
        self.assertEqual(result.pooled, {k: v for k, v in summary.items() if isinstance(v, dict)})
        self.assertEqual(result.aggregate, log["aggregate_metrics"])
        self.assertEqual(steady(result.provenance), steady(log["provenance"]))


class Score(Base):
    def test_equals_the_tools_log_every_key(self):
        options = ["--features", "psnr=enable_apsnr=true", "--threads", "2"]
        tool = run_tool(*options, path("ref.y4m"), path("crf45.mp4"))
        seen = []
        result = vmafexact.score(path("ref.y4m"), path("crf45.mp4"),
                                 features="psnr=enable_apsnr=true", threads=2,
                                 progress=lambda done, expected: seen.append((done, expected)))
        self.assertEqual(len(result.frames), 12)
        # The tool's progress line, as it went.
        self.assertTrue(seen)
        for done, expected in seen:
            self.assertEqual(expected, 12)
            self.assertLessEqual(done, 12)
        self.assertEqual(seen, sorted(seen))
        self.assertIn("apsnr_y", result.aggregate)
        self.assertIn("psnr_y", result.pooled)
        self.assertEqual(result.name, "crf45")
        self.assertSameScores(result, tool)

    def test_done_when_640x360_h264_against_1280x720_default_scaling(self):
        tool = run_tool(path("ref720.y4m"), path("dist360.mp4"))
        result = vmafexact.score(path("ref720.y4m"), path("dist360.mp4"))
        self.assertEqual(len(result.frames), 12)
        self.assertSameScores(result, tool)

    def test_done_when_equals_libvmaf_on_the_ffmpeg_scaled_encode(self):
        # libvmaf's own `vmaf` tool (printing %.17g) where one is named: the
        # module's scores of the 640x360 encode equal libvmaf's on the encode
        # scaled to y4m by ffmpeg -vf scale=1280:720.
        libvmaf = os.environ.get("VMAFEXACT_LIBVMAF_TOOL")
        if not libvmaf:
            self.skipTest("VMAFEXACT_LIBVMAF_TOOL does not name libvmaf's vmaf tool")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path("dist360.mp4"), "-vf",
                        "scale=1280:720", "-pix_fmt", "yuv420p", path("dist_scaled.y4m")],
                       check=True)
        subprocess.run([libvmaf, "-q", "-r", path("ref720.y4m"), "-d", path("dist_scaled.y4m"),
                        "--json", "-o", path("libvmaf.json")], check=True,
                       stdout=subprocess.DEVNULL)
        with open(path("libvmaf.json"), encoding="utf-8") as text:
            expected = json.load(text)
        result = vmafexact.score(path("ref720.y4m"), path("dist360.mp4"))
        self.assertEqual(len(result.frames), len(expected["frames"]))
        for frame, logged in zip(result.frames, expected["frames"]):
            for score, value in logged["metrics"].items():
                self.assertEqual(frame[score], value, f"frame {frame['frameNum']} {score}")

    def test_options_reach_the_tool(self):
        # Options that change the scores: each run equals the tool's with the same flags.
        cases = [
            ({"model": "vmaf_v0.6.1neg", "features": ["psnr", "float_ssim"], "subsample": 2},
             ["--model", "vmaf_v0.6.1neg", "--features", "psnr,float_ssim", "--subsample", "2"]),
            ({"dist_delay": 1 / 24, "model": "", "features": "psnr"},
             ["--dist-delay", str(1 / 24), "--model", "", "--features", "psnr"]),
        ]
        for options, arguments in cases:
            with self.subTest(options=options):
                tool = run_tool(*arguments, path("ref.y4m"), path("crf30.mp4"))
                result = vmafexact.score(path("ref.y4m"), path("crf30.mp4"), **options)
                self.assertSameScores(result, tool)

    def test_frame_ranges_scaling_flags_and_alignment_reach_the_tool(self):
        ref, dist, small = path("ref.y4m"), path("crf30.mp4"), path("small.mp4")
        # (options, frames scored, the first one's index in the whole video): the
        # module's PSNR of each frame is the whole run's (the tool's) from there.
        cases = [
            ({"start": 0.25, "frames": 4}, 4, 6),
            ({"start": "0:00.125", "duration": 0.25}, 6, 3),
            ({"align": True, "align_range": 0.5}, 12, 0),
        ]
        default, _, _ = run_tool("--features", "psnr", ref, dist)
        for options, frames, first in cases:
            with self.subTest(options=options):
                result = vmafexact.score(ref, dist, features="psnr", **options)
                self.assertEqual(len(result.frames), frames)
                self.assertEqual([frame["psnr_y"] for frame in result.frames],
                                 [frame["metrics"]["psnr_y"]
                                  for frame in default["frames"][first:][:frames]])
                if "align" in options:
                    # e.g. "dist-delay 0 frames (0.000 s), auto, confidence 1.00"
                    self.assertTrue(result.provenance["alignment"].startswith(
                        "dist-delay 0 frames"), result.provenance["alignment"])
        # Scaling a 160x90 encode: other pictures with other flags or method, so
        # the option did reach the tool.
        default, _, _ = run_tool("--features", "psnr", ref, small)
        for options, arguments in [({"scale_flags": "lanczos"}, ["--scale-flags", "lanczos"]),
                                   ({"scale_method": "catrom"}, ["--scale-method", "catrom"])]:
            with self.subTest(options=options):
                tool = run_tool(*arguments, "--features", "psnr", ref, small)
                result = vmafexact.score(ref, small, features="psnr", **options)
                self.assertSameScores(result, tool)
                self.assertNotEqual(result.pooled["psnr_y"]["mean"],
                                    default["pooled_metrics"]["psnr_y"]["mean"])

    def test_raw_input_checks_and_outputs_reach_the_tool(self):
        # A raw .yuv DIST (the H.264 encode decoded by ffmpeg): the pictures, and
        # so the scores, of the encode itself.
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path("crf30.mp4"), "-f", "rawvideo",
                        "-pix_fmt", "yuv420p", path("crf30.yuv")], check=True)
        default, _, _ = run_tool("--features", "psnr", path("ref.y4m"), path("crf30.mp4"))
        outputs = {"xml": path("o.xml"), "csv": path("o.csv"), "sub": path("o.sub"),
                   "plot": path("o.svg"), "html": path("o.html")}
        result = vmafexact.score(path("ref.y4m"), path("crf30.yuv"), features="psnr",
                                 dist_size="320x180", dist_format="yuv420p", dist_framerate=24,
                                 backend="cpu", plot_scores="all", worst_frames=2, **outputs)
        self.assertEqual([frame["psnr_y"] for frame in result.frames],
                         [frame["metrics"]["psnr_y"] for frame in default["frames"]])
        self.assertEqual(result.provenance["distorted_codec"].split()[0], "raw")
        for option, written in outputs.items():
            self.assertGreater(os.path.getsize(written), 0, option)
        # The same with the shared raw options, both inputs raw.
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path("ref.y4m"), "-f", "rawvideo",
                        path("ref.yuv")], check=True)
        raw = vmafexact.score(path("ref.yuv"), path("crf30.yuv"), features="psnr",
                              size="320x180", format="I420", framerate="24/1")
        self.assertEqual(raw.frames, result.frames)
        # The checks that refuse inputs: exit code 3 with the tool's message.
        with self.assertRaises(vmafexact.Error) as caught:
            vmafexact.score(path("ref.y4m"), path("small.mp4"), no_scale=True)
        self.assertEqual(caught.exception.exit_code, 3)
        self.assertIn("--no-scale", caught.exception.message)
        with self.assertRaises(vmafexact.Error) as caught:
            vmafexact.score(path("ref.yuv"), path("crf30.yuv"), ref_size="320x180",
                            dist_size="320x180", ref_format="yuv420p", ref_framerate=24,
                            dist_framerate=25, no_rate_conversion=True)
        self.assertEqual(caught.exception.exit_code, 3)
        self.assertIn("--no-rate-conversion", caught.exception.message)

    def test_json_option_writes_the_log_the_module_reads(self):
        log = path("mine.json")
        result = vmafexact.score(path("ref.y4m"), path("crf30.mp4"), json=log, model="",
                                 features="psnr")
        with open(log, encoding="utf-8") as text:
            self.assertEqual(result.log, json.load(text))
        self.assertEqual(list(result.frames[0]), ["frameNum", "psnr_y", "psnr_cb", "psnr_cr"])
        # {name} with one DIST too: the tool fills it in, the module reads that file.
        # (Paths as os.PathLike too.)
        result = vmafexact.score(pathlib.Path(path("ref.y4m")), pathlib.Path(path("crf30.mp4")),
                                 json=pathlib.Path(path("{name}.one.json")), model="",
                                 features="psnr")
        with open(path("crf30.one.json"), encoding="utf-8") as text:
            self.assertEqual(result.log, json.load(text))

    def test_an_exception_of_the_progress_callback_stops_the_run(self):
        class Stop(Exception):
            pass

        def stop(done, expected):
            raise Stop(done)

        with self.assertRaises(Stop):
            vmafexact.score(path("ref.y4m"), path("crf30.mp4"), progress=stop)


class Compare(Base):
    def test_each_encode_equals_its_run_alone(self):
        dists = [path("crf30.mp4"), path("crf45.mp4")]
        seen = []
        results = vmafexact.compare(path("ref.y4m"), dists, features="psnr",
                                    json=path("{name}.log.json"),
                                    progress=lambda done, expected: seen.append(expected))
        self.assertEqual(set(seen), {12})  # the frames of each encode, not of both
        self.assertEqual([result.dist for result in results], dists)
        self.assertEqual([result.name for result in results], ["crf30", "crf45"])
        for result, dist in zip(results, dists):
            self.assertSameScores(result, run_tool("--features", "psnr", path("ref.y4m"), dist))
            with open(path(result.name + ".log.json"), encoding="utf-8") as text:
                self.assertEqual(result.log, json.load(text))
        self.assertNotEqual(results[0].pooled["vmaf"]["mean"], results[1].pooled["vmaf"]["mean"])

    def test_encodes_of_one_name_are_refused_with_the_tools_message(self):
        os.makedirs(path("other"), exist_ok=True)
        shutil.copy(path("crf30.mp4"), path("other/crf30.mp4"))
        with self.assertRaises(vmafexact.Error) as caught:
            vmafexact.compare(path("ref.y4m"), [path("crf30.mp4"), path("other/crf30.mp4")])
        self.assertEqual(caught.exception.exit_code, 1)
        self.assertIn("the same {name}", caught.exception.message)
        # names= tells them apart: each result and log takes its name.
        results = vmafexact.compare(path("ref.y4m"), [path("crf30.mp4"), path("other/crf30.mp4")],
                                    names=["here", "there"], json=path("{name}.named.json"))
        self.assertEqual([result.name for result in results], ["here", "there"])
        self.assertEqual(results[0].frames, results[1].frames)
        with open(path("there.named.json"), encoding="utf-8") as text:
            self.assertEqual(results[1].log, json.load(text))


class Errors(unittest.TestCase):
    def expect_error(self, exit_code, text, *arguments, **options):
        with self.assertRaises(vmafexact.Error) as caught:
            vmafexact.score(*arguments, **options)
        self.assertEqual(caught.exception.exit_code, exit_code, caught.exception)
        self.assertIn(text, caught.exception.message)
        self.assertIn(text, str(caught.exception))
        return caught.exception

    def test_each_failure_is_an_error_with_the_tools_message_and_exit_code(self):
        self.expect_error(2, "vmafexact: cannot read the reference " + path("nothing.y4m"),
                          path("nothing.y4m"), path("crf30.mp4"))
        with open(path("notes.txt"), "w") as notes:
            notes.write("not a video\n")
        self.expect_error(2, path("notes.txt"), path("ref.y4m"), path("notes.txt"))
        self.expect_error(1, "--threads", path("ref.y4m"), path("crf30.mp4"), threads=-1)
        self.expect_error(1, "Invalid model property", path("ref.y4m"), path("crf30.mp4"),
                          model="vmaf_nope")
        error = self.expect_error(1, "nothing to score", path("ref.y4m"), path("crf30.mp4"),
                                  model="", features="")
        self.assertEqual(error.command[0], TOOL)
        # A bad byte in a model's key: the element's message, decoded with U+FFFD.
        with open(path("bad_key.json"), "wb") as model:
            model.write(b'{"model_dict": {"model_type": "LIBSVMNUSVR", "norm\xff_type": "none"}}\n')
        self.expect_error(1, "\ufffd", path("ref.y4m"), path("crf30.mp4"),
                          model=path("bad_key.json"))

    def test_module_side_errors(self):
        with self.assertRaises(vmafexact.Error) as caught:
            vmafexact.score(path("ref.y4m"), path("crf30.mp4"), thread=2)
        self.assertIn("unknown option thread=", str(caught.exception))
        self.assertIsInstance(caught.exception, TypeError)
        with self.assertRaises(vmafexact.Error):
            vmafexact.score(path("ref.y4m"), path("crf30.mp4"), no_scale="yes")
        with self.assertRaises(vmafexact.Error):
            vmafexact.score(path("ref.y4m"), path("crf30.mp4"), align="sometimes")
        with self.assertRaises(vmafexact.Error):
            vmafexact.compare(path("ref.y4m"), [])
        saved = os.environ["VMAFEXACT_TOOL"]
        os.environ["VMAFEXACT_TOOL"] = path("no-tool")
        try:
            with self.assertRaises(vmafexact.Error) as caught:
                vmafexact.score(path("ref.y4m"), path("crf30.mp4"))
        finally:
            os.environ["VMAFEXACT_TOOL"] = saved
        self.assertIsNone(caught.exception.exit_code)
        self.assertIn("cannot run the vmafexact tool " + path("no-tool"), str(caught.exception))
        self.assertIn("VMAFEXACT_TOOL", str(caught.exception))


class Mapping(unittest.TestCase):
    # The tool's options the module sets itself, or leaves to the tool's command line.
    OWN = {"--help", "--help-all", "--help-gst", "--version", "--jsonl", "--precision",
           "--progress", "--no-progress", "--quiet", "--ladder"}

    def test_every_option_is_the_tools_and_every_tool_option_is_mapped(self):
        help_text = subprocess.run([TOOL, "--help"], capture_output=True, text=True,
                                   check=True).stdout
        tool_options = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", help_text, re.M))
        mapped = {flag for flag, kind in vmafexact.OPTIONS.values()}
        self.assertEqual(mapped - tool_options, set(), "mapped, but the tool has no such option")
        self.assertEqual(tool_options - self.OWN - mapped, set(), "the tool's, not mapped")

    def test_command_line(self):
        command = vmafexact.command_line("r.mp4", ["a.mp4", "b.mp4"], features=["psnr", "cambi"],
                                         no_scale=True, no_rate_conversion=False, align=True,
                                         threads=3, model=None, start=2.5)
        self.assertEqual(command[1:], ["--features", "psnr,cambi", "--no-scale", "--align", "auto",
                                       "--threads", "3", "--start", "2.5", "--", "r.mp4", "a.mp4",
                                       "b.mp4"])
        self.assertEqual(vmafexact.encode_name("out/crf30.final.mp4"), "crf30.final")
        self.assertEqual(vmafexact.encode_name(".hidden"), ".hidden")


class ScorePy(Base):
    def run_score_py(self, *arguments):
        return subprocess.run([sys.executable, SCORE_PY, *arguments], capture_output=True,
                              text=True)

    def test_prints_the_tools_pooled_vmaf(self):
        log, _, _ = run_tool(path("ref720.y4m"), path("dist360.mp4"))
        run = self.run_score_py(path("ref720.y4m"), path("dist360.mp4"), "--json",
                                path("score.json"))
        self.assertEqual(run.returncode, 0, run.stderr)
        match = re.search(r": 12 frames, vmaf mean (\S+) ", run.stdout)
        self.assertTrue(match, run.stdout)
        self.assertEqual(float(match.group(1)), log["pooled_metrics"]["vmaf"]["mean"])
        with open(path("score.json"), encoding="utf-8") as text:
            document = json.load(text)
        self.assertEqual(len(document), 1)
        self.assertEqual([frame["vmaf"] for frame in document[0]["frames"]],
                         [frame["metrics"]["vmaf"] for frame in log["frames"]])

    def test_failures_print_the_tools_message_without_a_traceback(self):
        with open(path("bad_key2.json"), "wb") as model:
            model.write(b'{"model_dict": {"model_type": "LIBSVMNUSVR", "norm\xff_type": "none"}}\n')
        run = self.run_score_py(path("ref.y4m"), path("crf30.mp4"), "--model",
                                path("bad_key2.json"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("score.py: vmafexact exited with code 1: ", run.stderr)
        self.assertIn("Invalid model property: " + path("bad_key2.json"), run.stderr)
        self.assertIn("\ufffd", run.stderr)
        self.assertNotIn("Traceback", run.stderr)
        run = self.run_score_py(path("nothing.y4m"), path("crf30.mp4"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("cannot read the reference", run.stderr)
        self.assertEqual(self.run_score_py(path("ref.y4m")).returncode, 2)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
