"""The layout's measured features: what the planner reads of a free mask.

Everything here is cheap next to the wavefront it chooses for: a few sampled patches
read eight cells a word (``corridor``, ``wall``, ``euler``, ``sampled``), short BFS
probes (``width``), straight runs through sampled points (``run``), and a bounded count
of independent cycles (union-find, stopped at the count a rule asks about).
:class:`Measure` measures one mask lazily, each quantity at most once, for one plan;
:class:`Features` is the frozen record of what was measured. No module-level cache:
a plan measures its own mask.

* ``cells``: the number of free cells (estimated from the patches on large grids);
* ``corridor``: the share of free cells with at most two free 4-neighbours (about 1 in a
  perfect maze, under 0.2 on an open layout with rectangular blockages);
* ``wall`` and ``euler``: the share of free cells beside a blockage, and the patches'
  Euler characteristic per free cell (pieces less holes: positive where walls cut the
  free space into corridors);
* ``width`` (:func:`corridor_width`): cells per level of short probes, about twice the
  width of the corridors they start in;
* ``run`` (:func:`corridor_run`): the straight stretch a shortest path follows before it
  must bend;
* ``cycles``: independent cycles, counted up to a limit.

Examples
--------
>>> import numpy as np
>>> f = grid_features(np.ones((300, 300), bool))
>>> f["cells"], round(f["corridor"], 3)
(90000, 0.0)
>>> m = Measure(np.ones((3, 3), bool))
>>> m.cycles(10), m.is_forest()
(4, False)
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ..limits import many_cores
from .rules import DEFAULT_RULES, Rules

_LANES = np.uint64(0x0101010101010101)     # a 1 in each byte of a word


@numba.njit(cache=True, nogil=True, inline="always")
def _lanes(v):
    """Sum of the bytes of ``v`` (each 0 or 1, so the sum fits one byte)."""
    return (v * _LANES) >> np.uint64(56)


@numba.njit(cache=True, nogil=True)
def _patch_counts(words):
    """Counts of the patches' free cells, eight cells a word: ``words`` is ``(patches,
    rows + 2, cols + 2)`` uint64 whose bytes are the cells (0 or 1) and whose first and
    last rows and words are zero (outside a patch counts as blocked). Returns the free
    cells with at most two free neighbours, all free cells, those with fewer than four,
    the free edges, and the free 2 x 2 squares. Byte lanes never carry: a cell's degree
    is at most 4, and 4 + 0x7C still fits a byte."""
    k, rows, nw = words.shape
    e7, e8, e56 = np.uint64(7), np.uint64(8), np.uint64(56)
    three = np.uint64(0x7D7D7D7D7D7D7D7D)        # a lane's bit 7 set: degree >= 3
    four = np.uint64(0x7C7C7C7C7C7C7C7C)         # ... >= 4
    narrow = total = wall = edges = squares = np.uint64(0)
    for p in range(k):
        for y in range(1, rows - 1):
            for j in range(1, nw - 1):
                c = words[p, y, j]
                if c == 0:
                    continue
                up, down = words[p, y - 1, j], words[p, y + 1, j]
                left = (c << e8) | (words[p, y, j - 1] >> e56)     # byte i: cell i - 1
                right = (c >> e8) | (words[p, y, j + 1] << e56)    # byte i: cell i + 1
                diag = (down >> e8) | (words[p, y + 1, j + 1] << e56)
                deg = up + down + left + right
                total += _lanes(c)
                narrow += _lanes(c & ~(((deg + three) >> e7) & _LANES))
                wall += _lanes(c & ~(((deg + four) >> e7) & _LANES))
                edges += _lanes(c & right) + _lanes(c & down)
                squares += _lanes(c & right & down & diag)
    return int(narrow), int(total), int(wall), int(edges), int(squares)


def _corners(n: int, patch: int, patches: int) -> list[int]:
    """Where the patches start along a side of ``n`` cells."""
    if n <= patch:
        return [0]
    return sorted({(n - patch) * k // (patches - 1) for k in range(patches)})


def _apart(n: int, patch: int, patches: int) -> bool:
    """Whether the patches along a side of ``n`` cells overlap nowhere."""
    return bool(np.all(np.diff(_corners(n, patch, patches)) >= patch))


def _patches(free: np.ndarray, patch: int, patches: int) -> np.ndarray:
    """The sampled patches of ``free`` as :func:`_patch_counts` takes them: up to
    ``patches`` x ``patches`` patches of ``patch`` x ``patch`` cells spread over the
    grid, in one zero-bordered stack."""
    h, w = free.shape
    corners = [(y, x) for y in _corners(h, patch, patches) for x in _corners(w, patch, patches)]
    ph, pw = min(h, patch), min(w, patch)
    buf = np.zeros((len(corners), ph + 2, 8 * (-(-pw // 8) + 2)), np.uint8)
    for k, (y, x) in enumerate(corners):
        buf[k, 1:-1, 8:8 + pw] = free[y:y + ph, x:x + pw]
    return buf.view(np.uint64)


def grid_features(free: np.ndarray, cells: int | None = None,
                  rules: Rules = DEFAULT_RULES) -> dict:
    """Free-cell count and the sampled features of a free mask (``cells``: the count,
    when the caller has it: counting reads every cell, the samples a fixed few).
    ``sampled`` is the
    fraction of the patches' cells that are free.

    The patches are read eight cells at a time (:func:`_patch_counts`), so that the
    decision costs a small fraction of the fastest wavefront it chooses between.
    """
    free = np.asarray(free, dtype=bool)
    f = sampled_features(free, rules)
    f["cells"] = int(np.count_nonzero(free)) if cells is None else int(cells)
    return f


def sampled_features(free: np.ndarray, rules: Rules = DEFAULT_RULES) -> dict:
    """:func:`grid_features` without the count of free cells: only the sampled patches
    are read."""
    patch, patches = rules.patch, rules.patches
    words = _patches(free, patch, patches)
    narrow, total, wall, edges, squares = _patch_counts(words)
    h, w = free.shape
    area = words.shape[0] * min(h, patch) * min(w, patch)
    # wall: free cells with a blocked 4-neighbour (about 2 / width in corridors of a
    # given width, whatever the width; small in open rooms). Euler characteristic of
    # the patches' free cells (cells - edges + free 2 x 2 squares = pieces - holes):
    # negative where blockages are islands with a way round each (loops that shorten a
    # wavefront), positive where walls cut the free space into corridors without a way
    # round; per free cell, so that sizes compare
    # loops_at_least: the patches' free cells are disjoint subgraphs of the whole
    # (where the patches do not overlap), whose cycle spaces are independent parts of
    # its own, each of rank E - V + C >= E - V + 1 when not empty; so the whole has at
    # least edges - cells + 1 independent cycles, which can spare a pass over the mask
    apart = _apart(h, patch, patches) and _apart(w, patch, patches)
    loops = edges - total + 1 if total and apart else 0
    return {"corridor": narrow / total if total else 1.0,
            "wall": wall / total if total else 1.0,
            "euler": (total - edges + squares) / total if total else 0.0,
            "sampled": total / area,
            "loops_at_least": max(0, int(loops))}


@numba.njit(cache=True, nogil=True, inline="always")
def _visit(seen, queue, tail, c):
    """Append cell ``c`` to ``queue`` unless its bit in ``seen`` is set; the new tail."""
    word, bit = c >> 6, np.uint64(1) << np.uint64(c & 63)
    if seen[word] & bit:
        return tail
    seen[word] |= bit
    queue[tail] = c
    return tail + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _visit_if(seen, queue, tail, c, ok):
    """:func:`_visit` of ``c`` where ``ok`` (a free cell in the grid), without a branch:
    the slot at ``tail`` is written either way and kept only when the cell is new."""
    word, bit = c >> 6, np.uint64(1) << np.uint64(c & 63)
    new = ok & ((seen[word] & bit) == 0)
    queue[tail] = c
    seen[word] |= bit * np.uint64(new)
    return tail + new


@numba.njit(cache=True, nogil=True)
def _probe(free, sy, sx, budget, seen, queue, field):
    """BFS from (sy, sx) until ``budget`` cells are reached; (cells, levels). Visited
    cells are bits of ``seen`` (one a cell of the grid, all clear on entry and again on
    return: the probe clears the words of the cells in its ``queue``), so a probe
    touches only the cells it reaches.

    ``field``: the neighbours are appended without branching on the mask
    (:func:`_visit_if`), which in a field of blockages is free or blocked at random and
    costs a mispredicted branch a cell or so; along corridors the branches are
    predictable and cheaper. The cells, their order and the result are the same."""
    h, w = free.shape
    last = h * w - 1
    flat = free.ravel()
    tail = _visit(seen, queue, 0, sy * w + sx)
    head, level, level_end = 0, 0, 1
    while head < tail and tail < budget:
        if head == level_end:
            level += 1
            level_end = tail
        k = queue[head]
        head += 1
        y = k // w
        x = k - y * w
        # right, down, left, up: the order fixes which cells a cut-off probe counts
        for d in range(4):
            if d == 0:
                c, inside = k + 1, x + 1 < w
            elif d == 1:
                c, inside = k + w, y + 1 < h
            elif d == 2:
                c, inside = k - 1, x > 0
            else:
                c, inside = k - w, y > 0
            if field:
                at = min(max(c, 0), last)      # an outside neighbour is not taken anyway
                tail = _visit_if(seen, queue, tail, at, inside & flat[at])
            elif inside and flat[c]:
                tail = _visit(seen, queue, tail, c)
            if tail >= budget:
                break                           # and the loop's test ends the probe
    for i in range(tail):
        seen[queue[i] >> 6] = 0
    return tail, level


def corridor_width(free: np.ndarray, budget: int | None = None, f: dict | None = None,
                   rules: Rules = DEFAULT_RULES) -> float:
    """Cells per BFS level seen by short probes from four points inside the layout
    (the median over probes that reach ``budget`` cells; ``inf`` when none does, as in
    a layout of small pockets). About twice the width of the corridors a probe starts
    in; about ``sqrt(2 * budget)`` in open space. ``f``: the sampled features, when the
    caller has them (they choose how the probes branch, :func:`_probe`; not what they
    find).

    >>> from mazeroute.generate import serpentine_mask
    >>> round(corridor_width(~serpentine_mask(512, 3)), 1)
    6.0
    >>> corridor_width(np.ones((512, 512), bool)) > 100
    True
    """
    free = np.ascontiguousarray(free, dtype=np.bool_)
    h, w = free.shape
    starts = []
    for fy in (0.3, 0.7):
        y = int(fy * h)
        row = np.flatnonzero(free[y])
        if row.size:
            starts += [(y, int(row[np.argmin(np.abs(row - int(fx * w)))])) for fx in (0.3, 0.7)]
    if not starts:
        return float("inf")
    f = sampled_features(free, rules) if f is None else f
    budget = rules.probe_cells if budget is None else budget
    found = _probes(free, np.array(starts, np.int64), budget,
                    rules.field_corridor <= f["corridor"] < rules.max_gpu_corridor)
    got = [cells / max(levels, 1) for cells, levels in found.tolist() if cells >= budget]
    return float(np.median(got)) if got else float("inf")


@numba.njit(cache=True, nogil=True)
def _probes_serial(free, starts, budget, field=False):
    """:func:`_probe` from each ``(y, x)`` of ``starts``, one after another on one bitmap."""
    h, w = free.shape
    seen = np.zeros((h * w + 63) >> 6, np.uint64)
    queue = np.empty(budget, np.int64)
    out = np.empty((starts.shape[0], 2), np.int64)
    for i in range(starts.shape[0]):
        out[i, 0], out[i, 1] = _probe(free, starts[i, 0], starts[i, 1], budget, seen, queue,
                                      field)
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def _probes_parallel(free, starts, budget, field=False):
    """:func:`_probes_serial`, a core and a bitmap a probe."""
    h, w = free.shape
    out = np.empty((starts.shape[0], 2), np.int64)
    for i in numba.prange(starts.shape[0]):
        seen = np.zeros((h * w + 63) >> 6, np.uint64)
        queue = np.empty(budget, np.int64)
        out[i, 0], out[i, 1] = _probe(free, starts[i, 0], starts[i, 1], budget, seen, queue,
                                      field)
    return out


def _probes(free: np.ndarray, starts: np.ndarray, budget: int,
            field: bool = False) -> np.ndarray:
    """``(cells, levels)`` of a :func:`_probe` from each ``(y, x)`` of ``starts``: on all
    cores where the process has many (:func:`mazeroute.limits.many_cores`), else on one."""
    return (_probes_parallel if many_cores() else _probes_serial)(free, starts, budget,
                                                                   field)


@numba.njit(cache=True, nogil=True)
def _row_runs(free, ys, xs):
    """The run of free cells along its row through each point ``(ys[i], xs[k])`` (both
    ascending), as a ``(len(ys), len(xs))`` array (0 at a blocked point).

    A run is walked once however many sampled points lie on it (points on one long
    corridor share it), and only runs through a sampled point are read (a field of
    short runs costs little)."""
    w = free.shape[1]
    out = np.zeros((ys.size, xs.size), np.int64)
    for i in range(ys.size):
        y, a, b = ys[i], 0, 0              # the last run found on this row: [a, b)
        for k in range(xs.size):
            x = xs[k]
            if not free[y, x]:
                continue
            if not a <= x < b:
                a, b = x, x + 1
                while a > 0 and free[y, a - 1]:
                    a -= 1
                while b < w and free[y, b]:
                    b += 1
            out[i, k] = b - a
    return out


def _runs(free: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """The longer of the row run and the column run of free cells through each point of
    the grid of sampled rows ``ys`` and columns ``xs`` (:func:`_row_runs`; the columns
    as the rows of the transposed mask)."""
    return np.maximum(_row_runs(free, ys, xs), _row_runs(free.T, xs, ys).T)


def corridor_run(free: np.ndarray, side: int = 16) -> float:
    """Mean over the free cells among ``side`` x ``side`` evenly spread points of the
    longer straight run of free cells through the cell: the length of the straight
    stretches a shortest path follows before it must bend (0 when no point is free).

    >>> from mazeroute.generate import serpentine_mask
    >>> corridor_run(~serpentine_mask(512, 3)) > 400
    True
    >>> corridor_run(np.tile([[True, True, False]], (60, 20))) == 60
    True
    """
    free = np.ascontiguousarray(free, dtype=np.bool_)
    h, w = free.shape
    ys = ((np.arange(side) + 0.5) * h / side).astype(np.int64)
    xs = ((np.arange(side) + 0.5) * w / side).astype(np.int64)
    keep = free[np.ix_(ys, xs)]
    if not keep.any():
        return 0.0
    return float(_runs(free, ys, xs)[keep].mean())



@numba.njit(cache=True, nogil=True)
def _root(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]          # path halving
        i = parent[i]
    return i


@numba.njit(cache=True, nogil=True)
def _join(parent, i, j):
    """Join the sets of cells ``i`` and ``j``; True when they were one set already (the
    edge between them closes a cycle)."""
    a = _root(parent, i)
    b = _root(parent, j)
    if a == b:
        return True
    if a < b:
        parent[b] = a
    else:
        parent[a] = b
    return False


@numba.njit(cache=True, nogil=True)
def _band(free, parent, y0, y1, limit):
    """Union-find over rows ``y0 .. y1 - 1`` (their edges among themselves); the edges
    that close a cycle, counted up to ``limit`` (the band's later rows are then left
    unset)."""
    w = free.shape[1]
    count = 0
    for y in range(y0, y1):
        for x in range(w):
            i = y * w + x
            parent[i] = i
            if not free[y, x]:
                continue
            if x > 0 and free[y, x - 1]:
                parent[i] = _root(parent, i - 1)
            if y > y0 and free[y - 1, x] and _join(parent, i, i - w):
                count += 1
                if count >= limit:
                    return count
    return count


@numba.njit(cache=True, nogil=True)
def _cycles(free, limit):
    """Independent cycles of the free cells' 4-neighbour graph, counting up to ``limit``:
    one union-find pass, where an edge inside one set closes a cycle (no labelling pass,
    and a layout with cycles is told apart at its first)."""
    h, w = free.shape
    return _band(free, np.empty(h * w, np.int32), 0, h, limit)


@numba.njit(cache=True, nogil=True, parallel=True)
def _cycles_strips(free, limit, strips):
    """:func:`_cycles` on ``strips`` bands of rows at once (the union-find of each band
    touches only its own cells), then the edges between bands in one pass: the same
    count, in a fraction of the time on a many-core host."""
    h, w = free.shape
    parent = np.empty(h * w, np.int32)
    counts = np.zeros(strips, np.int64)
    for s in numba.prange(strips):
        counts[s] = _band(free, parent, s * h // strips, (s + 1) * h // strips, limit)
    total = counts.sum()
    for s in range(1, strips):
        y = s * h // strips
        if total >= limit:
            break
        for x in range(w):
            if free[y, x] and free[y - 1, x] and _join(parent, y * w + x, (y - 1) * w + x):
                total += 1
    return min(total, limit)


#: Grids of at least this many cells are counted in bands of rows in parallel (on many
#: cores: :func:`mazeroute.limits.many_cores`).
PARALLEL_CELLS = 1 << 18




@numba.njit(cache=True, nogil=True, parallel=True)
def _surplus_rows(free):
    """Free 4-neighbour edges less free cells, and the free cells: ``(E - V, V)``."""
    h, w = free.shape
    surplus = np.zeros(h, np.int64)
    cells = np.zeros(h, np.int64)
    for y in numba.prange(h):
        s = 0
        c = 0
        for x in range(w):
            if free[y, x]:
                c += 1
                s -= 1
                if x + 1 < w and free[y, x + 1]:
                    s += 1
                if y + 1 < h and free[y + 1, x]:
                    s += 1
        surplus[y] = s
        cells[y] = c
    return surplus.sum(), cells.sum()


#: Masks of at least this many cells count ``E - V`` on every core, smaller ones with
#: NumPy on one: on a busy host a parallel pass waits for its slowest thread, which cost
#: the routing decision of a large maze tens of milliseconds at times.
PARALLEL_SURPLUS_CELLS = 1 << 22


def _surplus(free: np.ndarray) -> tuple[int, int]:
    """``(E - V, V)`` of a free mask: free 4-neighbour edges less free cells, and cells.

    >>> _surplus(np.array([[1, 1, 1], [0, 1, 0]], bool))
    (-1, 4)
    """
    if free.size >= PARALLEL_SURPLUS_CELLS:
        surplus, cells = _surplus_rows(free)
        return int(surplus), int(cells)
    cells = int(np.count_nonzero(free))
    edges = np.count_nonzero(free[:, :-1] & free[:, 1:]) + np.count_nonzero(free[:-1] & free[1:])
    return int(edges) - cells, cells



def cycle_rank(free: np.ndarray, limit: int | None = None, at_least: int = 0) -> int:
    """Independent cycles of the free cells' 4-neighbour graph (edges - cells + parts);
    with ``limit``, counting stops there (``min(cycles, limit)``); ``at_least``: a lower
    bound the caller knows (the patches' ``loops_at_least``), which answers without
    reading the mask when it reaches ``limit``.

    Cycles are ``E - V + C`` (edges, cells, pieces), so at least ``E - V + 1`` when a
    cell is free: one counting pass answers ``limit`` without the union-find where that
    is already enough (a layout with many loops).

    >>> cycle_rank(np.array([[1, 1, 1], [0, 1, 0]], bool)), cycle_rank(np.ones((3, 3), bool))
    (0, 4)
    """
    limit = np.iinfo(np.int64).max if limit is None else int(limit)
    if at_least >= limit:
        return limit
    free = np.ascontiguousarray(free, dtype=np.bool_)
    surplus, cells = _surplus(free)
    if cells and surplus + 1 >= limit:
        return limit
    if free.size >= PARALLEL_CELLS and many_cores():
        # a band a thread: the seams between bands are joined on one core, and more
        # bands cost more there than they save in balance
        return int(_cycles_strips(free, limit, min(free.shape[0], numba.get_num_threads())))
    return int(_cycles(free, limit))


@dataclass(frozen=True)
class Features:
    """What a plan measured of its layout's free mask (None: not measured, because no
    rule asked).

    Attributes
    ----------
    shape : (height, width) of the grid.
    cells : free cells (exact where ``counted``, else the patches' estimate).
    counted : whether ``cells`` is an exact count.
    corridor, wall, euler, sampled : the sampled patches' shares (module notes).
    width : the probes' cells per level.
    run : the mean straight run through sampled points.
    cycles : independent cycles, counted up to ``cycle_limit`` (exact when below it).
    cycle_limit : where the count stopped.
    """

    shape: tuple[int, int]
    cells: int | None = None
    counted: bool = False
    corridor: float | None = None
    wall: float | None = None
    euler: float | None = None
    sampled: float | None = None
    width: float | None = None
    run: float | None = None
    cycles: int | None = None
    cycle_limit: int | None = None


class Measure:
    """One mask's features, each measured at most once, when a rule first asks.

    Parameters
    ----------
    free : (height, width) bool array, True where a cell is free.
    rules : the sampling parameters (patch size, probe budget) come from here.

    Examples
    --------
    >>> import numpy as np
    >>> m = Measure(np.ones((200, 200), bool))
    >>> m.count(), round(m.sampled()["corridor"], 3)
    (40000, 0.0)
    >>> m.frozen().cells
    40000
    """

    def __init__(self, free: np.ndarray, rules: Rules = DEFAULT_RULES):
        self.free = np.ascontiguousarray(free, dtype=np.bool_)
        self.rules = rules
        self._f: dict | None = None
        self._cells: int | None = None
        self._cycles: tuple[int, int] | None = None     # (count, limit)

    def sampled(self) -> dict:
        """The sampled patches' features (:func:`sampled_features`), with ``width``,
        ``run`` and ``cells`` added to the same dict as they are measured."""
        if self._f is None:
            self._f = sampled_features(self.free, self.rules)
        return self._f

    def count(self) -> int:
        """The exact number of free cells."""
        if self._cells is None:
            self._cells = int(np.count_nonzero(self.free))
        return self._cells

    def width(self) -> float:
        """:func:`corridor_width` of the mask."""
        f = self.sampled()
        if "width" not in f:
            f["width"] = corridor_width(self.free, f=f, rules=self.rules)
        return f["width"]

    def run(self) -> float:
        """:func:`corridor_run` of the mask."""
        f = self.sampled()
        if "run" not in f:
            f["run"] = corridor_run(self.free)
        return f["run"]

    def cycles(self, limit: int) -> int:
        """``min(cycles, limit)``, from an earlier count where that settles it."""
        if self._cycles is not None:
            count, was = self._cycles
            if count < was or limit <= was:          # exact then, or enough to answer
                return min(count, limit)
        at_least = self._f.get("loops_at_least", 0) if self._f is not None else 0
        count = cycle_rank(self.free, limit, at_least)
        if self._cycles is None or limit > self._cycles[1]:
            self._cycles = (count, limit)
        return count

    def is_forest(self) -> bool:
        """True when the free cells' 4-neighbour graph has no cycle (a perfect maze)."""
        return self.cycles(1) == 0

    def frozen(self) -> Features:
        """The record of what was measured so far."""
        f = self._f or {}
        cells = f.get("cells", self._cells)
        count, limit = self._cycles if self._cycles is not None else (None, None)
        return Features(tuple(self.free.shape), cells,
                        self._cells is not None and cells == self._cells,
                        f.get("corridor"), f.get("wall"), f.get("euler"), f.get("sampled"),
                        f.get("width"), f.get("run"), count, limit)
