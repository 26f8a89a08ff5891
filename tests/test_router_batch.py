"""Batched routing (mazeroute/router/batched.py over engines/gpu_batch.py, Router.run)
equals one-net-at-a-time.

The router's batched loop runs here on the CPU against ``EmuBatch``, a compiled
re-statement of what kernels/route_batch.cu computes per net; tests/test_gpu_batch.py runs
the real kernel, and tests/test_router_schedule.py the scheduler and its bookkeeping.
Every test compares every net's full result (routed, order, cells, length, bends,
levels) with the CPU router's.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.ndimage

from mazeroute.backtrace import _DX, _DY, _trace, bends
from mazeroute.bench import route_layout
from mazeroute.engines import BLOCKED, UNREACHED
from mazeroute.engines import gpu_batch as gb
from mazeroute.generate import random_nets, random_rects
from mazeroute.layout import Layout
from mazeroute.readers import parse_layout
from mazeroute.router import Router
from mazeroute.router import batched as rbat


# -- a CPU statement of one batched search -----------------------------------------------
@numba.njit(cache=True)
def _free(free, wired, tm, c, pos):
    return free[c] or (wired[c] and tm[c] > pos)


@numba.njit(cache=True)
def _window_bfs(free, wired, tm, width, height, x0, y0, w, h, pos, src, other, target,
                lev, queue):
    """Levels (``lev``, -1 unvisited) from ``src`` inside the window; stops at ``target``.

    Returns (target level or -1, number of levels, escaped).
    """
    lev[:] = -1
    sx, sy = src % width, src // width
    lev[(sy - y0) * w + sx - x0] = 0
    queue[0] = src
    head, tail, deepest, found = 0, 1, 0, -1
    while head < tail and found < 0:
        v = queue[head]
        head += 1
        x, y = v % width, v // width
        lv = lev[(y - y0) * w + x - x0]
        for k in range(4):
            nx, ny = x + _DX[k], y + _DY[k]
            if nx < x0 or nx >= x0 + w or ny < y0 or ny >= y0 + h:
                continue
            c = ny * width + nx
            i = (ny - y0) * w + nx - x0
            if lev[i] >= 0 or not (c == other or c == src or _free(free, wired, tm, c, pos)):
                continue
            lev[i] = lv + 1
            deepest = max(deepest, lv + 1)
            queue[tail] = c
            tail += 1
            if c == target:
                found = lv + 1
                break
    escaped = found < 0 and _escapes(free, wired, tm, width, height, x0, y0, w, h, pos,
                                     queue[:tail])
    return found, deepest + 1, escaped


@numba.njit(cache=True)
def _escapes(free, wired, tm, width, height, x0, y0, w, h, pos, cells):
    """Whether one of ``cells`` (vertex ids in the window) has a free neighbour outside
    the window."""
    for v in cells:
        x, y = v % width, v // width
        for k in range(4):
            nx, ny = x + _DX[k], y + _DY[k]
            if 0 <= nx < width and 0 <= ny < height and not (
                    x0 <= nx < x0 + w and y0 <= ny < y0 + h) and _free(
                    free, wired, tm, ny * width + nx, pos):
                return True
    return False


@numba.njit(cache=True)
def _tree_bfs(free, wired, tm, width, height, x0, y0, w, h, pos, tree, pins, joined, lev,
              queue):
    """Levels (``lev``, -1 unvisited) from every cell of ``tree`` inside the window, the
    pins not ``joined`` free; stops after the first level that labels one of them.

    Returns (that level or -1, number of levels, the kernel's bound B: the least
    ``L + 1 + |o - q|`` over labelled cells on level L beside a free cell o outside the
    window and pins q not joined, or -1 when no labelled cell has such a neighbour)."""
    lev[:] = -1
    tail = 0
    for c in tree:
        lev[(c // width - y0) * w + c % width - x0] = 0
        queue[tail] = c
        tail += 1
    own = np.zeros(len(pins), np.int64)
    for q in range(len(pins)):
        own[q] = pins[q, 1] * width + pins[q, 0]
    head, deepest, found, bound = 0, 0, -1, -1
    while head < tail:
        v = queue[head]
        head += 1
        x, y = v % width, v // width
        lv = lev[(y - y0) * w + x - x0]
        if found >= 0 and lv >= found:
            break
        for k in range(4):
            nx, ny = x + _DX[k], y + _DY[k]
            if not (0 <= nx < width and 0 <= ny < height):
                continue
            c = ny * width + nx
            if not (x0 <= nx < x0 + w and y0 <= ny < y0 + h):
                if _free(free, wired, tm, c, pos):
                    for q in range(len(pins)):
                        b = lv + 1 + abs(nx - pins[q, 0]) + abs(ny - pins[q, 1])
                        if not joined[q] and (bound < 0 or b < bound):
                            bound = b
                continue
            i = (ny - y0) * w + nx - x0
            pin = -1
            for q in range(len(pins)):
                if own[q] == c and not joined[q]:
                    pin = q
            if lev[i] >= 0 or not (pin >= 0 or _free(free, wired, tm, c, pos)):
                continue
            lev[i] = lv + 1
            deepest = max(deepest, lv + 1)
            queue[tail] = c
            tail += 1
            if pin >= 0:
                found = lv + 1
    return found, deepest + 1, bound


def _emu_tree(free, wired, tm, width, height, x0, y0, w, h, pos, pins, room):
    """One tree search as the kernel's routeTree: (status, levels, bends, cells; the
    tree so far for UNROUTED_TARGET)."""
    lev = np.empty(w * h, np.int64)
    queue = np.empty(w * h, np.int64)
    joined = np.zeros(len(pins), np.bool_)
    joined[0] = True
    tree = [int(pins[0, 1] * width + pins[0, 0])]
    levels = turns = 0
    for _ in range(len(pins) - 1):
        found, count, bound = _tree_bfs(free, wired, tm, width, height, x0, y0, w, h,
                                        pos, np.array(tree, np.int64), pins, joined, lev,
                                        queue)
        if found < 0 and bound < 0:
            return gb.UNROUTED_SOURCE, levels + count, turns, []
        if found < 0:
            # are the pins not joined enclosed in the window? (a BFS from them)
            rest = pins[~joined]
            cells = (rest[:, 1] * width + rest[:, 0]).astype(np.int64)
            _tree_bfs(free, wired, tm, width, height, x0, y0, w, h, pos, cells, pins,
                      np.ones(len(pins), np.bool_), lev, queue)
            ys, xs = np.divmod(np.flatnonzero(lev >= 0), w)    # what the BFS labelled
            if _escapes(free, wired, tm, width, height, x0, y0, w, h, pos,
                        (ys + y0) * width + xs + x0):
                return gb.ESCAPED, 0, 0, []
            return gb.UNROUTED_TARGET, levels, turns, tree
        if bound >= 0 and found >= bound:
            return gb.ESCAPED, levels, turns, []
        if len(tree) + found > room:
            return gb.ALONE, levels, turns, []
        levels += found + 1
        q = next(q for q in range(len(pins)) if not joined[q]
                 and lev[(pins[q, 1] - y0) * w + pins[q, 0] - x0] == found)
        lv = np.where(lev < 0, UNREACHED, lev).astype(np.uint32).reshape(h, w)
        path, ok = _trace(lv, pins[q, 0] - x0, pins[q, 1] - y0, _DX, _DY)
        assert ok
        turns += bends(path)
        path = path + np.array([x0, y0])
        tree += (path[:-1, 1] * width + path[:-1, 0])[::-1].tolist()
        joined[q] = True
    return gb.OK, levels, turns, tree


@numba.njit(cache=True)
def _count(free, wired, tm, width, height, roots, pos):
    n = width * height
    lev = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    for i in range(roots.size):
        lev[roots[i]] = 0
        queue[i] = roots[i]
    head, tail, deepest = 0, roots.size, 0
    while head < tail:
        v = queue[head]
        head += 1
        x, y = v % width, v // width
        for k in range(4):
            nx, ny = x + _DX[k], y + _DY[k]
            if 0 <= nx < width and 0 <= ny < height:
                c = ny * width + nx
                if lev[c] < 0 and _free(free, wired, tm, c, pos):
                    lev[c] = lev[v] + 1
                    deepest = max(deepest, lev[c])
                    queue[tail] = c
                    tail += 1
    return deepest + 1


def _apart_by_labels(free: np.ndarray, pins) -> np.ndarray:
    """Whether each two-pin net's pins (rows x0, y0, x1, y1; never free cells) are
    neither equal nor adjacent and have no free neighbours in one component of ``free``
    (scipy's labelling): the oracle of ``GridBatch.apart``."""
    label, _ = scipy.ndimage.label(free)
    h, w = free.shape

    def around(x, y):
        return {int(label[y + dy, x + dx]) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= x + dx < w and 0 <= y + dy < h and label[y + dy, x + dx] > 0}

    return np.array([abs(x0 - x1) + abs(y0 - y1) > 1
                     and not around(x0, y0) & around(x1, y1)
                     for x0, y0, x1, y1 in np.asarray(pins).reshape(-1, 4).tolist()], bool)


class EmuBatch:
    """The batched search's contract, computed on the CPU over a CPU router's problem."""

    def __init__(self, problem, margin: int = gb.MARGIN, smem_limit: int = 1 << 30):
        self.problem, self.margin, self.smem_limit = problem, margin, smem_limit
        self.shape = problem.shape
        n = problem.num_vertices
        self.time = np.full(n, gb.NO_WIRE, np.int32)
        self.wired = np.zeros(n, bool)
        self.searches = 0
        self.seen: set[int] = set()
        self.counts: list[tuple[int, int]] = []
        self.checks = 0
        self.per_count = 0                # bytes of a count (COUNT_BYTES bounds the sum)
        self.pins = np.zeros((0, 2), np.int64)
        self.trees = 0                    # tree records searched
        self.grown = 0                    # windows grown within a launch
        self.sms = 132                    # as an H100's or H200's multiprocessors

    def set_pins(self, xy):
        self.pins = np.asarray(xy, np.int64).reshape(-1, 2)

    def _free(self):
        self.problem._clear()
        return self.problem.level.ravel() != BLOCKED

    def search(self, rec, path_size):
        h, w = self.shape
        free = self._free()
        hdr = np.zeros((len(rec), gb.HDR), np.int32)
        paths = np.full(path_size, -1, np.int32)
        for b, r in enumerate(rec):
            pos, x0, y0, ww, hh, sx, sy, tx, ty, limit, off, npins, at = (int(v) for v in r[:13])
            if npins > 2:
                st, levels, turns, tree = _emu_tree(free, self.wired, self.time, w, h, x0,
                                                    y0, ww, hh, pos,
                                                    self.pins[at:at + npins], limit + 1)
                paths[off:off + len(tree)] = tree
                hdr[b, :4] = (st, levels, turns, len(tree))
                self.seen.add(st)
                self.trees += 1
                continue
            s, t = sy * w + sx, ty * w + tx
            span = abs(sx - tx) + abs(sy - ty)
            m, room = (limit - span - 1) // 2, int(r[gb.F_ROOM])
            while True:
                lev = np.empty(ww * hh, np.int64)
                queue = np.empty(ww * hh, np.int64)
                found, count, esc = _window_bfs(free, self.wired, self.time, w, h, x0, y0,
                                                ww, hh, pos, s, t, t, lev, queue)
                if found >= 0 and found <= limit:
                    lv = np.where(lev < 0, UNREACHED, lev).astype(np.uint32).reshape(hh, ww)
                    path, ok = _trace(lv, tx - x0, ty - y0, _DX, _DY)
                    assert ok
                    path = path[::-1] + np.array([x0, y0])
                    paths[off:off + len(path)] = path[:, 1] * w + path[:, 0]
                    hdr[b, :4] = (gb.OK, found + 1, bends(path), len(path))
                elif found >= 0:
                    hdr[b, :4] = (gb.GROW, found + 1, 0, 0)
                elif not esc:
                    hdr[b, :4] = (gb.UNROUTED_SOURCE, count, 0, 0)
                else:
                    _, _, esc_t = _window_bfs(free, self.wired, self.time, w, h, x0, y0, ww,
                                              hh, pos, t, s, -1, lev, queue)
                    hdr[b, :4] = (gb.ESCAPED if esc_t else gb.UNROUTED_TARGET, 0, 0, 0)
                self.seen.add(int(hdr[b, 0]))
                if hdr[b, 0] not in (gb.GROW, gb.ESCAPED):
                    break
                # the window grows in the launch where its room allows (as the kernel's)
                grow = (found - span) // 2 if hdr[b, 0] == gb.GROW else 2 * m + 16
                nx0, ny0 = max(min(sx, tx) - grow, 0), max(min(sy, ty) - grow, 0)
                nx1, ny1 = min(max(sx, tx) + grow, w - 1), min(max(sy, ty) + grow, h - 1)
                if grow > room or gb.window_bytes(ny1 - ny0 + 1, nx1 - nx0 + 1) \
                        > self.smem_limit:
                    break
                m, limit = grow, span + 2 * grow + 1
                x0, y0, ww, hh = nx0, ny0, nx1 - nx0 + 1, ny1 - ny0 + 1
                self.grown += 1
            hdr[b, gb.H_MARGIN] = m
        for b in np.flatnonzero(hdr[:, 0] == gb.OK):
            off = rec[b, gb.F_OFF]
            cells = paths[off:off + hdr[b, 3]]
            npins, at = rec[b, gb.F_NPINS], rec[b, gb.F_PINS]
            if npins > 2:           # a tree: every cell but its pins
                own = self.pins[at:at + npins]
                inner = cells[~np.isin(cells, own[:, 1] * w + own[:, 0])]
            else:
                inner = cells[1:-1]
            self.commit(inner, np.full(inner.size, rec[b, gb.F_POS]))
        self.searches += 1
        return hdr, paths

    def launch(self, rec, path_size):
        # searched at once, on the blockages as they are: as on the device, where a
        # launch runs after everything queued before it and before everything after
        return self.search(rec, path_size)

    def finish(self, token):
        return token

    def commit(self, cells, pos):
        if cells.size:
            self.problem.set_blocked(cells)
            np.minimum.at(self.time, cells, pos)     # the earliest wire names a cell
            self.wired[cells] = True

    def uncommit(self, cells, pos):
        gone = cells[self.wired[cells] & (self.time[cells] == pos)]
        if gone.size:
            self.problem.set_blocked(gone, False)
            self.wired[gone] = False
            self.time[gone] = gb.NO_WIRE

    def count_levels(self, roots, pos, start=None):
        # counted at once, on the blockages now: equal to those of its turn only if the
        # router starts a count after every earlier net is final, as it must
        h, w = self.shape
        free = self._free()
        start = np.arange(len(pos) + 1) if start is None else start
        self.counts += [(int(p), _count(free, self.wired, self.time, w, h,
                                        np.asarray(roots[start[i]:start[i + 1]], np.int64),
                                        int(p))) for i, p in enumerate(pos)]

    def apart(self, pins, turn):
        self.checks += 1
        h, w = self.shape
        free = self._free() | (self.wired & (self.time >= turn))
        return _apart_by_labels(free.reshape(h, w), pins)

    def count_bytes(self):
        return self.per_count

    def quiesce(self):
        pass

    def counted(self):
        got = np.array(self.counts, dtype=np.int64).reshape(-1, 2)
        self.counts = []
        return got[:, 0], got[:, 1]


# -- helpers ------------------------------------------------------------------------------
FIELDS = ("name", "routed", "order", "cells", "length", "bends", "levels")


def _same(a, b):
    assert a.routed == b.routed and a.wirelength == b.wirelength
    for x, y in zip(a.nets, b.nets):
        for f in FIELDS:
            assert getattr(x, f) == getattr(y, f), (x.name, f, getattr(x, f), getattr(y, f))


def _random_layout(seed: int) -> Layout:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(16, 90))
    h = int(rng.integers(12, 90))
    density = float(rng.uniform(0.05, 0.4))
    rects = random_rects(size, h, density, rng, max_side=int(rng.integers(1, 9)))
    lay = Layout(f"r{seed}", size, h, rects)
    free = int((~lay.blocked).sum())
    k = int(min(rng.integers(2, 50), free // 3))
    span = int(rng.integers(2, 40)) if rng.random() < 0.8 else None
    nets = random_nets(lay.blocked, k, 2, rng, span=span)
    if rng.random() < 0.4 and free > 3 * k + 12:       # a few multi-pin nets mixed in
        blocked = lay.blocked.copy()
        for net in nets:
            for x, y in net.pins:
                blocked[y, x] = True
        more = random_nets(blocked, int(rng.integers(1, 4)), int(rng.integers(3, 5)), rng,
                           prefix="m", span=span)
        for m in more:
            nets.insert(int(rng.integers(0, len(nets) + 1)), m)
    lay.nets = nets
    return lay


def _emu_route(lay, order="file", **kw):
    r = Router(lay, "cpu")
    r.batch = EmuBatch(r.problem, **kw)
    return r.run(order), r.batch


# -- the batched loop against the CPU router ------------------------------------------------
@pytest.mark.parametrize("seed", range(60))
def test_batched_routing_equals_sequential(seed):
    lay = _random_layout(seed)
    rng = np.random.default_rng(1000 + seed)
    order = "hpwl" if seed % 3 == 0 else "file"
    margin = int(rng.choice([0, 1, 2, 4, 16]))      # small margins force windows to grow
    limit = int(rng.choice([gb.window_bytes(6, 6), gb.window_bytes(20, 20), 1 << 30]))
    got, _ = _emu_route(lay, order, margin=margin, smem_limit=limit)    # small: routed alone
    # every wire still the array it was set from, those of nets routed alone included
    # (read as tuples, a 1000-net route's wires cost more than routing them)
    assert all(n.__dict__.get("_xy") is not None for n in got.nets if n.routed)
    _same(got, Router(lay, "cpu").run(order))


@pytest.mark.parametrize("seed", range(0, 60, 4))
def test_batched_routing_one_launch_at_a_time_equals_sequential(seed, monkeypatch):
    monkeypatch.setattr(rbat.BatchRun, "overlap", False)
    monkeypatch.setattr(rbat.BatchRun, "eager", seed % 8 == 0)    # mostly disjoint claims only
    lay = _random_layout(seed)
    margin = int(np.random.default_rng(seed).choice([0, 2, 16]))
    _same(_emu_route(lay, margin=margin)[0], Router(lay, "cpu").run())


def test_nets_in_flight_that_read_a_lifted_wire_are_redone_and_still_match(monkeypatch):
    voided = []
    redo = rbat.BatchRun._redo

    def counting(self, seeds):
        before = int(self.void.sum())
        redo(self, seeds)
        voided.append(int(self.void.sum()) - before)

    monkeypatch.setattr(rbat.BatchRun, "_redo", counting)
    for seed in range(40):
        lay = _random_layout(seed)
        _same(_emu_route(lay, margin=seed % 3)[0], Router(lay, "cpu").run())
    assert sum(voided) > 0          # the case occurred, and every route still matched


def _gave_up_or_same(got, want, m: int) -> None:
    """A run under ``max_unrouted=m`` against the whole run ``want``: None exactly when
    more than ``m`` nets stay unrouted, else the same routes."""
    if len(want.nets) - want.routed > m:
        assert got is None
    else:
        _same(got, want)


@pytest.mark.parametrize("seed", range(24))
def test_a_run_gives_up_exactly_when_more_than_max_unrouted_nets_stay_unrouted(seed):
    """``max_unrouted``: None exactly when more nets stay unrouted, the same routes
    otherwise, and no more launches than the whole run (the batched loop through
    ``EmuBatch``, and the router one net at a time)."""
    lay = _random_layout(3000 + seed)
    want = Router(lay, "cpu").run()
    lost = len(lay.nets) - want.routed
    r = Router(lay, "cpu")
    r.batch = EmuBatch(r.problem, margin=seed % 3)
    r.run()
    launches = r.batches
    for m in sorted({max(0, lost - 1), lost, lost + 1}):
        alone = Router(lay, "cpu").run(max_unrouted=m)
        r = Router(lay, "cpu")
        r.batch = EmuBatch(r.problem, margin=seed % 3)
        batched = r.run(max_unrouted=m)
        assert r.batches <= launches
        _gave_up_or_same(alone, want, m)
        _gave_up_or_same(batched, want, m)


def test_every_outcome_occurs_and_still_matches():
    seen: set[int] = set()
    for seed in range(40):
        lay = _random_layout(500 + seed)
        got, dev = _emu_route(lay, margin=seed % 3)
        seen |= dev.seen
        _same(got, Router(lay, "cpu").run())
    assert seen == {gb.OK, gb.GROW, gb.UNROUTED_SOURCE, gb.UNROUTED_TARGET, gb.ESCAPED}


def test_hand_made_cases():
    # a wall forces b around; c is boxed in (source enclosed), d's target is boxed in
    lay = parse_layout({
        "width": 20, "height": 12,
        "blockages": [[10, 0, 10, 9], [1, 9, 3, 9], [3, 10, 3, 11], [16, 2, 18, 2],
                      [16, 4, 18, 4], [16, 3, 16, 3], [18, 3, 18, 3]],
        "nets": [{"name": "a", "pins": [[0, 0], [5, 0]]},
                 {"name": "b", "pins": [[8, 2], [12, 2]]},
                 {"name": "c", "pins": [[1, 11], [6, 11]]},
                 {"name": "d", "pins": [[14, 7], [17, 3]]},
                 {"name": "e", "pins": [[0, 5], [19, 5], [9, 11]]},
                 {"name": "f", "pins": [[12, 8], [12, 10]]}]}, "hand.yaml")
    for order in ("file", "hpwl"):
        for margin in (0, 1, 3):
            got, _ = _emu_route(lay, order, margin=margin)
            _same(got, Router(lay, "cpu").run(order))


def _walled_layout(seed: int, size: int = 48) -> Layout:
    """Nets with pins anywhere: the first wires cut the grid, and most later nets are
    walled off (the case that the components check proves without a search)."""
    rng = np.random.default_rng(seed)
    lay = Layout(f"w{seed}", size, size - 8, random_rects(size, size - 8, 0.15, rng,
                                                          max_side=4))
    lay.nets = random_nets(lay.blocked, int(rng.integers(10, 40)), 2, rng)
    return lay


@pytest.mark.parametrize("seed", range(12))
def test_nets_proven_apart_without_a_search_match_sequential(seed):
    lay = _walled_layout(seed)
    # small windows: nets with pins far apart go alone, and are checked first
    limit = gb.window_bytes(*(2 * [(8, 12, 20)[seed % 3]]))
    r = Router(lay, "cpu")
    r.batch = EmuBatch(r.problem, margin=seed % 4, smem_limit=int(limit))
    r.batch.per_count = (0, gb.COUNT_BYTES // 2, gb.COUNT_BYTES + 1)[seed % 3]
    _same(r.run(), Router(lay, "cpu").run())
    assert r.batch.checks > 0 and r.proven > 0


def test_a_net_walled_off_by_an_earlier_wire_is_proven_apart_with_its_levels():
    # a's wire crosses the grid from top to bottom: b's pins lie on either side
    lay = parse_layout({"width": 30, "height": 10, "nets": [
        {"name": "a", "pins": [[15, 0], [15, 9]]}, {"name": "b", "pins": [[2, 5], [27, 4]]},
        {"name": "c", "pins": [[20, 2], [25, 7]]}]}, "wall.yaml")
    r = Router(lay, "cpu")
    r.batch = EmuBatch(r.problem, margin=1, smem_limit=int(gb.window_bytes(8, 8)))
    got = r.run()
    _same(got, Router(lay, "cpu").run())
    assert r.proven == 1 and not got.nets[1].routed and got.nets[1].levels > 0


def _tree_layout(seed: int) -> Layout:
    """Mostly nets of 3-8 pins (a few two-pin nets among them), local or anywhere: the
    corpus of the batched tree search, shared by the CPU statement and the kernel."""
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(12, 100)), int(rng.integers(12, 100))
    lay = Layout(f"t{seed}", w, h, random_rects(w, h, float(rng.uniform(0.05, 0.35)), rng,
                                                max_side=int(rng.integers(1, 9))))
    taken = lay.blocked.copy()
    nets = []
    span = int(rng.integers(3, 30)) if rng.random() < 0.7 else None
    for k in range(int(rng.integers(2, 25))):
        pins = int(rng.choice([2, 3, 4, 5, 8]))
        if int((~taken).sum()) < 3 * pins:
            break
        net = random_nets(taken, 1, pins, rng, prefix=f"n{k}_", span=span)[0]
        for x, y in net.pins:
            taken[y, x] = True
        nets.append(net)
    lay.nets = nets
    return lay


@pytest.mark.parametrize("seed", range(60))
def test_batched_trees_equal_sequential(seed):
    lay = _tree_layout(seed)
    rng = np.random.default_rng(7000 + seed)
    order = "hpwl" if seed % 3 == 0 else "file"
    margin = int(rng.choice([0, 1, 2, 4, 16]))
    limit = int(rng.choice([gb.window_bytes(8, 8), gb.window_bytes(24, 24), 1 << 30]))
    got, dev = _emu_route(lay, order, margin=margin, smem_limit=limit)
    _same(got, Router(lay, "cpu").run(order))


def test_every_tree_outcome_occurs_and_still_matches():
    seen: set[int] = set()
    trees = 0
    for seed in range(40):
        lay = _tree_layout(300 + seed)
        got, dev = _emu_route(lay, margin=seed % 3)
        seen |= dev.seen
        trees += dev.trees
        _same(got, Router(lay, "cpu").run())
    assert trees > 100
    assert {gb.OK, gb.UNROUTED_SOURCE, gb.UNROUTED_TARGET, gb.ESCAPED} <= seen


def _rooms_layout(third: tuple[int, int]) -> Layout:
    """A room (x 2..8, y 2..8, walls one cell thick) holding net t's first two pins; its
    third pin at ``third``; nets u and v, three pins each, outside."""
    walls = [[1, 1, 9, 1], [1, 9, 9, 9], [1, 1, 1, 9], [9, 1, 9, 9]]
    return parse_layout({
        "width": 30, "height": 14, "blockages": walls + [[20, 0, 20, 10]],
        "nets": [{"name": "t", "pins": [[3, 3], [7, 6], list(third)]},
                 {"name": "u", "pins": [[17, 2], [23, 2], [17, 12]]},
                 {"name": "v", "pins": [[25, 7], [28, 5], [25, 3]]}]}, "rooms.yaml")


@pytest.mark.parametrize("third", [(12, 5), (5, 5)])
@pytest.mark.parametrize("margin", [0, 1, 3, 12])
def test_hand_made_trees(third, margin):
    # third pin outside t's room: t's tree is walled in with two of its pins (levels and
    # bends of its first branch, no wire); inside: t routes. u must go round the wall
    # at x = 20 (small margins escape first); v's second and third pins lie at one
    # distance from its root (the first listed is the target)
    lay = _rooms_layout(third)
    for order in ("file", "hpwl"):
        got, dev = _emu_route(lay, order, margin=margin)
        want = Router(lay, "cpu").run(order)
        _same(got, want)
        assert dev.trees >= 3
    assert got.nets[0].routed == (third == (5, 5)) and got.nets[0].levels > 0
    assert got.nets[1].routed and got.nets[2].routed
    if third == (12, 5):
        assert got.nets[0].bends > 0 and dev.seen >= {gb.UNROUTED_SOURCE}


def _walled_tree() -> Layout:
    """A tree whose first branch is short and certified in its window; the third pin's
    room lies inside the window, and the tree's wave leaves it."""
    return parse_layout({
        "width": 100, "height": 60, "blockages": [[58, 30, 62, 30], [58, 34, 62, 34],
                                                  [58, 30, 58, 34], [62, 30, 62, 34]],
        "nets": [{"name": "a", "pins": [[50, 30], [52, 30], [60, 32]]}]}, "walled.yaml")


def _serpentine_tree() -> Layout:
    """A serpentine: the tree's last branch is far longer than its window's
    half-perimeter."""
    walls = [[0 if k % 2 else 1, y, 20 if k % 2 else 21, y]
             for k, y in enumerate(range(2, 21, 2))]
    return parse_layout({"width": 22, "height": 22, "blockages": walls, "nets": [
        {"name": "s", "pins": [[0, 0], [0, 21], [2, 0]]}]}, "serpentine.yaml")


def test_a_tree_whose_last_pin_is_walled_off_is_counted_from_its_tree():
    # the level count of the failed branch is a whole-grid wavefront from the first
    # branch's cells
    lay = _walled_tree()
    r = Router(lay, "cpu")
    r.batch = EmuBatch(r.problem, margin=2)
    got = r.run()
    _same(got, Router(lay, "cpu").run())
    assert gb.UNROUTED_TARGET in r.batch.seen and r.batch.trees == 1
    assert not got.nets[0].routed and got.nets[0].levels > 3


def test_a_tree_that_outgrows_its_room_goes_alone():
    lay = _serpentine_tree()
    r = Router(lay, "cpu")
    r.batch = EmuBatch(r.problem, margin=30)
    got = r.run()
    _same(got, Router(lay, "cpu").run())
    assert gb.ALONE in r.batch.seen and got.nets[0].routed and got.nets[0].length > 100


def test_route_layout_benchmark_matches_on_the_cpu():
    lay = route_layout(160, 120, seed=3, span=24)
    got, dev = _emu_route(lay, margin=4)
    _same(got, Router(lay, "cpu").run())
    assert dev.searches < 60
