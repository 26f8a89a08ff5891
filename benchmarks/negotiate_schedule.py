"""Negotiation's schedules on the negotiation targets' layouts, CPU and GPU in one process.

Usage (from the repository root)::

    python benchmarks/negotiate_schedule.py [--cases LIST] [--schedules LIST]
        [--backends cpu,gpu] [--repeats N] [--option NAME=VALUE ...] [--jsonl FILE]

Cases (``generate rects``-style layouts of :func:`mazeroute.generate.random_layout`,
two-pin nets, seed 1, the targets of the negotiation work):

* ``r1024-2000``: 1024^2, 25 % rectangles, 2,000 nets of span 64;
* ``r1024-4000``: the same with 4,000 nets;
* ``r2048-8000``: 2048^2, 8,000 nets;
* ``r4096-32000``: 4096^2, 32,000 nets (the GPU only unless ``--big-cpu``);
* ``r1024-2500``: 1024^2, 15 % rectangles, 2,500 nets of span 80;
* ``open-200``: 1024^2 open, 200 nets anywhere (over-subscribed).

Schedules: ``pf`` (PathFinder's order, ``group_nets=0``) and ``gN`` (``group_nets=N``).
Every run is negotiated to its end (``wait_factor=0``, unless an ``--option`` says
otherwise) so that both backends route the same nets; each line of JSON gives nets
routed, seconds, the engine's calls (in the loop and in all) and a digest of the wires,
and the table marks a schedule whose digests differ between the backends. With
``--repeats N`` each line is N runs in the same process: ``seconds`` their median and
``runs`` each run's, and the table marks runs whose digests differ.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from negotiate_families import _option, measure  # noqa: E402

from mazeroute import engines  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402

CASES = {
    "r1024-2000": dict(side=1024, density=0.25, nets=2000, span=64),
    "r1024-4000": dict(side=1024, density=0.25, nets=4000, span=64),
    "r2048-8000": dict(side=2048, density=0.25, nets=8000, span=64),
    "r4096-32000": dict(side=4096, density=0.25, nets=32000, span=64),
    "r1024-2500": dict(side=1024, density=0.15, nets=2500, span=80),
    "open-200": dict(side=1024, density=0.0, nets=200, span=None),
}
#: Cases the CPU skips unless asked (minutes on a CPU).
BIG = ("r4096-32000",)


def layout(name: str):
    c = CASES[name]
    return random_layout(c["side"], c["side"], density=c["density"], nets=c["nets"], pins=2,
                         seed=1, span=c["span"])


def schedule(name: str) -> dict:
    if name == "pf":
        return {"group_nets": 0}
    if name.startswith("g") and name[1:].isdigit():
        return {"group_nets": int(name[1:])}
    raise SystemExit(f"unknown schedule {name!r}: pf or gN")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="r1024-2000,r1024-4000,r2048-8000,r4096-32000")
    ap.add_argument("--schedules", default="pf,g32,g256")
    ap.add_argument("--backends", default=None, help="default: cpu, and gpu if present")
    ap.add_argument("--big-cpu", action="store_true", help="the CPU runs the big cases too")
    ap.add_argument("--repeats", type=int, default=1, metavar="N",
                    help="runs of each line, seconds their median (default 1)")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--jsonl", metavar="FILE")
    args = ap.parse_args()
    backends = (args.backends.split(",") if args.backends else
                ["cpu"] + (["gpu"] if engines.gpu_available() else []))
    extra = dict(_option(o) for o in args.option)
    # compile first: a small layout, and one whose phases after the loop take every
    # path the targets' layouts take (their first compiles fell in a measured run)
    warm = [random_layout(64, 64, density=0.25, nets=40, pins=2, seed=0, span=16),
            random_layout(256, 256, density=0.25, nets=300, pins=2, seed=0, span=48)]
    for b in backends:
        for s in args.schedules.split(","):
            for lay in warm:
                route(lay, backend=b, options=PathFinderOptions(**schedule(s)))
    rows = []
    for case in args.cases.split(","):
        lay = layout(case)
        for s in args.schedules.split(","):
            opts = PathFinderOptions(**{"wait_factor": 0, **schedule(s), **extra})
            for b in backends:
                if b == "cpu" and case in BIG and not args.big_cpu:
                    continue
                runs = [measure(lay, b, opts) for _ in range(max(1, args.repeats))]
                row = dict(case=case, schedule=s, backend=b, **runs[0])
                row["seconds"] = round(statistics.median(r["seconds"] for r in runs), 3)
                row["runs"] = [r["seconds"] for r in runs]
                row["repeats_agree"] = len({r["digest"] for r in runs}) == 1
                rows.append(row)
                line = json.dumps(row)
                print(line, flush=True)
                if args.jsonl:
                    with open(args.jsonl, "a") as f:
                        f.write(line + "\n")
    print("\n| case | schedule | backend | nets | sequential | negotiated | iterations | "
          "calls (loop) | seconds (median) | findings | wires |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---:|---|")
    for r in rows:
        peers = {o["digest"] for o in rows if o["case"] == r["case"]
                 and o["schedule"] == r["schedule"]}
        same = "same" if len(peers) == 1 and r["repeats_agree"] else "DIFFERENT"
        print(f"| {r['case']} | {r['schedule']} | {r['backend']} | {r['nets']} | "
              f"{r['sequential']} | {r['negotiated']} | {r['iterations']} | "
              f"{r['calls']} ({r['loop_calls']}) | {r['seconds']:.2f} | {r['contract']} | "
              f"{same} |")


if __name__ == "__main__":
    main()
