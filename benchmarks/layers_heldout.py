"""Multi-layer negotiation on layouts no target generates: the shared Moving AI maps as
stacks of 2 and 4 layers (the map blocked on every layer, directions alternating, two-pin
nets drawn at random between free cells on layers 0 and 1), the shared numberlink
puzzles as two-layer stacks (their pins on layer 0), and the 3-D ADC samples.

Usage (from the repository root): ``python benchmarks/layers_heldout.py cpu|gpu|emul
[small] [sequential]``; ``emul`` runs the GPU's sweeps emulated
(tests/grid3d_emulator.py), ``small`` leaves the maps out, ``sequential`` routes in that
mode instead of negotiating. One line of JSON a layout: nets, nets routed, seconds, a digest of
the routes, the contract checker's findings, the phases run.
"""
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, '.')
from mazeroute.contract import check_routes
from mazeroute.layers import Layer, Stack
from mazeroute.layout import Layout, Net
from mazeroute.readers import load_layouts
from mazeroute.router.layered import route_layered

D = Path(__file__).resolve().parents[2] / 'shared' / 'data'

def stacked(lay, layers, nets, span, seed):
    rng = np.random.default_rng(seed)
    blocked = np.repeat(lay.blocked[None], layers, axis=0)
    dirs = [("horizontal", "vertical")[z % 2] for z in range(layers)]
    stack = Stack(tuple(Layer(f"M{z+1}", d) for z, d in enumerate(dirs)), via_cost=1)
    if lay.nets and nets is None:      # a puzzle: its pins on layer 0
        ns = [Net(n.name, [(p[0], p[1], 0) for p in n.pins]) for n in lay.nets]
    else:
        free = np.argwhere(~lay.blocked)
        used, ns = set(), []
        while len(ns) < nets:
            a = free[rng.integers(len(free))]
            far = np.abs(free - a).sum(1)
            d = free[(far <= span) & (far >= span // 3)]
            if not len(d):
                continue
            b = d[rng.integers(len(d))]
            pa = (int(a[1]), int(a[0]), int(rng.integers(2)))
            pb = (int(b[1]), int(b[0]), int(rng.integers(2)))
            if {pa[:2], pb[:2]} & used or pa[:2] == pb[:2]:
                continue
            used |= {pa[:2], pb[:2]}
            ns.append(Net(f"n{len(ns)}", [pa, pb]))
    return Layout(f"{lay.name}-x{layers}", lay.width, lay.height, nets=ns,
                  blocked=blocked, stack=stack)

def cases(small):
    out = []
    if not small:
        for m in sorted((D / 'movingai').glob('*.map')):
            lay = load_layouts(m)[0]
            for layers, nets, span, seed in ((2, 300, 40, 1), (4, 600, 30, 2)):
                out.append(stacked(lay, layers, nets, span, seed))
    for f in ('inputs6.txt', 'inputs10.txt'):
        for lay in load_layouts(D / 'numberlink' / f)[:4]:
            out.append(stacked(lay, 2, None, 0, 0))
    for f in sorted((D / 'adc').glob('NL_Q*.txt')):
        out += [x for x in load_layouts(f) if x.stack is not None]
    return out

if __name__ == '__main__':
    backend, small = sys.argv[1], 'small' in sys.argv
    mode = 'sequential' if 'sequential' in sys.argv else 'negotiate'
    kernels = None
    if backend == 'emul':
        from tests.grid3d_emulator import EmulatedKernels
        backend, kernels = 'gpu', EmulatedKernels(owned=True)
    for lay in cases(small):
        t = time.perf_counter()
        r = route_layered(lay, mode, backend=backend, kernels=kernels)
        s = time.perf_counter() - t
        dig = hashlib.sha256(json.dumps([(n.routed, n.cells) for n in r.nets]).encode())
        print(json.dumps(dict(layout=lay.name, nets=len(lay.nets), routed=r.routed,
                              seconds=round(s, 2), digest=dig.hexdigest()[:12],
                              contract=len(check_routes(lay, r.to_json())),
                              phases=[p.phase for p in r.phases])), flush=True)
