"""``gpu/grid``: the grid-native GPU wavefront (kernels/grid.cu), mazeroute's flagship engine.

The textbook GPU strategies pay one launch and one host round trip per BFS level. This
engine works on the implicit 4-neighbour grid with a bit-packed blockage mask and runs a
whole wavefront in one persistent kernel: warps take 64-column tiles from a device work
queue and relax each to its local fixpoint with a bit-parallel BFS (one level = a few
64-bit shifts and two warp shuffles, several levels per labelling pass against the tile's
levels in shared memory), queueing a neighbour tile only when one of its halo cells
improves; a warp that finished a tile keeps it (levels in shared memory) while a neighbour
still works, so the next hand-over re-runs it without a queue round trip or a reload. The
relaxation is monotone and its fixpoint is exactly the BFS levels, so the levels equal the
oracle's; nothing is checked by the host until the queue runs dry.

With targets the search is confined to a *window*: the sources' bounding box grown by a
radius ``R`` (tile-aligned). Every vertex at level ``<= T`` lies within ``T`` of a source,
and so does every shortest path to it, so when the target's level ``T`` inside the window
is ``<= R`` it is the true level and every vertex at level ``<= T`` is exact (``Problem``
contract). Otherwise ``R`` grows (to ``T``, which then always suffices, or four-fold when
no target was reached) and the wavefront runs again. Values deeper than ``T`` may be
tentative over-estimates inside the window; reads report them as unreached.

Where it loses: one-cell corridors walk one level per bit-parallel step and hand over
from tile to tile often, so on a maze with loops the compiled CPU queue is several times
faster and :mod:`mazeroute.plan` sends such layouts (and small grids) to the CPU.
A perfect maze is the exception: its free cells form a forest, so a wavefront from one
root is its tree's depths, computed from an Euler tour in ~log2(cells) parallel rounds
(``mode="tree"``, :mod:`mazeroute.engines.gpu_tree`, kernels/tree.cu).

A whole wavefront through winding corridors (a corridor crossing tens of thousands of
tiles) goes by whole-line scans (``mode="lines"``, :mod:`mazeroute.engines.gpu_lines`,
kernels/lines.cu): phases that relax every changed row, then every changed column, so the
cost follows the bends of the shortest paths, not the levels or the tiles crossed.

A whole wavefront on an open layout (no targets to stop at) goes faster still by tile
sweeps (``mode="sweep"``, :mod:`mazeroute.engines.gpu_sweep`, kernels/sweep.cu): two warps
settle a tile in a few row and column min-plus scans instead of one step per level, so the
cost follows the tiles crossed, not the levels. Searches with targets keep the windows.

Per net the host does one small upload (blockage changes queued since the last run,
sources, targets), three launches and one small download; blockage changes are kept on
the host until then, and a source's "is it blocked" check is answered from a host copy of
the mask.

Searches with targets on a maze with loops run on the host instead (``host_targets``):
the CPU's queue BFS (:func:`~.cpu.bfs_on_mask`) over that host copy of the mask, with
nothing to upload or sync, since the windows walk such corridors a level a step (a router
searches nets there alone when their windows cannot hold their detours; whole
wavefronts, and a router's batched searches, stay on the device).
"""

from __future__ import annotations

import cupy
import numpy as np

from ..graph import GridGraph
from ..plan.decide import grid_mode
from ..plan.features import Measure
from .base import BLOCKED, UNREACHED
from .cpu import _reset, bfs_on_mask
from .cuda import device_attributes, get_kernel
from .gpu_base import DeviceProblem
from .gpu_lines import LinesWavefront
from .gpu_lines import fits as lines_fits
from .gpu_sweep import SweepWavefront, fits
from .gpu_tree import TreeWavefront
from .gpu_tree import fits as tree_fits

TILE_COLS = 64
WARPS = 8                       # warps per block of the persistent kernel (grid.cu WARPS)
NUM_COUNTERS = 128
MODES = ("auto", "tiles", "tree", "sweep", "lines")


