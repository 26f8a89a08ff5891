"""Negotiation's state on the device: :class:`DeviceState`, a part of
:class:`~mazeroute.engines.gpu_weighted.GPUNetSearch`.

PathFinder's iteration (McMurchie and Ebeling, FPGA 1995) with its state where the
searches are: every cell's occupancy, load, id sum, history and cost, the nets' weights
and every route (a pool of cells, a start and a length a net) stay on the device
(``kernels/congestion.cu``). A pass (:meth:`DeviceState.state_pass`) takes batches of
requests and, batch after batch, rips up the batch's routes, searches (the launches of
:meth:`~mazeroute.engines.gpu_weighted.GPUNetSearch.route`), keeps the routes found and
commits and prices them, with one upload before and one read back after: which requests
found a route. The host asks for an iteration's statistics (the uses of overused cells,
:meth:`DeviceState.state_overused`; route boxes, :meth:`DeviceState.state_boxes`) and
takes everything back once, at the end (:meth:`DeviceState.state_close`). The pricing
rule is :class:`~mazeroute.engines.costs.Pricing`'s, on the same integers as the
host's, so the routes are the host loop's.
"""

from __future__ import annotations

import time
from functools import partial
from typing import NamedTuple

import numpy as np

from .costs import COST_MAX, Pricing, kernel_defines
from .weighted import PackedRequests, box_sides
from .weighted_launch import HDR, R_ROW, REC, chunks, plan_launches, records

__all__ = ["DeviceState", "DeviceRoutes", "STATE_KERNELS"]

#: The kernels of ``kernels/congestion.cu``.
STATE_KERNELS = ("route_keep", "route_uses", "route_price", "route_own", "price_cells",
                 "price_grid", "overused_uses", "history_add")
_THREADS = 128
_MAX_BLOCKS = 65535


class DeviceRoutes(NamedTuple):
    """What :meth:`DeviceState.state_close` brings back: each net's route (flat cells,
    int64; None: no route), their boxes ``(n, 4)`` ``x0, y0, x1, y1``, the cells whose
    state changed on the device (int64, ascending: every cell with a load or a new
    history; the others are as the state was opened) and at those cells occupancy,
    load, id sum and history, and the nets' weights (the host state's arrays,
    :class:`~mazeroute.router.congestion.Congestion`)."""

    routes: list
    boxes: np.ndarray
    cells: np.ndarray
    occupancy: np.ndarray
    load: np.ndarray
    id_sum: np.ndarray
    history: np.ndarray
    weight: np.ndarray


class _PassViews(NamedTuple):
    """A pass's plan on the device (:meth:`DeviceState._pass_plan`): per batch its
    calls ``(lo, hi, record at, launches, tiles, first pin)``, the batches' bounds in the
    requests, and views of the workspace: records, pins, nets, tile tables, headers, the
    output counter, which requests found a route, the output cells, and the buffers of
    distances (scratch; tiled: dist) and tile work."""

    calls: list
    bounds: np.ndarray
    rec: object
    pins: object
    nets: object
    tables: object
    hdr: object
    used: object
    found: object
    out: object
    scratch: object
    dist: object
    work: object


