"""Negotiated routing on the CPU's and the GPU's weighted search, and under ``auto``, by
layout class (the wavefront's layout rules applied to negotiation): which engine is
sooner on mazes and winding corridors, where a net's box grows round detours. It backs
the negotiation side of the rule ``min_lines_run`` (``docs/auto.md``, "Negotiated
routing").

Each run is a child process, capped at ``CAP`` seconds. Compilation stays out of the
timing: the child first routes a 256^2 layout of the same class, runs the space-filling
search on a tiny puzzle and auto's decision on the layout's own mask (which compiles
the features' passes; the timed run's plan measures the layout again). Run on a GPU machine
from the repository root: ``PYTHONPATH=. python benchmarks/negotiate_engine_probe.py CAP
[BACKENDS [CASES]]``: BACKENDS a comma list of ``cpu``, ``gpu``, ``auto`` (default
``cpu,gpu``); CASES a comma list of ``class@side`` (default: every case below at 512^2
and 1024^2; the 2048^2 cases run only when named; any other ``class@side`` runs with
side/2 nets of span 64, where the class may also be ``kruskal:P:W``, a maze that
``class_mask`` does not make, :func:`~mazeroute.generate.kruskal_maze_mask`). Per case:
seconds, nets routed, iterations, wirelength (the engines route the same wires), the
engine auto took, and auto's time over the faster engine's. Under ``auto`` the warm-up
routes on both engines, as auto may take either.
"""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = r'''
import sys, time, json
import numpy as np
sys.path.insert(0, ".")
from mazeroute.layout import Layout
from mazeroute.generate import class_mask, kruskal_maze_mask, random_nets
from mazeroute.plan import Measure
from mazeroute.plan.decide import negotiation_prefers_cpu
from mazeroute.router.fill import fill_routes
import mazeroute


def mask(cls, side, seed):
    if cls.startswith("kruskal:"):
        _, loops, width = cls.split(":")
        return kruskal_maze_mask(side, side, float(loops), int(width), seed)
    return class_mask(cls, side, seed)


cls, backend = sys.argv[1], sys.argv[5]
S, n, span = (int(v) for v in sys.argv[2:5])
b = mask(cls, S, 5)
lay = Layout("x", S, S, [], [], b)
lay.nets = random_nets(b, n, 2, np.random.default_rng(3), span=span)
w = Layout("w", 256, 256, [], [], mask(cls, 256, 1))
w.nets = random_nets(w.blocked, 60, 2, np.random.default_rng(1), span=span)
from mazeroute.engines import gpu_available
for warm in (("cpu", "gpu") if backend == "auto" and gpu_available() else (backend,)):
    mazeroute.route(w, backend=warm, mode="negotiate")     # auto may take either
fill_routes(np.ones((3, 3), bool), [np.array([[0, 0], [2, 0]]), np.array([[0, 1], [2, 1]])])
negotiation_prefers_cpu(Measure(~b))
t = time.perf_counter()
r = mazeroute.route(lay, backend=backend, mode="negotiate")
dt = time.perf_counter() - t
print(json.dumps({"engine": r.engine, "t": dt, "routed": r.routed, "its": len(r.iterations),
                  "wl": sum(x.length for x in r.nets if x.routed)}))
'''


def cases() -> list[tuple[str, int, int, int]]:
    out = []
    for side in (512, 1024):
        out += [("maze:0.05", side, side // 2, 64), ("maze:0.2", side, side // 2, 64),
                ("maze:0.4", side, side // 2, 64), ("maze:0", side, side // 4, 100),
                ("serpentine:4", side, side // 8, 64), ("spiral:3", side, side // 8, 64),
                ("dense:0.3", side, side, 64), ("open:0.25", side, side, 64),
                ("wired:2", side, side // 2, 64)]
    # past a million cells: only by name in CASES (each run takes tens of seconds)
    out += [(c, 2048, n, 64) for c, n in (("maze:0.05", 1024), ("maze:0.2", 1024),
                                           ("serpentine:4", 256), ("open:0.25", 2048))]
    return out


def main() -> None:
    cap = float(sys.argv[1])
    backends = sys.argv[2].split(",") if len(sys.argv) > 2 else ["cpu", "gpu"]
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    todo = [c for c in cases() if (f"{c[0]}@{c[1]}" in only if only else c[1] <= 1024)]
    named = {f"{c[0]}@{c[1]}" for c in cases()}
    for case in only or []:            # any other class@side: side/2 nets of span 64
        if case not in named:
            cls, side = case.rsplit("@", 1)
            todo.append((cls, int(side), int(side) // 2, 64))
    for cls, side, n, span in todo:
        line = f"{cls:13s} {side:5d} n{n:5d} span {span:4d}:"
        res = {}
        for backend in backends:
            args = [sys.executable, "-c", CHILD, cls, str(side), str(n), str(span), backend]
            try:
                out = subprocess.run(args, capture_output=True, text=True, timeout=cap)
                d = json.loads(out.stdout.strip().splitlines()[-1])
            except subprocess.TimeoutExpired:
                line += f" | {backend} >{cap:.0f}s"
                continue
            except (ValueError, IndexError):
                line += f" | {backend} ERR {(out.stderr.strip().splitlines() or ['?'])[-1][:100]}"
                continue
            res[backend] = d
            line += (f" | {backend} {d['t']:6.2f}s {d['routed']:4d} it{d['its']:3d} wl {d['wl']}"
                     + (f" {d['engine']}" if backend == "auto" else ""))
        if "cpu" in res and "gpu" in res:
            line += f" | cpu/gpu {res['cpu']['t'] / res['gpu']['t']:.2f}"
            if "auto" in res:
                best = min(res["cpu"]["t"], res["gpu"]["t"])
                line += f" | auto/best {res['auto']['t'] / best:.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
