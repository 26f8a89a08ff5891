"""The batched router's launch-saving designs, on and off (RESULTS.md, "The batched
router's launch designs"): windows that grow within a launch
(``router/schedule.py``'s ``REACH``; 0 turns it off), the next batch queued while one
runs (``router/batched.py``'s ``BatchRun.overlap``) and eager batches after a launch
that left most of the device idle (``BatchRun.eager``).

In one process the arms take turns with the CPU router on the routing suite's cases,
seeds 0-4 (``reps`` runs each, each seed's median, then the median over the seeds); it
prints the launches of each arm and whether every arm's routes equal the CPU's.

    PYTHONPATH=. python benchmarks/batch_arms_probe.py [reps] [all|case,case,...] [arm,...]

Arms: all (the defaults), grow+overlap (eager off), grow, overlap, neither (each of
these three with eager off), cpu.
"""
import hashlib
import sys
import time

import numpy as np

from mazeroute import bench
from mazeroute.router import batched as gb  # REACH and BatchRun, read by the batched run
from mazeroute.router.sequential import Router

#: arm: (REACH, BatchRun.overlap, BatchRun.eager), or None for the CPU router
ARMS = {"all": (gb.REACH, True, True), "grow+overlap": (gb.REACH, True, False),
        "grow": (gb.REACH, False, False), "overlap": (0, True, False),
        "neither": (0, False, False), "cpu": None}


def digest(res) -> str:
    h = hashlib.sha1()
    for n in res.nets:
        h.update(repr((n.routed, n.length, n.bends, n.levels,
                       n.cell_array().tolist())).encode())
    return h.hexdigest()[:10]


def set_arm(arm: str) -> str:
    """Set the arm's options; the backend it routes on."""
    if ARMS[arm] is None:
        return "cpu"
    gb.REACH, gb.BatchRun.overlap, gb.BatchRun.eager = ARMS[arm]
    return "gpu"


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    names = sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] != "all" else None
    arms = sys.argv[3].split(",") if len(sys.argv) > 3 else list(ARMS)
    for arm in arms:                                 # compile and warm, untimed
        Router(bench.ROUTING_CASES[4].layout(7), set_arm(arm)).run()
    for case in bench.ROUTING_CASES:
        if names and case.name.split("_")[0] not in names:
            continue
        seconds = {a: [] for a in arms}
        launches = dict.fromkeys(arms, 0)
        same = True
        for seed in range(5):
            lay = case.layout(seed)
            digests, runs = {}, {a: [] for a in arms}
            for r in range(reps):
                for arm in (arms if r % 2 == 0 else arms[::-1]):
                    backend = set_arm(arm)
                    start = time.perf_counter()
                    router = Router(lay, backend)
                    res = router.run()
                    runs[arm].append(time.perf_counter() - start)
                    if r == 0:
                        digests[arm] = digest(res)
                        launches[arm] += router.batches
            for arm in arms:
                seconds[arm].append(np.median(runs[arm]))
            same &= len(set(digests.values())) == 1
        med = {a: np.median(seconds[a]) for a in arms}
        cpu = med.get("cpu")
        parts = []
        for arm in arms:
            text = f"{arm} {1e3 * med[arm]:.2f} ms"
            if cpu and arm != "cpu":
                text += f" ({cpu / med[arm]:.1f}x, {launches[arm]} launches)"
            parts.append(text)
        print(f"{case.name}: " + "; ".join(parts)
              + f"; routes {'equal' if same else 'DIFFER'}", flush=True)
        for arm in arms:
            print(f"    {arm}: " + " ".join(f"{1e3 * x:.1f}" for x in seconds[arm]),
                  flush=True)


if __name__ == "__main__":
    main()
