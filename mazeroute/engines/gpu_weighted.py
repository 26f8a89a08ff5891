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

import numpy as np

from .base import allow_shared
from .costs import COST_MAX, Pricing, kernel_defines
from .gpu_own import OwnOverlay
from .gpu_state import DeviceState
from .weighted import NetRequest, NetSearch, box_sides, pack_requests, request_boxes
from .weighted_launch import (
    CELL_BYTES,
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
#: int32 fields of a request's result: status, cells, offset in the output.
HDR = 3
#: int32 words of a request's bound in the tiled search (kernels/weighted.cu ``Bound``).
BND = 10
ST_OK, ST_UNREACHABLE, ST_ERROR = 1, 2, 3
#: The kernels of kernels/weighted.cu, in the order :meth:`GPUNetSearch._device` gives them.
KERNELS = ("weighted_route", "set_costs", "tiled_init", "tiled_rounds", "tiled_connect",
           "tiled_finish", "chain_uses", "tiled_seed", "tiled_queue")
#: How the tiled search reaches its fixpoint: ``"rounds"`` (every awake tile, then a grid
#: barrier, until a round changes nothing), ``"queue"`` (a tile goes as soon as a
#: neighbour hands over, through a work queue; no barrier), or ``"auto"``: rounds when a
#: launch's tiles fit its blocks (each block then keeps its tile in shared memory from
#: round to round), the queue when blocks must take turns at the tiles.
TILED_SCHEDULES = ("auto", "rounds", "queue")
TILED_SCHEDULE = "auto"
#: The work queue's counters (kernels/tile_queue.cuh NUM_COUNTERS).
QUEUE_COUNTERS = 128
#: The kernels launched as cooperative grids (their blocks meet at grid barriers).
COOPERATIVE = ("tiled_rounds",)
#: Cells of a tile's side in the tiled search of boxes too big for shared memory
#: (kernels/weighted_tiles.cuh TILE, passed to it); a tile's block has a thread per line
#: of the tile and its halo (one warp). Smaller tiles than :data:`TILE_MAX` let more blocks
#: share a multiprocessor, and a round's work is spread over more of them.
TILE = 30
#: Largest tile side the kernel is built and tested for: a block of two warps, whose
#: tile, halo and loaded copy stay within a block's static shared memory.
TILE_MAX = 62
#: Round counters of the tiled search (kernels/weighted_tiles.cuh's ``moved``, a ring).
MAX_ROUNDS = 1 << 14
#: Most blocks of a tiled_rounds launch per multiprocessor. All of a cooperative launch's
#: blocks must be resident at once, so the device's occupancy for the kernel caps it
#: too (:func:`round_blocks`); more blocks than this make each grid barrier dearer than
#: the tiles they add to a round.
ROUND_BLOCKS_PER_SM = 12
#: Most cells of boxes in one chain's read back (route_chain): the output holds each
#: request's box area; a longer chain is cut into several, each read back once.
CHAIN_ROOM = 1 << 26
#: Largest grid: vertex ids, output offsets and counters are int32 on the device.
MAX_CELLS = 2**31 - 1


def fits(height: int, width: int) -> bool:
    """Whether the kernel's int32 vertex ids and offsets cover a ``height`` x ``width`` grid.

    >>> fits(4096, 4096), fits(1 << 16, 1 << 15)
    (True, False)
    """
    return height * width <= MAX_CELLS


def round_blocks(multiprocessors: int, resident: int) -> int:
    """Blocks of a tiled_rounds launch: :data:`ROUND_BLOCKS_PER_SM` on each
    multiprocessor, or as many as can be resident there (``resident``) when fewer.

    >>> round_blocks(132, 32), round_blocks(132, 5)
    (1584, 660)
    """
    if resident < 1:
        raise RuntimeError("no block of the tiled search fits on a multiprocessor")
    return multiprocessors * min(ROUND_BLOCKS_PER_SM, resident)


def kernel_options(tile: int = TILE) -> tuple[str, ...]:
    """NVRTC flags carrying the constants that the kernel shares with the Python side."""
    return (*kernel_defines(), f"-DBLOCKED_CODE=({BLOCKED_CODE + 1}-1)", f"-DTILE={tile}",
            f"-DMAX_ROUNDS={MAX_ROUNDS}")


def cell_codes(free: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """The device's cell codes: :data:`BLOCKED_CODE` where not ``free``, else ``owner``."""
    return np.where(free, owner, BLOCKED_CODE).astype(np.int32)


class GPUNetSearch(OwnOverlay, DeviceState, NetSearch):
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

    # -- chains (kernels/weighted.cu chain_uses) -----------------------------------------
    def chainable(self, requests: Sequence[NetRequest]) -> bool:
        """Whether :meth:`route_chain` takes ``requests`` as a batch: no tree searched in
        tiles (the host joins their pins round by round) and the boxes' areas within the
        grid's."""
        n = len(requests)
        if not n:
            return True
        return self._fits_boxes(request_boxes(requests),
                                np.fromiter((len(r.pins) for r in requests), np.int64, n))

    def _fits_boxes(self, boxes: np.ndarray, pins: np.ndarray) -> bool:
        """:meth:`chainable` of a batch of ``boxes`` (``(n, 4)``) with ``pins`` pins each."""
        _, h, w = self.shape
        bw, bh = box_sides(boxes)
        area = bw * bh
        if ((pins > 2) & (shared_bytes(boxes) > self.smem_limit)).any():
            return False
        return int(area.sum()) <= h * w

    def route_chain(self, cost: np.ndarray, changed: np.ndarray | None, pricing: Pricing,
                    batches: Sequence[Sequence[NetRequest]],
                    ripped: Sequence[Sequence[np.ndarray | None]]
                    ) -> list[list[np.ndarray | None]]:
        """As :meth:`NetSearch.route_chain`, on the device: per batch, chain_uses takes
        the old routes' loads off and reprices their cells, the batch's launches search
        (those of :meth:`route`), chain_uses adds the new routes; the host reads back once
        a chain (or once per :data:`CHAIN_ROOM` cells of boxes, the results' room)."""
        started = time.perf_counter()
        if any(r.own is not None for reqs in batches for r in reqs):
            raise ValueError("a chain's requests price no own cells")
        if len(batches) != len(ripped):
            raise ValueError("route_chain needs one list of ripped routes a batch")
        for b, (reqs, old) in enumerate(zip(batches, ripped)):
            if len(reqs) != len(old):
                raise ValueError(f"batch {b}: {len(reqs)} requests but {len(old)} old routes")
        flat = [r for reqs in batches for r in reqs]
        packed = self._pack(flat) if flat else None
        bounds = np.zeros(len(batches) + 1, np.int64)
        np.cumsum([len(reqs) for reqs in batches], out=bounds[1:])
        if packed is not None:
            counts = np.diff(packed.pin_ptr)
            for b, (lo, hi) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())):
                if hi > lo and not self._fits_boxes(packed.boxes[lo:hi], counts[lo:hi]):
                    raise ValueError(f"batch {b} is not chainable (see chainable)")
        cost = self._check_cost(cost)
        self.chain_batches = []
        self._sync_owner()
        self._send_update(self._cost_update(cost.reshape(-1), changed))
        self._sync_pricing(pricing)
        self._least = min(self._least, max(1, min(COST_MAX, self._least_bh)))
        results: list[list[np.ndarray | None]] = [[None] * len(reqs) for reqs in batches]
        if packed is None:
            return results
        bw, bh = box_sides(packed.boxes)
        areas = bw * bh
        room = np.add.reduceat(areas, bounds[:-1]) if len(batches) else areas[:0]
        room[bounds[:-1] == bounds[1:]] = 0
        old = [r for o in ripped for r in o]
        first = 0
        while first < len(batches):
            last, total = first, 0
            while last < len(batches) and (last == first or total + room[last] <= CHAIN_ROOM):
                total += int(room[last])
                last += 1
            found = self._chain(packed, areas, bounds[first:last + 1], old, pricing)
            for b in range(first, last):
                results[b] = found[int(bounds[b] - bounds[first]):
                                   int(bounds[b + 1] - bounds[first])]
            first = last
        self.chains += 1
        self._spend("chained batches", 0, time.perf_counter() - started, 0.0, calls=0)
        return results

    def _sync_pricing(self, pricing: Pricing) -> None:
        """The device's base plus history and loads brought up to ``pricing`` (every cell
        at first or when ``pricing.changed`` is None, else those cells), and the nets'
        weights."""
        xp = self._xp
        n = self.free.size
        for name in ("base", "history", "load"):
            a = getattr(pricing, name)
            if a.shape != (n,) or a.dtype != np.int64:
                raise ValueError(f"pricing.{name} must be int64 of the grid's {n} cells")
        if self._bh is None or pricing.changed is None:
            bh = pricing.base + pricing.history
            self._bh = xp.empty(n, dtype=xp.int64)
            self._bh.set(bh)
            self._load = xp.empty(n, dtype=xp.int64)
            self._load.set(pricing.load)
            self._least_bh = min(self._least_bh, int(bh.min()))
        elif pricing.changed.size:
            idx = np.asarray(pricing.changed, np.int64)
            k = idx.size
            bh = pricing.base[idx] + pricing.history[idx]
            # one transfer (each waits for the stream): the cells, then their values
            sent = xp.asarray(np.concatenate([idx, bh, pricing.load[idx]]))
            self._bh[sent[:k]] = sent[k:2 * k]
            self._load[sent[:k]] = sent[2 * k:]
            self._least_bh = min(self._least_bh, int(bh.min()))
        self._weight = xp.asarray(np.ascontiguousarray(pricing.weight, np.int64))
        self._pres = np.int32(pricing.pres)

    def _uses(self, cells, start, hdr, from_hdr: int, row0: int, count: int, nets,
              sign: int) -> None:
        """chain_uses twice over ``count`` routes: their loads, then their costs."""
        blocks = (min(count, 65535),)
        for price in (0, 1):
            self._chain_uses(blocks, (128,), (
                cells, start, hdr, np.int32(from_hdr), np.int32(row0), np.int32(count), nets,
                np.int32(sign), np.int32(price), self._weight, self._load, self._bh,
                self._pres, self._cost))
        self.launches += 2

    def _chain(self, packed, areas: np.ndarray, bounds: np.ndarray, old: list,
               pricing: Pricing) -> list[np.ndarray | None]:
        """Requests ``bounds[0] .. bounds[-1]`` of ``packed`` (batches cut at ``bounds``)
        chained on the device with one upload and one read back; their results."""
        xp = self._xp
        lo, hi = int(bounds[0]), int(bounds[-1])
        m = hi - lo
        p0, p1 = int(packed.pin_ptr[lo]), int(packed.pin_ptr[hi])
        pin_ptr = packed.pin_ptr[lo:hi + 1] - p0
        nets = packed.nets[lo:hi]
        seg_all = np.zeros(m + 1, np.int64)      # each request's room in the output
        np.cumsum(areas[lo:hi], out=seg_all[1:])
        room = int(seg_all[-1])
        recs, plans, tables = [], [], []
        rec_at = table_at = scratch_need = work_need = 0
        for a, b in zip((bounds[:-1] - lo).tolist(), (bounds[1:] - lo).tolist()):
            boxes = packed.boxes[lo + a:lo + b]
            seg = np.zeros(b - a + 1, np.int64)
            np.cumsum(areas[lo + a:lo + b], out=seg[1:])
            scratch_need = max(scratch_need, int(seg[-1]))
            order, launches = plan_launches(boxes, self.smem_limit)
            rec = records(order, nets[a:b], pin_ptr[a:b + 1], boxes, seg)
            rec[:, R_ROW] += a
            tiled = []
            for start, count, smem, _ in launches.tolist():
                if smem == 0:
                    table, ntiles = self._tile_table(boxes[order[start:start + count]])
                    tiled.append((table_at, ntiles))
                    tables.append(table)
                    table_at += table.size
                    work_need = max(work_need, self._tile_work(count, ntiles))
                else:
                    tiled.append(None)
            plans.append((a, b, rec_at, launches, tiled))
            recs.append(rec)
            rec_at += len(rec)
        rip = [old[lo + k] for k in range(m)]
        rip_len = np.fromiter((0 if r is None else len(r) for r in rip), np.int64, m)
        rip_start = np.zeros(m + 1, np.int64)
        np.cumsum(rip_len, out=rip_start[1:])
        rip_cells = (np.concatenate([r for r in rip if r is not None]) if rip_start[-1]
                     else np.zeros(0, np.int64))
        parts = [np.concatenate(recs).view(np.int32).ravel(), packed.pins[p0:p1],
                 rip_cells.astype(np.int32), rip_start.astype(np.int32), nets,
                 np.concatenate(tables) if tables else _NONE, np.zeros(m * HDR + 1, np.int32)]
        ws, off = self._upload(parts, room)
        rec_d = ws[:off[1]].view(xp.int64)
        pins, rip_d, rip_start_d, nets_d = (ws[off[k]:off[k + 1]] for k in range(1, 5))
        tables_d = ws[off[5]:off[6]]
        hdr = ws[off[6]:off[7]]
        used = hdr[m * HDR:]
        out = ws[off[7]:off[7] + room]
        scratch = self._buffer("_seg", scratch_need, xp.int32)
        dist = self._buffer("_dist", scratch_need, xp.uint32) if tables else None
        work = self._buffer("_tws", work_need, xp.int32) if tables else None
        marks = [self._event()]
        for a, b, at, launches, tiled in plans:
            k = b - a
            if not k:
                continue
            if rip_start[b] > rip_start[a]:
                self._uses(rip_d, rip_start_d[a:], hdr, 0, 0, k, nets_d[a:], -1)
            for (start, count, smem, threads), t in zip(launches.tolist(), tiled):
                r = rec_d[(at + start) * REC:]
                if t is not None:
                    t_at, ntiles = t
                    self._tiled_launch(r, count, ntiles, tables_d[t_at:], work, pins, dist,
                                       scratch, out, hdr, used, False)
                    continue
                self._shared_launch(r, count, smem, threads, pins, scratch, out, hdr, used)
            self._uses(out, rip_start_d, hdr, 1, a, k, nets_d[a:], 1)
            marks.append(self._event())
        found = self._read_back(ws[off[6]:], out, packed.boxes[lo:hi], room)
        sizes = [b - a for a, b, *_ in plans if b > a]
        device = 0.0
        if marks[0] is not None:
            for k, (e0, e1) in enumerate(zip(marks[:-1], marks[1:])):
                took = self._xp.cuda.get_elapsed_time(e0, e1) / 1e3
                self.chain_batches.append((sizes[k], took))
                device += took
        # the chain's wall time is route_chain's to add
        self._spend("chained batches", m, 0.0, device, calls=len(sizes))
        return found

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
    def _cost_update(self, flat: np.ndarray,
                     changed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
        """Check the costs to send. At the first call or without hints, all of them are
        uploaded here; else the ``changed`` cells' indices and costs (int32) are returned,
        to travel with the call's one upload (cells not listed keep their last upload)."""
        if changed is None or not self._loaded:
            least = int(flat.min()) if flat.size else 1
            if least < 1:
                raise ValueError("cell costs must be at least 1")
            self._cost.set(flat)
            self._loaded = True
            self._least = least
            return None
        ch = np.asarray(changed, dtype=np.int64).ravel()
        if not ch.size:
            return None
        if int(ch.min()) < 0 or int(ch.max()) >= flat.size:
            raise ValueError(f"changed holds a cell index outside the {flat.size} cells")
        values = flat[ch]
        least = int(values.min())
        if least < 1:
            raise ValueError("cell costs must be at least 1")
        self._least = min(self._least, least)
        return ch.astype(np.int32), values.astype(np.int32)

    def _upload(self, parts: list[np.ndarray], extra: int):
        """``parts`` (int32) copied, in one transfer, to the start of the workspace, which
        holds ``extra`` more int32 after them. Returns it and the parts' offsets."""
        sizes = [p.size for p in parts]
        offsets = np.zeros(len(parts) + 1, np.int64)
        np.cumsum(sizes, out=offsets[1:])
        n = int(offsets[-1])
        ws = self._buffer("_ws", n + extra, self._xp.int32)
        ws[:n].set(np.concatenate(parts).astype(np.int32, copy=False))
        return ws, offsets.tolist()

    def _scatter(self, ws, at: int, n: int) -> None:
        """``cost[idx] = val`` for the ``n`` pairs at ``ws[at:]`` (indices, then costs)."""
        blocks = min(-(-n // 256), 1024)
        self._set_costs((blocks,), (256,), (ws[at:at + n], ws[at + n:at + 2 * n],
                                            np.int32(n), self._cost))
        self.launches += 1

    def _send_update(self, update) -> None:
        if update is not None:
            ws, off = self._upload(list(update), 0)
            self._scatter(ws, off[0], update[0].size)

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

    def _buffer(self, name: str, size: int, dtype) -> object:
        buf = getattr(self, name)
        if buf.size < size:
            buf = self._xp.empty(size, dtype=dtype)
            setattr(self, name, buf)
        return buf

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
        for start, count, smem, threads in launches.tolist():
            if smem == 0:
                members = order[start:start + count]
                trees = bool(((packed.pin_ptr[lo + members + 1]
                               - packed.pin_ptr[lo + members]) > 2).any())
                self._tiled(rec_d[start * REC:], boxes[members], pins, dist, scratch, out,
                            hdr, used, trees)
                continue
            self._shared_launch(rec_d[start * REC:], count, smem, threads, pins, scratch,
                                out, hdr, used)
        last = self._event()
        results[lo:hi] = self._read_back(ws[off[4]:], out, boxes, room)
        if first is not None:
            self._span += self._xp.cuda.get_elapsed_time(first, last) / 1e3

    def _tile_table(self, boxes: np.ndarray) -> tuple[np.ndarray, int]:
        """The tiled search's table of ``boxes``: a ``(box, column, row)`` triple per tile,
        then each box's first tile (int32); and the number of tiles."""
        count = len(boxes)
        bw, bh = box_sides(boxes)
        ntx = -(-bw // self.tile)
        per = ntx * -(-bh // self.tile)
        first = np.zeros(count + 1, np.int64)
        np.cumsum(per, out=first[1:])
        ntiles = int(first[-1])
        local = np.arange(ntiles) - np.repeat(first[:-1], per)
        across = np.repeat(ntx, per)
        table = np.concatenate([np.stack([np.repeat(np.arange(count), per), local % across,
                                          local // across], axis=1).ravel(), first[:-1]])
        return table.astype(np.int32), ntiles

    @staticmethod
    def _tile_work(count: int, ntiles: int) -> int:
        """int32 words of a tiled search's state, bounds and flags."""
        return (2 + BND) * count + 2 * ntiles

    def _tiled(self, rec, boxes: np.ndarray, pins, dist, scratch, out, hdr, used,
               trees: bool = True) -> None:
        """The requests of records ``rec`` (boxes ``boxes``, too big for shared memory)
        searched in tiles (kernels/weighted_tiles.cuh's tiled_*): rounds until one changes
        nothing (one cooperative launch), a pin joined to each tree by tiled_connect,
        again while a tree has pins left; the results written as weighted_route writes
        them. Without ``trees`` (every request has two pins) one join ends every search,
        so the host launches it all without waiting for the device."""
        table, ntiles = self._tile_table(boxes)
        ws = self._buffer("_tws", table.size + self._tile_work(len(boxes), ntiles),
                          self._xp.int32)
        ws[:table.size].set(table)
        self._tiled_launch(rec, len(boxes), ntiles, ws[:table.size], ws[table.size:], pins,
                           dist, scratch, out, hdr, used, trees)

    def _tiled_launch(self, rec, count: int, ntiles: int, table, work, pins, dist, scratch,
                      out, hdr, used, trees: bool) -> None:
        """:meth:`_tiled`'s launches, its table (:meth:`_tile_table`) on the device and
        ``work`` (:meth:`_tile_work` words) to use."""
        w = self.shape[2]
        tiles, tfirst = table[:3 * ntiles], table[3 * ntiles:3 * ntiles + count]
        state = work[:2 * count]
        bnd = work[2 * count:(2 + BND) * count]
        flags = (2 + BND) * count
        # flag_a: the tiles to wake at the next round (left all 0 by each tiled_rounds)
        flag_a, flag_b = work[flags:flags + ntiles], work[flags + ntiles:flags + 2 * ntiles]
        ctl = self._ctl                 # growing trees; the ring of round counters
        ctl.fill(0)
        n, width, m = np.int32(ntiles), np.int32(w), np.int32(count)
        threads = self.tile + 2         # every tiled kernel's __launch_bounds__
        own = self._own_args()
        self._tiled_init((ntiles,), (threads,), (rec, tiles, n, pins, width,
                                                 self._launch_least(), dist, scratch, state,
                                                 bnd, flag_a))
        queue = self.tiled_schedule == "queue" or (
            self.tiled_schedule == "auto" and ntiles > self._round_blocks)
        while True:
            if queue:
                self._queue_run(rec, tiles, ntiles, pins, own, dist, bnd, flag_a, threads)
            else:
                self._tiled_rounds((min(ntiles, self._round_blocks),), (threads,), (
                    rec, tiles, n, pins, self._code, self._cost, *own, dist, width, bnd,
                    flag_a, flag_b, ctl[1:]))
            ctl[:1].fill(0)
            self._tiled_connect((count,), (threads,), (
                rec, m, pins, width, self._code, self._cost, *own, dist, scratch, state, bnd,
                tfirst, flag_a, ctl))
            self.launches += 2
            if not trees or not int(ctl[:1].get()[0]):
                break
        self._tiled_finish((count,), (threads,), (rec, m, scratch, state, out, hdr, used))
        self.launches += 2

    def _queue_run(self, rec, tiles, ntiles: int, pins, own, dist, bnd, flag_a,
                   threads: int) -> None:
        """The tiled search's fixpoint by the work queue (``tiled_seed``, ``tiled_queue``):
        the tiles flagged in ``flag_a`` first (their flags cleared, as tiled_rounds
        leaves them)."""
        xp = self._xp
        if self._tq_state is None or self._tq_state.size < ntiles:
            self._tq_state = xp.empty(ntiles, dtype=xp.int32)
            self._tq_state.fill(0)
            ring = 1 << max(ntiles - 1, 1).bit_length()   # each tile queued once at most
            self._tq_ring = xp.empty(ring, dtype=xp.int32)
            self._tq_ring.fill(-1)
        self._tq_ctl.fill(0)
        qmask, n = np.int32(self._tq_ring.size - 1), np.int32(ntiles)
        self._tiled_seed((-(-ntiles // threads),), (threads,), (
            n, flag_a, self._tq_state, self._tq_ring, self._tq_ctl, qmask))
        self._tiled_queue((min(ntiles, self._round_blocks),), (threads,), (
            rec, tiles, n, pins, self._code, self._cost, *own, dist, np.int32(self.shape[2]),
            bnd, self._tq_state, self._tq_ring, self._tq_ctl, qmask))
        self.launches += 1


_NONE = np.zeros(0, np.int32)
_NO_CELLS = np.zeros(0, np.int64)


def _check_owner_value(owner: np.ndarray | int) -> None:
    if (owner == BLOCKED_CODE if isinstance(owner, int)
            else (np.asarray(owner) == BLOCKED_CODE).any()):
        raise ValueError(f"owner {BLOCKED_CODE} is reserved for blocked cells")


__all__ = ["GPUNetSearch", "plan_launches", "chunks", "records", "cell_codes", "fits",
           "kernel_options", "shared_bytes", "BLOCKED_CODE", "CELL_BYTES", "MAX_BLOCKS",
           "SMEM_CLASSES", "REC", "R_ROW", "R_NET", "R_X0", "R_Y0", "R_X1", "R_Y1", "R_PIN0",
           "R_PIN1", "R_SEG"]
