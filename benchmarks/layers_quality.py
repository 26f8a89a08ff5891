"""Negotiated and sequential routing of solvable multi-layer puzzles on the CPU.

Each puzzle of :func:`mazeroute.generate3d.solvable_puzzle` is drawn as disjoint paths
that change layer, so a complete solution exists; every routes file is checked against
contract 1.2. Prints, per size: nets routed, complete puzzles, median times.

    python benchmarks/layers_quality.py [--seeds 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.contract import check_routes  # noqa: E402
from mazeroute.generate3d import solvable_puzzle  # noqa: E402
from mazeroute.router.layered import route_layered  # noqa: E402

#: (side, layers, nets a puzzle): near the densest the generator draws for every seed.
SIZES = ((16, 2, 30), (32, 4, 170), (48, 6, 500), (64, 8, 1200))


def _timed(layout, mode):
    start = time.perf_counter()
    result = route_layered(layout, mode)
    return result, time.perf_counter() - start


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args(argv)
    print("| size | nets a puzzle | negotiate: nets routed | complete puzzles | sequential "
          "| median time, negotiate / sequential |\n|---|---:|---:|---:|---:|---|")
    bad = 0
    for side, layers, nets in SIZES:
        routed = seq = complete = total = 0
        times_n, times_s = [], []
        for seed in range(args.seeds):
            layout = solvable_puzzle(side, side, layers, nets, seed=seed).layout
            neg, tn = _timed(layout, "negotiate")
            sq, ts = _timed(layout, "sequential")
            bad += bool(check_routes(layout, neg.to_json()) or check_routes(layout, sq.to_json()))
            total += len(layout.nets)
            routed, seq = routed + neg.routed, seq + sq.routed
            complete += neg.routed == len(layout.nets)
            times_n.append(tn)
            times_s.append(ts)
        print(f"| {side} x {side} x {layers} | {nets} | {routed} of {total} | {complete} of "
              f"{args.seeds} | {seq} | {statistics.median(times_n):.2f} s / "
              f"{statistics.median(times_s):.2f} s |", flush=True)
    print(f"routes files breaking contract 1.2: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
