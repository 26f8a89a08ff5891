"""The searches of global routing (:mod:`.groute`): the trees of a group of nets on one
set of node costs, one net at a time on the CPU (:class:`CPUSearch`) or many nets a
launch on the GPU (:class:`GPUSearch`), the same trees from both.

Each search runs in windows provably the grid's answer (:mod:`.layered_search`), so
the window a backend picks does not change a tree. The GPU steps every net's tree
together: one launch searches the next branch of each net, in its own box of the grid;
a net whose box proves nothing searches again in a box twice as wide.

Examples
--------
>>> free = np.ones((2, 4, 5), bool)
>>> rules = Rules(("horizontal", "vertical"), 2, None, False)
>>> trees = CPUSearch(free, rules).grow_many([np.array([[0, 0, 0], [4, 3, 0]])], None)
>>> trees[0].vias, len(trees[0].cells)
(2, 10)
"""

from __future__ import annotations

import numpy as np

from ..engines.base import host
from .layered_search import MAX_BATCH, exact_for, search_margin, window, window_search
from .layered_tree import Growth, Rules, Tree, grow_tree, open_pins

__all__ = ["CPUSearch", "GPUSearch", "array_module", "make_search"]

#: The most cells of distances one launch holds (every box's, all layers).
MAX_LAUNCH_CELLS = 1 << 26


