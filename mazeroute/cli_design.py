"""The ``gcells`` and ``evaluate`` commands: a real design's GCell grid and routing
resources (LEF/DEF), and route guides judged over that grid."""

from __future__ import annotations

import argparse

from .errors import InputError

DESCRIPTION = (
    "Read a placed design (DEF) and its LEF files, build the GCell grid and the per-layer "
    "edge capacities as OpenROAD's global router does by default, and print the grid and "
    "the routing-resources table in OpenROAD's shape (`mazeroute groute` routes the "
    "design).")


def _adjustment(text: str) -> tuple[str, float]:
    layer, sep, frac = text.partition("=")
    try:
        value = float(frac)
    except ValueError:
        value = None
    if not sep or not layer or value is None:
        raise argparse.ArgumentTypeError(f"expected LAYER=FRACTION, got {text!r}")
    return layer, value


def design_options(p: argparse.ArgumentParser, adjust: bool = True) -> None:
    """The design's options, as every command on a LEF/DEF design takes them: the DEF,
    ``--lef`` (repeated), the layer range and (``adjust``) per-layer adjustments."""
    p.add_argument("design", metavar="DESIGN.def", help="the placed design (DEF)")
    p.add_argument("--lef", action="append", required=True, metavar="FILE.lef",
                   help="a LEF file: the technology first, then cell libraries "
                        "(repeat the option for each)")
    p.add_argument("--min-layer", metavar="NAME",
                   help="lowest routing layer (default: the second routing layer)")
    p.add_argument("--max-layer", metavar="NAME",
                   help="highest routing layer (default: the highest one reached with "
                        "tracks on every layer)")
    if adjust:
        p.add_argument("--adjust", action="append", type=_adjustment, default=[],
                       metavar="LAYER=FRACTION",
                       help="take this fraction of a layer's capacity away (repeatable), "
                            "as OpenROAD's set_global_routing_layer_adjustment")


def design_and_grid(args: argparse.Namespace):
    """The design the options of :func:`design_options` name, and its GCell grid."""
    from .gcells import gcell_grid
    from .readers.lefdef import read_design

    design = read_design(args.design, args.lef)
    try:
        grid = gcell_grid(design, min_layer=args.min_layer, max_layer=args.max_layer,
                          adjust=dict(getattr(args, "adjust", None) or []))
    except InputError as e:
        raise e.with_file(args.design) from None
    return design, grid


def add_gcells(sub) -> argparse.ArgumentParser:
    """The ``gcells`` parser, joined to :func:`cmd_gcells`."""
    p = sub.add_parser("gcells", help="a LEF/DEF design's GCell grid and routing resources",
                       description=DESCRIPTION)
    design_options(p)
    p.set_defaults(func=cmd_gcells)
    add_evaluate(sub)
    return p


EVALUATE_DESCRIPTION = (
    "Read a placed design (DEF), its LEF files and route guides (the ISPD 2018 / OpenROAD "
    "guide format), and judge the guides over the GCell grid that `gcells` prints: "
    "whether each net's guides connect and cover its pins, the wirelength and vias as "
    "OpenROAD measures them, each layer's demand and overflow in the shape of OpenROAD's "
    "final congestion report, and the ISPD 2024 contest's cost with unit weights. Exits 0 "
    "when every net is connected, 1 otherwise.")


def add_evaluate(sub) -> argparse.ArgumentParser:
    """The ``evaluate`` parser, joined to :func:`cmd_evaluate`."""
    p = sub.add_parser("evaluate", help="judge a LEF/DEF design's route guides: "
                       "connectivity, wirelength, vias, congestion",
                       description=EVALUATE_DESCRIPTION)
    design_options(p, adjust=False)
    p.add_argument("--guides", required=True, metavar="FILE",
                   help="the route guides (a net name, '(', 'x0 y0 x1 y1 LAYER' lines in "
                        "DBU, ')')")
    p.add_argument("--heatmap", metavar="FILE.png",
                   help="also draw each routing layer's congestion as a heat map of its "
                        "GCells (use over capacity of their edges) into this PNG")
    p.set_defaults(func=cmd_evaluate)
    return p


#: Most failing nets the command lists, one line each.
SHOWN_FAILURES = 20


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Print the congestion table and the totals; 0 when every net is connected, else 1."""
    from .evaluate import congestion_table, evaluate
    from .guides import read_guides
    from .render_gcells import check_png

    if args.heatmap is not None:        # refused before the design is read
        check_png(args.heatmap, field="--heatmap")
    design, grid = design_and_grid(args)
    guides = read_guides(args.guides)
    try:
        ev = evaluate(design, grid, guides)
    except InputError as e:
        raise e.with_file(args.guides) from None
    nx, ny = grid.shape
    print(f"design {design.name}: {len(guides)} nets with guides, GCell grid {nx} x {ny}")
    print(congestion_table(ev))
    # whole microns, cut as OpenROAD's report cuts them
    print(f"wirelength {int(ev.wirelength_um)} um")
    print(f"vias {ev.vias} ({ev.tree_vias} without those of the nets inside one GCell)")
    print(f"nets connected {ev.connected} / {ev.routable}")
    c = ev.cost
    print(f"contest cost {c.total:.6g} (wire {c.wire:.6g}, via {c.via:.6g}, overflow "
          f"{c.overflow:.6g}; unit weights)")
    print("contest cost leaves out: " + "; ".join(c.left_out))
    for check in ev.failures[:SHOWN_FAILURES]:
        print(f"net {check.name}: {check.reason}")
    if len(ev.failures) > SHOWN_FAILURES:
        print(f"... and {len(ev.failures) - SHOWN_FAILURES} more nets not connected")
    if args.heatmap is not None:
        from .evaluate import edge_usage
        from .io import OutputError
        from .render_gcells import save_congestion_png

        try:
            path = save_congestion_png(args.heatmap, design, grid,
                                       edge_usage(design, grid, guides))
        except OSError as e:
            raise OutputError.from_os(e, args.heatmap) from None
        print(f"congestion heat map {path}")
    return 0 if ev.all_connected else 1


def cmd_gcells(args: argparse.Namespace) -> int:
    """Print the GCell grid and its routing-resources table; 0 when done."""
    from .gcells import resources_table

    design, grid = design_and_grid(args)
    nx, ny = grid.shape
    um = grid.tile / design.dbu
    print(f"design {design.name}: {len(design.components)} components, "
          f"{len(design.nets)} nets, {design.special_nets} special nets")
    print(f"layers {grid.layers[grid.min_layer - 1].name}-"
          f"{grid.layers[grid.max_layer - 1].name}")
    print(f"GCell grid {nx} x {ny}, GCell {um:g} x {um:g} um ({grid.tile} DBU); the last "
          f"column and row take the rest of the die")
    print(resources_table(grid))
    return 0
