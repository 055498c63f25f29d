#!/usr/bin/env python3
"""Coverage of a sweep's main-effect intervals at small N (issue 31, item 12).

Runs `aeroplane sweep --vary overshoot=illegal,bounce --bots greedy,random --rotate-seats`
at a few deals with seeds 1..R, and counts how often each 95% interval of effects.csv (the
levels of seat 0's and bot 0's win rate, and their differences) holds the truth, taken from
one sweep of many deals (seed 0); it also counts intervals outside [0, 1] (levels) or
[-1, 1] (differences) and NaN bounds.

    cargo build --release
    python3 scripts/effects_coverage.py --bin target/release/aeroplane --deals 2,4,10,30 \
        --replicates 300 --truth-deals 20000

Every sweep is seeded: the figures depend only on the arguments.
"""

import argparse
import csv
import math
import os
import subprocess
import tempfile

SWEEP = ["sweep", "--vary", "overshoot=illegal,bounce", "--bots", "greedy,random",
         "--rotate-seats", "--quiet", "--force"]


def effects(binary, deals, seed, out):
    subprocess.run([binary, *SWEEP, "--games", str(deals), "--seed", str(seed), "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "effects.csv"), newline="") as f:
        return [r for r in csv.DictReader(f) if r["metric"] != "turns"]


def num(text):
    return float(text) if text not in ("", None) else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/aeroplane")
    ap.add_argument("--deals", default="2,4,10,30")
    ap.add_argument("--replicates", type=int, default=300)
    ap.add_argument("--truth-deals", type=int, default=20000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s")
        truth = {(r["metric"], r["value"]): (num(r["mean"]), num(r["diff"]))
                 for r in effects(a.bin, a.truth_deals, 0, out)}
        print("truth (%d deals, seed 0): %s" % (a.truth_deals, truth))
        print("deals,figure,replicates,coverage,outside_range,nan")
        for deals in [int(d) for d in a.deals.split(",")]:
            tallies = {}
            for seed in range(1, a.replicates + 1):
                for r in effects(a.bin, deals, seed, out):
                    key = (r["metric"], r["value"])
                    level, diff = truth[key]
                    figures = [("level", level, num(r["mean_lo95"]), num(r["mean_hi95"]), (0, 1))]
                    if diff is not None:
                        figures.append(("diff", diff, num(r["diff_lo95"]), num(r["diff_hi95"]),
                                        (-1, 1)))
                    for what, t, lo, hi, (a_, b_) in figures:
                        name = "%s %s %s" % (r["metric"], r["value"], what)
                        c = tallies.setdefault(name, [0, 0, 0])
                        if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
                            c[2] += 1
                            continue
                        c[0] += lo <= t <= hi
                        c[1] += lo < a_ or hi > b_
            for name, (hold, outside, nan) in sorted(tallies.items()):
                print("%d,%s,%d,%.4f,%d,%d" % (deals, name, a.replicates,
                                               hold / a.replicates, outside, nan))


if __name__ == "__main__":
    main()
