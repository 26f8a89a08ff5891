"""Sequential routing under ``auto`` against the GPU alone on one routing case of the
classes suite (issue 14's "auto within 1.2x of the best"), and where auto's extra time
goes.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/auto_routing_probe.py CASE [--seeds N] [--runs K]`` with CASE a prefix of a
routing case's name (``maze20``, ``multipin4``, ...). Per seed, after one warm-up of
each backend, ``Router(layout, b).run()`` for ``gpu`` and ``auto`` taking turns, K runs
each: the medians and every run (ms), the engine and batches each used; then the last
three runs of each backend under cProfile, by own time. numba's threading layer is
printed at the end: run it again with ``NUMBA_THREADING_LAYER=workqueue`` or
``NUMBA_NUM_THREADS=1`` (or ``OMP_WAIT_POLICY=passive``) to see what auto's parallel
hash and counts cost the runs around them (RESULTS.md, fifth session of 2026-11-25).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numba  # noqa: E402

from mazeroute.bench import ROUTING_CASES  # noqa: E402
from mazeroute.router import Router  # noqa: E402

BACKENDS = ("gpu", "auto")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    case = next(c for c in ROUTING_CASES if c.name.startswith(args.case))
    prof = {b: cProfile.Profile() for b in BACKENDS}
    for seed in range(args.seeds):
        lay = case.layout(seed)
        for b in BACKENDS:
            Router(lay, b).run()
        times: dict[str, list[float]] = {b: [] for b in BACKENDS}
        used = {}
        for k in range(args.runs):
            for b in BACKENDS:
                if k >= args.runs - 3:
                    prof[b].enable()
                start = time.perf_counter()
                router = Router(lay, b)
                router.run()
                times[b].append(time.perf_counter() - start)
                if k >= args.runs - 3:
                    prof[b].disable()
                used[b] = (router.engine, router.batches)
        print(f"{case.name} seed {seed}: " + ", ".join(
            f"{b} {statistics.median(v) * 1e3:.1f} ms {[round(x * 1e3, 1) for x in v]} "
            f"{used[b]}" for b, v in times.items()), flush=True)
    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = "none used"
    print(f"numba threading layer: {layer}, threads {numba.get_num_threads()}")
    for b, p in prof.items():
        out = io.StringIO()
        pstats.Stats(p, stream=out).sort_stats("tottime").print_stats(15)
        print(f"===== {b}\n{out.getvalue()}")


if __name__ == "__main__":
    main()
