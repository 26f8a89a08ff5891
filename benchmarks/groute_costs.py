"""The present-congestion cost's two shapes measured against each other: VPR's
PathFinder (``1 + pres_fac * over``) and CUGR's logistic, on the shared designs with
their capacities cut by ``--adjust`` so that they congest.

Usage (from the repository root; the designs of ``../shared/data/lefdef``)::

    python benchmarks/groute_costs.py [--adjust 0.5 0.7 0.8] [--designs gcd]
        [--present pathfinder logistic] [--first-pass pattern maze]

Prints one line of JSON a run: the design, the capacity taken away on every layer, the
cost, iterations, the edges' overflow, wirelength and vias as ``mazeroute evaluate``
measures them, and the routing's seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, ".")

from mazeroute.evaluate import evaluate  # noqa: E402
from mazeroute.gcells import gcell_grid  # noqa: E402
from mazeroute.readers.lefdef import read_design  # noqa: E402
from mazeroute.router.groute import (  # noqa: E402
    PRESENT_COSTS,
    GRouteOptions,
    GRouteProblem,
    design_pins,
    global_route,
)
from mazeroute.router.groute_guides import guides_of  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lefdef"
DESIGNS = {"gcd": (DATA / "gcd" / "gcd.def", [DATA / "nangate45" / "Nangate45.lef"]),
           "ispd18_test1": (DATA / "ispd18_test1" / "ispd18_test1.input.def",
                            [DATA / "ispd18_test1" / "ispd18_test1.input.lef"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adjust", type=float, nargs="+", default=[0.5, 0.7, 0.8])
    ap.add_argument("--designs", nargs="+", default=list(DESIGNS))
    ap.add_argument("--present", nargs="+", default=list(PRESENT_COSTS))
    ap.add_argument("--first-pass", nargs="+", default=["pattern"],
                    choices=("pattern", "maze"))
    a = ap.parse_args()
    for name in a.designs:
        design = read_design(*DESIGNS[name])
        for frac in a.adjust:
            grid = gcell_grid(design, adjust={lay.name: frac for lay in design.layers[1:]})
            problem = GRouteProblem.of_grid(grid, design_pins(design, grid))
            for present, first in ((p, f) for p in a.present for f in a.first_pass):
                res = global_route(problem, GRouteOptions(present=present,
                                                          pattern=first == "pattern"))
                guides = guides_of(res.routes, grid)
                ev = evaluate(design, grid, guides)
                print(json.dumps(dict(
                    design=name, adjust=frac, present=present, first_pass=first,
                    iterations=res.iterations,
                    overflow=res.overflow, wirelength_um=int(ev.wirelength_um),
                    vias=ev.vias, connected=ev.connected, seconds=round(res.seconds, 2))),
                    flush=True)


if __name__ == "__main__":
    main()
