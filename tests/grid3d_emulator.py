"""kernels/grid3d.cu's three sweeps written out in plain Python over NumPy arrays, line
for line, so that the host side of :mod:`mazeroute.engines.gpu_grid3d` (boxes, packed
offsets, line tables, rounds, the router's windows) is tested on machines without a GPU.
The kernels themselves are tested on the device (tests/test_gpu_grid3d.py)."""

from __future__ import annotations

import numpy as np

UNREACHED = 0xFFFFFFFF


class EmulatedKernels:
    """Drop-in for :class:`mazeroute.engines.gpu_grid3d.CudaKernels` (``xp`` is NumPy)."""

    xp = np

    def __init__(self, owned: bool, box_cells: int = 0):
        self.owned = owned
        self.launches = 0
        #: The most cells of a box :meth:`launch_boxes` takes (0: the line sweeps alone).
        self.box_cells = box_cells

    def _free(self, mask, g, owner) -> bool:
        m = int(mask[g])
        if not self.owned:
            return m != 0
        return m in (-1, owner, -3 - owner) or m > owner

    def launch(self, name: str, lines: int, args: tuple) -> None:
        self.launches += 1
        for t in range(lines):
            getattr(self, "_" + name)(t, *args)

    def launch_boxes(self, count: int, cells: int, args: tuple) -> None:
        """``grid3d_boxes``: each box's rows, columns and via columns, round after round
        until one changes nothing, as one block runs them."""
        assert cells <= self.box_cells
        self.launches += 1
        (dist, mask, cost, unit, axes, sites, has_sites, via_cost, layers, box, off, H, W,
         rounds) = args
        for b in range(count):
            _, _, w, h = (int(v) for v in box[6 * b:6 * b + 4])
            first = np.zeros(count, np.int64)
            active = np.zeros(count, np.int32)
            active[b] = 1
            changed = np.ones(count, np.int32)
            while changed[b]:
                changed[:] = 0
                rounds[b] += 1
                for name, n in (("rows", layers * h), ("cols", layers * w)):
                    table = (dist, mask, cost, unit, axes, box, off, np.full(n, b), first,
                             n, H, W, active, changed)
                    for t in range(n):
                        getattr(self, "_" + name)(t, *table)
                if layers > 1:
                    for t in range(h * w):
                        self._vias(t, dist, mask, cost, unit, sites, has_sites, via_cost,
                                   layers, box, off, np.full(h * w, b), first, h * w, H, W,
                                   active, changed)

    @staticmethod
    def _line(box, off, line_box, line_first, active, t):
        b = int(line_box[t])
        if not active[b]:
            return None
        x0, y0, w, h, owner = (int(v) for v in box[6 * b:6 * b + 5])
        return b, x0, y0, w, h, owner, int(off[b]), t - int(line_first[b])

    def _sweep(self, dist, mask, cells, owner, step_of):
        """Both ways along ``cells`` (pairs of packed index, global index)."""
        any_ = False
        for seq in (cells, cells[::-1]):
            prev = UNREACHED
            for i, (d, g) in enumerate(seq):
                if not self._free(mask.ravel(), g, owner):
                    prev = UNREACHED
                    continue
                cur = int(dist[d])
                step = step_of(seq, i)
                if prev != UNREACHED and step is not None and prev + step < cur:
                    cur = prev + step
                    dist[d] = cur
                    any_ = True
                prev = cur
        return any_

    def _line_sweep(self, along_x, t, dist, mask, cost, unit, axes, box, off, line_box,
                    line_first, H, W, active, changed):
        """A row (``along_x``) or a column of one box, both ways."""
        ln = self._line(box, off, line_box, line_first, active, t)
        if ln is None:
            return
        b, x0, y0, w, h, owner, o, j = ln
        z, k = divmod(j, h if along_x else w)
        if not axes[z] & (1 if along_x else 2):
            return
        at = ((k, x) for x in range(w)) if along_x else ((y, k) for y in range(h))
        cells = [(o + (z * h + y) * w + x, (z * H + y0 + y) * W + x0 + x) for y, x in at]
        flat = cost.ravel()
        if self._sweep(dist, mask, cells, owner,
                       lambda seq, i: 1 if unit else int(flat[seq[i][1]])):
            changed[b] = 1

    def _rows(self, t, dist, mask, cost, unit, axes, box, off, line_box, line_first,
              lines, H, W, active, changed):
        self._line_sweep(True, t, dist, mask, cost, unit, axes, box, off, line_box,
                         line_first, H, W, active, changed)

    def _cols(self, t, dist, mask, cost, unit, axes, box, off, line_box, line_first,
              lines, H, W, active, changed):
        self._line_sweep(False, t, dist, mask, cost, unit, axes, box, off, line_box,
                         line_first, H, W, active, changed)

    def _vias(self, t, dist, mask, cost, unit, sites, has_sites, via_cost, layers, box, off,
              line_box, line_first, lines, H, W, active, changed):
        ln = self._line(box, off, line_box, line_first, active, t)
        if ln is None:
            return
        b, x0, y0, w, h, owner, o, j = ln
        y, x = divmod(j, w)
        g = (y0 + y) * W + x0 + x
        cells = [(o + (z * h + y) * w + x, z * H * W + g) for z in range(layers)]
        flat = cost.ravel()

        def step(seq, i):
            if i == 0:
                return None
            lower = min(seq[i][1], seq[i - 1][1]) // (H * W)      # the pair's lower layer
            if has_sites and not sites[lower * H * W + g]:
                return None
            return int(via_cost) * (1 if unit else int(flat[seq[i][1]]))

        if self._sweep(dist, mask, cells, owner, step):
            changed[b] = 1
