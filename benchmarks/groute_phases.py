"""Where a global route's time goes: reading, the first pass, each iteration of rip-up
and reroute, and the functions that take most of it.

Usage (from the repository root)::

    python benchmarks/groute_phases.py DESIGN.def --lef TECH.lef [--lef MORE.lef]
    python benchmarks/groute_phases.py DIR/scale.cap --net DIR/scale.net
        [--backend cpu|gpu --group N --first-pass pattern|maze --profile 20]

Prints one line a phase (seconds since the start, the iteration's overflow and nets),
then one line of JSON with the totals and, on the GPU, CuPy's pool's peak bytes; with
``--profile K``, the K functions of most own time after it.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time

sys.path.insert(0, ".")

from mazeroute.router.groute import GRouteOptions, global_route  # noqa: E402


def _problem(args: argparse.Namespace):
    if args.net:
        from mazeroute.readers.contest import read_cap, read_net
        from mazeroute.router.groute_contest import cap_problem

        cap = read_cap(args.input)
        return cap_problem(cap, read_net(args.net, cap))
    from mazeroute.gcells import gcell_grid
    from mazeroute.readers.lefdef import read_design
    from mazeroute.router.groute import GRouteProblem, design_pins

    design = read_design(args.input, args.lef)
    grid = gcell_grid(design)
    return GRouteProblem.of_grid(grid, design_pins(design, grid))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("--lef", action="append", default=[])
    p.add_argument("--net")
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--group", type=int, default=1)
    p.add_argument("--first-pass", choices=("pattern", "maze"), default="pattern")
    p.add_argument("--profile", type=int, default=0, metavar="K")
    args = p.parse_args()
    start = time.perf_counter()
    problem = _problem(args)
    read = time.perf_counter() - start
    print(f"read {read:.2f} s, {len(problem.pins)} nets", flush=True)

    def progress(it: int, overflow: int, nets: int) -> None:
        print(f"iteration {it}: {time.perf_counter() - start:.2f} s, overflow {overflow}, "
              f"{nets} nets", flush=True)

    options = GRouteOptions(group=args.group, pattern=args.first_pass == "pattern")
    prof = cProfile.Profile() if args.profile else None
    if prof:
        prof.enable()
    result = global_route(problem, options, progress, backend=args.backend)
    if prof:
        prof.disable()
    peak = None
    if args.backend == "gpu":
        import cupy

        peak = cupy.get_default_memory_pool().total_bytes()
    print(json.dumps({"backend": args.backend, "group": args.group,
                      "first_pass": args.first_pass, "read_s": round(read, 2),
                      "route_s": round(result.seconds, 2),
                      "total_s": round(time.perf_counter() - start, 2),
                      "iterations": result.iterations, "overflow": result.overflow,
                      "gpu_pool_bytes": peak}), flush=True)
    if prof:
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())


if __name__ == "__main__":
    main()
