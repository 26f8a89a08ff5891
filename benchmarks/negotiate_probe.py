"""Negotiated routing on the GPU against the CPU engine's negotiation (the speed goals
of ``docs/benchmarks.md``, "Negotiation").

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/negotiate_probe.py [--big] [--snapshots K ...]``. 1024 x 1024, 25 %
rectangles, 2000 local nets (span 64), negotiated to the end on each backend: wall time
of ``route(..., mode="negotiate")`` (median of ``--repeats``), nets routed, iterations,
and whether both backends give the same routes. ``--big``: 4096 x 4096, 32,000 local
nets on the GPU only, its time, its phases and the peak of CuPy's memory pool.
``--profile``: the GPU run (4096^2 with ``--big``, else 1024^2, after a warm-up) under
cProfile, its functions by own time and by cumulative time (where the phases after the
loop, the CPU engine's share and the device's waits show).
``--calls``: one GPU run of the 1024^2 layout (first seed) with every search call of the
weighted engine recorded: device calls (nets, largest box, wall time, kernel time by
CUDA events) and the calls the CPU engine took, which says what bounds the GPU's
negotiation. ``--snapshots K ...`` and ``--orders ORDER ...``: each run once per
``PathFinderOptions.snapshot_nets`` value (1: PathFinder's order; nets fewer than K apart
share a call otherwise) and ``reroute_order`` value. ``--cpu-box-cells N``: the GPU
engine hands boxes of more than N cells to the CPU engine. ``--kernel-options FLAG ...``:
extra NVRTC flags of the GPU engine's kernels (``-DNO_BOUND``: the weighted search without
its A* bound, for an A/B run). ``--chains on off``: each run with
``PathFinderOptions.device_chains`` (``route_chain``: an iteration's batches routed on the
device with no read back between them) and without (a call a batch), in turn.
Every GPU run prints its searches' work (``SearchDispatch.spent``): calls, nets, wall
seconds and the device's seconds by CUDA events, for calls on the device, calls on the
CPU engine and chained batches.
``--sizes SIDE ... [--mask CLASS] [--puzzles FILE ...]``: whole routes of SIDE x
SIDE layouts (of a layout class with ``--mask``; and of numberlink files) on the CPU,
the GPU and ``auto``, per seed.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import scipy.ndimage  # noqa: E402

from mazeroute.generate import class_mask, random_layout, random_nets  # noqa: E402
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402


def timed(layout, backend, repeats, options=None):
    times, res = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        res = route(layout, backend=backend, mode="negotiate", options=options)
        times.append(time.perf_counter() - start)
    return statistics.median(times), res


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--nets", type=int, default=2000,
                    help="nets of the 1024^2 layout (default 2000)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--calls", action="store_true")
    ap.add_argument("--snapshots", type=int, nargs="+", default=[None], metavar="K",
                    help="PathFinderOptions.snapshot_nets to run (default: the option's "
                         "default; 1: PathFinder's order)")
    ap.add_argument("--orders", nargs="+", default=[None], metavar="ORDER",
                    help="PathFinderOptions.reroute_order to run (default: the option's "
                         "default), each with every --snapshots value")
    ap.add_argument("--sizes", type=int, nargs="+", metavar="SIDE",
                    help="whole negotiated routes on SIDE x SIDE layouts (one net per 512 "
                         "cells, span 32) on each backend, per seed")
    ap.add_argument("--mask", metavar="CLASS",
                    help="with --sizes: layouts of this class (generate.class_mask, e.g. "
                         "dense:0.3) instead of 25 %% rectangles")
    ap.add_argument("--puzzles", metavar="FILE", nargs="*", default=[],
                    help="with --sizes: numberlink files too, every puzzle of each")
    ap.add_argument("--cpu-box-cells", type=int, metavar="N",
                    help="the GPU engine's cpu_box_cells (boxes of more cells go to the "
                         "CPU engine; default gpu_weighted.CPU_BOX_CELLS)")
    ap.add_argument("--kernel-options", nargs="+", default=[], metavar="FLAG",
                    help="extra NVRTC flags of the GPU engine's kernels (-DNO_BOUND: no A* "
                         "bound)")
    ap.add_argument("--chains", nargs="+", default=["off"], choices=["on", "off"],
                    help="PathFinderOptions.device_chains: on, off (the default), or both "
                         "in turn")
    return ap.parse_args()


def main() -> None:
    args = _arguments()
    if args.cpu_box_cells is not None or args.kernel_options:
        import functools

        from mazeroute.engines import gpu_weighted as gw
        from mazeroute.router import dispatch
        gw.GPUNetSearch.__init__ = functools.partialmethod(
            gw.GPUNetSearch.__init__, options=tuple(args.kernel_options))
        if args.cpu_box_cells is not None:
            dispatch.SearchDispatch.__init__ = functools.partialmethod(
                dispatch.SearchDispatch.__init__, cpu_box_cells=args.cpu_box_cells)
    _keep_engines()
    schedules = [(_name(k, o, c), None if k is None and o is None and c == "off"
                  else PathFinderOptions(**({} if k is None else {"snapshot_nets": k}),
                                         **({} if o is None else {"reroute_order": o}),
                                         device_chains=c == "on"))
                 for k in args.snapshots for o in args.orders for c in args.chains]
    if args.calls:
        for k, options in schedules:
            calls(args.seeds[0], k, options)
        return
    if args.sizes:
        sizes(args.sizes, args.seeds, args.puzzles, args.mask)
        return
    if args.profile and not args.big:
        profile_small(args.seeds[0], args.nets, schedules[0][1])
        return
    if not args.profile:
        compare_1024(args, schedules)
    if args.big:
        big(args, schedules)


def compare_1024(args: argparse.Namespace, schedules: list) -> None:
    """Each seed's 1024^2 layout negotiated on both backends, per schedule."""
    for seed, (k, options) in [(s, o) for s in args.seeds for o in schedules]:
        lay = random_layout(1024, 1024, density=0.25, nets=args.nets, pins=2, seed=seed,
                            span=64)
        route(lay, backend="gpu", mode="negotiate", max_iterations=2)     # compile, warm up
        route(lay, backend="cpu", mode="negotiate", max_iterations=1)     # (the GPU's CPU share)
        _ENGINES.clear()
        tg, rg = timed(lay, "gpu", args.repeats, options)
        tc, rc = timed(lay, "cpu", 1, options)
        same = all(a.cells == b.cells for a, b in zip(rg.nets, rc.nets))
        wl = sum(n.length for n in rg.nets if n.routed)
        print(f"1024^2 {args.nets} nets seed {seed} {k}: cpu {tc:.2f} s "
              f"({rc.routed} routed, "
              f"{len(rc.iterations)} its) | gpu {tg:.3f} s ({rg.routed} routed, "
              f"{len(rg.iterations)} its, wirelength {wl}) | {tc / tg:.1f}x | same routes: "
              f"{same}", flush=True)
        its = rg.iterations
        print(f"  gpu iterations: first {its[0].seconds * 1e3:.1f} ms, median "
              f"{statistics.median(i.seconds for i in its) * 1e3:.1f} ms, sum "
              f"{sum(i.seconds for i in its):.3f} s of {tg:.3f} s", flush=True)
        _print_spent()