class _DeviceIteration:
    """What an iteration's end asks of the device's state (a part of
    :class:`DeviceState`, whose arrays it reads)."""

    def state_overused(self) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(cell, net)`` use of a cell used by more than one net, as two int64
        arrays sorted by net, then cell."""
        xp = self._xp
        while True:
            cap = self._st_uses.size // 2
            count = xp.zeros(1, xp.int32)
            self._sk["overused_uses"](self._blocks(self._st_nets), (_THREADS,), (
                self._st_pool, self._st_start, self._st_len, np.int32(self._st_nets),
                self._st_occ, self._st_uses[:cap], self._st_uses[cap:], count,
                np.int32(cap)))
            k = int(count.get()[0])
            if k <= cap:
                break
            self._st_uses = xp.empty(4 * k, xp.int32)
        got = self._st_uses[:cap][:k].get().astype(np.int64), \
            self._st_uses[cap:cap + k].get().astype(np.int64)
        order = np.lexsort((got[0], got[1]))
        return got[0][order], got[1][order]

    def state_end_iteration(self, over: np.ndarray, conflicts: np.ndarray, acc: int,
                            net_acc: int) -> None:
        """History: ``acc`` per unit of overuse on the cells ``over`` (each once); the
        nets ``conflicts`` (each once) weigh ``net_acc`` more, on their routes' loads
        too; the cells touched repriced."""
        xp = self._xp
        k = int(over.size)
        cells = xp.asarray(over.astype(np.int32))
        if k:
            grid = (min(-(-k // 256), 4096),)
            self._sk["history_add"](grid, (256,), (cells, np.int32(k), self._st_occ,
                                                   np.int64(acc), self._st_history,
                                                   self._st_bh))
        if net_acc and conflicts.size:
            nets = xp.asarray(conflicts.astype(np.int32))
            self._st_weight[nets] += net_acc
            self._uses_of(nets, int(conflicts.size), 1, bump=net_acc)
        if k:
            self._sk["price_cells"](grid, (256,), (cells, np.int32(k), self._st_bh,
                                                   self._st_load, self._st_pres, self._cost))

    def state_boxes(self, nets: np.ndarray) -> np.ndarray:
        """The bounding boxes of the routes of ``nets``, ``(k, 4)`` int64."""
        idx = self._xp.asarray(np.asarray(nets, np.int32))
        return self._st_box.reshape(-1, 4)[idx].get().astype(np.int64)

    def state_routes(self, nets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The routes of ``nets`` now, one after another: offsets ``(k + 1,)`` and flat
        cells, int64 (a net without a route has none); no array a net, as a loop over
        thousands of nets each iteration costs more than the transfer."""
        idx = self._xp.asarray(np.asarray(nets, np.int32))
        start, length = self._st_start[idx].get(), self._st_len[idx].get()
        cells, offsets = self._gathered(start, length)
        return offsets, cells.get().astype(np.int64)

