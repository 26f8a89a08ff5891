"""Sequential routing of the held-out winding layouts on each backend: what
negotiation's sequential floor costs where ``auto`` puts it.

Usage (from the repository root, on a GPU machine)::

    python benchmarks/floor_probe.py [--family winding] [--seeds 8]

Each layout of ``negotiate_families.py``'s family (serpentines on even seeds, spirals
on odd ones, for ``winding``) is routed sequentially on the CPU, the GPU and ``auto``
after a warm-up on both; one line a layout: seconds and nets routed, and ``auto``'s
pick.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from negotiate_families import FAMILIES  # noqa: E402

from mazeroute.plan import make_plan  # noqa: E402
from mazeroute.router import route  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="winding", choices=sorted(FAMILIES))
    ap.add_argument("--seeds", type=int, default=8)
    args = ap.parse_args()
    make = FAMILIES[args.family]
    for b in ("cpu", "gpu"):
        route(make(args.seeds + 1), backend=b, mode="sequential")        # compile first
    for seed in range(args.seeds):
        lay = make(seed)
        got = {}
        for b in ("cpu", "gpu", "auto"):
            start = time.perf_counter()
            res = route(lay, backend=b, mode="sequential")
            got[b] = (round(time.perf_counter() - start, 3), res.routed)
        print(lay.name, got, "auto:", make_plan(lay, "auto", mode="sequential").backend,
              flush=True)


if __name__ == "__main__":
    main()
