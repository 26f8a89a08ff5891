"""Router set-up and routing time on gpu/grid with two ways of making the resting levels.

``old-init`` uploads the host's 4-byte levels, ``new-init`` (``DeviceProblem``'s now) builds
them on the device from the 1-byte free mask. Run on a GPU machine from the repository
root: ``PYTHONPATH=. python benchmarks/route_init_probe.py``; medians of 5 on
``route_layout(1024, 1000, 0)``, then the CPU router (median of 3, every net's cells
compared) and a profile of one GPU route.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.bench import route_layout  # noqa: E402
from mazeroute.engines import gpu_base  # noqa: E402
from mazeroute.router import Router  # noqa: E402


def sync():
    cupy.cuda.Device().synchronize()


def old(self):
    return cupy.asarray(self.initial_levels())


def main():
    lay = route_layout(1024, 1000, 0)
    for backend in ("gpu", "cpu"):
        Router(route_layout(48, 4, seed=1, span=20), backend).run()
    new = gpu_base.DeviceProblem._initial_levels_on_device
    res = None
    for name, make in (("old-init", old), ("new-init", new)) * 2:
        gpu_base.DeviceProblem._initial_levels_on_device = make
        setup, route = [], []
        for _ in range(5):
            sync()
            t0 = time.perf_counter()
            router = Router(lay, "gpu")
            sync()
            t1 = time.perf_counter()
            res = router.run()
            sync()
            setup.append(t1 - t0)
            route.append(time.perf_counter() - t1)
        print(f"{name}: Router() {np.median(setup) * 1e3:.2f} ms, run "
              f"{np.median(route) * 1e3:.2f} ms, routed {res.routed} wl {res.wirelength}",
              flush=True)
    gpu_base.DeviceProblem._initial_levels_on_device = new
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        cpu = Router(lay, "cpu").run()
        times.append(time.perf_counter() - t0)
    same = [n.cells for n in cpu.nets] == [n.cells for n in res.nets]
    print(f"cpu: {np.median(times) * 1e3:.1f} ms routed {cpu.routed} wl {cpu.wirelength}; "
          f"same cells: {same}")
    prof = cProfile.Profile()
    prof.enable()
    Router(lay, "gpu").run()
    sync()
    prof.disable()
    pstats.Stats(prof).sort_stats("cumtime").print_stats(30)


if __name__ == "__main__":
    main()
