"""Negotiation with and without one of its design choices, the arms taking
turns on the 1024^2 / 2000-net and 4096^2 / 32,000-net layouts of ``mazeroute bench
--suite negotiate`` on the GPU; every run prints its time, nets routed, iterations and a
digest of its routes.

``pricing``: the cost pricing on every core against one core
(``pricing.PARALLEL_PRICE_CELLS`` as it is, and out of reach for the serial arm; the
arms must agree). ``kept``: the stop on the nets negotiation would keep
(``PathFinderOptions.kept_iterations``) against none; on these layouts it does not fire,
so the arms must agree, and the difference is what counting the nets kept costs.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/negotiate_ab.py pricing|kept [--backend gpu|cpu] [--small]`` (``--small``:
the 1024^2 layout only).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.bench import _warm_negotiation  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.router import PathFinderOptions, pricing, route  # noqa: E402

ON = pricing.PARALLEL_PRICE_CELLS
ARMS = {"pricing": (("parallel", ON, None), ("serial", 1 << 62, None)),
        "kept": (("kept stop", ON, None),
                 ("no kept stop", ON, PathFinderOptions(kept_iterations=None)))}


def digest(res) -> str:
    h = hashlib.sha1()
    for n in res.nets:
        h.update(n.cell_array().tobytes() if n.routed else b"-")
    return h.hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("arm", choices=sorted(ARMS))
    ap.add_argument("--backend", default="gpu", choices=["gpu", "cpu"])
    ap.add_argument("--small", action="store_true")
    args = ap.parse_args()
    arms = ARMS[args.arm]
    _warm_negotiation([args.backend])
    cases = ((1024, 2000, 3),) + (() if args.small else ((4096, 32000, 2),))
    try:
        for side, nets, reps in cases:
            lay = random_layout(side, side, density=0.25, nets=nets, pins=2, seed=1, span=64)
            for k in range(reps):
                for arm, cells, options in (arms if k % 2 == 0 else arms[::-1]):
                    pricing.PARALLEL_PRICE_CELLS = cells
                    start = time.perf_counter()
                    res = route(lay, backend=args.backend, mode="negotiate", options=options)
                    took = time.perf_counter() - start
                    print(f"{side}^2 {nets} nets, {arm}: {took:.3f} s, routed {res.routed}, "
                          f"{len(res.iterations)} its, routes {digest(res)}", flush=True)
    finally:
        pricing.PARALLEL_PRICE_CELLS = ON


if __name__ == "__main__":
    main()
