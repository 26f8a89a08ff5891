"""What ``backend="auto"`` picks for a grid: the one place that decides CPU vs GPU.

The GPU engine ``gpu/grid`` relaxes 64-column tiles in parallel, so it wins wherever
the wavefront is wide; its cost per level along one corridor (a few warp instructions
plus a hand-over from tile to tile) is larger than the CPU queue's cost per cell, so on a
maze of one-cell corridors with loops, and on small grids where a launch costs more than
the whole CPU search, the compiled CPU queue BFS is faster; once a maze has many loops
its wavefront is short and wide again and the GPU wins. A perfect maze (free cells
forming a forest) is the exception: there ``gpu/grid`` needs no level-by-level walk at all
(Euler-tour depths, :mod:`mazeroute.engines.gpu_tree`) and wins by an order of magnitude.
The choice reads cheap features of the free mask:

* ``cells``: the number of free cells;
* ``wall`` and ``euler`` (sampled too, reported for the benchmark's class table): the
  fraction of free cells beside a blockage, and the Euler characteristic per free cell;
* ``corridor``: the fraction of free cells with at most two free 4-neighbours (about 1
  in a perfect maze, under 0.2 on an open layout with rectangular blockages), measured on
  a few sampled patches so that its cost does not grow with the chip (benchmarks/
  RESULTS.md, "Figures moved from code comments");
* for maze-like layouts only: the number of independent cycles (a counting pass bounds it
  from below; a union-find pass where that does not settle the question): none (a
  perfect maze) or many go to the GPU, a few (a long-corridor maze) to the CPU;
* for the others, ``euler`` and ``wall`` high say there may be corridors wider than one
  cell, where the wavefront is long and narrow. ``run`` (:func:`corridor_run`) tells
  *winding corridors* (long straight stretches) from a dense field of small blockages
  (which passes the first two tests too): on winding corridors ``gpu/grid`` scans whole
  lines (:mod:`.gpu_lines`), a phase per straight stretch, and wins unless the
  corridors are narrow and short (``width * run`` under :data:`LINES_BALANCE`; ``width``
  from :func:`corridor_width`, a few short BFS probes, is the wavefront's cells per
  level). Elsewhere the tiles' time grows with the levels and the CPU's with the cells,
  so wavefronts narrower than :data:`MAX_CPU_WIDTH` cells per level go to the CPU.

Examples
--------
>>> import numpy as np
>>> f = grid_features(np.ones((300, 300), bool))
>>> f["cells"], round(f["corridor"], 3)
(90000, 0.0)
>>> prefers_cpu(np.ones((16, 16), bool))
True
"""

from __future__ import annotations

import weakref

import numba
import numpy as np

from .base import many_cores
from .gpu_batch import MAX_PINS

