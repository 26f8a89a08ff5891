"""Convergence of the negotiation loop on the CPU: iterations, seconds and nets routed.

Run from the repository root: ``PYTHONPATH=. python benchmarks/converge_probe.py
[--seeds 1 2 3] [--puzzles]``. For each of the negotiate suite's rectangles layouts (25 % blocked,
span 64: 1024^2 x 2000, 1024^2 x 4000, 2048^2 x 8000) and each seed: iterations of
negotiation, seconds of negotiation (the loop alone) and of the whole route, nets routed
by negotiate and by sequential mode, and negotiate's wirelength over sequential's on the
nets both route (``mazeroute.bench.negotiate_case``). ``--puzzles``: the same for every
puzzle of ``inputs9.txt``, with the number of complete puzzles.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.bench import PUZZLES_DIR, negotiate_case  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402

LAYOUTS = ((1024, 2000), (1024, 4000), (2048, 8000))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--sides", type=int, nargs="+", default=None,
                    help="only the layouts of these sides")
    ap.add_argument("--puzzles", action="store_true")
    ap.add_argument("--no-layouts", action="store_true")
    args = ap.parse_args()
    if not args.no_layouts:
        for side, n in LAYOUTS:
            if args.sides and side not in args.sides:
                continue
            for seed in args.seeds:
                lay = random_layout(side, side, density=0.25, nets=n, pins=2, seed=seed,
                                    span=64)
                row = negotiate_case(f"{side}^2 {n} s{seed}", [lay], "cpu")
                print(f"{row.case:18s} its {row.iterations:3d}  {row.seconds:6.2f} s  "
                      f"routed {row.negotiate} (seq {row.sequential})  "
                      f"wl {row.wirelength:.4f}  {row.legal}", flush=True)
    if args.puzzles:
        from mazeroute.readers import read_numberlink
        lays = read_numberlink(PUZZLES_DIR / "inputs9.txt")
        row = negotiate_case("inputs9.txt", lays, "cpu", puzzles=True)
        print(f"{row.case:18s} its<={row.iterations:3d}  {row.seconds:6.2f} s  "
              f"complete {row.puzzles}  routed {row.negotiate} (seq {row.sequential})  "
              f"wl {row.wirelength:.4f}  worse {row.worse}  {row.legal}", flush=True)


if __name__ == "__main__":
    main()
