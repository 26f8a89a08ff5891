"""The ``groute`` command: global routing of a placed design (LEF/DEF) on its GCell grid,
route guides out."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from .errors import InputError

DESCRIPTION = (
    "Read a placed design (DEF) and its LEF files, build the GCell grid as OpenROAD's "
    "global router does, route every signal net on it (3-D maze routing from pin to "
    "nearest pin, negotiated against the edges' capacities) and write route guides in "
    "the ISPD 2018 / OpenROAD format, which OpenROAD's detailed router reads, with a "
    "report of the routing. The search runs on the CPU.")


def add_groute(sub) -> argparse.ArgumentParser:
    """The ``groute`` parser, joined to :func:`cmd_groute`."""
    from .cli_design import design_options

    p = sub.add_parser("groute", help="global routing of a LEF/DEF design: route guides",
                       description=DESCRIPTION)
    design_options(p)
    p.add_argument("--via-cost", type=int, default=2, metavar="N",
                   help="a via's price in GCell steps (default: 2)")
    p.add_argument("--max-iterations", type=int, default=30, metavar="N",
                   help="the most rounds of rip-up and reroute (default: 30)")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="output folder (default: outputs/<design name>/): "
                        "<design>.guide and groute.txt")
    p.set_defaults(func=cmd_groute)
    return p


def cmd_groute(args: argparse.Namespace) -> int:
    """Route the design, write its guides and report; 0 when no edge overflows."""
    from .gcells import gcell_grid
    from .guides import write_guides
    from .io import OutputSet, check_output_folder, output_folder, safe_folder_name
    from .readers.lefdef import read_design
    from .router.groute import (
        GRouteOptions,
        GRouteProblem,
        design_pins,
        global_route,
        guide_rects,
        wirelength_um,
    )

    for name, v, least in (("--via-cost", args.via_cost, 1),
                           ("--max-iterations", args.max_iterations, 1)):
        if v < least:
            raise InputError(f"must be at least {least}, got {v}", field=name)
    t0 = time.perf_counter()
    design = read_design(args.design, args.lef)
    try:
        grid = gcell_grid(design, min_layer=args.min_layer, max_layer=args.max_layer,
                          adjust=dict(args.adjust))
    except InputError as e:
        raise e.with_file(args.design) from None
    pins = design_pins(design, grid)
    problem = GRouteProblem.of_grid(grid, pins)
    options = GRouteOptions(via_cost=args.via_cost, max_iterations=args.max_iterations)

    def progress(it: int, overflow: int, rerouted: int) -> None:
        print(f"iteration {it}: {rerouted} nets routed, overflow {overflow}", flush=True)

    result = global_route(problem, options, progress)
    guides = {n: guide_rects(t, grid) for n, t in result.routes.items() if t.routed}
    vias = sum(t.vias for t in result.routes.values())
    wl = wirelength_um(result, grid, design.dbu)
    routed = sum(t.routed for t in result.routes.values())
    nx, ny = grid.shape
    local = sum(len(set(p)) == 1 for p in pins.values())
    lines = [f"design {design.name}: {len(design.nets)} signal nets, {len(pins)} of two "
             f"pins or more ({local} of them inside one GCell)",
             f"GCell grid {nx} x {ny}, layers {grid.layers[grid.min_layer - 1].name}-"
             f"{grid.layers[grid.max_layer - 1].name}",
             f"routed {routed} of {len(pins)} nets in {result.iterations} iterations, "
             f"overflow {result.overflow}",
             f"wirelength {wl:.0f} um (GCell centre to centre), vias {vias}",
             f"seconds {time.perf_counter() - t0:.2f} (routing {result.seconds:.2f})"]
    out = Path(args.output) if args.output else Path("outputs") / safe_folder_name(
        design.name)
    check_output_folder(out)
    with output_folder(out), OutputSet(out) as files:
        guide = f"{safe_folder_name(design.name)}.guide"
        write_guides(files.stage(guide), guides)
        files.stage("groute.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"wrote {out / guide}, {out / 'groute.txt'}")
    return 0 if result.overflow == 0 else 1
