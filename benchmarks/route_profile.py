"""Issue 4 target (c) probe: Python-level profile of batched GPU routes.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/route_profile.py [SEED] [ROUTES]``. Routes ``route_layout(1024, 1000, SEED)``
``ROUTES`` times (after a warm-up) under cProfile and prints the functions by own time
and by cumulative time, then the median wall time of as many routes without the
profiler.
"""
import cProfile
import pstats
import statistics
import sys
import time

import cupy

from mazeroute.bench import route_layout
from mazeroute.router import sequential as rt


def route(lay):
    rt.Router(lay, "gpu").run()
    cupy.cuda.Device().synchronize()


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    lay = route_layout(1024, 1000, seed)
    route(route_layout(48, 4, seed=1, span=20))
    route(lay)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        route(lay)
        times.append(time.perf_counter() - t)
    print(f"seed {seed}: median of {n} routes {statistics.median(times) * 1e3:.2f} ms "
          f"({', '.join(f'{t * 1e3:.1f}' for t in times)})")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        route(lay)
    prof.disable()
    st = pstats.Stats(prof).strip_dirs()
    st.sort_stats("tottime").print_stats(30)
    st.sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    main()
