"""Batched window searches on the GPU (``kernels/route_batch.cu``): the device side.

Routing nets one at a time through ``gpu/grid`` pays, per net, a few CuPy calls, a launch,
a download and a Python backtrace: more than the CPU engine spends on a short net
(benchmarks/RESULTS.md, "Figures behind code comments"). :class:`GridBatch` searches many nets of
up to :data:`MAX_PINS` pins in one launch, one thread block per net, each in the window
it is given, and commits the wires it finds on the device. Which nets go in which launch,
and what a result commits or sends back, is the router's
(:mod:`mazeroute.router.schedule`, :mod:`mazeroute.router.book`,
:mod:`mazeroute.router.batched`): this module searches what it is given.

Windows
    Net ``j`` searches only its *window* ``S_j``: the pins' bounding box grown by a margin
    ``m`` (clipped to the grid). A path that leaves ``S_j`` is at least ``M + 2m + 2``
    long (``M`` the pins' Manhattan distance), so a target level ``T <= M + 2m + 1`` found
    inside ``S_j`` is the true distance, and every cell the backtracer can step on (all on
    shortest paths, hence inside ``S_j``) has its true level: the wire equals the one
    sequential routing finds. ``claim_j`` is ``S_j`` grown by one cell (the halo the
    kernel reads to tell whether a component is enclosed).

Trees
    A net of 3 to :data:`MAX_PINS` pins searches its window (its pins' box grown by the
    margin) in stages, as the router does: a BFS from the tree so far to the first pin
    labelled, the backtrace to the tree. A stage's levels are the whole grid's up to one
    past the least level ``e`` of a labelled cell beside a free cell outside the window
    (a path through the outside takes at least ``e + 2`` steps to come back), so a target
    at level ``T <= e + 1`` gives the router's target, wire and bends; a deeper one is
    ``ESCAPED``. A stage that reaches no pin is ``UNROUTED_SOURCE`` (exact) when no
    labelled cell touches the outside, else ``ALONE``: the router searches the net
    itself.

Blockages as of a net's turn
    The kernel reads the blockages *as of its own net's turn*: a cell blocked by the wire
    of a later net (its commit position, kept per cell in ``time``) counts as free.

Outcomes of one search (``status``)
    ``OK``: the wire (root first), committed by the kernel; ``GROW``: reached, but deeper
    than ``M + 2m + 1``; ``UNROUTED_SOURCE``: the source's component is enclosed in the
    window without the target (levels are exact); ``UNROUTED_TARGET``: the target's
    component is enclosed without the source; its level count (a full wavefront from the
    root, or for a tree from the tree so far) is :meth:`GridBatch.count_levels`, run on
    side streams while batching goes on; ``ESCAPED``: neither; ``ALONE``: a tree outgrew
    its room in the path buffer.

Windows that grow in the launch
    A two-pin net's record carries its *room* (``F_ROOM``). A ``GROW`` or ``ESCAPED``
    search whose next margin is within the room (and whose window fits the block) is
    searched again at once, in the same launch; the header tells the margin its result is
    of. Two wires of one launch may then share a cell, which names the earlier (``time``
    keeps the least position; a lifted wire frees only the cells that name it).

Components
    :meth:`GridBatch.apart` tells whether a two-pin net's pins lie in different
    components of the cells free as of a routing position (``kernels/components.cu``).

Exactness is tested against the CPU router on random layouts, by
``tests/test_router_batch.py`` both through the kernel and through a CPU statement of it.
"""

from __future__ import annotations

import numba
import numpy as np

from .base import allow_shared

#: int32 fields of one net's search record (see kernels/route_batch.cu): for a tree,
#: ``F_LIMIT`` is one less than the room for its cells, ``F_PINS`` the index of its first
#: pin in the pins given to :meth:`GridBatch.set_pins`; ``F_ROOM``: the largest margin a
#: two-pin net's window may grow to within the launch.
REC = 14
F_POS, F_X0, F_Y0, F_W, F_H, F_SX, F_SY, F_TX, F_TY, F_LIMIT, F_OFF, F_NPINS, F_PINS, \
    F_ROOM = range(14)
