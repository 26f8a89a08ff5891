"""What four changes to the batched kernel's window searches could save, counted in BFS
levels on the CPU (the routing goals for ``local1000`` and ``maze2pct``; no GPU needed).

``kernels/route_batch.cu`` searches a two-pin net in a window around its pins. A search
whose target lies beyond the window's level limit (``GROW``), or that cannot reach it
inside the window while its wave leaves it (``ESCAPED``), is run again from level 0 in a
wider window; one whose source's wave leaves the window while the target's cannot
(``UNROUTED_TARGET``) runs both waves to their ends. On the GPU a level costs about the
same whatever its frontier, so the levels a search runs are its time, and the launches'
tail is made of the searches run again and the walled-off targets (``git show
493ac8c:benchmarks/h200/v39-slow-blocks.log``).

The probe replays every two-pin net of a routing case in routing order, on the grid as of
its turn (every pin blocked, the earlier nets' wires of the CPU router blocked, its own
pins free), through the host's window sequence: margin 12, ``GROW`` to ``(T - span) / 2``,
``ESCAPED`` to ``2 m + 16``, until the window holds the grid. Counted:

``bound``
    A two-pin net accepts its target's level ``T`` when ``T < B``, the bound the tree
    searches use (``B``: the least ``L + 1 + |o - t|`` over labelled cells on level ``L``
    beside a free cell ``o`` outside), not only when ``T`` is within the window's limit.
    Levels saved: the searches it spares.
``pocket K``
    Before its source's wave, a search runs its target's wave for up to ``K`` levels; if
    that wave dies inside the window without the source, the net is ``UNROUTED_TARGET``
    at once. Saved: the source waves of the nets it proves; cost: up to ``K`` levels on
    every other search.
``continue``
    A search run again keeps the levels its last window proved, every level up to the
    first one whose wave left that window, plus one, and goes on from there. Saved: those
    levels of every search run again.
``first margin Q``
    Each net starts from the ``Q`` quantile of the margins that the nets routed before
    it needed (at least 12), as if each need were known when the net before it was done.
    Counted: searches, levels, and levels times window words (a level of a wider window
    costs more). The router's form of it, learning from each launch's results, was
    measured on an H200 and not kept (RESULTS.md, "Where the batched searches' levels
    go").

Run from the repository root: ``python benchmarks/window_search_probe.py [CASE ...]
[--seeds N]`` (default: the suite's two-pin cases ``local1000_span64_1024``,
``maze2pct_span200_1023``, ``maze20pct_span100_1023``; seeds 0-2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from mazeroute.bench import ROUTING_CASES  # noqa: E402
from mazeroute.engines import UNREACHED  # noqa: E402
from mazeroute.engines.cpu import bfs_on_mask  # noqa: E402
from mazeroute.router import Router  # noqa: E402

MARGIN = 12
POCKETS = (16, 32, 64)
QUANTILES = (0.5, 0.75, 0.9)
def _wave(free, x0, y0, x1, y1, sx, sy, tx, ty, stop_at_target, other_x, other_y):
    """The CPU engine's BFS (:func:`bfs_on_mask`) in the window from (sx, sy). Returns
    (T or -1, levels run, escaped, B, first level whose wave touched a free cell outside,
    reached (other_x, other_y))."""
    win = free[y0:y1 + 1, x0:x1 + 1]
    hh, ww = win.shape
    level = np.full(hh * ww, UNREACHED, np.uint32)
    is_target = np.zeros(hh * ww, bool)
    if stop_at_target:
        is_target[(ty - y0) * ww + tx - x0] = True
    bfs_on_mask(win.ravel().copy(), ww, hh, level, np.empty(hh * ww, np.int32),
                np.array([(sy - y0) * ww + sx - x0]), is_target)
    lv = level.reshape(hh, ww)
    rows, cols = np.arange(y0, y1 + 1), np.arange(x0, x1 + 1)
    # each side of the window: its labelled cells, and the free cells just outside
    sides = [(lv[:, 0], np.full(hh, x0 - 1), rows, x0 > 0),
             (lv[:, -1], np.full(hh, x1 + 1), rows, x1 < free.shape[1] - 1),
             (lv[0], cols, np.full(ww, y0 - 1), y0 > 0),
             (lv[-1], cols, np.full(ww, y1 + 1), y1 < free.shape[0] - 1)]
    first = bound = 1 << 30
    for inner, ox, oy, inside in sides:
        if not inside:
            continue
        out = (inner != UNREACHED) & free[oy, ox]
        if out.any():
            at = inner[out].astype(np.int64)
            first = min(first, int(at.min()))
            bound = min(bound, int((at + 1 + np.abs(ox[out] - tx)
                                    + np.abs(oy[out] - ty)).min()))
    labelled = lv[lv != UNREACHED]
    reached = 0 <= other_x and lv[other_y - y0, other_x - x0] != UNREACHED
    found = stop_at_target and lv[ty - y0, tx - x0] != UNREACHED
    T = int(lv[ty - y0, tx - x0]) if found else -1
    return T, T if found else int(labelled.max()), first < (1 << 30), bound, first, reached


def _searches(free, sx, sy, tx, ty, use_bound, m=MARGIN):
    """The window sequence of one net from margin ``m``: a list of (kind, levels, first
    escape level, window words) and the final status."""
    h, w = free.shape
    span = abs(sx - tx) + abs(sy - ty)
    out = []
    while True:
        x0, x1 = max(min(sx, tx) - m, 0), min(max(sx, tx) + m, w - 1)
        y0, y1 = max(min(sy, ty) - m, 0), min(max(sy, ty) + m, h - 1)
        whole = x0 == 0 and y0 == 0 and x1 == w - 1 and y1 == h - 1
        limit = span + 2 * m + 1
        words = (y1 - y0 + 1) * ((x1 - x0 + 64) // 64)
        T, run, escaped, bound, first, _ = _wave(free, x0, y0, x1, y1, sx, sy, tx, ty,
                                                 True, -1, -1)
        if T >= 0:
            if T <= limit or whole or (use_bound and T < bound):
                out.append(("ok", run, first, words, T))
                return out, "ok"
            out.append(("grow", run, first, words))
            m = (T - span) // 2
            continue
        if not escaped:
            out.append(("unrouted_source", run, first, words))
            return out, "unrouted_source"
        _, more, t_escaped, *_ = _wave(free, x0, y0, x1, y1, tx, ty, -1, -1, False, -1, -1)
        if not t_escaped:
            out.append(("unrouted_target", run, first, words))
            return out, "unrouted_target"
        out.append(("escaped", run + more, first, words))
        m = 2 * m + 16


def _pocket_levels(free, sx, sy, tx, ty, m):
    """Levels of the target's wave in the first window (margin m) and whether it died
    inside without the source."""
    h, w = free.shape
    x0, x1 = max(min(sx, tx) - m, 0), min(max(sx, tx) + m, w - 1)
    y0, y1 = max(min(sy, ty) - m, 0), min(max(sy, ty) + m, h - 1)
    _, run, escaped, _, _, reached = _wave(free, x0, y0, x1, y1, tx, ty, -1, -1, False,
                                           sx, sy)
    return run, not escaped and not reached


def measure(case, seed: int) -> dict:
    lay = case.layout(seed)
    routes = Router(lay, "cpu").run().nets
    free = ~lay.blocked.copy()
    for net in lay.nets:
        for x, y in net.pins:
            free[y, x] = False
    tot = dict(nets=0, searches=0, again=0, levels=0, again_levels=0, bound_saved=0,
               continue_saved=0, unrouted_target=0)
    needed: list[int] = []          # the margin each routed net's search needed
    for q in QUANTILES:
        tot[f"q{q}_searches"] = tot[f"q{q}_levels"] = tot[f"q{q}_work"] = 0
    tot["work"] = 0
    for k in POCKETS:
        tot[f"pocket{k}_proved"] = tot[f"pocket{k}_saved"] = tot[f"pocket{k}_cost"] = 0
    for net, route in zip(lay.nets, routes):
        if len(net.pins) == 2:
            (sx, sy), (tx, ty) = net.pins
            free[sy, sx] = free[ty, tx] = True
            old, status = _searches(free, sx, sy, tx, ty, False)
            new, _ = _searches(free, sx, sy, tx, ty, True)
            levels = [s[1] for s in old]
            tot["nets"] += 1
            tot["searches"] += len(old)
            tot["again"] += len(old) - 1
            tot["levels"] += sum(levels)
            tot["again_levels"] += sum(levels[1:])
            tot["bound_saved"] += sum(levels) - sum(s[1] for s in new)
            for prev, cur in zip(old, old[1:]):
                if prev[2] < (1 << 30):
                    tot["continue_saved"] += min(prev[2] + 1, cur[1])
            tot["unrouted_target"] += status == "unrouted_target"
            tot["work"] += sum(x[1] * x[3] for x in old)
            for q in QUANTILES:
                m0 = max(MARGIN, int(np.quantile(needed, q))) if needed else MARGIN
                ada, _ = _searches(free, sx, sy, tx, ty, False, m0)
                tot[f"q{q}_searches"] += len(ada)
                tot[f"q{q}_levels"] += sum(x[1] for x in ada)
                tot[f"q{q}_work"] += sum(x[1] * x[3] for x in ada)
            if status == "ok":
                span = abs(sx - tx) + abs(sy - ty)
                needed.append(max(0, -(-(old[-1][4] - span - 1) // 2)))
            run, pocket = _pocket_levels(free, sx, sy, tx, ty, MARGIN)
            for k in POCKETS:
                if status == "unrouted_target" and pocket and run <= k and len(old) == 1:
                    tot[f"pocket{k}_proved"] += 1
                    tot[f"pocket{k}_saved"] += old[-1][1]   # the source's wave
                else:
                    tot[f"pocket{k}_cost"] += len(old) * k
            free[sy, sx] = free[ty, tx] = False
        if route.routed:
            for x, y in route.cells:
                free[y, x] = False
    return tot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", default=["local1000_span64_1024",
                                                 "maze2pct_span200_1023",
                                                 "maze20pct_span100_1023"])
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    cases = {c.name: c for c in ROUTING_CASES}
    print("| case | seed | nets | searches (run again) | levels (of searches run again) "
          "| bound saves | continue saves | UNROUTED_TARGET | "
          + " | ".join(f"pocket {k}: proved, saves, costs" for k in POCKETS) + " |")
    print("|---|---:|---:|---|---|---:|---:|---:|" + "---|" * len(POCKETS))
    for name in a.cases:
        for seed in range(a.seeds):
            t = measure(cases[name], seed)
            lv = t["levels"]
            pockets = " | ".join(
                f"{t[f'pocket{k}_proved']}, {t[f'pocket{k}_saved']}, {t[f'pocket{k}_cost']}"
                for k in POCKETS)
            print(f"| `{name}` | {seed} | {t['nets']} | {t['searches']} ({t['again']}) | "
                  f"{lv} ({t['again_levels']}, {t['again_levels'] / lv:.0%}) | "
                  f"{t['bound_saved']} ({t['bound_saved'] / lv:.1%}) | "
                  f"{t['continue_saved']} ({t['continue_saved'] / lv:.1%}) | "
                  f"{t['unrouted_target']} | {pockets} |", flush=True)
            print("  first margin from the nets routed so far (quantile: searches, levels, "
                  "levels x window words, each against margin 12):",
                  f"12: {t['searches']}, {lv}, {t['work']};",
                  "; ".join(f"q{q}: {t[f'q{q}_searches']}, {t[f'q{q}_levels'] / lv:.3f}, "
                            f"{t[f'q{q}_work'] / t['work']:.3f}" for q in QUANTILES),
                  flush=True)


if __name__ == "__main__":
    main()