#: Below this many free cells a full CPU wavefront takes about as long as launching one.
MIN_GPU_CELLS = 1 << 16
#: At or above this corridor fraction the layout behaves like a maze (CPU is faster
#: unless the maze is perfect).
MAX_GPU_CORRIDOR = 0.6
#: A maze-like layout with loops goes to the GPU from this many cycles per free cell on
#: (``MIN_GPU_LOOPS_LARGE`` from ``LARGE_CELLS`` free cells on): loops shorten the
#: wavefront, a perfect maze with a few loops keeps nearly all its levels (RESULTS.md:
#: "auto for braided mazes", and "Figures moved from code comments").
MIN_GPU_LOOPS = 0.001
MIN_GPU_LOOPS_LARGE = 0.0002
LARGE_CELLS = 1 << 20
#: Layouts that are not one-cell mazes go to the CPU when their sampled patches hold
#: at least this many more separate pieces of free space than holes per free cell (3
#: in a 128 x 128 patch of 10,000 free cells: walls running across, corridors) and at
#: least this fraction of free cells lies beside a wall (corridors up to ~8 cells wide);
#: an open layout's islands make it zero or negative. The class table in
#: benchmarks/RESULTS.md (issue 14) is the measurement behind both.
MIN_CPU_EULER = 0.0003
MIN_CPU_WALL = 0.2
#: Such layouts go to the CPU when a BFS probe from inside them visits fewer than this
#: many cells per level (twice the corridor width, as a probe from inside a corridor
#: runs both ways): the width at which the GPU's per-level cost and the CPU's per-cell
#: cost cross (RESULTS.md, issue 14, eighth session).
MAX_CPU_WIDTH = 14
#: Such layouts are *winding corridors* when the free cells' straight runs are at least
#: this long (:func:`corridor_run`: the longer of the row and column run through a
#: sampled free cell, averaged): a shortest path there bends rarely, so ``gpu/grid``
#: relaxes whole rows and columns in phases (:mod:`.gpu_lines`, one phase a straight
#: stretch) instead of tiles. A dense field of small blockages has runs of a few cells.
MIN_LINES_RUN = 128
#: On winding corridors the GPU's phases per free cell fall as the corridors widen and
#: their straight stretches lengthen, the CPU's time per cell does not: the GPU is taken
#: from ``width * run`` (:func:`corridor_width` times :func:`corridor_run`) of this on
#: (RESULTS.md, issue 14, "Whole-line scans for winding corridors").
LINES_BALANCE = 2000
#: Grids of up to this many cells have their free cells counted for the decision;
#: bigger ones, unless maze-like, take the sampled patches' share of free cells times
#: the grid's cells, when that estimate is at least ``SURE_CELLS`` times
#: :data:`MIN_GPU_CELLS` (else they are counted: the patches may miss the free space).
COUNT_CELLS = 1 << 18
SURE_CELLS = 4
#: Cells a probe visits before it stops.
_PROBE_CELLS = 1 << 13
#: Layouts with at least this share of sampled free cells of at most two free
#: neighbours (and fewer than maze-like ones) are fields of blockages, where the probes
#: append cells without branching on the mask (:func:`_probe`): passages of two or more
#: cells have almost none such cells, fields a quarter or more.
FIELD_CORRIDOR = 0.1
_PATCH = 128
_PATCHES = 4               # per side: up to 16 sampled patches


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