#: int32 fields of one net's result header: status, levels, bends, wire cells, for
#: probing the block's clock cycles and the BFS levels it ran, and the margin of the
#: window its result is of (a two-pin net's window may grow in the launch: ``F_ROOM``).
HDR = 7
H_MARGIN = 6
OK, GROW, UNROUTED_SOURCE, UNROUTED_TARGET, ESCAPED, ALONE = 1, 2, 3, 4, 5, 6
#: Most pins of a net the kernel searches as a tree (a bit each in a 32-bit mask).
MAX_PINS = 32
#: 64-bit planes per window row word in shared memory: free-and-unvisited, visited,
#: two frontier buffers, two bits of the level (mod 4).
PLANES = 6
#: Fewest threads of a block: a two-pin net's window that grows in the launch must fit
#: five words a thread.
MIN_THREADS = 128
#: Dynamic shared memory of a launch of at most one block per multiprocessor, where more
#: costs nothing: room for windows that grow in the launch.
GROW_SMEM = 96 << 10
#: Default window margin: large enough that most local nets succeed at once, small enough
#: that windows rarely overlap (benchmarks/RESULTS.md, "Where the batched searches' levels
#: go": it gave the fewest batches of the margins tried).
MARGIN = 12

#: ``time`` of a cell no wire holds: later than every net.
NO_WIRE = 0x7FFFFFFF


def window_bytes(rows, cols):
    """Shared memory the kernel needs for windows of ``rows`` x ``cols`` cells."""
    words = (np.asarray(cols) + 63) // 64
    rows = np.asarray(rows)
    return PLANES * rows * words * 8 + 2 * words * 8 + 2 * ((rows + 7) // 8 * 8)


@numba.njit(cache=True, nogil=True)
def pin_box(out, p, pins, g, width, height):
    """Row ``p`` of ``out``: net ``p``'s pins' box grown by ``g`` cells, clipped to the
    grid (``x0, y0, x1, y1``)."""
    out[p, 0] = max(min(pins[p, 0], pins[p, 2]) - g, 0)
    out[p, 1] = max(min(pins[p, 1], pins[p, 3]) - g, 0)
    out[p, 2] = min(max(pins[p, 0], pins[p, 2]) + g, width - 1)
    out[p, 3] = min(max(pins[p, 1], pins[p, 3]) + g, height - 1)


@numba.njit(cache=True, nogil=True)
def set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit, npins):
    """Window, claim and level limit of net ``p`` for its margin (see :func:`windows`)."""
    h, w = shape
    m = margin[p]
    sx, sy, tx, ty = pins[p, 0], pins[p, 1], pins[p, 2], pins[p, 3]
    pin_box(search, p, pins, m, w, h)
    pin_box(claim, p, pins, m + 1, w, h)
    rows = search[p, 3] - search[p, 1] + 1
    cols = search[p, 2] - search[p, 0] + 1
    if npins[p] > 2:        # room for the tree: a branch of up to a window's half-perimeter
        limit[p] = (npins[p] - 1) * (rows + cols)
    else:
        limit[p] = abs(sx - tx) + abs(sy - ty) + 2 * m + 1
    words = (search[p, 2] - search[p, 0] + 64) // 64
    need = PLANES * rows * words * 8 + 2 * words * 8 + 2 * ((rows + 7) // 8 * 8)
    if need > smem_limit:
        barrier[p] = True


@numba.njit(cache=True, nogil=True)
def windows(pins, margin, shape, smem_limit, barrier, npins):
    """Search windows, claims (``(n, 4)`` inclusive ``x0, y0, x1, y1``) and level limits.

    ``pins`` rows are a two-pin net's ``x0, y0, x1, y1``, or the box of the pins of a
    net of ``npins`` more. The search window is the pins' box grown by ``margin``,
    clipped to the grid; the claim is one cell wider. Nets whose window needs more than
    ``smem_limit`` bytes of shared memory become barriers (``barrier`` is updated in
    place).

    Examples
    --------
    >>> s, c, lim = windows(np.array([[5, 5, 9, 6]]), np.array([2]), (10, 12), 10**6,
    ...                     np.zeros(1, np.bool_), np.array([2]))
    >>> s.tolist(), c.tolist(), lim.tolist()
    ([[3, 3, 11, 8]], [[2, 2, 11, 9]], [10])
    """
    n = pins.shape[0]
    search = np.empty((n, 4), np.int64)
    claim = np.empty((n, 4), np.int64)
    limit = np.empty(n, np.int64)
    for p in range(n):
        set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit,
                   npins)
    return search, claim, limit