class CPUSearch:
    """Trees one net at a time on the CPU engines.

    Parameters
    ----------
    free : (L, H, W) bool array
        The nodes wires may use.
    rules : Rules
        The stack's rules.
    """

    backend = "cpu"

    def __init__(self, free: np.ndarray, rules: Rules):
        self.free, self.rules = free, rules

    def grow(self, pins: np.ndarray, cost: np.ndarray | None) -> Tree:
        """The tree of ``pins`` (``(k, 3)``, the root first) on node costs ``cost``
        (None: unit steps)."""
        if len(pins) < 2:
            return grow_tree(self.rules, None, pins)        # every pin in one node
        free, shape = self.free, self.free.shape

        def free_in(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
            return open_pins(free[:, y0:y1, x0:x1].copy(), pins, x0, y0)

        return grow_tree(self.rules, None, pins, cost,
                         search=lambda s, t: window_search(self.rules, shape, free_in,
                                                           cost, s, t))

    def grow_many(self, pin_sets: list[np.ndarray], cost: np.ndarray | None) -> list[Tree]:
        """The trees of ``pin_sets``, each on the same costs ``cost``."""
        return [self.grow(p, cost) for p in pin_sets]


class GPUSearch(CPUSearch):
    """Trees of many nets a launch on the GPU's box sweeps
    (:class:`~mazeroute.engines.gpu_grid3d.BoxSweeps`).

    Parameters
    ----------
    free, rules
        As :class:`CPUSearch` takes them.
    kernels : object, optional
        The sweeps (default CUDA's), as :class:`~mazeroute.engines.gpu_grid3d.BoxSweeps`
        takes them.
    """

    backend = "gpu"

    def __init__(self, free: np.ndarray, rules: Rules, kernels=None):
        from ..engines.costs import COST_DTYPE
        from ..engines.gpu_grid3d import BoxSweeps, CudaKernels
        from ..engines.grid3d import stack_arrays

        super().__init__(free, rules)
        k = kernels if kernels is not None else CudaKernels(owned=False)
        self.xp, self._dtype = k.xp, COST_DTYPE
        mask, axes, sites = stack_arrays(free, rules.directions, rules.via_sites)
        self.sweeps = BoxSweeps(k.xp.asarray(mask.view(np.uint8)), axes, sites,
                                rules.via_cost, owned=False, kernels=k)
        self.launches = 0
        self.retries = 0                 # searches run again in a wider box

    def grow_many(self, pin_sets: list[np.ndarray], cost: np.ndarray | None) -> list[Tree]:
        """As :meth:`CPUSearch.grow_many`: the nets whose pins are all free step their
        trees together on the device, the others grow on the CPU."""
        from ..engines.costs import COST_MAX

        out: list[Tree | None] = [None] * len(pin_sets)
        growths: dict[int, Growth] = {}
        for k, pins in enumerate(pin_sets):
            on_free = self.free[pins[:, 2], pins[:, 1], pins[:, 0]].all()
            if len(pins) < 2 or not on_free:
                out[k] = self.grow(pins, cost)
            else:
                growths[k] = Growth(pins)
        if growths:
            self.sweeps.set_cost(None if cost is None else self.xp.asarray(
                np.clip(cost, 1, COST_MAX).astype(self._dtype)))
            self._step_all(growths, cost)
            for k, g in growths.items():
                out[k] = g.finish()
        return out

    def _step_all(self, growths: dict[int, Growth], cost: np.ndarray | None) -> None:
        """Step every tree of ``growths`` to its end, a launch a branch of each."""
        shape = self.free.shape
        margin: dict[int, int] = {}
        while True:
            active = [k for k, g in growths.items() if not g.done]
            if not active:
                return
            boxes, sources = [], []
            for k in active:
                g = growths[k]
                pts = np.concatenate([g.sources(), np.asarray(g.remaining, np.int64)])
                if k not in margin:
                    margin[k] = search_margin(pts, self.rules.via_cost)
                x0, y0, x1, y1 = window(pts, shape, margin[k])
                boxes.append((x0, y0, x1 - x0, y1 - y0))
                sources.append(g.sources())
            for part in _launches(np.array(boxes, np.int64), shape[0]):
                self._launch([active[j] for j in part], growths, margin,
                             np.array(boxes, np.int64)[part], [sources[j] for j in part],
                             cost)

    def _launch(self, nets: list[int], growths: dict[int, Growth], margin: dict[int, int],
                boxes: np.ndarray, sources: list, cost: np.ndarray | None) -> None:
        """One launch: each net's next search in its box; a net whose box is provably
        the grid's takes its branch (its next search starts from a fresh margin), the
        others search again in a box twice as wide."""
        shape = self.free.shape
        dist, offsets = self.sweeps.run(boxes, np.full(len(nets), -1), sources)
        self.launches += 1
        found = host(dist)
        for k, (x0, y0, w, h), off in zip(nets, boxes.tolist(), offsets.tolist()):
            d = found[off:off + shape[0] * h * w].reshape(shape[0], h, w)
            g = growths[k]
            whole = (x0, y0, w, h) == (0, 0, shape[2], shape[1])
            if whole or exact_for(d, x0, y0, shape, g.remaining):
                g.step(self.rules, d, x0, y0, cost)
                margin.pop(k)
            else:
                margin[k] *= 2
                self.retries += 1


def _launches(boxes: np.ndarray, layers: int) -> list[list[int]]:
    """``boxes`` (``x0, y0, w, h``) cut into launches of at most :data:`MAX_BATCH` boxes
    and :data:`MAX_LAUNCH_CELLS` cells of distances."""
    parts, part, cells = [], [], 0
    for j, (_, _, w, h) in enumerate(boxes.tolist()):
        size = layers * w * h
        if part and (len(part) == MAX_BATCH or cells + size > MAX_LAUNCH_CELLS):
            parts.append(part)
            part, cells = [], 0
        part.append(j)
        cells += size
    if part:
        parts.append(part)
    return parts


def array_module(backend: str, kernels=None):
    """The array module of ``backend``'s searches and pattern routes: NumPy on the CPU,
    the kernels' own (CuPy's on the device) on the GPU."""
    if backend != "gpu":
        return np
    if kernels is not None:
        return kernels.xp
    import cupy
    return cupy


def make_search(free: np.ndarray, rules: Rules, backend: str = "cpu",
                kernels=None) -> CPUSearch | GPUSearch:
    """The searches of ``backend`` (``cpu`` or ``gpu``, on ``kernels`` when given)."""
    return GPUSearch(free, rules, kernels) if backend == "gpu" else CPUSearch(free, rules)
