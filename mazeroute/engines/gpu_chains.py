"""Chains of the GPU weighted engine (:mod:`.gpu_weighted`): batches searched one after
another on the device, each batch's old routes taken off and its new ones laid on the
costs by ``kernels/weighted.cu`` chain_uses, with one upload and one read back a chain.

:class:`DeviceChains` is the host side, a mixin of :class:`~.gpu_weighted.GPUNetSearch`
(:meth:`~.weighted.NetSearch.route_chain`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial

import numpy as np

from .costs import COST_MAX, Pricing
from .weighted import NetRequest, box_sides, request_boxes
from .weighted_launch import HDR, R_ROW, REC, plan_launches, records, shared_bytes

__all__ = ["DeviceChains", "CHAIN_ROOM"]

#: Most cells of boxes in one chain's read back (route_chain): the output holds each
#: request's box area; a longer chain is cut into several, each read back once.
CHAIN_ROOM = 1 << 26


class DeviceChains:
    """:meth:`route_chain` and what it needs (a mixin of
    :class:`~.gpu_weighted.GPUNetSearch`, which supplies ``_xp``, ``free``, ``shape``,
    ``smem_limit``, ``launches``, ``chains``, ``_cost``, ``_least``, ``_bh``,
    ``_least_bh``, ``_load``, ``_weight``, ``_pres``, the kernel ``_chain_uses``, and the
    call's steps: ``_check_cost``, ``_pack``, ``_sync_owner``, ``_cost_update``,
    ``_send_update``, ``_upload``, ``_buffer``, ``_event``, ``_spend``, ``_read_back``,
    ``_shared_launch``, ``_tile_table``, ``_tile_work``, ``_tiled_launch``,
    ``_side_by_side``)."""

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
        nets = packed.nets[lo:hi]
        room = int(areas[lo:hi].sum())              # each request's room in the output
        recs, plans, tables, scratch_need, work_need = self._chain_plan(packed, areas, bounds)
        rip = [old[lo + k] for k in range(m)]
        rip_len = np.fromiter((0 if r is None else len(r) for r in rip), np.int64, m)
        rip_start = np.zeros(m + 1, np.int64)
        np.cumsum(rip_len, out=rip_start[1:])
        rip_cells = (np.concatenate([r for r in rip if r is not None]) if rip_start[-1]
                     else np.zeros(0, np.int64))
        parts = [np.concatenate(recs).view(np.int32).ravel(), packed.pins[p0:p1],
                 rip_cells.astype(np.int32), rip_start.astype(np.int32), nets,
                 np.concatenate(tables) if tables else np.zeros(0, np.int32),
                 np.zeros(m * HDR + 1, np.int32)]
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
            shared, tiles = [], []
            for (start, count, smem, threads), t in zip(launches.tolist(), tiled):
                r = rec_d[(at + start) * REC:]
                if t is not None:
                    t_at, ntiles = t
                    tiles.append(partial(self._tiled_launch, r, count, ntiles,
                                         tables_d[t_at:], work, pins, dist, scratch, out,
                                         hdr, used, False))
                    continue
                shared.append(partial(self._shared_launch, r, count, smem, threads, pins,
                                      scratch, out, hdr, used))
            self._side_by_side(shared, tiles)
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

    def _chain_plan(self, packed, areas: np.ndarray, bounds: np.ndarray) -> tuple:
        """:meth:`_chain`'s launches, batch by batch: the request records, each batch's
        ``(start, end, first record, launches, tiles)``, the tiled launches' tables, and
        the scratch and tiled work the chain needs."""
        lo, hi = int(bounds[0]), int(bounds[-1])
        pin_ptr = packed.pin_ptr[lo:hi + 1] - packed.pin_ptr[lo]
        nets = packed.nets[lo:hi]
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
        return recs, plans, tables, scratch_need, work_need
