"""Negotiation with the cost pricing on every core against one core (issue 13): the
4096^2 / 32,000-net and 1024^2 / 2000-net layouts of ``mazeroute bench --suite
negotiate`` on the GPU, the arms taking turns (``weighted.PARALLEL_PRICE_CELLS`` as it is,
and out of reach for the serial arm); every run prints its time, nets routed and a
digest of its routes (the arms must agree).

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/pricing_ab.py``.
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.bench import _warm_negotiation  # noqa: E402
from mazeroute.engines import weighted  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.router import route  # noqa: E402

ON = weighted.PARALLEL_PRICE_CELLS
ARMS = (("parallel", ON), ("serial", 1 << 62))


def digest(res) -> str:
    h = hashlib.sha1()
    for n in res.nets:
        h.update(n.cell_array().tobytes() if n.routed else b"-")
    return h.hexdigest()[:12]


def main() -> None:
    _warm_negotiation(["gpu"])
    try:
        for side, nets, reps in ((1024, 2000, 3), (4096, 32000, 2)):
            lay = random_layout(side, side, density=0.25, nets=nets, pins=2, seed=1, span=64)
            for k in range(reps):
                for arm, cells in (ARMS if k % 2 == 0 else ARMS[::-1]):
                    weighted.PARALLEL_PRICE_CELLS = cells
                    start = time.perf_counter()
                    res = route(lay, backend="gpu", mode="negotiate")
                    took = time.perf_counter() - start
                    print(f"{side}^2 {nets} nets, {arm}: {took:.3f} s, routed {res.routed}, "
                          f"routes {digest(res)}", flush=True)
    finally:
        weighted.PARALLEL_PRICE_CELLS = ON


if __name__ == "__main__":
    main()
