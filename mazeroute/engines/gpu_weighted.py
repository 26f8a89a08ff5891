"""The weighted net search on the GPU (kernels/weighted.cu): GAMER's sweeps, many nets a launch.

:class:`GPUNetSearch` implements :class:`~mazeroute.engines.weighted.NetSearch` the way
GAMER (Lin et al., "GAMER: GPU-Accelerated Maze Routing", IEEE TCAD 2023) computes routing
costs: Bellman-Ford by alternating min-plus sweeps of the rows (both ways) and of the
columns over the cost grid, until a sweep changes nothing. As ``route_batch.cu`` does for
BFS, one launch searches many nets, one thread block per request, each in its own box.

Device state (built once per layout)
    ``code``: per cell :data:`BLOCKED_CODE` where the cell is blocked, else its owner (-1:
    nobody), so that one read tells whether a net may enter it; ``cost`` (uint16), kept
    in step with the caller's array through the ``changed`` hints of :meth:`route`; and
    uint32 distances for the boxes too big for shared memory, each in a region of its
    own (the size of its box, at its scratch offset), so that overlapping boxes share a
    launch.

One call
    One upload (request records, pins, the costs of the ``changed`` cells, zeroed result
    headers), one launch per group of :func:`plan_launches`, one read back (the headers
    and, unless the trees are unusually long, every cell); requests whose box areas sum
    to more than the grid's cells (only overlapping boxes do) run in several such rounds.
    A call's launches write apart, so each goes on a stream of its own
    (:class:`~.gpu_streams.SideStreams`): the call takes about as long as its slowest
    launch, not the sum of them.
    Boxes too big for a block's shared memory are searched in tiles of :data:`TILE`
    cells a side (:meth:`GPUNetSearch._tiled`): rounds until one changes nothing, in one
    cooperative launch whose blocks stride over every tile of every such box, so a big
    box takes many SMs instead of one block sweeping it line by line, and the host
    waits for none of the rounds.

Why the wires are the CPU engine's
    The CPU engine and this one share one rule (module notes of
    :mod:`~mazeroute.engines.weighted`): the backtrace reads only the exact distance field,
    so whoever computes exact distances draws the same wire. Here every distance the
    sweeps hold is the cost of a real path from the tree (or INF), saturating at
    ``DIST_MAX + 1`` exactly where the CPU gives a path up as unreachable; and the sweeps
    stop only when no edge from a cell within the search's A* bound can lower a cell
    (kernels/weighted.cu: once a pin holds a real path's cost ``u``, a cell whose
    distance plus the least cell cost times its gap to the pins left exceeds ``u`` hands
    nothing on; the least cost is tracked through the ``changed`` hints). Costs being
    positive, that is the exact shortest distance on every cell of a path costing at
    most ``u``: every cheapest path to the next pin and every cell the backtrace reads
    as a step. A multi-pin net's next search starts from the previous distances with the
    new branch's cells set to 0: still real path costs from the grown tree, so its
    fixpoint is exact too. The target (cheapest pin not yet in
    the tree, first of equals) and the backtrace (heading first, then up, left, right,
    down, inside the box) are the CPU's, on the device. Pins that are already tree cells
    add nothing on either side; as on the CPU, a net fails only when no pin left is
    reached (a pin beyond ``DIST_MAX`` of the tree may come within it as the tree grows).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial

import numpy as np

from .base import allow_shared
from .costs import COST_MAX, kernel_defines
from .gpu_chains import DeviceChains
from .gpu_own import OwnOverlay
from .gpu_state import DeviceState
from .gpu_streams import SideStreams
from .gpu_tiled import (
    BND,
    COOPERATIVE,
    MAX_ROUNDS,
    QUEUE_COUNTERS,
    ROUND_BLOCKS_PER_SM,
    TILE,
    TILE_MAX,
    TILED_SCHEDULE,
    TILED_SCHEDULES,
    TiledSearch,
    round_blocks,
)
from .gpu_uploads import DeviceUploads
from .weighted import NetRequest, NetSearch, box_sides, pack_requests
from .weighted_launch import (
    CELL_BYTES,
    HDR,
    MAX_BLOCKS,
    R_NET,
    R_PIN0,
    R_PIN1,
    R_ROW,
    R_SEG,
    R_X0,
    R_X1,
    R_Y0,
    R_Y1,
    REC,
    SMEM_CLASSES,
    chunks,
    plan_launches,
    records,
    shared_bytes,
)

#: Cell code of a blocked cell on the device (any other code is the cell's owner).
BLOCKED_CODE = -(2**31)
ST_OK, ST_UNREACHABLE, ST_ERROR = 1, 2, 3
#: The kernels of kernels/weighted.cu, in the order :meth:`GPUNetSearch._device` gives them.
KERNELS = ("weighted_route", "set_costs", "tiled_init", "tiled_rounds", "tiled_connect",
           "tiled_finish", "chain_uses", "tiled_seed", "tiled_queue")
#: Largest grid: vertex ids, output offsets and counters are int32 on the device.
MAX_CELLS = 2**31 - 1


def fits(height: int, width: int) -> bool:
    """Whether the kernel's int32 vertex ids and offsets cover a ``height`` x ``width`` grid.

    >>> fits(4096, 4096), fits(1 << 16, 1 << 15)
    (True, False)
    """
    return height * width <= MAX_CELLS


def kernel_options(tile: int = TILE) -> tuple[str, ...]:
    """NVRTC flags carrying the constants that the kernel shares with the Python side."""
    return (*kernel_defines(), f"-DBLOCKED_CODE=({BLOCKED_CODE + 1}-1)", f"-DTILE={tile}",
            f"-DMAX_ROUNDS={MAX_ROUNDS}")


def cell_codes(free: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """The device's cell codes: :data:`BLOCKED_CODE` where not ``free``, else ``owner``."""
    return np.where(free, owner, BLOCKED_CODE).astype(np.int32)


