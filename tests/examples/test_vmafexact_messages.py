"""Tests of examples/python/vmafexact_messages.py on every kind of value.

Run by the python suite (tests/examples/test_python.cpp) as
    /usr/bin/python3 tests/examples/test_vmafexact_messages.py EXAMPLES_DIR
with Debian's PyGObject; no plugin needed: the structures are built here.
"""

import json
import math
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1) if len(sys.argv) > 1 else "examples/python")

import vmafexact_messages as vm  # noqa: E402
from gi.repository import Gst  # noqa: E402

Gst.init(None)

# The summary as the element posts it (docs/element.md), with the kinds of
# values GStreamer structures can hold besides.
SUMMARY = (
    r'vmafexact-summary, frames-scored=(guint64)18446744073709551615, threads=(uint)2, '
    r'backend=(string)"CPU (avx2)", partial=(boolean)false, '
    r'vmaf=(structure)"pooled\,\ min\=\(double\)91.591249495475509\,\ '
    r'mean\=\(double\)96.527817198399092\;", '
    r'pts=(guint64)18446744073709551615, running-time=(guint64)41666666, '
    r'ints=(int){ 1, 2, 3 }, doubles=(double)< 0.1, 2.5 >, '
    r'structures=(structure){ "a\,\ b\=\(int\)1\;", "c\;" }, nested=(int)< < 1, 2 >, < 3 > >, '
    r'rate=(fraction)30000/1001, range=(int)[ 1, 5 ], caps=(GstCaps)"video/x-raw\,\ width\=\(int\)2", '
    r'negative=(gint64)-5, empty=(string){ }'
)


def summary_structure():
    structure, _ = Gst.Structure.from_string(SUMMARY)
    assert structure is not None, "the test structure does not parse"
    structure.set_value("apsnr_cb", float("-inf"))
    structure.set_value("apsnr_cr", float("nan"))
    structure.set_value("apsnr_y", float("inf"))
    return structure


class StructureToDict(unittest.TestCase):
    def test_every_kind_of_value(self):
        fields = vm.structure_to_dict(summary_structure())
        self.assertEqual(
            list(fields),
            [
                "frames-scored", "threads", "backend", "partial", "vmaf", "pts",
                "running-time", "ints", "doubles", "structures", "nested", "rate", "range",
                "caps", "negative", "empty", "apsnr_cb", "apsnr_cr", "apsnr_y",
            ],
        )  # the structure's order
        self.assertEqual(fields["frames-scored"], 2**64 - 1)  # exact, not a float
        self.assertIs(type(fields["frames-scored"]), int)
        self.assertEqual(fields["threads"], 2)
        self.assertEqual(fields["backend"], "CPU (avx2)")
        self.assertIs(fields["partial"], False)
        # The doubles' bits: the text GStreamer printed with 17 digits.
        self.assertEqual(fields["vmaf"], {"min": 91.591249495475509, "mean": 96.527817198399092})
        self.assertEqual(fields["pts"], Gst.CLOCK_TIME_NONE)  # faithful here
        self.assertEqual(fields["ints"], [1, 2, 3])
        self.assertEqual(fields["doubles"], [0.1, 2.5])
        self.assertEqual(fields["structures"], [{"b": 1}, {}])
        self.assertEqual(fields["empty"], [])
        # What PyGObject cannot convert: GStreamer's own text; gst-python's
        # overrides (python3-gst-1.0), where installed, convert lists in lists.
        if hasattr(Gst.Structure, "__getitem__"):
            self.assertEqual(fields["nested"], [[1, 2], [3]])
        else:
            self.assertEqual(fields["nested"], "(int)< < (int)1, (int)2 >, < (int)3 > >")
        self.assertEqual(fields["rate"], "(fraction)30000/1001")
        self.assertEqual(fields["range"], "(int)[ 1, 5 ]")
        self.assertEqual(fields["caps"], "video/x-raw, width=(int)2")
        self.assertEqual(fields["negative"], -5)
        self.assertEqual(fields["apsnr_cb"], float("-inf"))
        self.assertTrue(math.isnan(fields["apsnr_cr"]))

    def test_strict_json(self):
        text = vm.dumps(vm.structure_to_dict(summary_structure()))
        read = json.loads(text, parse_constant=lambda name: self.fail(f"{name} in JSON"))
        self.assertIsNone(read["apsnr_cb"])
        self.assertIsNone(read["apsnr_cr"])
        self.assertIsNone(read["apsnr_y"])
        self.assertEqual(read["frames-scored"], 2**64 - 1)
        self.assertEqual(read["vmaf"]["min"], 91.591249495475509)
        self.assertEqual(read["doubles"], [0.1, 2.5])


class MessageToDict(unittest.TestCase):
    def message(self, text):
        structure, _ = Gst.Structure.from_string(text)
        return Gst.Message.new_element(None, structure)

    def test_vmafexact_messages_with_unknown_times_as_none(self):
        entry = vm.message_to_dict(
            self.message(
                "vmafexact-frame, index=(guint64)3, pts=(guint64)18446744073709551615, "
                "running-time=(guint64)125000000, stream-time=(guint64)18446744073709551615, "
                "duration=(guint64)18446744073709551615, vmaf=(double)97.061069876707322"
            )
        )
        self.assertEqual(entry["message"], "vmafexact-frame")
        self.assertEqual(
            entry["fields"],
            {
                "index": 3,
                "pts": None,
                "running-time": 125000000,
                "stream-time": None,
                "duration": None,
                "vmaf": 97.061069876707322,
            },
        )
        for name in vm.MESSAGE_NAMES:
            self.assertEqual(vm.message_to_dict(self.message(name))["message"], name)

    def test_other_messages_are_none(self):
        self.assertIsNone(vm.message_to_dict(self.message("GstMultiQueue, x=(int)1")))
        self.assertIsNone(vm.message_to_dict(Gst.Message.new_eos(None)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
