"""Peak host memory of negotiated routing per cell (``limits.NEGOTIATE_BYTES_PER_CELL``,
the bound checked before a layout is routed in negotiate mode).

Each case runs ``route(layout, backend="cpu", mode="negotiate")`` in a fresh process and
reads its peak resident memory (``ru_maxrss``); the peak of a 100 x 100 layout in the
same way is the baseline (the interpreter, NumPy, the compiled functions), and the
difference over the layout's cells is the figure. Cases: an open grid whose two nets
cross (one is left unrouted, so the sequential floor runs beside negotiation's
engines), 25 % rectangles with local nets, and with pins anywhere.

``python benchmarks/negotiate_memory_probe.py`` (CPU only; a few minutes).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = (("tiny", 100, 0, None), ("cross", 2000, 0, None), ("cross", 3000, 0, None),
         ("rects", 2000, 4000, 64), ("rects", 1500, 30, None))

CHILD = """
import resource, sys
sys.path.insert(0, {root!r})
from mazeroute.generate import random_layout
from mazeroute.readers import parse_layout
from mazeroute.router import route
kind, side, nets, span = {kind!r}, {side}, {nets}, {span!r}
if kind == "rects":
    lay = random_layout(side, side, density=0.25, nets=nets, pins=2, seed=1, span=span)
elif kind == "cross":
    lay = parse_layout({{"width": side, "height": side, "nets": [
        {{"name": "a", "pins": [[0, 0], [side - 1, side - 1]]}},
        {{"name": "b", "pins": [[side - 1, 0], [0, side - 1]]}}]}})
else:
    lay = parse_layout({{"width": side, "height": side,
                        "nets": [{{"name": "a", "pins": [[0, 0], [1, 0]]}}]}})
res = route(lay, backend="cpu", mode="negotiate")
print(res.routed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def main() -> None:
    base = None
    for kind, side, nets, span in CASES:
        code = CHILD.format(root=str(ROOT), kind=kind, side=side, nets=nets, span=span)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.split()
        routed, peak = int(out[0]), int(out[1])
        if base is None:
            base = peak
            print(f"baseline (100 x 100): {peak / 2**20:.0f} MiB", flush=True)
            continue
        per = (peak - base) / (side * side)
        what = f"{nets} nets, span {span}" if kind == "rects" else "two crossing nets"
        print(f"{kind} {side}^2 ({what}): {routed} routed, peak {peak / 2**20:.0f} MiB, "
              f"{per:.0f} bytes a cell", flush=True)


if __name__ == "__main__":
    main()