def big(args: argparse.Namespace, schedules: list) -> None:
    """The 4096^2 layout negotiated on the GPU, per schedule (``--profile``: under
    cProfile)."""
    for k, options in schedules:
        import cupy
        pool = cupy.get_default_memory_pool()
        lay = random_layout(4096, 4096, density=0.25, nets=32000, pins=2, seed=1, span=64)
        pool.free_all_blocks()
        _ENGINES.clear()
        if args.profile:
            warm = random_layout(256, 256, density=0.25, nets=300, span=32, seed=9)
            route(warm, backend="gpu", mode="negotiate")
            profile = cProfile.Profile()
            profile.enable()
        if not args.profile:
            _time_phases()
        start = time.perf_counter()
        res = route(lay, backend="gpu", mode="negotiate", options=options)
        took = time.perf_counter() - start
        if args.profile:
            profile.disable()
            stats = pstats.Stats(profile, stream=sys.stdout)
            stats.sort_stats("tottime").print_stats(25)
            stats.sort_stats("cumulative").print_stats(40)
        print(f"4096^2 32000 nets {k}: gpu {took:.2f} s, {res.routed} routed, "
              f"{len(res.iterations)} its, CuPy pool peak {pool.total_bytes() / 2**20:.0f} MiB "
              f"(used now {pool.used_bytes() / 2**20:.0f} MiB)", flush=True)
        loop = sum(i.seconds for i in res.iterations)
        print(f"  loop {loop:.2f} s, after it {took - loop:.2f} s; iterations (rerouted, "
              "overused, ms): " + " ".join(f"{i.rerouted}/{i.overused}/{i.seconds * 1e3:.0f}"
                                           for i in res.iterations), flush=True)
        _print_phases()
        _print_spent()