class DeviceState(_DeviceIteration):
    """Negotiation's state on the device (module notes); a mixin of the GPU engine,
    which supplies ``_xp``, ``options``, ``free``, ``shape``, ``_cost``, ``_least``,
    ``_loaded``, ``_pack``, ``_sync_owner``, ``_buffer``, ``_upload``, ``_event``, ``_spend``,
    ``_shared_launch``, ``_tiled_launch``, ``_side_by_side``, ``_tile_table``,
    ``_tile_work`` and ``smem_limit``."""

    def _state_kernels(self) -> dict:
        from .cuda import get_kernel
        return {k: get_kernel("congestion", k, kernel_defines()) for k in STATE_KERNELS}

    def state_open(self, pricing: Pricing, nets: int) -> None:
        """Put the state of ``pricing`` (no net routed yet: every load 0) on the device
        for ``nets`` nets, and price every cell there."""
        xp = self._xp
        n = self.free.size
        if pricing.load.any():
            raise ValueError("the device's state starts with no route")
        self._sk = self._state_kernels()
        # no history yet (a loop's start): the history is made there, not uploaded
        fresh = not pricing.history.any()
        bh = (pricing.base.astype(np.result_type(pricing.base, pricing.history)) if fresh
              else pricing.base + pricing.history)
        self._st_bh = xp.asarray(bh)
        self._st_history = (xp.zeros(pricing.history.shape, pricing.history.dtype) if fresh
                            else xp.asarray(pricing.history))
        self._st_history0 = self._st_history.copy()
        self._st_load = xp.zeros(n, xp.int64)
        self._st_id = xp.zeros(n, xp.int64)
        self._st_occ = xp.zeros(n, xp.int32)
        self._st_weight = xp.asarray(np.ascontiguousarray(pricing.weight, np.int64))
        self._st_start = xp.zeros(nets, xp.int32)
        self._st_len = xp.zeros(nets, xp.int32)
        self._st_box = xp.zeros(4 * nets, xp.int32)
        self._st_pool = xp.empty(1 << 20, xp.int32)
        self._st_used = 0                       # pool cells taken (host's copy)
        self._st_count = xp.zeros(1, xp.int32)  # the pool's counter on the device
        self._st_uses = xp.empty(2 * (1 << 16), xp.int32)
        self._st_nets = nets
        # costs never fall below base plus history: the searches' A* bound holds
        self._least = max(1, min(COST_MAX, int(bh.min()) if n else COST_MAX))
        self.state_pres(pricing.pres)
        self._loaded = True

    def state_pres(self, pres: int) -> None:
        """The present factor (units of ``1 / COST_SCALE``): every cell repriced."""
        self._st_pres = np.int32(pres)
        n = self.free.size
        self._sk["price_grid"]((min(-(-n // 256), 8192),), (256,), (
            np.int64(n), self._st_bh, self._st_load, self._st_pres, self._cost))

    def _blocks(self, count: int) -> tuple[int]:
        return (max(1, min(count, _MAX_BLOCKS)),)

    def _uses_of(self, nets, count: int, sign: int, routes: tuple | None = None,
                 bump: int = 0) -> None:
        """route_uses then route_price over the routes of the ``count`` nets ``nets``
        (``routes``: their starts and lengths, the current ones by default)."""
        if not count:
            return
        routes = routes or (self._st_start, self._st_len)
        self._sk["route_uses"](self._blocks(count), (_THREADS,), (
            self._st_pool, *routes, nets, np.int32(count), np.int32(sign), np.int64(bump),
            self._st_weight, self._st_occ, self._st_load, self._st_id))
        self._sk["route_price"](self._blocks(count), (_THREADS,), (
            self._st_pool, *routes, nets, np.int32(count), self._st_bh, self._st_load,
            self._st_pres, self._cost))

    def _gathered(self, start: np.ndarray, length: np.ndarray):
        """The pool's cells of the routes ``start``, ``length`` (host arrays), one after
        another on the device, and their offsets there (host, int64)."""
        lens = length.astype(np.int64)
        offsets = np.zeros(lens.size + 1, np.int64)
        np.cumsum(lens, out=offsets[1:])
        total = int(offsets[-1])
        at = np.repeat(start.astype(np.int64) - offsets[:-1], lens) + np.arange(total)
        cells = (self._st_pool[self._xp.asarray(at.astype(np.int32))] if total
                 else self._xp.zeros(0, self._xp.int32))
        return cells, offsets

    def _room(self, need: int) -> None:
        """Room in the pool for ``need`` more cells: the live routes moved together
        (and the pool grown) when the cells taken so far leave too little."""
        if self._st_used + need <= self._st_pool.size:
            return
        start, length = self._st_start.get(), self._st_len.get()
        live = np.flatnonzero(length > 0)
        cells, offsets = self._gathered(start[live], length[live])
        total = int(offsets[-1])
        size = max(self._st_pool.size, 1 << 20)
        while total + need > size:
            size *= 2
        pool = self._xp.empty(size, self._xp.int32)
        pool[:total] = cells
        new_start = start.copy()
        new_start[live] = offsets[:-1]
        self._st_start.set(new_start.astype(np.int32))
        self._st_pool = pool
        self._st_used = total

    def state_pass(self, packed: PackedRequests, bounds: np.ndarray, own: bool = False
                   ) -> np.ndarray:
        """Route the batches of ``packed`` in turn on the device (batch ``b`` is requests
        ``bounds[b]:bounds[b + 1]``; :func:`~.weighted.pack_nets`): a batch's old routes
        ripped up and repriced, its requests searched (in calls of at most the grid's
        cells of boxes, all on the costs as they stood after the rip-up), the routes found
        kept, committed and priced. With ``own`` (the group schedule) a batch searches
        before its old routes go, each request pricing its own net's route as if it were
        gone (:attr:`~.weighted.NetRequest.own`; the routes of a batch share no cell),
        and they are ripped up after. Returns whether each request found a route."""
        started = time.perf_counter()
        m = packed.nets.size
        if not m:
            return np.zeros(0, bool)
        bounds = np.asarray(bounds, np.int64)
        views = self._pass_plan(self._packed(packed), bounds)
        self._st_count.fill(self._st_used)
        first = self._event()
        for b in range(bounds.size - 1):
            self._pass_batch(views, b, own)
        last = self._event()
        back = self._xp.concatenate([views.found, self._st_count]).get()
        self._st_used = int(back[-1])
        device = 0.0 if first is None else self._xp.cuda.get_elapsed_time(first, last) / 1e3
        self._spend("device passes", m, time.perf_counter() - started, device,
                    calls=int(np.count_nonzero(np.diff(bounds))))
        return back[:m].astype(bool)

    def _pass_plan(self, packed: PackedRequests, bounds: np.ndarray) -> _PassViews:
        """The launches of a pass of the requests ``packed`` (batches ``bounds``), planned
        and uploaded at once: each batch's calls of at most the grid's cells of boxes."""
        xp = self._xp
        m = packed.nets.size
        bw, bh = box_sides(packed.boxes)
        areas = bw * bh
        self._room(int(areas.sum()))
        self._sync_owner()
        _, h, w = self.shape
        calls: list[list] = [[] for _ in range(bounds.size - 1)]
        recs, tables = [], []
        rec_at = table_at = need = work_need = 0
        for b, (a, z) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())):
            cuts = chunks(areas[a:z], h * w) + a
            for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
                if hi == lo:
                    continue
                boxes = packed.boxes[lo:hi]
                seg = np.zeros(hi - lo + 1, np.int64)
                np.cumsum(areas[lo:hi], out=seg[1:])
                need = max(need, int(seg[-1]))
                order, launches = plan_launches(boxes, self.smem_limit)
                rec = records(order, packed.nets[lo:hi], packed.pin_ptr[lo:hi + 1]
                              - packed.pin_ptr[lo], boxes, seg)
                rec[:, R_ROW] += lo
                tiled = []
                for start, count, smem, _ in launches.tolist():
                    if smem:
                        tiled.append(None)
                        continue
                    members = order[start:start + count]
                    table, ntiles = self._tile_table(boxes[members])
                    trees = bool((np.diff(packed.pin_ptr)[lo + members] > 2).any())
                    tiled.append((table_at, ntiles, trees))
                    tables.append(table)
                    table_at += table.size
                    work_need = max(work_need, self._tile_work(count, ntiles))
                calls[b].append((lo, hi, rec_at, launches, tiled, int(packed.pin_ptr[lo])))
                recs.append(rec)
                rec_at += len(rec)
        parts = [np.concatenate(recs).view(np.int32).ravel(), packed.pins, packed.nets,
                 np.concatenate(tables) if tables else np.zeros(0, np.int32),
                 np.zeros(m * HDR + 1 + m, np.int32)]
        ws, off = self._upload(parts, need)
        hdr_end = off[4] + m * HDR
        return _PassViews(
            calls, bounds, ws[:off[1]].view(xp.int64), ws[off[1]:off[2]],
            ws[off[2]:off[3]], ws[off[3]:off[4]], ws[off[4]:hdr_end],
            ws[hdr_end:hdr_end + 1], ws[hdr_end + 1:off[5]], ws[off[5]:off[5] + need],
            self._buffer("_seg", need, xp.int32),
            self._buffer("_dist", need, xp.uint32) if tables else None,
            self._buffer("_tws", work_need, xp.int32) if tables else None)

    def _pass_batch(self, v: _PassViews, b: int, own: bool) -> None:
        """Batch ``b`` of a pass (:meth:`state_pass`)."""
        a, z = int(v.bounds[b]), int(v.bounds[b + 1])
        nets, count = v.nets[a:], z - a
        if not count:
            return
        if not own:
            self._uses_of(nets, count, -1)
            for call in v.calls[b]:
                self._pass_call(v, call)
            self._uses_of(nets, count, 1)
            return
        # the old routes' places in the pool, kept: route_keep writes the new ones
        old = self._st_start.copy(), self._st_len.copy()
        self._own_arrays()
        self._overlay(nets, count, old, True)
        try:
            with self._overlay_on(self._least):     # no own cost below bh
                for call in v.calls[b]:
                    self._pass_call(v, call)
        finally:
            self._overlay(nets, count, old, False)
        self._uses_of(nets, count, -1, old)
        self._uses_of(nets, count, 1)

    def _pass_call(self, v: _PassViews, call: tuple) -> None:
        """One call of a batch: its launches, then its routes kept."""
        lo, hi, at, launches, tiled, p0 = call
        v.used.fill(0)
        shared, tiles = [], []
        for (start, count, smem, threads), t in zip(launches.tolist(), tiled):
            r = v.rec[(at + start) * REC:]
            if t is None:
                shared.append(partial(self._shared_launch, r, count, smem, threads,
                                      v.pins[p0:], v.scratch, v.out, v.hdr, v.used))
            else:
                t_at, ntiles, trees = t
                tiles.append(partial(self._tiled_launch, r, count, ntiles, v.tables[t_at:],
                                     v.work, v.pins[p0:], v.dist, v.scratch, v.out, v.hdr,
                                     v.used, trees))
        self._side_by_side(shared, tiles)
        self._sk["route_keep"](self._blocks(hi - lo), (_THREADS,), (
            v.hdr[lo * HDR:], np.int32(hi - lo), v.out, v.nets[lo:], np.int32(self.shape[2]),
            self._st_pool, self._st_count, self._st_start, self._st_len, self._st_box,
            v.found[lo:]))

    def _overlay(self, nets, count: int, routes: tuple, on: bool) -> None:
        """The own overlay (:class:`~.gpu_own.OwnOverlay`) of the routes ``routes``
        (starts, lengths) of the ``count`` nets ``nets`` set (each cell its route's net
        and its price without that net's weight) or cleared."""
        self._sk["route_own"](self._blocks(count), (_THREADS,), (
            self._st_pool, *routes, nets, np.int32(count), np.int32(on), self._st_weight,
            self._st_bh, self._st_load, self._st_pres, self._own_net, self._own_cost))

    def state_close(self) -> DeviceRoutes:
        """Everything back to the host, once; the device's state is let go (the next
        plain search uploads its costs again)."""
        start, length = self._st_start.get(), self._st_len.get()
        pool = self._st_pool[:self._st_used].get().astype(np.int64)
        routes = [pool[s:s + k] if k else None for s, k in zip(start.tolist(),
                                                                length.tolist())]
        # only the cells the loop touched come back: a grid's arrays are hundreds of
        # megabytes on the largest layouts, their routes' cells a small share of them
        xp = self._xp
        cells = xp.flatnonzero((self._st_load != 0) | (self._st_history != self._st_history0))
        back = [a[cells].get() for a in (self._st_occ, self._st_load, self._st_id,
                                         self._st_history)]
        got = DeviceRoutes(routes, self._st_box.get().reshape(-1, 4).astype(np.int64),
                           cells.get().astype(np.int64), *back, self._st_weight.get())
        for name in ("_st_bh", "_st_history", "_st_history0", "_st_load", "_st_id",
                     "_st_occ", "_st_weight", "_st_start", "_st_len", "_st_box", "_st_pool",
                     "_st_uses"):
            setattr(self, name, None)
        self._loaded = False
        self._bh = None         # a chain's pricing, uploaded again at the next chain
        return got
