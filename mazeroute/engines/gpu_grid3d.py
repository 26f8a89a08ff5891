"""The 3-D engines on the GPU: min-plus sweeps over boxes of a layer stack
(kernels/grid3d.cu).

:class:`BoxSweeps` runs many searches in one launch, each inside its own box of the grid
(a rectangle ``x0, y0, w, h`` spanning every layer) with its own sources, its distances
packed at its own offset. Each round sweeps every row of the layers that move along x,
every column of those that move along y and every via column up and down, and a box
whose round changed nothing is done; the fixpoint is the shortest-path field inside the
box, on the rules of :mod:`.grid3d` (a step enters a cell at its cost, 1 without costs;
a via at ``via_cost`` times that). When every box of a launch fits in a block's shared
memory, one block runs each box's every round in one launch; else each sweep is a
launch with one thread a line, and the host asks between rounds whether any changed.
The fixpoint is the same either way.

:func:`bfs3d` and :func:`weighted3d` take the arguments of their CPU namesakes in
:mod:`.grid3d` and return the same arrays: one box, the whole grid.

Examples
--------
>>> import numpy as np
>>> free = np.ones((2, 1, 4), bool)
>>> d = bfs3d(free, [(0, 0, 0)], directions=["vertical", "any"], via_cost=2)
>>> d[0].tolist(), d[1].tolist()
([[0, 5, 6, 7]], [[2, 3, 4, 5]])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import DEFAULT_SHARED, UNREACHED, allow_shared, host
from .costs import COST_DTYPE
from .grid3d import cell_ids, check_cost, checked_via_cost, stack_arrays

__all__ = ["BoxSweeps", "CudaKernels", "bfs3d", "weighted3d", "whole_grid", "BOX_INTS"]

#: Ints per box in the kernels' box table: ``x0, y0, w, h, owner`` and one unused.
BOX_INTS = 6
_THREADS = 256
#: Static shared memory of ``grid3d_boxes`` (its flags), with room to spare.
_BOX_STATIC = 64
#: Rounds run between two reads of "did anything change", once the first are past.
_CHECK_EVERY = 4


class CudaKernels:
    """The sweeps of kernels/grid3d.cu, compiled once per device and mask kind."""

    def __init__(self, owned: bool):
        import cupy

        from .cuda import device_attributes, get_kernel

        self.xp = cupy
        opts = (f"-DOWNED={int(owned)}",)
        self._k = {name: get_kernel("grid3d", f"grid3d_{name}", opts)
                   for name in ("rows", "cols", "vias", "boxes")}
        optin = device_attributes().get("MaxSharedMemoryPerBlockOptin", DEFAULT_SHARED)
        #: The most cells of a box that :meth:`launch_boxes` searches in shared memory.
        self.box_cells = (optin - _BOX_STATIC) // 4

    def launch(self, name: str, lines: int, args: tuple) -> None:
        """Run sweep ``name`` with one thread per line."""
        self._k[name](((lines + _THREADS - 1) // _THREADS,), (_THREADS,), args)

    def launch_boxes(self, count: int, cells: int, args: tuple) -> None:
        """Run ``grid3d_boxes``: one block a box, each of at most ``cells`` cells."""
        kernel = self._k["boxes"]
        allow_shared(kernel, 4 * cells, _BOX_STATIC)
        kernel((count,), (_THREADS,), args, shared_mem=4 * cells)


class BoxSweeps:
    """Searches inside boxes of one layer stack, many per launch.

    Parameters
    ----------
    mask : (L, H, W) device array
        ``uint8``, non-zero where free (``owned`` False); or ``int32`` cell owners by
        routing rank (``owned`` True: -2 blocked, -1 free, ``r >= 0`` a wire of rank
        ``r``, ``-3 - r`` a pin of rank ``r``), a cell being free for a box of owner
        rank ``o`` when it is free, ``o``'s, or a wire of a rank after ``o``.
    axes : (L,) int8 array
        Per layer the axes its wires move along (bit 0 x, bit 1 y), as
        :func:`~mazeroute.engines.grid3d.stack_arrays` gives them.
    sites : (L - 1) * H * W bool array, or None
        The per-pair via sites, flat; None: every via allowed.
    via_cost : int
        A via's multiple of the entered cell's cost.
    owned : bool
        Which kind of ``mask``.
    kernels : object, optional
        The sweeps (default :class:`CudaKernels`); anything with ``xp`` and ``launch``.

    Examples
    --------
    >>> import cupy, numpy as np
    >>> free = cupy.ones((1, 3, 5), cupy.uint8)
    >>> sw = BoxSweeps(free, np.array([3], np.int8), None, 1, owned=False)
    >>> dist, off = sw.run(np.array([[1, 0, 3, 3]]), np.array([-1]), [[(1, 1, 0)]])
    >>> dist.get().reshape(3, 3).tolist()
    [[1, 2, 3], [0, 1, 2], [1, 2, 3]]
    """

    def __init__(self, mask, axes: np.ndarray, sites: np.ndarray | None, via_cost: int,
                 *, owned: bool, kernels=None):
        self.k = kernels if kernels is not None else CudaKernels(owned)
        xp = self.xp = self.k.xp
        self.mask = mask
        self.shape = tuple(int(v) for v in mask.shape)
        self.axes = xp.asarray(np.asarray(axes, np.int8))
        self.has_sites = sites is not None and not bool(np.all(sites))
        self.sites = xp.asarray(np.asarray(sites, np.uint8) if self.has_sites
                                else np.zeros(1, np.uint8))
        self.via_cost = np.uint32(via_cost)
        self.cost = None
        self._unit_cost = xp.ones(1, COST_DTYPE)
        self._rounds = 0

    @property
    def rounds(self) -> int:
        """The rounds the last :meth:`run` took (its slowest box's)."""
        r = self._rounds
        return r if isinstance(r, int) else int(r.max())

    def set_cost(self, cost) -> None:
        """Search on entry costs ``cost`` (an ``(L, H, W)`` device array of
        :data:`~mazeroute.engines.costs.COST_DTYPE`, kept by reference), or unit steps
        (None)."""
        self.cost = cost

    def run(self, boxes: np.ndarray, owners: np.ndarray, sources) -> tuple:
        """Search every box from its sources to the fixpoint.

        Parameters
        ----------
        boxes : (B, 4) int array
            ``x0, y0, w, h`` of each box, inside the grid.
        owners : (B,) int array
            Each box's owner rank (``owned`` masks; ignored otherwise).
        sources : sequence of (k, 3) array_like
            Each box's sources ``(x, y, z)``, inside the box and free for it.

        Returns
        -------
        dist : device uint32 array
            Every box's distances, box ``b`` at ``offsets[b]`` as ``(L, h, w)``.
        offsets : (B,) int64 array
        """
        xp, k = self.xp, self.k
        layers, height, width = self.shape
        boxes = np.asarray(boxes, np.int64).reshape(-1, 4)
        count = len(boxes)
        bw, bh = boxes[:, 2], boxes[:, 3]
        sizes = layers * bw * bh
        offsets = np.zeros(count, np.int64)
        np.cumsum(sizes[:-1], out=offsets[1:])
        dist = xp.full(int(sizes.sum()), UNREACHED, xp.uint32)
        table = np.zeros((count, BOX_INTS), np.int32)
        table[:, :4] = boxes
        table[:, 4] = owners
        # the offsets and sources in one copy to the device (int64), the int32 tables in
        # another, not one a table
        wide = xp.asarray(np.concatenate([offsets, _source_ids(boxes, offsets, sources)]))
        off = wide[:count]
        dist[wide[count:]] = 0
        cells = int(sizes.max(initial=0))
        if cells <= getattr(k, "box_cells", 0):
            self._run_boxes(dist, xp.asarray(table.ravel()), off, cells)
            return dist, offsets
        parts = [table.ravel(), np.ones(2 * count, np.int32)]
        for per_box in (layers * bh, layers * bw, bh * bw):
            parts += list(_lines(per_box))
        small = xp.asarray(np.concatenate(parts))
        box = small[:table.size]
        views, at = [], table.size + 2 * count
        for line_box in parts[2::2]:              # each line's box, then each box's first
            n = line_box.size
            views.append((small[at:at + n], small[at + n:at + n + count], n))
            at += n + count
        lines = dict(zip(("rows", "cols", "vias"), views))
        unit = self.cost is None
        cost = self._unit_cost if unit else self.cost
        flags = small[table.size:table.size + 2 * count].reshape(2, count)
        dims = (np.int32(height), np.int32(width))
        rounds = 0
        while True:
            active, changed = flags[rounds % 2], flags[1 - rounds % 2]
            changed.fill(0)
            for name in ("rows", "cols"):
                lb, first, n = lines[name]
                k.launch(name, n, (dist, self.mask, cost, np.int32(unit), self.axes, box,
                                   off, lb, first, np.int32(n), *dims, active, changed))
            if layers > 1:
                lb, first, n = lines["vias"]
                k.launch("vias", n, (dist, self.mask, cost, np.int32(unit), self.sites,
                                     np.int32(self.has_sites), self.via_cost,
                                     np.int32(layers), box, off, lb, first, np.int32(n),
                                     *dims, active, changed))
            rounds += 1
            # the flags read back and tested on the host: CuPy's reductions compile a
            # variant per size class on first use, slowly on a fresh machine
            if (rounds < 2 * _CHECK_EVERY or rounds % _CHECK_EVERY == 0) \
                    and not host(changed).any():
                break
        self._rounds = rounds
        return dist, offsets

    def _run_boxes(self, dist, box, off, cells: int) -> None:
        """:meth:`run` with one block a box, every round in one launch: ``box`` and
        ``off`` the box table and offsets on the device, each box at most ``cells``
        cells (within the kernels' ``box_cells``), its sources already 0."""
        count = len(off)
        layers, height, width = self.shape
        unit = self.cost is None
        self._rounds = self.xp.zeros(count, self.xp.int32)
        self.k.launch_boxes(count, cells, (
            dist, self.mask, self._unit_cost if unit else self.cost, np.int32(unit),
            self.axes, self.sites, np.int32(self.has_sites), self.via_cost, np.int32(layers),
            box, off, np.int32(height), np.int32(width), self._rounds))


def _lines(per_box: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each line's box, and each box's first line (int32), for ``per_box`` lines a box."""
    per_box = np.asarray(per_box, np.int64)
    first = np.zeros(len(per_box), np.int64)
    np.cumsum(per_box[:-1], out=first[1:])
    line_box = np.repeat(np.arange(len(per_box), dtype=np.int32), per_box)
    return line_box, first.astype(np.int32)


def _source_ids(boxes: np.ndarray, offsets: np.ndarray, sources) -> np.ndarray:
    """Indices in the packed distances of every box's sources."""
    ids = []
    for (x0, y0, w, h), off, src in zip(boxes, offsets, sources, strict=True):
        c = np.asarray(src, np.int64).reshape(-1, 3)
        ids.append(off + (c[:, 2] * h + c[:, 1] - y0) * w + c[:, 0] - x0)
    return np.concatenate(ids) if ids else np.zeros(0, np.int64)


def whole_grid(free: np.ndarray, axes: np.ndarray, sites: np.ndarray, sources, targets,
               via_cost: int, cost: np.ndarray | None, kernels=None) -> np.ndarray:
    """One search over the whole grid, answered as the CPU engines answer.

    Parameters
    ----------
    free, axes, sites
        As :func:`~mazeroute.engines.grid3d.stack_arrays` returns them.
    sources, targets, via_cost, cost
        As :func:`weighted3d` takes them (``cost`` None: unit steps).
    kernels : object, optional
        The sweeps, as :class:`BoxSweeps` takes them.

    Returns
    -------
    (L, H, W) uint32 array on the host.
    """
    src = cell_ids(sources, free, "sources")
    has_targets = targets is not None and np.size(targets) > 0
    tg = cell_ids(targets, free, "targets") if has_targets else None
    layers, height, width = free.shape
    k = kernels if kernels is not None else CudaKernels(owned=False)
    sweeps = BoxSweeps(k.xp.asarray(free.view(np.uint8)), axes, sites, via_cost,
                       owned=False, kernels=k)
    if cost is not None:
        sweeps.set_cost(k.xp.asarray(np.ascontiguousarray(cost, COST_DTYPE)))
    c = np.stack([src % width, src // width % height, src // (width * height)], axis=1)
    dist, _ = sweeps.run(np.array([[0, 0, width, height]]), np.array([-1]), [c])
    if has_targets:        # the CPU engines stop at the nearest target: cut there too
        stop = int(dist[k.xp.asarray(tg)].min())
        if stop != UNREACHED:
            dist[dist > stop] = UNREACHED
    return host(dist).reshape(free.shape)


def bfs3d(free: np.ndarray, sources, *, directions: Sequence[str], via_cost: int = 1,
          via_sites: np.ndarray | None = None, targets=None) -> np.ndarray:
    """:func:`mazeroute.engines.grid3d.bfs3d` on the GPU: the same arguments, errors
    and answer.

    Examples
    --------
    >>> free = np.ones((2, 3, 3), bool); free[0, 1, :] = False
    >>> int(bfs3d(free, [(0, 0, 0)], directions=["any", "any"])[0, 2, 0])
    4
    """
    vc = checked_via_cost(via_cost)
    free, axes, sites = stack_arrays(free, directions, via_sites)
    return whole_grid(free, axes, sites, sources, targets, vc, None)


def weighted3d(cost: np.ndarray, sources, targets=None, *, directions: Sequence[str],
               via_cost: int = 1, via_sites: np.ndarray | None = None,
               free: np.ndarray | None = None) -> np.ndarray:
    """:func:`mazeroute.engines.grid3d.weighted3d` on the GPU: the same arguments,
    errors and answer.

    Examples
    --------
    >>> cost = np.array([[[1, 9, 1]], [[1, 1, 1]]])
    >>> weighted3d(cost, [(0, 0, 0)], directions=["any", "any"], via_cost=2)[0].tolist()
    [[0, 9, 6]]
    """
    vc = checked_via_cost(via_cost)
    cost = np.asarray(cost)
    if free is None:
        free = np.ones(cost.shape, np.bool_)
    free, axes, sites = stack_arrays(free, directions, via_sites)
    check_cost(cost, free.shape)
    return whole_grid(free, axes, sites, sources, targets, vc, cost)