def profile_small(seed: int, nets: int, options=None) -> None:
    """One GPU negotiation of the 1024^2 layout under cProfile (after a warm-up)."""
    lay = random_layout(1024, 1024, density=0.25, nets=nets, pins=2, seed=seed, span=64)
    route(lay, backend="gpu", mode="negotiate", max_iterations=2, options=options)
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    res = route(lay, backend="gpu", mode="negotiate", options=options)
    profile.disable()
    took = time.perf_counter() - start
    stats = pstats.Stats(profile, stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(50)
    loop = sum(i.seconds for i in res.iterations)
    print(f"1024^2 {nets} nets seed {seed} under cProfile: gpu {took:.2f} s, {res.routed} "
          f"routed, {len(res.iterations)} its, loop {loop:.2f} s", flush=True)


def _sized(side: int, seed: int, mask: str | None) -> Layout:
    """A SIDE x SIDE layout of one two-pin net per 512 cells of span 32: 25 % rectangles,
    or the layout class ``mask`` (``generate.class_mask``) with each net's pins in one
    connected region."""
    nets = max(2, side * side // 512)
    if mask is None:
        return random_layout(side, side, density=0.25, nets=nets, pins=2, seed=seed, span=32)
    blocked = class_mask(mask, side, seed=seed)
    label = scipy.ndimage.label(~blocked)[0]
    got = random_nets(blocked, nets, 2, np.random.default_rng(seed), span=32, regions=label)
    return Layout(f"{mask}-{side}-s{seed}", side, side, nets=got, blocked=blocked)


def sizes(sides: list[int], seeds: list[int], puzzles: list[str],
          mask: str | None = None) -> None:
    """Whole negotiated routes of small to middling layouts on both backends (and on
    ``auto``): where the device's cost a call outweighs its searches."""
    from mazeroute.readers import load_layouts
    warm = random_layout(128, 128, density=0.25, nets=30, span=32, seed=9)
    for backend in ("cpu", "gpu", "auto"):
        route(warm, backend=backend, mode="negotiate")
    cases = [(f"{mask or 'rects'} {side}^2 s{seed}", [_sized(side, seed, mask)])
             for side in sides for seed in seeds]
    cases += [(Path(f).name, load_layouts(f)) for f in puzzles]
    for name, lays in cases:
        times = {}
        for backend in ("cpu", "gpu", "auto"):
            start = time.perf_counter()
            got = [route(lay, backend=backend, mode="negotiate") for lay in lays]
            times[backend] = time.perf_counter() - start
            routed = sum(r.routed for r in got)
        print(f"{name}: {len(lays)} layouts, {sum(len(x.nets) for x in lays)} nets, "
              f"{routed} routed; cpu {times['cpu']:.3f} s, gpu {times['gpu']:.3f} s, auto "
              f"{times['auto']:.3f} s ({got[0].engine}); gpu/cpu "
              f"{times['gpu'] / times['cpu']:.2f}", flush=True)


_ENGINES: list = []


def _keep_engines() -> None:
    """Keep each GPU search's dispatch made (the device's calls and those it sent to the
    CPU), so that its work (``SearchDispatch.spent``) can be shown."""
    from mazeroute.router import dispatch
    init = dispatch.SearchDispatch.__init__

    def keep(self, *args, **kwargs):
        init(self, *args, **kwargs)
        _ENGINES.append(self)
    dispatch.SearchDispatch.__init__ = keep


def _print_spent() -> None:
    """The work of the GPU engines made since the last call (the loop's, and those of
    the phases after it), calls, nets and seconds per kind; the engines are then let go."""
    if _ENGINES:
        kinds = _ENGINES[0].spent
        total = {k: [sum(e.spent[k][j] for e in _ENGINES) for j in range(4)] for k in kinds}
        print(f"  work of {len(_ENGINES)} engines (calls / nets / wall s / device s): "
              + "; ".join(f"{kind} {c} / {n} / {t:.3f} / {d:.3f}"
                          for kind, (c, n, t, d) in total.items()), flush=True)
        _ENGINES.clear()


_PHASES: dict[str, float] = {}


def _time_phases() -> None:
    """Time the negotiator's phases (the loop, legalise, repair, tidy, the space-filling
    search, the reasons of unrouted nets, the sequential floor) for :func:`_print_phases`."""
    from mazeroute.router import negotiate as ng

    def timer(owner, name, label):
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                _PHASES[label] = _PHASES.get(label, 0.0) + time.perf_counter() - start
        setattr(owner, name, timed)
    for name in ("negotiate", "legalise", "repair", "tidy", "_fill", "_explain", "_result"):
        timer(ng.Negotiator, name, name.strip("_"))
    timer(ng, "sequential_routes", "sequential floor")


def _print_phases() -> None:
    if _PHASES:
        print("  phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in _PHASES.items()),
              flush=True)
        _PHASES.clear()


def _name(k: int | None, order: str | None, chains: str) -> str:
    return (f"snapshot {'default' if k is None else k}, order "
            f"{'default' if order is None else order}, chains {chains}")


def calls(seed: int, k: str = "default", options=None) -> None:
    """Every weighted search call of one GPU negotiation, recorded (see the module notes)."""
    import cupy

    from mazeroute.engines import gpu_weighted as gw
    from mazeroute.engines import weighted as wt

    dev, cpu = [], []
    device, on_cpu = gw.GPUNetSearch._route_device, wt.CPUNetSearch.route
    launch = gw.GPUNetSearch._run

    def timed_device(self, cost, requests, changed=None):
        start = time.perf_counter()
        out = device(self, cost, requests, changed)
        if requests:
            areas = [(r.box[2] - r.box[0] + 1) * (r.box[3] - r.box[1] + 1) for r in requests]
            dev.append([len(requests), max(areas), time.perf_counter() - start, 0.0])
        return out

    def timed_run(self, *a):
        begin, end = cupy.cuda.Event(), cupy.cuda.Event()
        begin.record()
        launch(self, *a)
        end.record()
        end.synchronize()
        if dev:
            dev[-1][3] += cupy.cuda.get_elapsed_time(begin, end) / 1e3

    def timed_cpu(self, cost, requests, changed=None):
        start = time.perf_counter()
        out = on_cpu(self, cost, requests, changed)
        cpu.append((len(requests), time.perf_counter() - start))
        return out

    lay = random_layout(1024, 1024, density=0.25, nets=2000, pins=2, seed=seed, span=64)
    route(lay, backend="gpu", mode="negotiate", max_iterations=2)
    gw.GPUNetSearch._route_device, gw.GPUNetSearch._run = timed_device, timed_run
    wt.CPUNetSearch.route = timed_cpu
    start = time.perf_counter()
    try:
        res = route(lay, backend="gpu", mode="negotiate", options=options)
    finally:
        gw.GPUNetSearch._route_device, gw.GPUNetSearch._run = device, launch
        wt.CPUNetSearch.route = on_cpu
    took = time.perf_counter() - start
    print(f"1024^2 2000 nets seed {seed} {k}, GPU: {took:.2f} s (calls "
          f"recorded), {res.routed} "
          f"routed, {len(res.iterations)} iterations")
    nets = [d[0] for d in dev]
    print(f"device calls {len(dev)}: {sum(d[2] for d in dev):.3f} s wall, kernels and "
          f"transfers {sum(d[3] for d in dev):.3f} s; nets a call: median "
          f"{statistics.median(nets)}; largest box a call: median "
          f"{statistics.median(d[1] for d in dev)} cells")
    for lo, hi in ((0, 1 << 12), (1 << 12, 1 << 14), (1 << 14, 1 << 16), (1 << 16, 1 << 40)):
        part = [d for d in dev if lo <= d[1] < hi]
        if part:
            print(f"  largest box in [{lo}, {hi}): {len(part)} calls, "
                  f"{sum(d[2] for d in part):.3f} s, median device time "
                  f"{statistics.median(d[3] for d in part) * 1e3:.2f} ms")
    print(f"CPU engine calls {len(cpu)}: {sum(c[1] for c in cpu):.3f} s, "
          f"{sum(c[0] for c in cpu)} nets")


if __name__ == "__main__":
    main()
