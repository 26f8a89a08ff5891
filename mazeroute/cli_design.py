"""The ``gcells`` command: a real design's GCell grid and routing resources (LEF/DEF)."""

from __future__ import annotations

import argparse

from .errors import InputError

DESCRIPTION = (
    "Read a placed design (DEF) and its LEF files, build the GCell grid and the per-layer "
    "edge capacities as OpenROAD's global router does by default, and print the grid and "
    "the routing-resources table in OpenROAD's shape. It does not route: global routing "
    "of real designs is the next step.")


def _adjustment(text: str) -> tuple[str, float]:
    layer, sep, frac = text.partition("=")
    try:
        value = float(frac)
    except ValueError:
        value = None
    if not sep or not layer or value is None:
        raise argparse.ArgumentTypeError(f"expected LAYER=FRACTION, got {text!r}")
    return layer, value


def add_gcells(sub) -> argparse.ArgumentParser:
    """The ``gcells`` parser, joined to :func:`cmd_gcells`."""
    p = sub.add_parser("gcells", help="a LEF/DEF design's GCell grid and routing resources",
                       description=DESCRIPTION)
    p.add_argument("design", metavar="DESIGN.def", help="the placed design (DEF)")
    p.add_argument("--lef", action="append", required=True, metavar="FILE.lef",
                   help="a LEF file: the technology first, then cell libraries "
                        "(repeat the option for each)")
    p.add_argument("--min-layer", metavar="NAME",
                   help="lowest routing layer (default: the second routing layer)")
    p.add_argument("--max-layer", metavar="NAME",
                   help="highest routing layer (default: the highest one reached with "
                        "tracks on every layer)")
    p.add_argument("--adjust", action="append", type=_adjustment, default=[],
                   metavar="LAYER=FRACTION",
                   help="take this fraction of a layer's capacity away (repeatable), as "
                        "OpenROAD's set_global_routing_layer_adjustment")
    p.set_defaults(func=cmd_gcells)
    return p


def cmd_gcells(args: argparse.Namespace) -> int:
    """Print the GCell grid and its routing-resources table; 0 when done."""
    from .gcells import gcell_grid, resources_table
    from .readers.lefdef import read_design

    design = read_design(args.design, args.lef)
    try:
        grid = gcell_grid(design, min_layer=args.min_layer, max_layer=args.max_layer,
                          adjust=dict(args.adjust))
    except InputError as e:
        raise e.with_file(args.design) from None
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