def _corners(n: int) -> list[int]:
    """Where the patches start along a side of ``n`` cells."""
    if n <= _PATCH:
        return [0]
    return sorted({(n - _PATCH) * k // (_PATCHES - 1) for k in range(_PATCHES)})


def _apart(n: int) -> bool:
    """Whether the patches along a side of ``n`` cells overlap nowhere."""
    return bool(np.all(np.diff(_corners(n)) >= _PATCH))


def _patches(free: np.ndarray) -> np.ndarray:
    """The sampled patches of ``free`` as :func:`_patch_counts` takes them: up to
    ``_PATCHES`` x ``_PATCHES`` patches of ``_PATCH`` x ``_PATCH`` cells spread over the
    grid, in one zero-bordered stack."""
    h, w = free.shape
    corners = [(y, x) for y in _corners(h) for x in _corners(w)]
    ph, pw = min(h, _PATCH), min(w, _PATCH)
    buf = np.zeros((len(corners), ph + 2, 8 * (-(-pw // 8) + 2)), np.uint8)
    for k, (y, x) in enumerate(corners):
        buf[k, 1:-1, 8:8 + pw] = free[y:y + ph, x:x + pw]
    return buf.view(np.uint64)


def grid_features(free: np.ndarray, cells: int | None = None) -> dict:
    """Free-cell count and the sampled features of a free mask (``cells``: the count,
    when the caller has it: counting reads every cell, the samples a fixed few; see
    benchmarks/RESULTS.md, "Figures moved from code comments"). ``sampled`` is the
    fraction of the patches' cells that are free.

    The patches are read eight cells at a time (:func:`_patch_counts`), so that the
    decision costs a small fraction of the fastest wavefront it chooses between.
    """
    free = np.asarray(free, dtype=bool)
    f = sampled_features(free)
    f["cells"] = int(np.count_nonzero(free)) if cells is None else int(cells)
    return f


def sampled_features(free: np.ndarray) -> dict:
    """:func:`grid_features` without the count of free cells: only the sampled patches
    are read."""
    words = _patches(free)
    narrow, total, wall, edges, squares = _patch_counts(words)
    h, w = free.shape
    area = words.shape[0] * min(h, _PATCH) * min(w, _PATCH)
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
    loops = edges - total + 1 if total and _apart(h) and _apart(w) else 0
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


def corridor_width(free: np.ndarray, budget: int = _PROBE_CELLS,
                   f: dict | None = None) -> float:
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
    f = sampled_features(free) if f is None else f
    found = _probes(free, np.array(starts, np.int64), budget,
                    FIELD_CORRIDOR <= f["corridor"] < MAX_GPU_CORRIDOR)
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
    cores where the process has many (:func:`.base.many_cores`), else on one."""
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


def _walled(f: dict) -> bool:
    """Not maze-like, and walls cut the sampled free space into pieces with no way round
    (``euler`` and ``wall``): corridors wider than a cell may keep a wavefront long and
    narrow there, where a dense field of blockages passes too."""
    return (f["corridor"] < MAX_GPU_CORRIDOR and f["euler"] >= MIN_CPU_EULER
            and f["wall"] >= MIN_CPU_WALL)


def winding(free: np.ndarray, f: dict | None = None) -> bool:
    """Whether a layout is winding corridors, where ``gpu/grid`` scans whole lines
    (:mod:`.gpu_lines`): not maze-like, walls cut its free space into corridors
    (``euler`` and ``wall``) and its straight runs are long (``run`` at least
    :data:`MIN_LINES_RUN`). ``f``: the sampled features, when the caller has them
    (``run`` is added to it).

    >>> from mazeroute.generate import serpentine_mask, spiral_mask
    >>> winding(~serpentine_mask(512, 4)), winding(~spiral_mask(512, 2))
    (True, True)
    >>> winding(np.ones((512, 512), bool))
    False
    """
    free = np.asarray(free, dtype=bool)
    f = sampled_features(free) if f is None else f
    if not _walled(f):
        return False
    if "run" not in f:
        f["run"] = corridor_run(free)
    return f["run"] >= MIN_LINES_RUN


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
#: cores: :func:`.base.many_cores`).
PARALLEL_CELLS = 1 << 18

#: What the last decision learnt of a mask: (shape, fingerprint, facts), facts holding
#: ``"f"`` (:func:`sampled_features`, with ``width`` and ``run`` where they were measured)
#: and ``"cycles"`` (count, limit: the count is exact when below the limit). The decision
#: and then the engine it picked ask about the same mask (a full pass on a forest); the
#: fingerprint (one parallel pass over the mask) keeps an edited mask from getting an old
#: answer.
_MEMO: tuple | None = None


#: The last read-only mask that owns its memory to be fingerprinted (a weak reference)
#: and its fingerprint: such a mask cannot change, so the same object asked about again
#: (by a router's decision, then ``resolve``'s) needs no second pass.
_LAST_FP: tuple | None = None


def forget() -> None:
    """Drop what was learnt of the last mask (a benchmark timing a first decision calls
    it)."""
    global _MEMO, _LAST_FP
    _MEMO = _LAST_FP = None


@numba.njit(cache=True, nogil=True, inline="always")
def _mix(x):
    """A 64-bit finaliser (MurmurHash3's): every input bit moves every output bit."""
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    return x ^ (x >> np.uint64(33))


@numba.njit(cache=True, nogil=True, inline="always")
def _word(words, i):
    """Word ``i`` mixed with its position (no chain from word to word, so a pass runs at
    memory speed, on every core where it runs on several)."""
    return words[i] ^ (np.uint64(i) * np.uint64(0x9E3779B97F4A7C15))


@numba.njit(cache=True, nogil=True, inline="always")
def _hash_tail(a, b, n, tail):
    for t in range(tail.size):
        a += _mix(np.uint64(tail[t]) + np.uint64(n + t) * np.uint64(0x9E3779B97F4A7C15))
    return _mix(a), _mix(b ^ a)


@numba.njit(cache=True, nogil=True, parallel=True)
def _hash_parallel(words, tail):
    """Two 64-bit hashes of ``words`` (uint64) and ``tail`` (the last bytes): sums of the
    mixed words (:func:`_word`), on every core."""
    a, b = np.uint64(words.size), np.uint64(tail.size)
    for i in numba.prange(words.size):
        a += _mix(_word(words, i))
        b += _mix(_word(words, i) ^ np.uint64(0x5851F42D4C957F2D))
    return _hash_tail(a, b, words.size, tail)


@numba.njit(cache=True, nogil=True)
def _hash_serial(words, tail):
    """:func:`_hash_parallel` on one core (the same sums)."""
    a, b = np.uint64(words.size), np.uint64(tail.size)
    for i in range(words.size):
        a += _mix(_word(words, i))
        b += _mix(_word(words, i) ^ np.uint64(0x5851F42D4C957F2D))
    return _hash_tail(a, b, words.size, tail)


def _hash_words(words: np.ndarray, tail: np.ndarray) -> tuple[int, int]:
    """:func:`_hash_parallel` of ``words`` and ``tail``, on one core where the process
    has few (:func:`.base.many_cores`; the same sums)."""
    return (_hash_parallel if many_cores() else _hash_serial)(words, tail)


def _fingerprint(free: np.ndarray) -> tuple[int, int]:
    """A 128-bit fingerprint of a contiguous bool mask."""
    global _LAST_FP
    frozen = not free.flags.writeable and free.base is None
    if frozen and _LAST_FP is not None and _LAST_FP[0]() is free:
        return _LAST_FP[1]
    raw = free.reshape(-1).view(np.uint8)
    k = raw.size // 8 * 8
    a, b = _hash_words(raw[:k].view(np.uint64), raw[k:])
    if frozen:
        _LAST_FP = (weakref.ref(free), (int(a), int(b)))
    return int(a), int(b)


def _recall(free: np.ndarray, fp: tuple | None = None) -> dict | None:
    """The facts remembered for this mask (None: another mask, or none); ``fp``: its
    fingerprint, when the caller has it (:func:`_remember`)."""
    if _MEMO is None or _MEMO[0] != free.shape:
        return None
    return _MEMO[2] if _MEMO[1] == (fp or _fingerprint(free)) else None


def _remember(free: np.ndarray, **facts) -> None:
    """Remember ``facts`` of this mask, beside those already remembered of it."""
    global _MEMO
    fp = _fingerprint(free)
    known = _recall(free, fp)
    if known is None:
        _MEMO = (free.shape, fp, dict(facts))
    else:
        known.update(facts)


def features(free: np.ndarray) -> dict:
    """:func:`sampled_features` of ``free``, as remembered by the last decision on it
    (with ``width`` and ``run`` when it measured them), else sampled now."""
    free = np.ascontiguousarray(free, dtype=np.bool_)
    known = _recall(free)
    if known is not None and "f" in known:
        return known["f"]
    return sampled_features(free)


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
#: the routing decision of a 1023^2 maze tens of milliseconds at times (RESULTS.md,
#: issue 14, fifth session of 2026-11-24).
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


def _counted(free: np.ndarray, limit: int, at_least: int = 0) -> int:
    """``min(cycles, limit)`` of a free mask, remembered for the next question;
    ``at_least``: a lower bound of the cycles the caller knows (the sampled patches'
    ``loops_at_least``), which answers without reading the mask when it reaches ``limit``.

    Cycles are ``E - V + C`` (edges, cells, pieces), so at least ``E - V + 1`` when a cell
    is free: one counting pass answers ``limit`` without the union-find where that is
    already enough (a layout with many loops). Only a count that read the whole mask
    (fewer cycles than ``limit``) is remembered: a count stopped at ``limit`` early is
    cheaper to take again than the fingerprint.
    """
    if at_least >= limit:
        return limit
    free = np.ascontiguousarray(free, dtype=np.bool_)
    known = _recall(free)
    if known is not None and "cycles" in known:
        count, was = known["cycles"]
        if count < was or limit <= was:          # exact then, or enough to answer
            return min(count, limit)
    surplus, cells = _surplus(free)
    if cells and surplus + 1 >= limit:
        return limit
    if free.size >= PARALLEL_CELLS and many_cores():
        # a band a thread: the seams between bands are joined on one core, and more
        # bands cost more there than they save in balance (RESULTS.md, issue 14, tenth
        # session of 2026-11-26: "Forest tests: a band a thread")
        count = int(_cycles_strips(free, limit, min(free.shape[0], numba.get_num_threads())))
    else:
        count = int(_cycles(free, limit))
    if count < limit:
        _remember(free, cycles=(count, limit))
    return count


def cycle_rank(free: np.ndarray, limit: int | None = None, f: dict | None = None) -> int:
    """Independent cycles of the free cells' 4-neighbour graph (edges - cells + parts);
    with ``limit``, counting stops there (``min(cycles, limit)``); ``f``: the sampled
    features of ``free``, when the caller has them (their lower bound may answer).

    >>> cycle_rank(np.array([[1, 1, 1], [0, 1, 0]], bool)), cycle_rank(np.ones((3, 3), bool))
    (0, 4)
    """
    return _counted(free, np.iinfo(np.int64).max if limit is None else int(limit),
                    (f or {}).get("loops_at_least", 0))


def is_forest(free: np.ndarray, f: dict | None = None) -> bool:
    """True when the free cells' 4-neighbour graph has no cycle (a perfect maze); ``f``:
    as for :func:`cycle_rank`.

    >>> is_forest(np.array([[1, 1, 1], [0, 1, 0]], bool)), is_forest(np.ones((2, 2), bool))
    (True, False)
    """
    return cycle_rank(free, 1, f) == 0


def is_maze_like(free: np.ndarray, f: dict | None = None) -> bool:
    """True when most free cells have at most two free neighbours (one-cell corridors),
    by the sampled patches (``f``: :func:`sampled_features`, when the caller has them)."""
    f = sampled_features(np.asarray(free, dtype=bool)) if f is None else f
    return f["corridor"] >= MAX_GPU_CORRIDOR


def prefers_cpu(free: np.ndarray) -> bool:
    """True where the CPU engine is expected to beat ``gpu/grid`` on this layout."""
    return _decide(np.asarray(free, dtype=bool))[0]


def _decide(free: np.ndarray) -> tuple[bool, dict | None]:
    """:func:`_decided`, remembered where it read more than the sampled patches (the
    probes of corridors, a cycle count): the router and then ``resolve`` ask it of one
    mask, and gpu/grid's mode reads its features. Elsewhere the fingerprint of a large
    mask would cost more than deciding again."""
    if free.size < MIN_GPU_CELLS:
        return True, None
    free = np.ascontiguousarray(free, dtype=np.bool_)
    known = _recall(free)
    if known is not None and "cpu" in known:
        return known["cpu"], known.get("f")
    cpu, f = _decided(free)
    if f is not None and ("width" in f or f["corridor"] >= MAX_GPU_CORRIDOR):
        _remember(free, cpu=cpu, f=f)
    return cpu, f


def _decided(free: np.ndarray) -> tuple[bool, dict | None]:
    """:func:`prefers_cpu`, and the features it read (None for a small layout).

    The free cells are counted only where the count is cheap (up to
    :data:`COUNT_CELLS` cells), where the sampled patches leave the layout's size in
    doubt, and for maze-like layouts (whose cycle count reads every cell anyway);
    elsewhere the patches' share of free cells stands for it (``f["cells"]`` is then
    that estimate): a count of a 4096 x 4096 mask takes longer than the GPU's wavefront.
    Masks of fewer than :data:`MIN_GPU_CELLS` cells never come here (:func:`_decide`).
    """
    f = None
    if free.size > COUNT_CELLS:
        f = sampled_features(free)
        cells = int(f["sampled"] * free.size)
    counted = f is None or cells < SURE_CELLS * MIN_GPU_CELLS
    if counted:
        cells = int(np.count_nonzero(free))
    if cells < MIN_GPU_CELLS:        # on a small grid before the patches: they cost as much
        return True, None
    f = f or sampled_features(free)
    f["cells"] = cells
    if f["corridor"] < MAX_GPU_CORRIDOR:
        # the probes tell corridors wider than a cell from a dense field of blockages
        if not _walled(f):
            return False, f
        f["width"] = corridor_width(free, f=f)
        if winding(free, f):
            return f["width"] * f["run"] < LINES_BALANCE, f
        return f["width"] < MAX_CPU_WIDTH, f
    if not counted:
        cells = f["cells"] = int(np.count_nonzero(free))
    least = MIN_GPU_LOOPS_LARGE if cells >= LARGE_CELLS else MIN_GPU_LOOPS
    bound = int(np.ceil(least * cells))
    return 0 < cycle_rank(free, bound, f) < least * cells, f


#: A maze of one-cell corridors routes on the CPU where it has at most
#: ``MAZE_SPAN_LINE * g`` free cells per cell of the median branch's span, ``g`` being
#: the mean spacing of its loops, ``1 / sqrt(l)`` for ``l`` independent cycles per free
#: cell (taken as at least :data:`MIN_MAZE_LOOPS`). A net's detours round the maze's
#: walls are about that spacing long: the CPU's search follows them, and the GPU's
#: windows grow by them (a window that outgrows its room waits for a later launch or
#: goes alone), so the GPU's gain from many nets a launch needs more room a net the
#: sparser the loops. Fitted on mazes of two generators (``class_mask``'s backtracker,
#: :func:`~mazeroute.generate.kruskal_maze_mask`) of 0-20 % walls removed at 280-1279 a
#: side, and checked on held-out mazes: RESULTS.md, issue 14, first session of
#: 2026-11-27; refitted when the CPU router's backtraces stopped copying their levels
#: (RESULTS.md, issue 14, second session of 2026-11-27).
MAZE_SPAN_LINE = 200
MIN_MAZE_LOOPS = 0.0001
#: Nets spanning most of a maze (the median branch at least :data:`MAZE_SPANNING` times
#: the square root of its free cells, about the maze's side: pins anywhere) go by size
#: instead: the CPU under :data:`MAZE_SPANNING_CELLS` free cells, the GPU from there on.
#: Earlier wires wall many of them off; each such net costs the CPU a search of its
#: whole piece of the maze and the GPU a share of one labelling (gpu_batch's components
#: check), a gain that grows with the maze. Fitted on held-out sets 5-9 and checked on
#: set 10: RESULTS.md, issue 14, first session of 2026-11-27; refitted with the line.
MAZE_SPANNING = 0.75
MAZE_SPANNING_CELLS = 300_000
#: Nets of 3 to ``MAX_PINS`` pins (trees in the batched search) route on the CPU when
#: the median one's pin box half-perimeter exceeds :data:`TREE_SPAN` cells on a grid of
#: fewer than :data:`TREE_CELLS` free cells: wide windows overlap, so batches hold few
#: trees, each a long search of one thread block per branch, where the CPU's searches
#: stop at the nearest pin; a bigger grid holds more of them at once. Local trees win on
#: the GPU at every size measured (RESULTS.md, issue 14, first session of 2026-11-25).
#: The span moved from 128 to 280 with this wave's faster GPU router, between the trees
#: of held-out sets 4 and 11, and was checked on set 12 (RESULTS.md, issue 14, first
#: session of 2026-11-27).
TREE_SPAN = 280
TREE_CELLS = 1 << 19
#: Nets of more than ``MAX_PINS`` pins (searched in groups of disjoint boxes by the
#: weighted search, one block a box) route on the GPU only when the median one's pin
#: box half-perimeter is at most this many cells (same measurement).
GROUP_SPAN = 128
#: On a grid of fewer than :data:`SPAN_CELLS` free cells that is neither a maze nor
#: winding, nets of up to ``MAX_PINS`` pins route on the GPU only where the grid has more
#: than :data:`GPU_CELLS_PER_SPAN` free cells per cell of the median net's pin box
#: half-perimeter (over its pins less one for a tree: one search a branch), whatever the
#: wavefront's pick: the batched search gains by many nets a launch, each in a window of
#: its own, and long nets on a small grid overlap (fewer to a launch) and leave their
#: windows round blockages (more launches), while the CPU's searches stop at their
#: targets. Measured on the Moving AI maps at their size and tiled 2-4x and on eight
#: generated classes at 300-640 cells a side, twelve net mixes, and checked on layouts
#: and mixes not used to choose it: RESULTS.md, issue 14, third session of 2026-11-26.
SPAN_CELLS = 300_000
GPU_CELLS_PER_SPAN = 1300
#: The rule's line on a dense field of blockages (at least :data:`DENSE_WALL` of the
#: free cells beside a blockage): there the CPU's searches pay for the blockages'
#: detours while the GPU's windows hold them, so the GPU wins at longer spans. Fitted on
#: held-out sets 1-4 after this wave's faster GPU router, checked on set 11: RESULTS.md,
#: issue 14, first session of 2026-11-27.
DENSE_WALL = 0.3
GPU_CELLS_PER_SPAN_DENSE = 600


def negotiation_prefers_cpu(free: np.ndarray) -> bool:
    """True where negotiated routing is expected to be faster on the CPU's weighted
    search:

    * on a grid of fewer than :data:`MIN_GPU_CELLS` cells, where a device call (an
      upload, launches, a read-back) costs more than the CPU's searches of its nets, and
      the device's set-up more than the whole route (measured by size in RESULTS.md,
      issue 13, second session of 2026-11-25: "auto's negotiation on small grids");
    * on a maze (corridors a cell wide, :data:`MAX_GPU_CORRIDOR`) or winding corridors
      (:data:`MIN_LINES_RUN`), as for sequential routing: a net's box must grow round
      the detours until it holds a way, often to the whole grid, and boxes that overlap
      go one to a launch, whose min-plus sweeps take rounds by the corridors' bends,
      while the CPU's search stops at its target (RESULTS.md, fourth session of
      2026-11-26: "Negotiation on mazes and winding corridors takes the CPU's search");
    * on a grid of fewer than :data:`SPAN_CELLS` free cells where at least
      :data:`MIN_CPU_WALL` of them lie beside a wall (dense blockages, corridors a few
      cells wide, mazes with many loops): the paths bend at every turn, each bend a
      round of the device's sweeps, and the device's calls of a few nets each cost
      more than the CPU's searches of such a grid (RESULTS.md, sixth session of
      2026-11-26: "Negotiation under auto on held-out layouts").

    >>> negotiation_prefers_cpu(np.ones((50, 50), bool))
    True
    >>> negotiation_prefers_cpu(np.ones((1024, 1024), bool))
    False
    """
    free = np.asarray(free, dtype=bool)
    if free.size < MIN_GPU_CELLS:
        return True
    _, f = _decide(free)
    return f is not None and (is_maze_like(free, f) or f.get("run", 0) >= MIN_LINES_RUN
                              or (f["wall"] >= MIN_CPU_WALL and f["cells"] < SPAN_CELLS))


def routing_prefers_cpu(free: np.ndarray, pin_counts: np.ndarray,
                        spans: np.ndarray) -> bool:
    """True where sequential routing is expected to be faster on the CPU engine.

    The GPU router gains by searching many nets (of up to
    :data:`~mazeroute.engines.gpu_batch.MAX_PINS` pins) in one launch, each in a small
    window; a net of more pins, or one whose window must grow, is a whole-grid wavefront
    of its own on the device (a launch and a read-back per search), where the CPU's
    search stops as soon as it reaches the net's pins. So, beyond :func:`prefers_cpu`:

    * winding corridors (:func:`winding`) go to the CPU: the GPU wins there only by
      scanning whole lines for a whole wavefront, and a router's windowed searches walk
      the corridors tile by tile;
    * a maze of one-cell corridors goes to the CPU where its nets are long for its
      size and the spacing of its loops (:data:`MAZE_SPAN_LINE`): its detours make
      windows grow; nets spanning most of a maze, by its size alone
      (:data:`MAZE_SPANNING`);
    * so does a layout where most nets have more than two pins and span much of a
      small grid (:data:`TREE_SPAN`, :data:`TREE_CELLS`), or have more pins than the
      batched search takes and are not local (:data:`GROUP_SPAN`; the GPU searches
      those in groups of disjoint boxes, :mod:`mazeroute.router.grouped`);
    * on a grid of fewer than :data:`SPAN_CELLS` free cells, the nets' median
      span (per branch for trees) decides, both ways (:data:`GPU_CELLS_PER_SPAN`,
      :data:`GPU_CELLS_PER_SPAN_DENSE` on a dense field of blockages).

    ``pin_counts`` and ``spans`` (pin box half-perimeters) have one entry per net.

    >>> free = np.ones((1024, 1024), bool)
    >>> routing_prefers_cpu(free, np.full(300, 4), np.full(300, 100))   # local trees
    False
    >>> small = np.ones((512, 512), bool)
    >>> routing_prefers_cpu(small, np.full(300, 4), np.full(300, 600))  # spanning the grid
    True
    >>> routing_prefers_cpu(free, np.full(300, 40), np.full(300, 400))  # groups, not local
    True
    """
    free = np.asarray(free, dtype=bool)
    cpu, f = _decide(free)
    if f is None and free.size >= MIN_GPU_CELLS and len(pin_counts):
        # too few free cells for the wavefront's decision to read features; a maze's
        # loops and its nets' spans still decide its routing (the patches cost little)
        f = sampled_features(free)
        f["cells"] = int(np.count_nonzero(free))
    if f is not None and f["corridor"] >= MAX_GPU_CORRIDOR and len(pin_counts):
        # a maze: its loops and its nets' spans decide (MAZE_SPAN_LINE), not the
        # wavefront's rule (the routes' detours set the pace, not one wavefront's levels)
        branch = _branch(pin_counts, spans)
        if branch >= MAZE_SPANNING * np.sqrt(f["cells"]):
            return f["cells"] < MAZE_SPANNING_CELLS
        line = (MAZE_SPAN_LINE * branch / f["cells"]) ** 2
        if line < MIN_MAZE_LOOPS:
            return False
        bound = int(line * f["cells"])       # the CPU's at most this many loops
        return cycle_rank(free, bound + 1, f) <= bound
    if len(pin_counts) == 0 or free.size < MIN_GPU_CELLS:
        return cpu
    cells = f["cells"] if f is not None else int(np.count_nonzero(free))
    if cpu and cells >= SPAN_CELLS:
        return True
    if f is not None and f.get("run", 0) >= MIN_LINES_RUN:
        return True          # winding corridors: the router's windows walk them by tiles
    pins, spans = np.asarray(pin_counts), np.asarray(spans)
    groups = pins > MAX_PINS
    if np.count_nonzero(groups) * 2 > len(pins):
        return bool(cpu or np.median(spans[groups]) > GROUP_SPAN)
    trees = pins > 2
    if (np.count_nonzero(trees) * 2 > len(pins) and np.median(spans[trees]) > TREE_SPAN
            and cells < TREE_CELLS):
        return True
    dense = f is not None and f["wall"] >= DENSE_WALL
    per_span = GPU_CELLS_PER_SPAN_DENSE if dense else GPU_CELLS_PER_SPAN
    return bool(cells < SPAN_CELLS and cells <= per_span * _branch(pin_counts, spans))


def _branch(pin_counts: np.ndarray, spans: np.ndarray) -> float:
    """The median net's span per branch: a tree's searches are its branches, each
    about its span over its pins less one."""
    pins = np.asarray(pin_counts)
    return float(np.median(np.asarray(spans) / np.maximum(pins - 1, 1)))
