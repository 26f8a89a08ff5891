"""Probe of gpu/grid's ``sweep`` mode (kernels/sweep.cu) against its ``tiles`` mode.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/sweep_probe.py``. For each case: median wall time of one full wavefront by
tiles and by sweep (checked equal to cpu/grid's levels), then one run of the sweep kernel
built with ``-DPROBE``: tile visits (of which visits again at once), column passes per
visit, mean cycles per visit settling and handing over to neighbours, cycles a warp
spends waiting for work, and a visit's cycles by phase (load, seed edges, scan, write
back).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute import bench  # noqa: E402
from mazeroute.engines import cuda, make_problem  # noqa: E402
from mazeroute.engines.gpu_grid import GridRelaxProblem  # noqa: E402
from mazeroute.engines.gpu_sweep import SweepWavefront  # noqa: E402
from mazeroute.graph import GridGraph  # noqa: E402


def timed(run, repeats=7):
    run()
    times, out = [], None
    for _ in range(repeats):
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        out = run()
        cupy.cuda.Device().synchronize()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def probe(p: GridRelaxProblem, source: int) -> dict:
    """One sweep run with the -DPROBE kernel on ``p``'s grid; its counters."""
    h, w = p.shape
    sw = SweepWavefront(h, w, p.words_per_row, ("-DPROBE",))
    ptr = cuda.load_module("sweep", ("-DPROBE",)).get_global("g_probe")
    counters = cupy.ndarray((12,), cupy.uint64, memptr=ptr)
    counters.fill(0)
    level = cupy.where(cupy.asarray(p.host_free), np.uint32(0xFFFFFFFF),
                       np.uint32(0xFFFFFFFE)).astype(cupy.uint32).ravel()
    sw.run(level, p.free_bits, np.array([source]))
    c = [int(v) for v in counters.get()]
    visits = max(1, c[0])
    return {"visits": c[0], "again": c[5], "passes/visit": c[3] / visits,
            "settle cyc": c[1] / visits, "hand-over cyc": c[2] / visits,
            "wait cyc/team": c[4] / (sw.blocks * sw.warps // 2), "load": c[6] / visits,
            "seed": c[7] / visits, "scan": c[8] / visits, "write": c[9] / visits}


VARIANTS = {"sweep": {}, "warps8": {"warps": 8}}


def main() -> None:
    cases = [("open", 4096), ("open", 1024), ("dense", 1024), ("maze", 1023)]
    for cls, size in cases:
        case = bench.make_case(cls, size)
        g = GridGraph(case.free)
        ref = make_problem(g, "cpu", "grid").wavefront([case.source])
        row = [f"{cls}{size}"]
        for name, kw in {"tiles": None, **VARIANTS}.items():
            p = GridRelaxProblem(g, mode="tiles" if kw is None else "sweep")
            if kw:
                p._sweep = SweepWavefront(*p.shape, p.words_per_row, **kw)
            t, wave = timed(lambda p=p, s=case.source: p.wavefront([s]))
            ok = np.array_equal(wave.levels(), ref.levels())
            row.append(f"{name} {t * 1e3:.3f} ms {'ok' if ok else 'WRONG'}")
        row.append(" ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                            for k, v in probe(p, case.source).items()))
        print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
