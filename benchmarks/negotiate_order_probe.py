"""How negotiation's order within an iteration bounds its parallelism and its quality,
on the CPU engine.

Run from the repository root: ``python benchmarks/negotiate_order_probe.py [--nets N]
[--seed S] SCHEDULE ...`` on the 1024 x 1024 layout of ``negotiate_probe.py`` (25 %
rectangles, span 64). Schedules:

* ``lag:K``: ``PathFinderOptions(snapshot_nets=K)``: a net waits for the overlapping
  nets at least K places before it; closer ones share its call, on one snapshot of the
  costs (``lag:1`` is PathFinder's order exactly; it also counts the rounds that nets
  would need if a net waited only for earlier nets whose old or new route enters its
  box, ``route levels``);
* ``chunks:K``: each iteration's reroutes in chunks of K consecutive nets, a chunk ripped
  up together and searched on one snapshot whatever its boxes (K nets a call; the
  schedule measured before ``snapshot_nets``);
* ``ripall``: every net of an iteration ripped up before any is searched, then
  PathFinder's order;
* ``order:NAME``: ``PathFinderOptions(reroute_order=NAME)`` (``colour``, the default,
  or ``hpwl``), PathFinder's order either way: the calls of disjoint boxes each order
  needs.

The other schedules take the default ``reroute_order``.

Prints nets routed after legalisation, repair and tidying, iterations, search calls of
the loop (the chain of dependent calls a device would wait for), wirelength and the
overused cells of the last iteration. The schedule is the loop's only: tidying reroutes
each net with the others fixed, in calls of disjoint boxes, whatever the schedule.

``--suite PUZZLES_DIR`` runs the quality suite (``mazeroute bench --suite
negotiate``, CPU engine, the numberlink files from ``PUZZLES_DIR``) under each schedule
(``lag:K``, ``chunks:K`` or ``order:NAME``) instead, with its contract check.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numba  # noqa: E402
import numpy as np  # noqa: E402

import mazeroute.router.negotiate as neg  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.router import PathFinderOptions  # noqa: E402
from mazeroute.router.negotiate import Negotiator  # noqa: E402


@numba.njit(cache=True)
def _route_levels(boxes, cells, starts, w):
    """Longest chain of nets where a net follows an earlier one whose old or new route
    (cells[starts[i]:starts[i + 1]]) has a cell in its box."""
    n = boxes.shape[0]
    lv = np.zeros(n, np.int64)
    for j in range(n):
        x0, y0, x1, y1 = boxes[j]
        for i in range(j):
            for k in range(starts[i], starts[i + 1]):
                x, y = cells[k] % w, cells[k] // w
                if x0 <= x <= x1 and y0 <= y <= y1:
                    lv[j] = max(lv[j], lv[i] + 1)
                    break
    return lv.max() + 1 if n else 0


def _k(schedule: str, kind: str) -> int:
    """K of ``kind:K`` (0 for the other schedules)."""
    return int(schedule.split(":")[1]) if schedule.startswith(kind + ":") else 0


def chunks(n: int, k: int) -> list[np.ndarray]:
    """Positions ``0..n-1`` in runs of ``k`` consecutive ones."""
    return [np.arange(s, min(n, s + k)) for s in range(0, n, k)]


def _options(schedule: str) -> PathFinderOptions:
    if schedule.startswith("order:"):
        return PathFinderOptions(reroute_order=schedule.split(":")[1])
    return PathFinderOptions(snapshot_nets=_k(schedule, "lag") or 1)


def _schedule(schedule: str, count: list[int] | None = None):
    """The batching function of the loop under ``schedule`` (counting its calls)."""
    real, k = neg.batches, _k(schedule, "chunks")

    def batched(boxes, shape, lag=1):
        out = chunks(len(boxes), k) if k else real(boxes, shape, lag)
        if count is not None:
            count[0] += len(out)
        return out
    return batched


def run(lay, schedule: str) -> str:
    ng = Negotiator(lay, "cpu", _options(schedule))
    calls, levels = [0], [0]
    real_batches, real_reroute = neg.batches, ng.reroute
    neg.batches = _schedule(schedule, calls)

    def reroute(nets):
        nets = np.asarray(nets, np.int64)
        if schedule == "ripall":
            ng._rip(nets.tolist())
        if schedule != "lag:1" or ng.state.order_free():
            return real_reroute(nets)
        old = [ng.routes[i] for i in nets]
        boxes = ng.boxes(nets)
        out = real_reroute(nets)
        none = np.zeros(0, np.int64)
        parts = [np.concatenate([o if o is not None else none,
                                 ng.routes[i] if ng.routes[i] is not None else none])
                 for o, i in zip(old, nets)]
        starts = np.zeros(len(parts) + 1, np.int64)
        starts[1:] = np.cumsum([p.size for p in parts])
        levels[0] += int(_route_levels(boxes, np.concatenate(parts), starts, lay.width))
        return out
    ng.reroute = reroute
    try:
        start = time.perf_counter()
        its = ng.negotiate()
        took = time.perf_counter() - start
    finally:
        # the schedule is the loop's: tidy's calls must keep disjoint boxes (each net
        # is rerouted with the others fixed; chunks there let two wires share a cell)
        neg.batches = real_batches
    ng.legalise()
    ng.repair()
    ng.tidy()
    res = ng._result()
    wl = sum(n.length for n in res.nets if n.routed)
    extra = f", route levels {levels[0]}" if schedule == "lag:1" else ""
    return (f"{schedule:10s} routed {res.routed}/{len(lay.nets)}, {its} its, "
            f"{calls[0]} calls{extra}, wirelength {wl}, last overuse "
            f"{ng.iterations[-1].overused}, loop {took:.1f} s")


def suite(schedule: str, puzzles: str) -> str:
    """The negotiate suite's quality part (CPU) with ``schedule`` in the negotiation loop."""
    from mazeroute.bench import format_negotiate, negotiate_suite

    real, real_reroute = neg.batches, Negotiator.reroute
    real_init = Negotiator.__init__

    def init(self, layout, backend="auto", options=None):
        real_init(self, layout, backend, _options(schedule))

    def reroute(self, nets):
        neg.batches = _schedule(schedule)
        try:
            return real_reroute(self, nets)
        finally:
            neg.batches = real
    Negotiator.reroute, Negotiator.__init__ = reroute, init
    try:
        _, rows = negotiate_suite(seed=1, puzzles_dir=puzzles, backends=["cpu"])
    finally:
        Negotiator.reroute, Negotiator.__init__ = real_reroute, real_init
    return format_negotiate(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("schedules", nargs="+")
    ap.add_argument("--nets", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--suite", metavar="PUZZLES_DIR")
    args = ap.parse_args()
    if args.suite:
        for schedule in args.schedules:
            print(f"schedule {schedule}\n{suite(schedule, args.suite)}", flush=True)
        return
    lay = random_layout(1024, 1024, density=0.25, nets=args.nets, pins=2, seed=args.seed,
                        span=64)
    for schedule in args.schedules:
        print(f"seed {args.seed}, {args.nets} nets: {run(lay, schedule)}", flush=True)


if __name__ == "__main__":
    main()
