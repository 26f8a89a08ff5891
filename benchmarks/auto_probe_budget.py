"""First wavefronts under ``auto`` with two budgets of its corridor probes.

``auto`` tells corridors wider than a cell from a dense field of blockages by short BFS
probes (``mazeroute.plan.features.corridor_width``, the rule ``probe_cells`` cells
each). The probes are most of
the decision's cost on such layouts, so a smaller budget would make a first wavefront
cheaper; this measures what it would cost in picks. For each layout it times, in
interleaved rounds on a GPU machine, the first wavefront (problem built, one wavefront,
device synchronised) on the CPU engine, on ``gpu/grid`` and under ``auto`` with each
budget (``dataclasses.replace(DEFAULT_RULES, probe_cells=budget)`` passed to
``make_plan``), and the decision alone with each budget, and prints the
whole wavefront's cells per level (the width the probes estimate) beside them. The
layouts include blockage fields near the percolation threshold (``dense:0.54-0.58``),
where the two budgets disagree.

Run from the repository root on a GPU machine::

    PYTHONPATH=. python benchmarks/auto_probe_budget.py [--rounds 9] [--budgets 8192 2048]

It backs the rule ``probe_cells`` (``docs/auto.md``, "Features"; the probe budget table
of benchmarks/RESULTS.md, "Wavefront: corridors and blockage fields").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.bench import _sync, corner_source  # noqa: E402
from mazeroute.engines import make_problem  # noqa: E402
from mazeroute.generate import class_mask  # noqa: E402
from mazeroute.graph import GridGraph  # noqa: E402
from mazeroute.plan import DEFAULT_RULES, Measure, Rules, make_plan  # noqa: E402
from mazeroute.plan.decide import wavefront_prefers_cpu  # noqa: E402

CASES = [("dense:0.5", 1024, 0), ("dense:0.5", 2048, 0), ("serpentine:8", 1024, 0),
         ("dense:0.55", 2048, 1), ("dense:0.57", 1024, 2), ("dense:0.58", 2048, 1),
         ("dense:0.56", 2048, 2), ("dense:0.57", 2048, 2), ("dense:0.54", 1024, 2),
         ("dense:0.55", 1024, 3), ("dense:0.55", 2048, 3), ("spiral:2", 512, 0),
         ("serpentine:6", 1024, 0)]


def first(graph: GridGraph, src: np.ndarray, backend: str,
          rules: Rules = DEFAULT_RULES) -> float:
    """Seconds of a first wavefront: planned (auto: decided), problem built, one
    wavefront."""
    _sync("gpu")
    start = time.perf_counter()
    make_problem(graph, plan=make_plan(graph, backend, rules=rules)).wavefront(src)
    _sync("gpu")
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--budgets", type=int, nargs="+", default=[8192, 2048])
    args = ap.parse_args()
    budgets = {b: replace(DEFAULT_RULES, probe_cells=b) for b in args.budgets}
    arms = [("cpu", "cpu", DEFAULT_RULES), ("gpu", "gpu", DEFAULT_RULES)] + [
        (f"auto{b}", "auto", budgets[b]) for b in args.budgets]
    for name, size, seed in CASES:
        free = np.ascontiguousarray(~class_mask(name, size, seed))
        graph = GridGraph(free)
        src = np.array([corner_source(free)], dtype=np.int64)
        wave = make_problem(graph, "cpu").wavefront(src)
        reached = int(np.count_nonzero(wave.levels() != np.iinfo(np.uint32).max))
        times: dict[str, list[float]] = {a: [] for a, _, _ in arms}
        decide: dict[int, list[float]] = {b: [] for b in args.budgets}
        picks = {}
        for k in range(args.rounds + 1):            # round 0: warm-up
            for arm, backend, rules in arms:
                took = first(graph, src, backend, rules)
                if k:
                    times[arm].append(took)
            for b in args.budgets:
                start = time.perf_counter()
                cpu, f = wavefront_prefers_cpu(Measure(free, budgets[b]))
                decide[b].append(time.perf_counter() - start)
                picks[b] = ("cpu" if cpu else "gpu",
                            None if f is None else round(f.get("width", np.nan), 1))
        med = {a: statistics.median(t) * 1e3 for a, t in times.items()}
        best = min(med["cpu"], med["gpu"])
        print(f"{name}@{size}s{seed}: reached {reached}, levels {wave.num_levels} "
              f"({reached / max(wave.num_levels, 1):.0f} cells a level) | "
              + " ".join(f"{a} {m:.3f} ms" for a, m in med.items()) + " | "
              + " ".join(f"auto{b}/best {med[f'auto{b}'] / best:.2f}"
                         for b in args.budgets) + " | "
              + ", ".join(f"decide{b} {statistics.median(decide[b]) * 1e3:.3f} ms "
                          f"pick {picks[b]}" for b in args.budgets), flush=True)


if __name__ == "__main__":
    main()