def _pack_bits(free: np.ndarray) -> np.ndarray:
    """Row-major 64-bit words of the free mask: bit ``b`` of word ``k`` is column 64k+b."""
    h, w = free.shape
    words = -(-w // 64)
    packed = np.zeros((h, words * 8), dtype=np.uint8)
    packed[:, :-(-w // 8)] = np.packbits(free, axis=1, bitorder="little")
    return packed.view("<u8")


class GridRelaxProblem(DeviceProblem):
    """Tiled, worklist-driven relaxation BFS on the implicit grid (``gpu/grid``).

    Parameters
    ----------
    graph : GridGraph
    tile_rows : rows per tile (32 or 64); tiles are always 64 columns wide.
    margin : minimum radius of a window beyond the nearest target's Manhattan distance.
    flush_every : levels between a wide wavefront's hand-overs to neighbour tiles.
    block_levels : levels the bit-parallel wavefront steps (registers only) between two
        labelling passes against the tile's levels in shared memory.
    linger : cycles (at most) that a warp which finished a tile keeps it, with its levels in
        shared memory, while a neighbour tile is still working, so that the neighbour's next
        hand-over re-runs it at once (no queue round trip, no reload); 0 turns it off.
    stats : compile the kernel with its counters (visits, levels, flushes, cycles), read
        by :meth:`stats`; for probing only, it slows the kernel down.
    mode : ``"tiles"`` (the tiled kernel), ``"tree"`` (for a layout whose free cells form
        a forest: wavefronts from one root as Euler-tour depths, :mod:`.gpu_tree`; from
        several roots, tiles), ``"sweep"`` (whole wavefronts by tile sweeps,
        :mod:`.gpu_sweep`; searches with targets by the tiles' windows), ``"lines"``
        (whole wavefronts by whole-line scans, :mod:`.gpu_lines`; searches with targets
        by the windows) or ``"auto"``: the planner's choice
        (:func:`mazeroute.plan.decide.grid_mode`), asked the first time it is needed. A
        mode whose kernel cannot count the grid's levels falls back to one that can
        (``lines`` to ``sweep`` to ``tiles``, ``tree`` to ``tiles``).
    host_targets : whether searches with targets run on the host (module notes); None:
        the planner's choice with the mode (a maze with loops), or where the tree mode
        does not fit.
    planned : the planner's ``(mode, host_targets)`` for this layout
        (:attr:`mazeroute.plan.Plan.grid_mode`), taken where ``mode`` is ``"auto"``
        instead of asking again.

    Examples
    --------
    >>> import numpy as np
    >>> from mazeroute.graph import GridGraph
    >>> p = GridRelaxProblem(GridGraph(np.ones((5, 5), bool)))
    >>> p.wavefront([12]).levels()[0].tolist()
    [4, 3, 2, 3, 4]
    """

    def __init__(self, graph: GridGraph, tile_rows: int = 32, margin: int = 16,
                 flush_every: int = 32, block_levels: int = 8, linger: int = 80000,
                 stats: bool = False, mode: str = "auto", host_targets: bool | None = None,
                 planned: tuple[str, bool] | None = None):
        if not isinstance(graph, GridGraph):
            raise TypeError("the gpu/grid engine needs a GridGraph")
        if tile_rows not in (32, 64):
            raise ValueError("tile_rows must be 32 or 64")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        super().__init__(graph)
        h, w = self.shape
        self.tile_rows, self.margin = tile_rows, margin
        self.words_per_row = -(-w // 64)
        self.tiles_x, self.tiles_y = -(-w // TILE_COLS), -(-h // tile_rows)
        tiles = self.tiles_x * self.tiles_y
        self.free_bits = cupy.asarray(_pack_bits(graph.free))
        self.src_bits = cupy.zeros_like(self.free_bits)
        self.state = cupy.zeros(tiles, dtype=cupy.int32)
        self.num_sms = device_attributes()["MultiProcessorCount"]
        workers = self.num_sms * 2 * WARPS
        cap = 1 << int(2 * (tiles + workers) + 64).bit_length()
        self.qmask = np.uint32(cap - 1)
        self.queue = cupy.full(cap, -1, dtype=cupy.int32)
        self.counters = cupy.zeros(NUM_COUNTERS, dtype=cupy.int32)
        self.out = cupy.zeros(64, dtype=cupy.uint32)      # [max level, target levels...]
        self._cells = cupy.zeros(1024, dtype=cupy.int32)  # upload buffer of _seed_launch
        self.host_free = graph.free.copy()
        self._pending: list[tuple[np.ndarray, bool]] = []
        self._box: tuple[int, int, int, int] | None = None   # cells the last run touched
        self._clamp: int | None = None
        self._targets: tuple[np.ndarray, np.ndarray] | None = None
        self._sources = np.empty(0, np.int32)
        opts = (f"-DTILE_ROWS={tile_rows}", f"-DFLUSH_EVERY={flush_every}",
                f"-DBLOCK_LEVELS={block_levels}", f"-DLINGER={int(linger)}",
                f"-DSTATS={int(stats)}")
        self._opts = opts
        self._k_wave = get_kernel("grid", "grid_wavefront", opts)
        words = 2 * TILE_COLS + 2 * tile_rows + tile_rows * (TILE_COLS + 1)
        self._smem = WARPS * words * 4          # grid.cu: WARP_WORDS per warp
        self._k_wave.max_dynamic_shared_size_bytes = self._smem
        self._k_seed = get_kernel("grid", "grid_seed", opts)
        self._k_max = get_kernel("grid", "grid_max_level", opts)
        self.runs = 0                      # wavefront launches (window growth included)
        if mode == "tree" and not Measure(graph.free).is_forest():
            raise ValueError("mode 'tree' needs a layout whose free cells form a forest")
        if mode == "tree" and not tree_fits(h, w):
            raise ValueError(f"mode 'tree' numbers arcs in int32: {h} x {w} is too large")
        self._mode = None if mode == "auto" else mode     # auto: chosen when first needed
        self._host_targets = host_targets if host_targets is not None or mode == "auto" \
            else False
        if self._mode is None and planned is not None:
            self._planned(*planned)
        self._host: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # see _run_host
        self._host_touched = -1          # cells the last host run labelled; -1: none ran
        self.host_runs = 0
        self._tree: TreeWavefront | None = None
        self._sweep: SweepWavefront | None = None     # built by the first whole wavefront
        self._lines: LinesWavefront | None = None     # the same
        if mode == "lines" and not lines_fits(h, w):
            raise ValueError(f"mode 'lines' counts levels below 2**30: {h} x {w} is too large")

    @property
    def mode(self) -> str:
        """The mode in use; ``"auto"`` looks at the layout the first time it is asked
        (a router, whose batched searches never ask, skips looking)."""
        if self._mode is None:
            self._planned(*grid_mode(Measure(self.graph.free)))
        return self._mode

    def _planned(self, mode: str, host_targets: bool) -> None:
        """Take the planner's mode, falling back from one whose kernel cannot count this
        grid's levels (a mechanism's limit, not a choice): a forest too large for the
        tree's arc ids is searched as a maze with loops is, on the host."""
        h, w = self.shape
        if mode == "lines" and not lines_fits(h, w):
            mode = "sweep"
        if mode == "sweep" and not fits(h, w):
            mode = "tiles"
        if mode == "tree" and not tree_fits(h, w):
            mode, host_targets = "tiles", True
        self._mode = mode
        if self._host_targets is None:
            self._host_targets = host_targets

    @property
    def host_targets(self) -> bool:
        """Whether searches with targets run on the host (see ``host_targets`` above)."""
        if self._host_targets is None:
            self.mode                   # noqa: B018 -- auto decides both
        return self._host_targets

    # -- Problem interface -------------------------------------------------------------
    def free_view(self) -> np.ndarray:
        # the host mirror of the blockages, kept by every write (no download); a batched
        # search brings its lifted cells in at its synchronisation points (quiesce)
        return self.host_free

    def _clear(self) -> None:
        if self._host_touched >= 0:
            level, queue, _ = self._host
            _reset(level, queue, self._host_touched)
            self._host_touched = -1
        if self.dirty:
            y0, y1, x0, x1 = self._box
            h, w = self.shape
            if (y0, y1, x0, x1) == (0, h, 0, w):
                cupy.copyto(self.level, self.rest)
            else:
                lv, rs = self.level.reshape(self.shape), self.rest.reshape(self.shape)
                lv[y0:y1, x0:x1] = rs[y0:y1, x0:x1]
            self.dirty = False
        self._clamp = None
        self._targets = None

    def _write_levels(self, vertices: np.ndarray, value) -> None:
        blocked = np.uint32(value) == BLOCKED
        v = np.asarray(vertices, dtype=np.int64)
        self.host_free.ravel()[v] = not blocked
        self._pending.append((v, bool(blocked)))

    def _read_levels(self, window):
        host = self._host_levels()
        if host is not None:
            return np.where(self._window(self.host_free, window), self._window(host, window),
                            BLOCKED)
        self._apply_writes()
        return self._hide_deeper(super()._read_levels(window))

    def _levels_out(self, window) -> np.ndarray:
        host = self._host_levels()
        if host is not None:     # no deeper level was labelled, blocked are unreached
            return self._window(host, window).copy()
        return super()._levels_out(window)

    def _host_levels(self):
        # a search by the host's BFS (host_targets) labelled the host array itself
        return self._host[0].reshape(self.shape) if self._host_touched >= 0 else None

    @staticmethod
    def _window(a: np.ndarray, window) -> np.ndarray:
        if window is None:
            return a
        y0, y1, x0, x1 = window
        return a[y0:y1, x0:x1]

    def _device_levels(self, window):
        self._apply_writes()
        return super()._device_levels(window)

    def _hidden_from(self) -> np.uint32:
        # after an early exit, levels beyond the target's are tentative (_hide_deeper)
        return np.uint32(BLOCKED if self._clamp is None else self._clamp + 1)

    def _hide_deeper(self, out: np.ndarray) -> np.ndarray:
        """After an early exit, levels beyond the target's are tentative: show them unreached."""
        if self._clamp is not None:
            out[(out > self._clamp) & (out < BLOCKED)] = UNREACHED
        return out

    def _read_vertices(self, vertices: np.ndarray) -> np.ndarray:
        v = np.asarray(vertices)
        if self._targets is not None and np.array_equal(v, self._targets[0]):
            return self._targets[1].copy()
        free = self.host_free.ravel()[v]
        if self._host_touched >= 0:
            return np.where(free, self._host[0][v], BLOCKED).astype(np.uint32)
        rest = np.where(free, UNREACHED, BLOCKED).astype(np.uint32)
        if not self.dirty:
            return rest
        if np.isin(v[free], self._sources).all():       # e.g. the same root again
            return np.where(free, np.uint32(0), BLOCKED).astype(np.uint32)
        self._apply_writes()
        return self._hide_deeper(super()._read_vertices(v))

    def _run(self, sources: np.ndarray, targets: np.ndarray | None) -> int:
        h, w = self.shape
        self._sources = np.asarray(sources, dtype=np.int32)
        if self.mode == "tree" and sources.size == 1:
            return self._run_tree(int(sources[0]), targets)
        if self.mode == "sweep" and targets is None:
            return self._run_sweep(sources)
        if self.mode == "lines" and targets is None:
            return self._run_lines(sources)
        if targets is None:
            self._launch(sources, None, (0, self.tiles_y, 0, self.tiles_x))
            return self._max_level() + 1
        targets = np.asarray(targets, dtype=np.int32)
        if self.host_targets:
            return self._run_host(sources, targets)
        sy, sx = np.divmod(sources.astype(np.int64), w)
        ty, tx = np.divmod(targets.astype(np.int64), w)
        ylo, yhi, xlo, xhi = sy.min(), sy.max(), sx.min(), sx.max()
        near = int((np.maximum(0, np.maximum(ylo - ty, ty - yhi))
                    + np.maximum(0, np.maximum(xlo - tx, tx - xhi))).min())
        radius = near + max(self.margin, near // 2)
        first = True
        while True:
            if not first:
                self._clear()
            first = False
            ty0 = max(0, (ylo - radius) // self.tile_rows)
            ty1 = min(self.tiles_y, (yhi + radius) // self.tile_rows + 1)
            tx0 = max(0, (xlo - radius) // TILE_COLS)
            tx1 = min(self.tiles_x, (xhi + radius) // TILE_COLS + 1)
            window = (int(ty0), int(ty1), int(tx0), int(tx1))
            whole = window == (0, self.tiles_y, 0, self.tiles_x)
            got = self._launch(sources, targets, window)
            reached = got < BLOCKED
            best = int(got[reached].min()) if reached.any() else None
            if best is not None and (best <= radius or whole):
                got[got > best] = UNREACHED                 # deeper: tentative, hidden
                self._targets = (targets, got)
                self._clamp = best
                return best + 1
            if best is None and whole:
                self._targets = (targets, got)
                return self._max_level() + 1
            radius = best if best is not None else 4 * radius + 64

    def _run_host(self, sources: np.ndarray, targets: np.ndarray) -> int:
        """A search with targets by the CPU's queue BFS on the host mirror (module notes):
        it stops after the targets' level, as the windows do, so the levels, the level
        count and every read are those of the device's search."""
        if self._host is None:
            n = self.num_vertices
            self._host = (np.full(n, UNREACHED, np.uint32), np.empty(n, np.int32),
                          np.zeros(n, np.bool_))
        level, queue, is_target = self._host
        h, w = self.shape
        is_target[targets] = True
        try:
            self._host_touched = int(bfs_on_mask(self.host_free.reshape(-1), w, h, level,
                                                 queue, sources, is_target))
        finally:
            is_target[targets] = False
        self.host_runs += 1
        got = level[targets]        # the targets' reads come from _read_vertices' host branch
        reached = got < BLOCKED
        if reached.any():
            self._clamp = int(got[reached].min())
        return int(level[queue[self._host_touched - 1]]) + 1

    def _run_tree(self, root: int, targets: np.ndarray | None) -> int:
        """Every level from ``root`` at once; with targets, read as an early exit would be."""
        if self._tree is None:
            self._tree = TreeWavefront(*self.shape, self.words_per_row)
        self._start_whole()
        num_levels = self._tree.run(self.level, self.free_bits, self.host_free, root)
        if targets is None:
            return num_levels
        tl = self.level[cupy.asarray(targets)].get()
        reached = tl < BLOCKED
        if not reached.any():
            self._targets = (targets, tl)
            return num_levels
        best = int(tl[reached].min())
        tl[reached & (tl > best)] = UNREACHED
        self._targets, self._clamp = (targets, tl), best
        return best + 1

    def _run_sweep(self, sources: np.ndarray) -> int:
        """Every level by tile sweeps (a router, whose searches all have targets, never
        builds the sweep kernel's arrays nor compiles it)."""
        if self._sweep is None:
            self._sweep = SweepWavefront(*self.shape, self.words_per_row)
        self._start_whole()
        self._sweep.run(self.level, self.free_bits, sources)
        return self._sweep.max_level() + 1

    def _run_lines(self, sources: np.ndarray) -> int:
        """Every level by whole-line scans (:mod:`.gpu_lines`)."""
        if self._lines is None:
            self._lines = LinesWavefront(*self.shape)
        self._start_whole()
        self._lines.run(self.level, sources)
        return self._lines.max_level() + 1

    def device_state(self) -> tuple:
        """The device arrays a batched search shares (:class:`~.gpu_batch.GridBatch`):
        ``free_bits, rest, level, words_per_row``, with every queued blockage change
        applied first."""
        self._apply_writes()
        return self.free_bits, self.rest, self.level, self.words_per_row

    def _start_whole(self) -> None:
        """Before a run that labels the whole grid: blockage changes in, all of it dirty."""
        self._apply_writes()
        h, w = self.shape
        self.dirty, self._box = True, (0, h, 0, w)
        self.runs += 1

    STAT_NAMES = ("visits", "echo visits", "level steps", "flushes", "pushes", "dirty marks",
                  "re-visits", "setup cycles", "loop cycles", "flush cycles",
                  "dequeue cycles", "claims", "warm visits", "linger cycles")

    def stats(self, reset: bool = True) -> dict:
        """The kernel's counters since the last reset (needs ``stats=True``)."""
        from .cuda import load_module
        ptr = load_module("grid", self._opts).get_global("g_stats")
        arr = cupy.ndarray((16,), cupy.uint64, memptr=ptr)
        out = dict(zip(self.STAT_NAMES, (int(v) for v in arr.get())))
        if reset:
            arr.fill(0)
        return out

    # -- device work -----------------------------------------------------------------
    def _take_writes(self) -> np.ndarray:
        """Queued blockage changes, last one per cell, as signed cells (< 0: blocked)."""
        if not self._pending:
            return np.empty(0, np.int32)
        v = np.concatenate([p[0] for p in self._pending])
        b = np.concatenate([np.full(p[0].size, p[1]) for p in self._pending])
        self._pending.clear()
        last = v.size - 1 - np.unique(v[::-1], return_index=True)[1]
        v, b = v[last], b[last]
        return np.where(b, v | np.int64(-(1 << 31)), v).astype(np.int32)

    def _apply_writes(self) -> None:
        if self._pending:
            self._seed_launch(self._take_writes(), np.empty(0, np.int32))

    def _seed_launch(self, writes: np.ndarray, sources: np.ndarray,
                     targets: np.ndarray | None = None) -> cupy.ndarray:
        cells = np.concatenate([writes, sources.astype(np.int32),
                                np.empty(0, np.int32) if targets is None else targets])
        if cells.size > self._cells.size:
            self._cells = cupy.zeros(2 * cells.size, dtype=cupy.int32)
        buf = self._cells[:max(1, cells.size)]
        if cells.size:
            buf.set(cells)
        h, w = self.shape
        self._k_seed((1,), (256,), (
            self.level, self.rest, self.free_bits, self.src_bits, self.state, self.queue,
            self.counters, self.qmask, np.int32(w), np.int32(self.words_per_row),
            np.int32(self.tiles_x), buf, np.int32(writes.size), np.int32(sources.size),
            self.out))
        return buf

    def _launch(self, sources: np.ndarray, targets: np.ndarray | None,
                window: tuple[int, int, int, int]) -> np.ndarray | None:
        """One wavefront confined to ``window`` (tiles ``y0, y1, x0, x1``).

        Returns the targets' levels (downloaded), or None without targets.
        """
        nt = 0 if targets is None else targets.size
        if nt + 1 > self.out.size:
            self.out = cupy.zeros(2 * nt + 2, dtype=cupy.uint32)
        buf = self._seed_launch(self._take_writes(), sources, targets)
        h, w = self.shape
        y0, y1, x0, x1 = window
        tiles = (y1 - y0) * (x1 - x0)
        blocks = max(1, min(self.num_sms, -(-tiles // WARPS)))
        first_target = buf[buf.size - nt:] if nt else buf
        self._k_wave((blocks,), (WARPS * 32,), (
            self.level, self.free_bits, self.src_bits, self.state, self.queue, self.counters,
            self.qmask, np.int32(w), np.int32(h), np.int32(self.words_per_row),
            np.int32(self.tiles_x), np.int32(x0), np.int32(x1), np.int32(y0), np.int32(y1),
            first_target, np.int32(nt), self.out[1:]), shared_mem=self._smem)
        self.dirty = True
        self._box = (y0 * self.tile_rows, min(h, y1 * self.tile_rows),
                     x0 * TILE_COLS, min(w, x1 * TILE_COLS))
        self.runs += 1
        return self.out[1:1 + nt].get() if nt else None

    def _max_level(self) -> int:
        n = self.num_vertices
        blocks = max(1, min(self.num_sms * 8, -(-n // 256)))
        self.out[:1].fill(0)              # the kernel only raises it (atomicMax)
        self._k_max((blocks,), (256,), (self.level, np.int64(n), self.out))
        return int(self.out[:1].get()[0])
