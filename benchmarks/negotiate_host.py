"""Negotiation's host work alone: a route whose searches are replayed from a first run.

Usage (from the repository root)::

    python benchmarks/negotiate_host.py [--side 1024] [--nets 2000] [--option NAME=VALUE ...]

Routes a ``random_layout`` (25 % rectangles, two-pin nets of span 64, seed 1) negotiated
to its end on the CPU engine, recording every result of the weighted engine, then routes
it again with an engine that hands back the recorded results at once (checking the costs
it is given as the engine would). The second run's time is everything a negotiation
does besides searching: the loop's rip-ups, commits, pricing and conflicts, the phases
after it and the sequential floor. However fast a device searched, a negotiation that
keeps this work on the host takes at least this long. Both runs must give the same
wires (checked).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from negotiate_families import _option  # noqa: E402

from mazeroute.engines import weighted  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=int, default=1024)
    ap.add_argument("--nets", type=int, default=2000)
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args = ap.parse_args()
    opt = PathFinderOptions(**{"wait_factor": 0, **dict(_option(o) for o in args.option)})
    lay = random_layout(args.side, args.side, density=0.25, nets=args.nets, pins=2, seed=1,
                        span=64)
    route(random_layout(64, 64, density=0.25, nets=40, pins=2, seed=0, span=16),
          backend="cpu", options=opt)                                 # compile first
    plain = weighted.CPUNetSearch.route
    tape: list = []
    searching = [0.0]

    def record(self, cost, requests, changed=None):
        start = time.perf_counter()
        out = plain(self, cost, requests, changed)
        searching[0] += time.perf_counter() - start
        tape.append(out)
        return out

    def replay(self, cost, requests, changed=None):
        self._check_cost(cost)
        return next(played)

    try:
        weighted.CPUNetSearch.route = record
        start = time.perf_counter()
        first = route(lay, backend="cpu", options=opt)
        whole = time.perf_counter() - start
        played = iter(tape)
        weighted.CPUNetSearch.route = replay
        start = time.perf_counter()
        second = route(lay, backend="cpu", options=opt)
        host = time.perf_counter() - start
    finally:
        weighted.CPUNetSearch.route = plain
    if [n.cells for n in first.nets] != [n.cells for n in second.nets]:
        raise SystemExit("the replayed route differs from the first: not a replay")
    print(f"{lay.name}, {args.nets} nets, options {args.option or 'default'}: "
          f"{first.routed} routed in {whole:.2f} s ({searching[0]:.2f} s of it in {len(tape)} "
          f"searches); with the searches replayed: {host:.2f} s")


if __name__ == "__main__":
    main()
