"""Does the run before a first wavefront change its time? (issue 14: ``mazeroute bench``
compares CPU, GPU and ``auto`` first wavefronts, each run after another.)

Per layout (three Moving AI maps at their size, three classes at 1024^2), after one
warm-up of each backend: ``--rounds`` rounds in which, for every predecessor backend P
and every backend B, one first wavefront of P (untimed) is followed, after an optional
neutral step (``--sweep MB``: a scratch buffer of that many megabytes swept, to see
whether the host's caches carry the effect), by one timed first wavefront of B:
``make_problem`` (``auto``: its decision first, its memo dropped) and one wavefront, the
picked engine's device synchronised. Prints the median ms of B after each P.

This is the evidence for :func:`mazeroute.bench.turns` (each backend runs after each
equally often). Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/predecessor_probe.py [--rounds R] [--sweep MB ...]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402

from mazeroute.bench import corner_source, first_wavefront  # noqa: E402
from mazeroute.engines import gpu_available  # noqa: E402
from mazeroute.generate import class_mask  # noqa: E402
from mazeroute.graph import GridGraph  # noqa: E402
from mazeroute.layout import read_movingai  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--sweep", type=int, nargs="+", default=[0, 32, 128],
                    help="megabytes of the neutral step (0: none)")
    args = ap.parse_args()
    gpu = gpu_available()
    backends = ("cpu", "gpu", "auto") if gpu else ("cpu", "auto")
    cases = [(m, ~read_movingai(HERE / "maps" / f"{m}.map").blocked)
             for m in ("ost003d", "den520d", "brc202d")]
    cases += [(f"{c}@1024", ~class_mask(c, 1024, 0))
              for c in ("serpentine:2", "dense:0.5", "open:0.25")]
    for mb in args.sweep:
        scratch = np.zeros(mb << 17)          # float64: 2^17 of them a megabyte
        start = time.perf_counter()
        scratch += 1.0
        print(f"neutral step {mb} MB: {(time.perf_counter() - start) * 1e3:.2f} ms")
        for name, free in cases:
            graph = GridGraph(free)
            src = np.array([corner_source(free)], np.int64)
            for b in backends:
                first_wavefront(graph, src, b, gpu)
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(args.rounds):
                for prev in backends:
                    for b in backends:
                        first_wavefront(graph, src, prev, gpu)
                        if mb:
                            scratch += 1.0
                        times.setdefault((b, prev), []).append(first_wavefront(graph, src, b, gpu))
            med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
            cells = " ".join(f"{b}:" + "/".join(f"{med[b, p]:.3f}" for p in backends)
                             for b in backends)
            print(f"  {name} (after {'/'.join(backends)}) {cells}", flush=True)


if __name__ == "__main__":
    main()
