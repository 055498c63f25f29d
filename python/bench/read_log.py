"""Throughput of aeroplane.read_log: decisions per second read into numpy arrays.

    python python/bench/read_log.py               # logs 20,000 games of greedy x4, then reads it
    python python/bench/read_log.py --log FILE    # an existing log

Prints the median decisions per second of --repeats reads (every game checked against the
engine and replayed for its observations), with the machine's 1-minute load average. Build the
package in release mode (pip install ./python does) before measuring.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import aeroplane


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", type=Path, help="a decision log (default: log a run first)")
    p.add_argument("--games", type=int, default=20_000, help="games of the run logged")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--observation", default="flat", choices=["flat", "rich"])
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.log
        if path is None:
            aeroplane.run("greedy,greedy,greedy,greedy", games=args.games, seed=1, out=tmp, force=True,
                          log_games="games.jsonl.zst")
            path = Path(tmp) / "games.jsonl.zst"
        load_before = os.getloadavg()[0]
        rates = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            d = aeroplane.read_log(path, observation=args.observation)
            rates.append(len(d["action"]) / (time.perf_counter() - start))
            del d
        print(
            f"read_log({path.name}, observation={args.observation!r}): {len(aeroplane.read_log(path)['action']):,} "
            f"decisions; median {statistics.median(rates):,.0f} decisions/s (min {min(rates):,.0f}, "
            f"max {max(rates):,.0f}; {args.repeats} reads); load average {load_before:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after; {os.cpu_count()} cores"
        )


if __name__ == "__main__":
    main()
