"""Global routing at contest scale: generated ISPD 2024 inputs (``.cap`` and ``.net``),
routed by the real command, one backend a run.

Usage (from the repository root):

    python benchmarks/groute_scale.py make  DIR [--size 428 --layers 10 --nets 136000]
    python benchmarks/groute_scale.py route DIR [--backend cpu|gpu --group N]

``make`` writes ``DIR/scale.cap`` and ``DIR/scale.net``: the ISPD 2024 contest's
MemPool-Tile case's size by default (10 layers of 428 x 428 GCells, about 136,000 nets).
The generator is not any contest's: the lowest layer (pins only) carries no capacity,
the layers above alternate directions starting horizontal with 24 to 40 tracks an edge,
less under a few hundred rectangular obstructions (a fifth of the tracks left, two at
least, as under macros); a net has two pins with probability 0.55, three with 0.2, four
to eight with 0.2 and nine to thirty with 0.05; its pins lie around a centre, offsets drawn from a
Laplace distribution of scale 4 GCells (one net in fifty of scale 40), each pin on layer
0 or 1 with one or two access points. ``route`` runs ``mazeroute groute`` on them and
prints one line of JSON: the whole command's seconds, the report's iterations and
overflow, and on the GPU the bytes CuPy's pool holds at the end, its peak.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def make(folder: Path, size: int, layers: int, nets: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    cap = np.zeros((layers, size, size), np.int32)
    for z in range(1, layers):
        cap[z] = rng.integers(24, 41)
    under = np.zeros(cap.shape, bool)
    for _ in range(max(1, size * size // 600)):
        w, h = rng.integers(4, 24, 2)
        x, y = rng.integers(0, size - w), rng.integers(0, size - h)
        under[1:int(rng.integers(2, layers)), y:y + h, x:x + w] = True
    cap[under] = np.maximum(2, cap[under] // 5)
    lines = [f"{layers} {size} {size}", "0.5 4 " + " ".join(["1"] * layers),
             " ".join(["3000"] * (size - 1)), " ".join(["3000"] * (size - 1))]
    for z in range(layers):
        lines.append(f"M{z + 1} {0 if z % 2 == 0 else 1} 0")
        lines += [" ".join(map(str, row)) for row in cap[z].tolist()]
    (folder / "scale.cap").write_text("\n".join(lines) + "\n")
    counts = rng.choice([2, 3, 5, 15], size=nets, p=[0.55, 0.2, 0.2, 0.05])
    counts = np.where(counts == 5, rng.integers(4, 9, nets), counts)
    counts = np.where(counts == 15, rng.integers(9, 31, nets), counts)
    out = []
    for n, k in enumerate(counts.tolist()):
        scale = 40.0 if rng.random() < 0.02 else 4.0
        centre = rng.integers(0, size, 2)
        xy = np.clip(np.rint(centre + rng.laplace(0, scale, (k, 2))), 0, size - 1)
        out += [f"net{n}", "("]
        for x, y in xy.astype(int).tolist():
            z = int(rng.integers(0, 2))
            pts = [(z, x, y)] + ([(z, min(x + 1, size - 1), y)] if rng.random() < 0.5 else [])
            out.append("[" + ", ".join(f"({a}, {b}, {c})" for a, b, c in pts) + "]")
        out.append(")")
    (folder / "scale.net").write_text("\n".join(out) + "\n")
    print(json.dumps(dict(made=str(folder), size=size, layers=layers, nets=nets,
                          pins=int(counts.sum()))), flush=True)


def route(folder: Path, backend: str, group: int) -> None:
    out = folder / f"out-{backend}-{group}"
    code = ("import runpy, sys, json\n"
            "sys.argv = ['mazeroute'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('mazeroute', run_name='__main__')\n"
            "finally:\n"
            f"    if {backend == 'gpu'!r}:\n"
            "        import cupy\n"
            "        print('POOL', cupy.get_default_memory_pool().total_bytes())\n")
    cmd = [sys.executable, "-c", code, "groute", str(folder / "scale.cap"), "--net",
           str(folder / "scale.net"), "--backend", backend, "--group", str(group),
           "-o", str(out)]
    t = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    text = run.stdout + run.stderr
    found = re.search(r"in (\d+) iterations, overflow (\d+)", text)
    pool = re.search(r"POOL (\d+)", text)
    print(json.dumps(dict(backend=backend, group=group, seconds=seconds, rc=run.returncode,
                          iterations=int(found[1]) if found else None,
                          overflow=int(found[2]) if found else None,
                          gpu_pool_bytes=int(pool[1]) if pool else None,
                          tail=text.strip().splitlines()[-1:] if run.returncode > 1 else None)),
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("make", "route"))
    ap.add_argument("folder", type=Path)
    ap.add_argument("--size", type=int, default=428)
    ap.add_argument("--layers", type=int, default=10)
    ap.add_argument("--nets", type=int, default=136_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--group", type=int, default=1)
    a = ap.parse_args()
    if a.what == "make":
        make(a.folder, a.size, a.layers, a.nets, a.seed)
    else:
        route(a.folder, a.backend, a.group)


if __name__ == "__main__":
    main()