class GPUNetSearch(TiledSearch, DeviceChains, DeviceUploads, OwnOverlay, DeviceState,
                   SideStreams, NetSearch):
    """The GPU engine of :class:`~mazeroute.engines.weighted.NetSearch` (see the module
    notes): returns the very wires of :class:`~mazeroute.engines.weighted.CPUNetSearch`.

    Parameters
    ----------
    free, owner, via_cost : as :class:`~mazeroute.engines.weighted.NetSearch`
    smem_limit : bytes of shared memory a block may use for its box (default: what the
        device allows, less a little); bigger boxes are searched in tiles
    tile : side of those tiles (at most :data:`TILE_MAX`; smaller ones serve tests)
    options : extra NVRTC flags (``("-DPROBE",)``: counters for
        benchmarks/weighted_probe.py)

    Examples
    --------
    >>> import numpy as np
    >>> from mazeroute.engines.weighted import COST_DTYPE, NetRequest
    >>> free = np.ones((3, 5), bool); free[0:2, 2] = False
    >>> owner = np.full((3, 5), -1, np.int32); owner[0, 0] = owner[0, 4] = 0
    >>> search = GPUNetSearch(free, owner)
    >>> net = NetRequest(0, np.array([[0, 0], [4, 0]]), (0, 0, 4, 2))
    >>> search.route(np.ones((3, 5), COST_DTYPE), [net])[0].tolist()
    [[0, 0], [0, 1], [0, 2], [1, 2], [2, 2], [3, 2], [3, 1], [3, 0], [4, 0]]
    """

    def __init__(self, free: np.ndarray, owner: np.ndarray, via_cost: int = 0,
                 smem_limit: int | None = None, options: tuple[str, ...] = (),
                 tile: int = TILE, tiled_schedule: str = TILED_SCHEDULE):
        super().__init__(free, owner, via_cost)
        if not 1 <= tile <= TILE_MAX:
            raise ValueError(f"tile = {tile} is out of range (1 to {TILE_MAX})")
        if tiled_schedule not in TILED_SCHEDULES:
            raise ValueError(f"tiled_schedule = {tiled_schedule!r}: one of "
                             f"{', '.join(TILED_SCHEDULES)}")
        self.tile = tile
        self.tiled_schedule = tiled_schedule
        self.options = (*kernel_options(tile), *options)
        _, h, w = self.shape
        if not fits(h, w):
            raise ValueError(f"a {h} x {w} grid has more cells than the weighted kernel's "
                             f"int32 indices reach ({MAX_CELLS})")
        _check_owner_value(self.owner)
        xp, kernels, optin, self._round_blocks = self._device()
        (self._kernel, self._set_costs, self._tiled_init, self._tiled_rounds,
         self._tiled_connect, self._tiled_finish, self._chain_uses, self._tiled_seed,
         self._tiled_queue) = kernels
        self._xp = xp
        self._code = xp.empty(h * w, dtype=xp.int32)
        self._code.set(cell_codes(self.free, self.owner).ravel())
        self._owned: list[np.ndarray] = []      # cells whose owner changed since (flat)
        self._cost = xp.empty(h * w, dtype=xp.uint16)
        self._loaded = False
        #: A lower bound of every cost on the device (the kernels' A* bound).
        self._least = 0
        self._own_init()
        self._dist = xp.empty(1, dtype=xp.uint32)  # distances of global-memory boxes
        self._tws = xp.empty(1, dtype=xp.int32)    # the tiled search's tables and flags
        self._ctl = xp.empty(1 + MAX_ROUNDS, dtype=xp.int32)   # growing; moved by round
        # the tiled queue's tile states (IDLE 0), ring (EMPTY -1) and counters; a run
        # leaves the first two so, and the counters are cleared before each
        self._tq_state = self._tq_ring = None
        self._tq_ctl = xp.empty(QUEUE_COUNTERS, dtype=xp.int32)
        self._ws = xp.empty(1, dtype=xp.int32)  # one call's uploads and results (_run)
        self._seg = xp.empty(1, dtype=xp.int32)
        # a chain's pricing (route_chain): base plus history and load per cell, made at
        # the first chain, and the least base plus history uploaded (no cost falls below)
        self._bh = self._load = None
        self._least_bh = COST_MAX
        self.chains = 0
        #: The last chain's batches: each one's nets and the device's seconds for it
        #: (CUDA events; none off the device), for a caller that weighs the device.
        self.chain_batches: list[tuple[int, float]] = []
        #: Work done so far: per kind (``device calls``, ``chained batches``, ``device
        #: passes``' batches) the calls (batches), their nets, wall seconds (of the whole
        #: chain or pass for their batches) and the device's seconds from the first
        #: launch to the last (CUDA events; 0 off the device).
        self.spent = {k: [0, 0, 0.0, 0.0]
                      for k in ("device calls", "chained batches", "device passes")}
        self._span = 0.0            # device seconds of the call under way (events)
        self.smem_limit = int(smem_limit) if smem_limit is not None else optin - 1024
        self._static = self._kernel.shared_size_bytes
        self.launches = 0

    def _device(self):
        """The array module (CuPy), the kernels (:data:`KERNELS`), the shared memory a
        block may opt in to and the blocks of a tiled_rounds launch: the seam where
        tests/test_gpu_weighted_host.py runs the kernels' code on the CPU."""
        import cupy

        from .cuda import device_attributes, get_kernel, resident_blocks
        attributes = device_attributes()
        optin = attributes.get("MaxSharedMemoryPerBlockOptin", 48 << 10)
        kernels = tuple(get_kernel("weighted", k, self.options, k in COOPERATIVE)
                        for k in KERNELS)
        rounds = kernels[KERNELS.index("tiled_rounds")]
        resident = resident_blocks(rounds, self.tile + 2)
        return cupy, kernels, optin, round_blocks(attributes["MultiProcessorCount"],
                                                  resident)

    def set_owner(self, cells: np.ndarray, owner: int | np.ndarray) -> None:
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        _check_owner_value(owner)
        self.owner[0, c[:, 1], c[:, 0]] = owner
        if c.size:
            # the device's codes follow at the next search, all changes in one transfer:
            # a router sets owners net by net, thousands of calls between two searches
            self._owned.append(c[:, 1] * self.shape[2] + c[:, 0])

    def _sync_owner(self) -> None:
        """Bring the device's cell codes up to the owners set since the last search (the
        host's ``owner`` is the truth, so a cell set twice gets its last owner)."""
        if not self._owned:
            return
        # a cell listed twice gets the same code twice (both read the host's final
        # owner), so the scatter needs no np.unique
        flat = np.concatenate(self._owned)
        self._owned = []
        codes = cell_codes(self.free.reshape(-1)[flat], self.owner.reshape(-1)[flat])
        self._code[self._xp.asarray(flat)] = self._xp.asarray(codes)

    def route(self, cost: np.ndarray, requests: Sequence[NetRequest],
              changed: np.ndarray | None = None) -> list[np.ndarray | None]:
        """As :meth:`NetSearch.route`, every request on the device (which calls go to
        another engine is the caller's choice: :mod:`mazeroute.router.dispatch`).

        A call with no requests still brings the device's costs up to ``cost``."""
        if all(r.own is None for r in requests):
            return self._timed_device(cost, requests, changed)
        return self._route_own(cost, requests, changed)

    def _event(self):
        """A CUDA event recorded now on the current stream (None off the device)."""
        cuda = getattr(self._xp, "cuda", None)
        if cuda is None:
            return None
        event = cuda.Event()
        event.record()
        return event

    @staticmethod
    def _results(head: np.ndarray, cells: np.ndarray, w: int) -> list[np.ndarray | None]:
        """Each request's cells (``(n, 2)`` x, y) from the headers and the output read back."""
        if (head[:, 0] == ST_ERROR).any():
            raise RuntimeError("weighted backtrace found no predecessor")
        if (head[:, 0] == 0).any():
            raise RuntimeError("the weighted kernel left a request without a result")
        cells = cells.astype(np.int64)
        xy = np.stack([cells % w, cells // w], axis=1)
        results: list[np.ndarray | None] = [None] * len(head)
        for k in np.flatnonzero(head[:, 0] == ST_OK):
            results[k] = xy[head[k, 2]:head[k, 2] + head[k, 1]]
        return results

    def _timed_device(self, cost, requests, changed) -> list[np.ndarray | None]:
        """:meth:`_route_device`, its time kept when it searched something (its results
        are read back before it returns, so the wall time is the device's)."""
        start = time.perf_counter()
        self._span = 0.0
        out = self._route_device(cost, requests, changed)
        if requests:
            self._spend("device calls", len(requests), time.perf_counter() - start,
                        self._span)
        return out

    def _spend(self, kind: str, nets: int, seconds: float, device: float,
               calls: int = 1) -> None:
        spent = self.spent[kind]
        spent[0] += calls
        spent[1] += nets
        spent[2] += seconds
        spent[3] += device

    def _route_device(self, cost: np.ndarray, requests: Sequence[NetRequest],
                      changed: np.ndarray | None = None) -> list[np.ndarray | None]:
        cost = self._check_cost(cost)
        update = self._cost_update(cost.reshape(-1), changed)
        try:
            packed = self._pack(requests) if requests else None
        except ValueError:
            self._send_update(update)   # refused requests still bring the costs up
            raise
        if packed is None:
            self._send_update(update)
            return []
        # only a search reads the cells' codes: a call that brings the costs up alone (a
        # router's, while another engine searches) leaves the owners set since for later
        self._sync_owner()
        _, h, w = self.shape
        bw, bh = box_sides(packed.boxes)
        areas = bw * bh
        results: list[np.ndarray | None] = [None] * len(requests)
        bounds = chunks(areas, h * w)
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            self._run(packed, areas, lo, hi, update if lo == 0 else None, results)
        return results

    # -- internals -----------------------------------------------------------------
    def _pack(self, requests: Sequence[NetRequest]):
        """:func:`pack_requests` of ``requests``, refusing the net index that codes a
        blocked cell on the device."""
        return self._packed(pack_requests(requests, self.shape))

    @staticmethod
    def _packed(packed):
        """``packed``, refusing the net index that codes a blocked cell on the device."""
        if (packed.nets == BLOCKED_CODE).any():
            raise ValueError(f"net index {BLOCKED_CODE} is reserved for blocked cells")
        return packed

    def _shared_launch(self, rec, count: int, smem: int, threads: int, pins, scratch, out,
                       hdr, used) -> None:
        """One weighted_route launch of ``count`` records' boxes in shared memory."""
        allow_shared(self._kernel, smem, self._static)
        self._kernel((count,), (threads,), (
            rec, np.int32(count), self._code, self._cost, *self._own_args(), pins,
            np.int32(self.shape[2]), self._launch_least(), scratch, out, hdr, used),
            shared_mem=smem)
        self.launches += 1

    def _read_back(self, tail, out, boxes: np.ndarray, room: int) -> list[np.ndarray | None]:
        """The results of the requests of ``boxes``: ``tail`` starts with their headers
        and the output's cell count, which ``out`` follows in the workspace, so one read
        brings back the headers and (unless the trees are unusually long: a guess from
        the boxes' sizes) every cell; a second read brings the rest."""
        m = len(boxes)
        bw, bh = box_sides(boxes)
        guess = min(room, int(np.minimum(bw * bh, 2 * (bw + bh)).sum()))
        head = tail[:m * HDR + 1 + guess].get()
        total = int(head[m * HDR])
        cells = head[m * HDR + 1:m * HDR + 1 + total] if total <= guess else \
            out[:total].get()
        return self._results(head[:m * HDR].reshape(m, HDR), cells, self.shape[2])

    def _run(self, packed, areas, lo: int, hi: int, update, results: list) -> None:
        """Requests ``lo .. hi - 1`` (their box areas sum to at most the grid's cells).

        One upload: records, pins, the ``changed`` costs, zeroed headers; the kernel's
        output follows the headers in the workspace, so that one read brings back the
        headers and (unless the trees are unusually long) every cell.
        """
        xp = self._xp
        m = hi - lo
        boxes = packed.boxes[lo:hi]
        seg = np.zeros(m + 1, np.int64)
        np.cumsum(areas[lo:hi], out=seg[1:])
        room = int(seg[-1])
        order, launches = plan_launches(boxes, self.smem_limit)
        p0, p1 = int(packed.pin_ptr[lo]), int(packed.pin_ptr[hi])
        rec = records(order, packed.nets[lo:hi], packed.pin_ptr[lo:hi + 1] - p0, boxes, seg)
        idx, val = update if update is not None else (_NONE, _NONE)
        ws, off = self._upload([rec.view(np.int32).ravel(), packed.pins[p0:p1], idx, val,
                                np.zeros(m * HDR + 1, np.int32)], room)
        rec_d = ws[:off[1]].view(xp.int64)
        pins = ws[off[1]:off[2]]
        if idx.size:
            self._scatter(ws, off[2], idx.size)
        hdr = ws[off[4]:off[5]]
        used = hdr[m * HDR:]
        out = ws[off[5]:off[5] + room]
        scratch = self._buffer("_seg", room, xp.int32)
        # boxes searched in tiles keep their distances at their scratch offsets, in a
        # region of their own, so that overlapping boxes share a launch
        dist = self._buffer("_dist", room, xp.uint32) if (launches[:, 2] == 0).any() \
            else None
        first = self._event()
        shared, tiles = [], []
        for start, count, smem, threads in launches.tolist():
            if smem == 0:
                members = order[start:start + count]
                trees = bool(((packed.pin_ptr[lo + members + 1]
                               - packed.pin_ptr[lo + members]) > 2).any())
                tiles.append(partial(self._tiled, rec_d[start * REC:], boxes[members], pins,
                                     dist, scratch, out, hdr, used, trees))
                continue
            shared.append(partial(self._shared_launch, rec_d[start * REC:], count, smem,
                                  threads, pins, scratch, out, hdr, used))
        self._side_by_side(shared, tiles)
        last = self._event()
        results[lo:hi] = self._read_back(ws[off[4]:], out, boxes, room)
        if first is not None:
            self._span += self._xp.cuda.get_elapsed_time(first, last) / 1e3

_NONE = np.zeros(0, np.int32)
_NO_CELLS = np.zeros(0, np.int64)


def _check_owner_value(owner: np.ndarray | int) -> None:
    if (owner == BLOCKED_CODE if isinstance(owner, int)
            else (np.asarray(owner) == BLOCKED_CODE).any()):
        raise ValueError(f"owner {BLOCKED_CODE} is reserved for blocked cells")


__all__ = ["GPUNetSearch", "plan_launches", "chunks", "records", "cell_codes", "fits",
           "kernel_options", "shared_bytes", "BLOCKED_CODE", "CELL_BYTES", "MAX_BLOCKS",
           "SMEM_CLASSES", "REC", "HDR", "BND", "R_ROW", "R_NET", "R_X0", "R_Y0", "R_X1",
           "R_Y1", "R_PIN0", "R_PIN1", "R_SEG", "round_blocks", "ROUND_BLOCKS_PER_SM", "TILE",
           "TILE_MAX", "MAX_ROUNDS", "TILED_SCHEDULES", "TILED_SCHEDULE"]
