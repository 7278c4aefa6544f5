#!/usr/bin/python3
"""An independent BD-rate for tests/tools/test_bd_rate.cpp: SciPy's PCHIP.

Usage: bd_rate_reference.py CASES.json. Reads
{"cases": [{"anchor": [[bitrate, quality], ...], "test": [...]}, ...]} and writes one JSON object per case, in order, on standard output:
{"percent": P, "low": L, "high": H} or {"refused": REASON}, REASON one of
"too_few", "non_positive", "duplicate", "non_monotonic", "no_overlap".

log10(bitrate) is interpolated as a function of quality by
scipy.interpolate.PchipInterpolator (Fritsch-Carlson slopes) and integrated with
its own exact PPoly.integrate over the common quality range; the mean difference
d gives (10^d - 1) * 100 %. Debian: python3-numpy, python3-scipy; run it with
/usr/bin/python3.
"""

import json
import sys

import numpy as np
from scipy.interpolate import PchipInterpolator


class Refused(Exception):
    pass


def curve(points):
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(points) < 4:
        raise Refused("too_few")
    rates, qualities = points[:, 0], points[:, 1]
    if not np.all(np.isfinite(points)) or np.any(rates <= 0):
        raise Refused("non_positive")
    order = np.argsort(qualities, kind="stable")
    rates, qualities = rates[order], qualities[order]
    if np.any(np.diff(qualities) == 0):
        raise Refused("duplicate")
    if np.any(np.diff(rates) <= 0):
        raise Refused("non_monotonic")
    return PchipInterpolator(qualities, np.log10(rates)), qualities[0], qualities[-1]


def bd_rate(anchor, test):
    anchor_curve, anchor_low, anchor_high = curve(anchor)
    test_curve, test_low, test_high = curve(test)
    low, high = max(anchor_low, test_low), min(anchor_high, test_high)
    if not high > low:
        raise Refused("no_overlap")
    difference = (test_curve.integrate(low, high) - anchor_curve.integrate(low, high)) / (high - low)
    return {"percent": float((10.0 ** difference - 1.0) * 100.0), "low": float(low), "high": float(high)}


def main():
    results = []
    with open(sys.argv[1], encoding="utf-8") as cases:
        cases = json.load(cases)["cases"]
    for case in cases:
        try:
            results.append(bd_rate(case["anchor"], case["test"]))
        except Refused as refusal:
            results.append({"refused": str(refusal)})
    json.dump(results, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
