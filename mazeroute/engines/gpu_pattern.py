"""Pattern routing's kernels on the GPU (kernels/pattern.cu): every candidate shape of a
launch priced by one thread, and the via stacks of a level's tree points by one thread
each, where the NumPy twins (:mod:`mazeroute.router.pattern_shapes`,
:mod:`mazeroute.router.pattern_tree`) take an array operation a layer.

Examples
--------
>>> import cupy, numpy as np
>>> k = PatternKernels()
>>> f = cupy.asarray(np.array([[5, 0, 9], [0, 9, 9]]))
>>> tot = cupy.zeros((1, 3, 3), np.int64)
>>> arrive = k.junctions(tot, f, cupy.zeros(2, np.int64), cupy.asarray([3]),
...                      cupy.asarray([-1]), 2)
>>> int(tot[0, 0, 1]), arrive.get().tolist()
(2, [[2, 2, 4]])
"""

from __future__ import annotations

import numpy as np

__all__ = ["PatternKernels", "MAX_LAYERS"]

#: The most layers the kernels hold (their per-thread tables).
MAX_LAYERS = 32
_THREADS = 128


def _blocks(n: int) -> tuple[int]:
    return ((n + _THREADS - 1) // _THREADS,)


class PatternKernels:
    """The kernels of kernels/pattern.cu, compiled once per device."""

    def __init__(self):
        import cupy

        from .cuda import get_kernel

        self.xp = cupy
        self._k = {name: get_kernel("pattern", name)
                   for name in ("pattern_shapes", "junction_add", "junction_close",
                                "pattern_down")}

    def shapes(self, ph, pv, along_x, along_y, via: int, first_h: bool, ends, mid, row,
               index, end, bits: int, best) -> None:
        """Price candidate shapes into ``best`` (``(rows, L)`` keys, kept where least).

        ``ends`` holds each candidate's ``xa, ya, xb, yb``; ``mid`` its middle line,
        ``row`` its edge's row of ``end`` and ``best``, ``index`` its index among the
        edge's shapes; the prefix sums ``ph``, ``pv`` and the layers' directions as
        :class:`~mazeroute.router.pattern_shapes.Prices` holds them.
        """
        cp = self.xp
        n = len(mid)
        if not n:
            return
        L, ny, nx1 = ph.shape
        if L > MAX_LAYERS:
            raise ValueError(f"pattern routes take at most {MAX_LAYERS} layers, got {L}")
        xa, ya, xb, yb = (cp.ascontiguousarray(v, dtype=cp.int64) for v in ends)
        self._k["pattern_shapes"](
            _blocks(n), (_THREADS,),
            (ph, pv, cp.asarray(along_x, dtype=cp.uint8), cp.asarray(along_y, dtype=cp.uint8),
             np.int32(L), np.int32(ny), np.int32(nx1 - 1), np.int64(via), np.int32(first_h),
             xa, ya, xb, yb, cp.ascontiguousarray(mid, dtype=cp.int64),
             cp.ascontiguousarray(row, dtype=cp.int64),
             cp.ascontiguousarray(index, dtype=cp.int64),
             cp.ascontiguousarray(end, dtype=cp.int64), np.int32(bits), best, np.int64(n)))

    def junctions(self, tot, child_cost, child_point, pin_lo, pin_hi, via: int):
        """Fill ``tot`` (``(points, L, L)``, zeros) as
        :func:`~mazeroute.router.pattern_tree.junction_costs` gives it, and return each
        point's arrival costs ``(points, L)``."""
        cp = self.xp
        n, L, _ = tot.shape
        if len(child_cost):
            self._k["junction_add"](
                _blocks(len(child_cost)), (_THREADS,),
                (cp.ascontiguousarray(child_cost, dtype=cp.int64),
                 cp.ascontiguousarray(child_point, dtype=cp.int64), np.int32(L), tot,
                 np.int64(len(child_cost))))
        arrive = cp.empty((n, L), cp.int64)
        if n:
            self._k["junction_close"](
                _blocks(n), (_THREADS,),
                (tot, cp.ascontiguousarray(pin_lo, dtype=cp.int64),
                 cp.ascontiguousarray(pin_hi, dtype=cp.int64), np.int32(L), np.int64(via),
                 arrive, np.int64(n)))
        return arrive

    def down(self, ph, pv, along_x, along_y, via: int, edges, ends, a_loc, b_loc, lo, hi,
             cost, key, arrive_cost, first_h, mid, layers, arrive) -> None:
        """One level's edges, top-down, as
        :meth:`~mazeroute.router.groute_pattern._RoundDP` steps them: each one's start
        layer inside its parent's stack ``lo..hi``, its shape from ``key``, its layers,
        into ``first_h`` (uint8), ``mid`` and ``layers``, and its child point's arrival
        layer into ``arrive``."""
        cp = self.xp
        m = len(edges)
        if not m:
            return
        L, ny, nx1 = ph.shape
        xa, ya, xb, yb = ends
        self._k["pattern_down"](
            _blocks(m), (_THREADS,),
            (ph, pv, cp.asarray(along_x, dtype=cp.uint8), cp.asarray(along_y, dtype=cp.uint8),
             np.int32(L), np.int32(ny), np.int32(nx1 - 1), np.int64(via),
             cp.ascontiguousarray(edges, dtype=cp.int64), xa, ya, xb, yb, a_loc, b_loc, lo,
             hi, cost, key, arrive_cost, first_h, mid, layers, arrive, np.int64(m)))