@numba.njit(cache=True, nogil=True)
def launch_shape(rec):
    """Threads per block and dynamic shared memory of one batch's launch.

    Two window words per thread (at least :data:`MIN_THREADS`, at most 1024), and room
    for the largest window; compiled because NumPy's per-call overhead on these few-row arrays
    would cost more than the work, once per batch (benchmarks/RESULTS.md, "Figures
    behind code comments").
    """
    words = 0
    smem = 0
    for k in range(rec.shape[0]):
        rows, cols = rec[k, F_H], rec[k, F_W]
        wd = (cols + 63) // 64
        words = max(words, rows * wd)
        smem = max(smem, PLANES * rows * wd * 8 + 2 * wd * 8 + 2 * ((rows + 7) // 8 * 8))
    threads = min(1024, max(MIN_THREADS, (words + 63) // 64 * 32))
    return threads, smem


@numba.njit(cache=True, nogil=True)
def records(batch, search, pins, limit, npins, pin_at, room):
    """Search records of a batch, the path offset of each and the path buffer size
    (``pin_at``: each net's first pin in the pins of :meth:`GridBatch.set_pins`;
    ``room``: per batch net, the margin its window may grow to in the launch)."""
    b = batch.size
    rec = np.zeros((b, REC), np.int32)
    off = np.empty(b, np.int64)
    size = 0
    for k in range(b):
        p = batch[k]
        rec[k, F_POS] = p
        rec[k, F_X0] = search[p, 0]
        rec[k, F_Y0] = search[p, 1]
        rec[k, F_W] = search[p, 2] - search[p, 0] + 1
        rec[k, F_H] = search[p, 3] - search[p, 1] + 1
        for j in range(4):
            rec[k, F_SX + j] = pins[p, j]
        rec[k, F_LIMIT] = limit[p]
        rec[k, F_OFF] = size
        rec[k, F_NPINS] = npins[p]
        rec[k, F_PINS] = pin_at[p]
        rec[k, F_ROOM] = room[k]
        off[k] = size
        # a window that grows in the launch may find a wire up to its room's limit
        size += max(limit[p], abs(pins[p, 0] - pins[p, 2]) + abs(pins[p, 1] - pins[p, 3])
                    + 2 * room[k] + 1) + 1 if npins[p] == 2 else limit[p] + 1
    return rec, off, size


@numba.njit(cache=True, nogil=True)
def mark_wires(host_free, hdr, rec, paths):
    """Record a batch's OK wires in the host mirror of the free mask (their pins are
    blocked there already, for good)."""
    for k in range(hdr.shape[0]):
        if hdr[k, 0] == OK:
            off = rec[k, F_OFF]
            for i in range(off, off + hdr[k, 3]):
                host_free[paths[i]] = False




class PinnedRing:
    """Pinned host buffers for asynchronous copies, used in turn, each with the event
    recorded after its last copy: :meth:`take` hands out the next one once that copy is
    done, so a copy queued behind work still running never has its memory reused early.

    Parameters
    ----------
    cupy : the cupy module
    size : buffers, in turn
    nbytes : each buffer's first size (one grows when it is asked for more)
    """

    def __init__(self, cupy, size: int, nbytes: int):
        self.cupy = cupy
        self.slots = [[cupy.cuda.alloc_pinned_memory(nbytes),
                       cupy.cuda.Event(disable_timing=True)] for _ in range(size)]
        self.at = -1

    def take(self, n: int) -> tuple[int, np.ndarray, object]:
        """The next buffer's index, its first ``n`` int32 and its event (to record)."""
        self.at = (self.at + 1) % len(self.slots)
        slot = self.slots[self.at]
        slot[1].synchronize()
        if 4 * n > slot[0].size():
            slot[0] = self.cupy.cuda.alloc_pinned_memory(8 * n)
        return self.at, np.frombuffer(slot[0], np.int32, n), slot[1]


class LevelCounts:
    """The level counts and component checks of a :class:`GridBatch`: searches that read
    the blockages as of a routing position, beside the batches (side streams, copies of
    the blockages). A mixin: it uses the batch's device state, kernels and uploads.
    """

    def count_levels(self, roots: np.ndarray, pos: np.ndarray,
                     start: np.ndarray | None = None) -> None:
        """Start counting the levels of a full wavefront from each root (see counted()),
        or from each group of roots ``roots[start[i]:start[i + 1]]`` (a tree's cells).

        Every net before ``pos`` must be final. The count reads the blockages as of its
        turn, so it runs on a second stream while later nets go on being committed; it
        reads a copy of the free and wired bits taken now, so that nothing done after
        (a net searched alone frees its pins for its search, a tree committed through
        the problem is blocked before it is stamped) needs to wait for it. Every cell
        blocked in that copy by a later net's wire reads free by its time stamp, which
        only later nets ever rewrite.
        """
        cp = self.cupy
        k = len(pos)
        if not k:
            return
        start = np.arange(k + 1) if start is None else np.asarray(start)
        self._counts_done()
        # a stream per call (from a small pool), so that counts run side by side
        if len(self._streams) < 8:
            self._streams.append(cp.cuda.Stream(non_blocking=True))
        side = self._streams[len(self._counts) % len(self._streams)]
        ready = cp.cuda.Event(disable_timing=True)
        free_bits, wired, *rest = self._state()
        copy = cp.empty((2, free_bits.size), dtype=free_bits.dtype)
        stream = cp.cuda.get_current_stream()
        for i, bits in enumerate((free_bits, wired)):    # a copy, not a kernel: cheaper to queue
            cp.cuda.runtime.memcpyAsync(copy[i].data.ptr, bits.data.ptr, bits.nbytes,
                                        cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)
        arg = self._upload(roots, start, pos)
        ready.record()
        side.wait_event(ready)
        with side:
            res = cp.empty(k, dtype=cp.int32)
            self._count(arg, roots.size, k, (copy[0], copy[1], *rest), res, ring=True)
        self._counts.append((roots, start, pos, res))
        self._copies.append((side.record(), copy, arg))

    def _counts_done(self) -> None:
        """Let go of the copies of counts that have finished (their memory may be reused
        then, whichever stream asks for it)."""
        self._copies = [held for held in self._copies if not held[0].done]

    def _counts_fit(self) -> bool:
        """Whether a level count keeps its visited bits in shared memory."""
        words = self.shape[0] * self.problem.words_per_row
        return words * 8 <= self.smem_limit - (16 << 10)

    def count_bytes(self) -> int:
        """Device memory a level count takes for its visited bits (0: shared memory)."""
        return 0 if self._counts_fit() else 8 * self.shape[0] * self.problem.words_per_row

    def _count(self, arg, m: int, k: int, state, res, ring: bool) -> None:
        """Level counts from ``k`` groups of ``m`` roots in all (``arg``: device roots,
        then the ``k + 1`` group starts, then the positions)."""
        cp = self.cupy
        h, w = self.shape
        words = h * self.problem.words_per_row
        vis_shared = self._counts_fit()
        room = self.smem_limit - (words * 8 if vis_shared else 0)
        ring_size = 1 << (room // 4).bit_length() - 1 if ring and room >= 16 << 10 else 0
        smem = (words * 8 if vis_shared else 0) + 4 * ring_size
        # roots in chunks whose visited bits (and queues) take at most COUNT_BYTES, so
        # that thousands of counts at once (nets proven apart) do not take the device's
        # memory: a chunk's buffers are reused by the next one on the same stream
        per_root = (0 if vis_shared else words * 8) + (0 if ring_size else 4 * h * w)
        step = max(1, COUNT_BYTES // max(per_root, 1))
        for s in range(0, k, step):
            e = min(k, s + step)
            queue = (cp.empty((e - s) * h * w, dtype=cp.int32) if not ring_size
                     else cp.empty(1, dtype=cp.int32))
            vis = (cp.empty(1, dtype=cp.uint64) if vis_shared
                   else cp.empty((e - s) * words, dtype=cp.uint64))
            self._kernel("count_levels", smem)((e - s,), (1024,), (
                arg[:m], arg[m + s:m + e + 1], arg[m + k + 1 + s:m + k + 1 + e], *state,
                queue, vis, np.int32(vis_shared), np.int32(ring_size), res[s:e]),
                shared_mem=smem)
            self.launches += 1

    def apart(self, pins: np.ndarray, turn: int) -> np.ndarray:
        """Whether the pins ``x0, y0, x1, y1`` (a row per two-pin net) lie in different
        components of the cells free as of routing position ``turn``
        (``kernels/components.cu``).

        True proves the net unroutable at ``turn`` and at every later position, since
        routing only turns free cells into wires. The components are labelled again only
        when a wire was committed since the last labelling, or when ``turn`` comes before
        the labelling's: the components of an earlier turn are coarser, so still a sound
        answer for any later one.
        """
        cp = self.cupy
        k = len(pins)
        if not k:
            return np.zeros(0, bool)
        h, w = self.shape
        n = h * w
        if self._labels is None or self._labelled != self._wired_count or turn < self._label_turn:
            if self._labels is None:
                self._labels = cp.empty(n, dtype=cp.int32)
            free_bits, wired, tm, *_ = self._state()
            blocks = (min(-(-n // 256), 1 << 16),)
            self._kernel("label_cells", module="components")(blocks, (256,), (
                free_bits, wired, tm, np.int32(turn), np.int32(w), np.int32(h),
                np.int32(self.problem.words_per_row), self._labels))
            for name in ("label_join", "label_flatten"):
                self._kernel(name, module="components")(blocks, (256,), (
                    self._labels, np.int32(w), np.int32(h)))
            self.launches += 3
            self.labellings += 1
            self._labelled, self._label_turn = self._wired_count, turn
        arg = self._upload(np.asarray(pins, np.int64).reshape(-1))
        out = cp.empty(k, dtype=cp.int32)
        self._kernel("pins_apart", module="components")((-(-k // 128),), (128,), (
            self._labels, arg, np.int32(k), np.int32(w), np.int32(h), out))
        self.launches += 1
        return out.get().astype(bool)

    def counted(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions and level counts of every root given to :meth:`count_levels`."""
        for side in self._streams:
            side.synchronize()
        self._copies.clear()
        self.quiesce()
        if not self._counts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        pos = np.concatenate([p for _, _, p, _ in self._counts])
        got = np.concatenate([r.get() for *_, r in self._counts]).astype(np.int64)
        redo = np.flatnonzero(got < 0)           # frontier outgrew the ring: use queues
        if redo.size:
            groups = [roots[start[j]:start[j + 1]] for roots, start, p, _ in self._counts
                      for j in range(len(p))]
            roots = np.concatenate([groups[i] for i in redo])
            start = np.concatenate([[0], np.cumsum([groups[i].size for i in redo])])
            res = self.cupy.empty(redo.size, dtype=self.cupy.int32)
            self._count(self._upload(roots, start, pos[redo]), roots.size, redo.size,
                        self._state(), res, ring=False)
            got[redo] = res.get()
        self._counts.clear()
        return pos, got


class GridBatch(LevelCounts):
    """The batched search on a ``gpu/grid`` problem's device state.

    It shares the problem's bit-packed free mask, its level and resting-level arrays and
    its host mirror ``host_free``, and adds ``time`` (per cell, the routing position of
    the earliest net whose wire blocks it) and ``wired`` (bit-packed: the cell is or was a wire
    cell, so ``time`` is valid; the layout and pins never are).

    Parameters
    ----------
    problem : GridRelaxProblem
    margin : window margin of a net's first search
    smem_limit : bytes of shared memory a block may use (default: what the device allows
        less a little for the kernel's own variables)
    """

    def __init__(self, problem, margin: int = MARGIN, smem_limit: int | None = None):
        import cupy

        from .cuda import device_attributes, get_kernel
        self.cupy = cupy
        self.problem = problem
        self.shape = problem.shape
        self.margin = margin
        h, w = self.shape
        # per cell, the routing position of the earliest wire on it (read only where wired)
        self.time = cupy.full(h * w, NO_WIRE, dtype=cupy.int32)
        self.wired = cupy.zeros_like(problem.free_bits)
        optin = device_attributes().get("MaxSharedMemoryPerBlockOptin", 48 << 10)
        # the kernel handles at most WORDS_PER_THREAD (5) words per thread of 1024, and
        # keeps a few bytes of its own beside the window
        self.smem_limit = smem_limit or min(optin - 1024, int(window_bytes(5 * 1024, 64)))
        self.sms = device_attributes().get("MultiProcessorCount", 1)
        self._get_kernel = get_kernel
        self._args = None                           # the kernels' grid arguments (_state)
        self._kernels: dict[tuple, tuple] = {}   # compiled on first use, with its static smem
        self._pins = cupy.zeros(2, dtype=cupy.int32)     # see set_pins
        # a device buffer and pinned host memory for each of the two batches that may be
        # in flight (launch)
        self._bufs = [cupy.zeros(1 << 16, dtype=cupy.int32) for _ in range(2)]
        self._batches = PinnedRing(cupy, 2, 1 << 18)
        self._stages = PinnedRing(cupy, _RING, 1 << 14)       # see _upload
        self._readback = PinnedRing(cupy, _RING, 1 << 14)     # see uncommit
        self.launches = 0
        self._streams: list = []                    # level counts run beside the batches
        self._counts: list[tuple[np.ndarray, np.ndarray, np.ndarray, object]] = []
        # what counts in flight read (the blockages' copy, their uploaded roots), held
        # until their stream is past them: freed, memory allocated on this stream may be
        # handed out again at once to a later upload on it, the side stream still reading
        self._copies: list[tuple] = []
        self._lifted: list[tuple] = []            # see uncommit()
        # components for apart(): labels, the wires committed when they were taken, turn
        self._labels = None
        self._wired_count = 0            # calls that committed a wire so far
        self._labelled = -1
        self._label_turn = 0
        self.labellings = 0

    def _kernel(self, name: str, smem: int = 0, module: str = "route_batch"):
        """Kernel ``name`` of ``kernels/<module>.cu``, allowed ``smem`` bytes of dynamic
        shared memory."""
        k, static = self._kernels.get((module, name), (None, 0))
        if k is None:
            k = self._get_kernel(module, name)
            static = k.shared_size_bytes          # a driver query: once per kernel
            self._kernels[module, name] = (k, static)
        allow_shared(k, smem, static)
        return k

    def set_pins(self, xy: np.ndarray) -> None:
        """The pins the records' ``F_PINS`` index: rows ``x, y`` (every net's, in the
        order of the run), kept on the device for the run."""
        self._pins = self.cupy.asarray(np.asarray(xy, np.int32).reshape(-1))

    def _state(self):
        free_bits, rest, level, words_per_row = self.problem.device_state()
        if self._args is None or self._args[0] is not free_bits:
            h, w = self.shape
            self._args = (free_bits, self.wired, self.time, rest, level, np.int32(w),
                          np.int32(h), np.int32(words_per_row))
        return self._args

    def _upload(self, *arrays: np.ndarray):
        """``arrays`` concatenated, as int32, in a new device array: copied on the current
        stream from pinned memory, without waiting (``cupy.asarray`` copies from pageable
        memory and waits for the stream, on a side stream behind the level counts queued
        there, or behind a batch in flight). The staging buffers are used in turn, each
        once its last copy has left: a copy queued behind a batch in flight leaves only
        when the batch is done."""
        cp = self.cupy
        n = sum(a.size for a in arrays)
        _, host, copied = self._stages.take(n)
        np.concatenate(arrays, out=host, casting="same_kind")
        dev = cp.empty(max(n, 1), dtype=cp.int32)
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(dev.data.ptr, host.ctypes.data, 4 * n,
                                    cp.cuda.runtime.memcpyHostToDevice, stream.ptr)
        copied.record(stream)
        return dev

    def launch(self, rec: np.ndarray, path_size: int):
        """Queue one batch (one block per record) without waiting; :meth:`finish` reads
        back its headers ``(b, HDR)`` and paths. Wires of ``OK`` nets are committed on
        the device by the kernel itself, and at :meth:`finish` in the host mirrors. Two
        batches may be in flight, in turn on the device, each with its own buffers: the
        one queued two launches before must be finished first."""
        cp = self.cupy
        runtime = cp.cuda.runtime
        stream = cp.cuda.get_current_stream()
        b = rec.shape[0]
        need = b * REC + b * HDR + path_size
        slot, host, done = self._batches.take(need)
        if need > self._bufs[slot].size:
            self._bufs[slot] = cp.zeros(2 * need, dtype=cp.int32)
        buf = self._bufs[slot]
        host[:b * REC] = rec.ravel()
        runtime.memcpyAsync(buf.data.ptr, host.ctypes.data, 4 * b * REC,
                            runtime.memcpyHostToDevice, stream.ptr)
        out = buf[b * REC:need]
        threads, smem = launch_shape(rec)
        if b <= self.sms:       # a block a multiprocessor: room for windows that grow
            smem = max(smem, min(GROW_SMEM, self.smem_limit))
        kernel = self._kernel("route_batch", smem)
        kernel((b,), (threads,), (buf, np.int32(b), self._pins, *self._state(),
                                  out[:b * HDR], out[b * HDR:], np.int32(smem)),
               shared_mem=smem)
        self.launches += 1
        res = host[b * REC:need]
        runtime.memcpyAsync(res.ctypes.data, out.data.ptr, 4 * res.size,
                            runtime.memcpyDeviceToHost, stream.ptr)
        done.record(stream)
        return rec, res, b, done

    def finish(self, token) -> tuple[np.ndarray, np.ndarray]:
        """Wait for a batch queued by :meth:`launch`; its headers and paths (views of
        pinned memory that the launch after next reuses)."""
        rec, res, b, done = token
        done.synchronize()
        hdr = res[:b * HDR].reshape(b, HDR)
        paths = res[b * HDR:]
        self._settle()             # cells lifted earlier first: a new wire may reuse them
        mark_wires(self.problem.host_free.reshape(-1), hdr, rec, paths)
        self._wired_count += bool((hdr[:, 0] == OK).any())
        return hdr, paths

    def _cells_launch(self, cells: np.ndarray, pos: np.ndarray, block: bool):
        cp = self.cupy
        n = cells.size
        freed = cp.zeros(max(n, 1), dtype=cp.int32)
        if n:
            arg = self._upload(cells, pos)
            self._kernel("commit_cells")((-(-n // 256),), (256,), (
                arg[:n], arg[n:], np.int32(n), np.int32(block), *self._state(), freed))
            self.launches += 1
        return freed

    def commit(self, cells: np.ndarray, pos: np.ndarray) -> None:
        """Block ``cells`` as wires of the nets at routing positions ``pos`` (per cell)."""
        if not cells.size:
            return
        self._settle()
        self._cells_launch(cells, pos, True)
        self.problem.host_free.ravel()[cells] = False
        self._wired_count += 1

    def uncommit(self, cells: np.ndarray, pos: np.ndarray) -> None:
        """Free the cells of ``cells`` still blocked by the wire of the net at ``pos``.

        A cell that an earlier net's wire took over since names that net and stays. The
        host mirror learns which cells were freed at the next synchronisation point (the
        next batch's download, or :meth:`quiesce`), not with a round trip of its own.
        """
        if not cells.size:
            return
        cp = self.cupy
        if len(self._lifted) == len(self._readback.slots):
            self._settle()                   # every read-back buffer holds a lift
        freed = self._cells_launch(cells, pos, False)
        # read back right behind the lift, so that the wait for it at the next
        # synchronisation point is not also a wait for batches queued after it
        _, host, done = self._readback.take(cells.size)
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(host.ctypes.data, freed.data.ptr, 4 * cells.size,
                                    cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        done.record(stream)
        self._lifted.append((cells, host, done))

    def _settle(self) -> None:
        for cells, host, done in self._lifted:
            done.synchronize()
            self.problem.host_free.ravel()[cells[host.astype(bool)]] = True
        self._lifted.clear()

    def quiesce(self) -> None:
        """Bring the host mirror up to date.

        Called before the router searches a net by itself (which changes blockages
        outside this class's ordering rules and reads the host mirror). The level counts
        in flight need no wait: they read their own copy of the blockages.
        """
        self._settle()


#: What GridBatch uses of a problem: gpu/grid's device state and its host mirror.
_NEEDS = ("free_bits", "rest", "level", "host_free", "words_per_row", "_apply_writes")


def batch_device(problem) -> GridBatch | None:
    """The batched search for ``problem`` when its engine offers one (``gpu/grid``)."""
    if problem.name != ("gpu", "grid") or not all(hasattr(problem, a) for a in _NEEDS):
        return None
    return GridBatch(problem)


__all__ = ["GridBatch", "PinnedRing", "batch_device", "windows", "set_window", "pin_box",
           "records", "mark_wires", "window_bytes", "launch_shape", "COUNT_BYTES", "MAX_PINS",
           "MARGIN", "OK", "GROW", "UNROUTED_SOURCE", "UNROUTED_TARGET", "ESCAPED", "ALONE"]


#: Pinned buffers of :meth:`GridBatch._upload` and of the lifts' read-backs, used in turn.
_RING = 4
#: Most bytes of visited bits and queues that one launch of level counts allocates, and
#: of visited bits in device memory that a run spends on the counts of nets proven apart
#: in place of their window searches (the router's batched run proves them so).
COUNT_BYTES = 256 << 20
