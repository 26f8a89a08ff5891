"""Sequential routing on mazes with few to many loops: CPU engine against GPU engine, and
the backend auto's routing rule picks (the maze line: the rules ``maze_span_line`` and
``min_maze_loops``, ``docs/auto.md``, "Sequential routing").

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/maze_routing_probe.py [--loops ...] [--sides ...] [--seeds ...]``. For each
maze (``class_mask("maze:<loops>")``, two-pin nets by ``random_nets``) and three net
mixes (200 nets of span 200, 60 of span 200, 300 of span 60; ``--mixes NETS:SPAN ...``
others): the best of two runs of
``Router(layout, backend).run()`` on each backend (router built, device synchronised),
cycles per free cell, nets routed and the rule's pick. The defaults use seeds that no
suite uses. ``--host-targets off`` keeps ``gpu/grid``'s searches with targets on the
device on mazes with loops too (``GridRelaxProblem(host_targets=False)``; the default
runs them on the host mirror there), and ``--both`` times the GPU both ways.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from mazeroute.bench import _maze_routing, _sync, _warm_routing  # noqa: E402
from mazeroute.engines import gpu_grid  # noqa: E402
from mazeroute.plan import Measure  # noqa: E402
from mazeroute.plan.decide import routing_prefers_cpu  # noqa: E402
from mazeroute.plan.features import cycle_rank  # noqa: E402
from mazeroute.router import Router  # noqa: E402

MIXES = ((200, 200), (60, 200), (300, 60))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loops", type=float, nargs="+", default=[0.0, 0.005, 0.02, 0.05, 0.1])
    ap.add_argument("--sides", type=int, nargs="+", default=[511, 1023])
    ap.add_argument("--seeds", type=int, nargs="+", default=[5, 6])
    ap.add_argument("--mixes", nargs="+", metavar="NETS:SPAN", default=None,
                    help="net mixes instead of the three defaults, e.g. 100:100 500:30")
    ap.add_argument("--host-targets", choices=("auto", "off"), default="auto")
    ap.add_argument("--both", action="store_true",
                    help="time the GPU with host_targets auto and off (column gpu-off)")
    args = ap.parse_args()
    init = gpu_grid.GridRelaxProblem.__init__
    off = functools.partialmethod(init, host_targets=False)

    def host(on: bool) -> None:
        gpu_grid.GridRelaxProblem.__init__ = init if on else off

    host(args.host_targets == "auto")
    _warm_routing(["gpu", "cpu"])
    mixes = (MIXES if args.mixes is None
             else [tuple(int(v) for v in m.split(":")) for m in args.mixes])
    print("loops side nets span seed | cycles/cell | cpu s gpu s cpu/gpu | routed | rule picks"
          + (" | gpu-off s" if args.both else ""), flush=True)
    for loops in args.loops:
        for side in args.sides:
            for nets, span in mixes:
                for seed in args.seeds:
                    lay = _maze_routing(loops)(side, nets, 2, span, seed)
                    free = ~lay.blocked
                    rank = cycle_rank(free, free.size) / free.sum()
                    t: dict[str, list[float]] = {}
                    runs = ("cpu", "gpu", "gpu-off") if args.both else ("cpu", "gpu")
                    for run in runs + runs:
                        if args.both:
                            host(run == "gpu")
                        _sync("gpu")
                        start = time.perf_counter()
                        res = Router(lay, run[:3]).run()
                        _sync("gpu")
                        t.setdefault(run, []).append(time.perf_counter() - start)
                    tc, tg = min(t["cpu"]), min(t["gpu"])
                    pins = np.array([len(n.pins) for n in lay.nets])
                    spans = np.array([abs(n.pins[0][0] - n.pins[1][0])
                                      + abs(n.pins[0][1] - n.pins[1][1]) for n in lay.nets])
                    pick = "cpu" if routing_prefers_cpu(Measure(free), pins, spans) else "gpu"
                    print(f"{loops:5} {side:5} {nets:4} {span:4} {seed} | {rank:.4f} | "
                          f"{tc:.3f} {tg:.3f} {tc / tg:5.2f} | {res.routed} | {pick}"
                          + (f" | {min(t['gpu-off']):.3f}" if args.both else ""),
                          flush=True)


if __name__ == "__main__":
    main()
