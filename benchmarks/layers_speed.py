"""The multi-layer engines' speed, CPU against GPU in one run (one machine).

Usage (from the repository root, on a machine with CuPy and a CUDA device):

    python benchmarks/layers_speed.py wave  [--size 2048 --layers 8 --seeds 3]
    python benchmarks/layers_speed.py route [--size 1024 --layers 4 --nets 4000
                                             --mode sequential --backend cpu|gpu]

``wave``: one whole 3-D wavefront from a free cell of layer 0, 25 % rectangles on every
layer, directions alternating horizontal and vertical, via cost 1; the CPU engine
(``grid3d.bfs3d``) against the GPU's (``gpu_grid3d.bfs3d``, host copy and checks
included, and its sweeps alone), medians over seeds; the levels must be equal.
``route``: routes a random multi-layer layout (``random_layout3d``: rectangles at 10 %
per layer, two-pin nets of span 16) in one mode on one backend and prints one line of
JSON (seconds, those spent on the unrouted nets (explaining them), nets routed, a digest
of the routes, ``contract``: the contract checker's findings on them (0: valid), on the
GPU the bytes CuPy's pool holds at the end, which is its peak), so
that runs on the two backends can be compared, in parallel processes if need be.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, ".")

from mazeroute.bench.layers import digest, directions, wave_source  # noqa: E402
from mazeroute.engines import grid3d  # noqa: E402
from mazeroute.generate3d import random_layout3d  # noqa: E402


def wave(size: int, layers: int, seeds: int) -> None:
    import cupy

    from mazeroute.engines import gpu_grid3d
    rows = []
    for seed in range(seeds):
        dirs = directions(layers)
        lay = random_layout3d(size, size, layers, density=0.25, nets=0, seed=seed,
                              directions=dirs)
        free = ~lay.blocked
        src = [wave_source(free)]
        t = time.perf_counter()
        cpu = grid3d.bfs3d(free, src, directions=dirs)
        t_cpu = time.perf_counter() - t
        gpu_grid3d.bfs3d(free, src, directions=dirs)            # compile, warm up
        times = []
        for _ in range(3):
            t = time.perf_counter()
            got = gpu_grid3d.bfs3d(free, src, directions=dirs)
            times.append(time.perf_counter() - t)
        assert np.array_equal(got, cpu), "GPU levels differ from the CPU's"
        fr, axes, sites = grid3d.stack_arrays(free, dirs, None)
        sw = gpu_grid3d.BoxSweeps(cupy.asarray(fr.view(np.uint8)), axes, sites, 1,
                                  owned=False)
        box = np.array([[0, 0, size, size]])
        sweeps = []
        for _ in range(3):
            cupy.cuda.Device().synchronize()
            t = time.perf_counter()
            sw.run(box, np.array([-1]), [src])
            cupy.cuda.Device().synchronize()
            sweeps.append(time.perf_counter() - t)
        reached = cpu != grid3d.UNREACHED
        row = dict(seed=seed, cpu_s=t_cpu, gpu_s=statistics.median(times),
                   sweeps_s=statistics.median(sweeps), rounds=sw.rounds,
                   levels=int(cpu[reached].max()), reached=float(reached.mean()))
        rows.append(row)
        print(json.dumps(row), flush=True)
    cpu_s = statistics.median(r["cpu_s"] for r in rows)
    gpu_s = statistics.median(r["gpu_s"] for r in rows)
    sw_s = statistics.median(r["sweeps_s"] for r in rows)
    print(json.dumps(dict(summary="wave", size=size, layers=layers, cpu_s=cpu_s,
                          gpu_s=gpu_s, sweeps_s=sw_s, ratio=cpu_s / gpu_s,
                          ratio_sweeps=cpu_s / sw_s)), flush=True)


def _traced(calls: list) -> None:
    """Record each launch of the GPU's window searches: seconds, boxes, the largest
    box's cells, sweep rounds."""
    from mazeroute.router.layered_search import GPUTrees
    plain = GPUTrees.grow_many

    def grow_many(self, nets, wires=True, cost=None, boxes=None):
        t = time.perf_counter()
        out = plain(self, nets, wires, cost, boxes)
        big = 0 if boxes is None else int(((boxes[:, 2] - boxes[:, 0])
                                           * (boxes[:, 3] - boxes[:, 1])).max())
        calls.append((time.perf_counter() - t, len(nets), big, self.sweeps.rounds))
        return out

    GPUTrees.grow_many = grow_many


def route(size: int, layers: int, nets: int, mode: str, backend: str, seed: int,
          trace: bool = False) -> None:
    from mazeroute.contract import check_routes
    from mazeroute.router.layered import route_layered
    lay = random_layout3d(size, size, layers, density=0.10, nets=nets, span=16, seed=seed,
                          directions=directions(layers))
    calls: list = []
    if trace and backend == "gpu":
        _traced(calls)
    t = time.perf_counter()
    res = route_layered(lay, mode, backend=backend)
    seconds = time.perf_counter() - t
    if calls:
        print(json.dumps(dict(launches=len(calls), launch_s=sum(c[0] for c in calls),
                              slowest=sorted(calls, reverse=True)[:8])), flush=True)
    row = dict(summary="route", size=size, layers=layers, nets=nets, mode=mode,
               backend=backend, seed=seed, seconds=seconds, routed=res.routed,
               unrouted_seconds=sum(n.seconds for n in res.nets if not n.routed),
               engine=res.engine, iterations=len(res.iterations or []), digest=digest(res),
               contract=len(check_routes(lay, res.to_json())))
    if backend == "gpu":
        import cupy
        pool = cupy.get_default_memory_pool().total_bytes()
        row.update(gpu_pool_bytes=pool, gpu_bytes_per_cell=pool / (layers * size * size))
    print(json.dumps(row), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("wave", "route"))
    ap.add_argument("--size", type=int)
    ap.add_argument("--layers", type=int)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--nets", type=int, default=4000)
    ap.add_argument("--mode", default="sequential")
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--trace", action="store_true",
                    help="print the GPU's slowest launches (seconds, nets, cells, rounds)")
    a = ap.parse_args()
    if a.what == "wave":
        wave(a.size or 2048, a.layers or 8, a.seeds)
    else:
        route(a.size or 1024, a.layers or 4, a.nets, a.mode, a.backend, a.seed, a.trace)


if __name__ == "__main__":
    main()
