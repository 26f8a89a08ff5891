"""Sequential routing as a race: the CPU and the GPU router started together, in two
threads of one process, the first to finish giving the answer (both give the same
routes). Measured against each router alone and against ``auto``'s pick, on the held-out
routing sets of :mod:`auto_routing_heldout` (issue 14: "auto never more than 1.2x slower
than the best engine"; the race would need no prediction at all).

Per layout, after one warm-up of each arm: ``rounds`` rounds of CPU alone, GPU alone,
auto, and the race (the GPU router in the main thread, the CPU router in a second one;
the race's time is when the first finishes, the other is then waited for, untimed).
Prints medians in ms, the race over the faster router alone, which router won it, the
winner's time in the race over its time alone (what sharing the process cost it), and
auto over the faster; per set the count over 1.2x of auto and of the race, and the
race's geometric mean over the best.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/auto_race_probe.py SET... [--stride K] [--rounds R]`` (``--stride``: every
K-th layout of a set).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import auto_routing_heldout as heldout  # noqa: E402

from mazeroute.router import Router  # noqa: E402


def alone(lay, backend: str) -> float:
    start = time.perf_counter()
    Router(lay, backend).run()
    return time.perf_counter() - start


def race(lay) -> tuple[float, float]:
    """Seconds from the common start until the CPU router and the GPU router finished."""
    done: dict[str, float] = {}
    start = time.perf_counter()

    def cpu() -> None:
        Router(lay, "cpu").run()
        done["cpu"] = time.perf_counter() - start

    thread = threading.Thread(target=cpu)
    thread.start()
    Router(lay, "gpu").run()
    done["gpu"] = time.perf_counter() - start
    thread.join()
    return done["cpu"], done["gpu"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", type=int, nargs="+", choices=sorted(heldout.SETS))
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    med = statistics.median
    for s in args.sets:
        over_auto = over_race = 0
        ratios = []
        print(f"# set {s}: name nets | cpu gpu auto | race_cpu race_gpu | race/best winner "
              "infl auto/best", flush=True)
        cases = heldout.layouts(s)[::args.stride]
        for lay in cases:
            alone(lay, "cpu"), alone(lay, "gpu"), alone(lay, "auto"), race(lay)
            tc, tg, ta, rc, rg = [], [], [], [], []
            for _ in range(args.rounds):
                tc.append(alone(lay, "cpu"))
                tg.append(alone(lay, "gpu"))
                ta.append(alone(lay, "auto"))
                c, g = race(lay)
                rc.append(c)
                rg.append(g)
            c, g, a = med(tc), med(tg), med(ta)
            r = med([min(x, y) for x, y in zip(rc, rg)])
            best = min(c, g)
            win = "cpu" if med(rc) < med(rg) else "gpu"
            infl = med(rc) / c if win == "cpu" else med(rg) / g
            over_auto += a / best > 1.2
            over_race += r / best > 1.2
            ratios.append(r / best)
            print(f"{lay.name} {len(lay.nets)} | {c * 1e3:.2f} {g * 1e3:.2f} {a * 1e3:.2f} | "
                  f"{med(rc) * 1e3:.2f} {med(rg) * 1e3:.2f} | {r / best:.2f} {win} {infl:.2f} "
                  f"{a / best:.2f}", flush=True)
        print(f"# set {s}: over 1.2x: auto {over_auto}, race {over_race} of {len(cases)}; "
              f"race geo-mean {statistics.geometric_mean(ratios):.3f}", flush=True)


if __name__ == "__main__":
    main()
