"""How many dependent rounds exact sequential routing needs, and what other schedules of
the batched router would take (issue 14's 20x for ``local1000``; dev VM, no GPU).

Two measurements on the routing suite's two-pin cases (``mazeroute bench --suite
classes``), each checked against the CPU router's routes:

``--chain``
    The true dependency chain of sequential routing: net ``j`` depends on an earlier net
    ``i`` when lifting ``i``'s wire alone changes ``j``'s result (target level, wire, or
    routed at all; the candidates are the wires beside a cell ``j``'s search labelled
    below its target's level). Prints the deepest chain and the BFS levels summed along
    the deepest-levelled chain: the work no exact router can run side by side.

``--simulate MODE``
    Round by round, the schedule that the batched kernel would run if claims of one
    launch could overlap: every net waiting (up to the first whose window does not fit a
    block's shared memory) is searched in its window on the grid as the round starts, as
    of its own turn (later nets' wires read free), margin 12, ``ESCAPED`` growing to
    ``K m + 16`` (``--growth K``), ``GROW`` to ``(T - M) / 2``. Then, in routing order, a
    net's result is kept or redone:

    * ``optimistic``: an OK net whose wire crosses an earlier wire kept this round is
      redone; one whose wire crosses a later net's kept wire lifts that net; a lifted
      wire redoes every later kept net whose ellipse ``|c - s| + |c - t| <= T + 1``
      (its window, if unrouted) holds a lifted cell, including this round's nets not yet
      checked (their search read the wire). Exact: added blockages off a net's wire
      change neither its level nor its backtrace, and lifted cells outside its ellipse
      cannot shorten it;
    * ``conservative``: as optimistic, and an OK net is kept only if no earlier net not
      kept this round has a claim reaching its ellipse.

    ``--oracle`` starts every net with the margin its CPU route needs (a bound: no
    growth rounds). Prints rounds (launches), searches, and the sum over rounds of the
    round's largest search in cells visited. ``--current`` prints the batched router's
    own launch count for the same layouts (its CPU statement, ``tests/test_router_batch``'s
    ``EmuBatch``).

Run from the repository root: ``python benchmarks/schedule_probe.py CASE ...
[--chain] [--simulate optimistic|conservative] [--growth K] [--oracle] [--current]
[--seeds N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from mazeroute.backtrace import backtrace  # noqa: E402
from mazeroute.bench import ROUTING_CASES  # noqa: E402
from mazeroute.engines import UNREACHED  # noqa: E402
from mazeroute.engines.cpu import bfs_on_mask  # noqa: E402
from mazeroute.engines.gpu_batch import window_bytes  # noqa: E402
from mazeroute.router import Router  # noqa: E402

SMEM = 220_000          # shared memory a block may use, bytes (H100/H200: 227 KiB)


def _pins(lay) -> np.ndarray:
    return np.array([[n.pins[0][0], n.pins[0][1], n.pins[1][0], n.pins[1][1]]
                     for n in lay.nets], np.int64)


def _bfs(free2d: np.ndarray, s: tuple[int, int], t: tuple[int, int]):
    """Levels (2-D, UNREACHED where not labelled) of a BFS from ``s`` that stops after
    the level of ``t``, and the number of cells it labelled."""
    hh, ww = free2d.shape
    level = np.full(hh * ww, UNREACHED, np.uint32)
    queue = np.empty(hh * ww, np.int64)
    is_t = np.zeros(hh * ww, bool)
    is_t[t[1] * ww + t[0]] = True
    tail = bfs_on_mask(free2d.ravel().copy(), ww, hh, level, queue,
                       np.array([s[1] * ww + s[0]]), is_t)
    return level.reshape(hh, ww), tail


def chain(lay) -> tuple[int, int, int, float]:
    """Routed nets, deepest dependency chain, levels along the deepest-levelled chain,
    true dependencies per net."""
    h, w = lay.height, lay.width
    P = _pins(lay)
    blocked = lay.blocked.copy()
    blocked[P[:, 1], P[:, 0]] = blocked[P[:, 3], P[:, 2]] = True
    owner = np.full((h, w), -1, np.int64)
    wires: list[np.ndarray] = []

    def search(j):
        sx, sy, tx, ty = P[j]
        free = ~blocked
        free[sy, sx] = free[ty, tx] = True
        lv, _ = _bfs(free, (sx, sy), (tx, ty))
        T = int(lv[ty, tx]) if lv[ty, tx] != UNREACHED else -1
        path = backtrace(lv, (int(tx), int(ty))) if T >= 0 else None
        return T, path, lv

    n = len(P)
    depth = np.zeros(n, np.int64)
    levels = np.zeros(n, np.int64)
    deps_total = routed = 0
    for j in range(n):
        T, path, lv = search(j)
        inner = (lv != UNREACHED) & ((lv < T) if T >= 0 else True)
        near = np.zeros_like(inner)
        near[1:] |= inner[:-1]
        near[:-1] |= inner[1:]
        near[:, 1:] |= inner[:, :-1]
        near[:, :-1] |= inner[:, 1:]
        deps = []
        for i in np.unique(owner[near & (owner >= 0)]):
            blocked[wires[i][:, 1], wires[i][:, 0]] = False
            T2, p2, _ = search(j)
            blocked[wires[i][:, 1], wires[i][:, 0]] = True
            if T2 != T or (T >= 0 and not np.array_equal(p2, path)):
                deps.append(i)
        deps_total += len(deps)
        depth[j] = 1 + max((depth[i] for i in deps), default=0)
        levels[j] = (T + 1 if T >= 0 else 0) + max((levels[i] for i in deps), default=0)
        cells = path[1:-1] if T >= 0 else np.zeros((0, 2), np.int64)
        routed += T >= 0
        owner[cells[:, 1], cells[:, 0]] = j
        blocked[cells[:, 1], cells[:, 0]] = True
        wires.append(cells)
    return routed, int(depth.max()), int(levels.max()), deps_total / max(n, 1)


def simulate(lay, mode: str, growth: int = 2, margins: np.ndarray | None = None):
    """Rounds, searches, the sum of each round's largest search (cells visited), the nets
    searched alone on the whole grid, and the wires (``(k, 2)`` root first, or None) by
    net."""
    h, w = lay.height, lay.width
    P = _pins(lay)
    n = len(P)
    base = lay.blocked.copy()
    base[P[:, 1], P[:, 0]] = base[P[:, 3], P[:, 2]] = True
    M = np.abs(P[:, 0] - P[:, 2]) + np.abs(P[:, 1] - P[:, 3])
    margin = np.full(n, 12, np.int64) if margins is None else np.maximum(12, margins)
    owner = np.full((h, w), -1, np.int64)
    state = np.zeros(n, np.int8)       # 0 waiting, 1 kept, 2 kept unrouted, 3 final alone
    res: dict[int, tuple] = {}         # net: (status, T, wire, window)
    lifted: list[tuple[np.ndarray, int]] = []
    rounds = searches = largest = alone = 0

    def window(j):
        m = margin[j]
        return (max(min(P[j, 0], P[j, 2]) - m, 0), max(min(P[j, 1], P[j, 3]) - m, 0),
                min(max(P[j, 0], P[j, 2]) + m, w - 1), min(max(P[j, 1], P[j, 3]) + m, h - 1))

    def search(j, grid_owner, win):
        x0, y0, x1, y1 = win
        gfree = ~(base | ((grid_owner >= 0) & (grid_owner < j)))
        sx, sy, tx, ty = P[j]
        gfree[sy, sx] = gfree[ty, tx] = True
        lv, cost = _bfs(gfree[y0:y1 + 1, x0:x1 + 1], (sx - x0, sy - y0), (tx - x0, ty - y0))
        T = lv[ty - y0, tx - x0]
        if T != UNREACHED:
            return "OK", int(T), backtrace(lv, (int(tx - x0), int(ty - y0))) + [x0, y0], cost
        lab = lv != UNREACHED
        out = ((x0 > 0 and (lab[:, 0] & gfree[y0:y1 + 1, x0 - 1]).any())
               or (x1 < w - 1 and (lab[:, -1] & gfree[y0:y1 + 1, x1 + 1]).any())
               or (y0 > 0 and (lab[0] & gfree[y0 - 1, x0:x1 + 1]).any())
               or (y1 < h - 1 and (lab[-1] & gfree[y1 + 1, x0:x1 + 1]).any()))
        return ("ESCAPED" if out else "UNROUTED"), -1, None, cost

    def reads(j, T, win, cells):
        """Whether lifting ``cells`` may change net j's result."""
        if T >= 0:
            sx, sy, tx, ty = P[j]
            d = (np.abs(cells[:, 0] - sx) + np.abs(cells[:, 1] - sy)
                 + np.abs(cells[:, 0] - tx) + np.abs(cells[:, 1] - ty))
            return bool((d <= T + 1).any())
        x0, y0, x1, y1 = win
        return bool(((cells[:, 0] >= x0 - 1) & (cells[:, 0] <= x1 + 1)
                     & (cells[:, 1] >= y0 - 1) & (cells[:, 1] <= y1 + 1)).any())

    def undo(qs):
        stack = list(qs)
        while stack:
            q = stack.pop()
            if state[q] == 0:
                continue
            st, T, wire, win = res.pop(q)
            state[q] = 0
            if wire is None:
                continue
            inner = wire[1:-1]
            mine = owner[inner[:, 1], inner[:, 0]] == q
            owner[inner[mine, 1], inner[mine, 0]] = -1
            lifted.append((inner, q))
            for r in np.flatnonzero(state[q + 1:] > 0) + q + 1:
                if state[r] != 3 and reads(r, res[r][1], res[r][3], inner):
                    stack.append(r)

    def keep(j, st, T, wire, win, final=False):
        if wire is not None:
            inner = wire[1:-1]
            own = owner[inner[:, 1], inner[:, 0]]
            undo(np.unique(own[own > j]))
            owner[inner[:, 1], inner[:, 0]] = j
        res[j] = (st, T, wire, win)
        state[j] = 3 if final else (1 if wire is not None else 2)

    while (state == 0).any():
        todo = np.flatnonzero(state == 0)
        batch = []
        for j in todo:
            x0, y0, x1, y1 = window(j)
            if window_bytes(y1 - y0 + 1, x1 - x0 + 1) > SMEM:
                break
            batch.append(j)
        if not batch:                  # the first waiting net alone, on the whole grid
            j = todo[0]
            st, T, wire, _ = search(j, owner, (0, 0, w - 1, h - 1))
            searches += 1
            alone += 1
            keep(j, st, T, wire, (0, 0, w - 1, h - 1), final=True)
            continue
        rounds += 1
        lifted.clear()
        snapshot = owner.copy()
        found = {}
        most = 0
        for j in batch:
            win = window(j)
            st, T, wire, cost = search(j, snapshot, win)
            found[j] = (st, T, wire, win)
            most = max(most, cost)
        searches += len(batch)
        largest += most
        waiting: list[tuple[int, int, int, int]] = []    # claims of earlier nets not kept

        def claim(j):
            x0, y0, x1, y1 = window(j)
            return (x0 - 1, y0 - 1, x1 + 1, y1 + 1)

        def behind(j, T, waiting):
            if not waiting:
                return False
            r = np.array(waiting)
            bound = np.zeros(len(r), np.int64)
            for px, py in ((P[j, 0], P[j, 1]), (P[j, 2], P[j, 3])):
                bound += (np.maximum(0, np.maximum(r[:, 0] - px, px - r[:, 2]))
                          + np.maximum(0, np.maximum(r[:, 1] - py, py - r[:, 3])))
            return bool((bound <= T + 1).any())

        for j in batch:
            st, T, wire, win = found[j]
            if st in ("OK", "UNROUTED") and any(q < j and reads(j, T, win, c)
                                                for c, q in lifted):
                waiting.append(claim(j))
                continue
            if st == "OK" and T > M[j] + 2 * margin[j] + 1:
                margin[j] = (T - M[j]) // 2
                waiting.append(claim(j))
                continue
            if st == "ESCAPED":
                margin[j] = growth * margin[j] + 16
                waiting.append(claim(j))
                continue
            if st == "OK":
                inner = wire[1:-1]
                own = owner[inner[:, 1], inner[:, 0]]
                if ((own >= 0) & (own < j)).any() or (mode == "conservative"
                                                      and behind(j, T, waiting)):
                    waiting.append(claim(j))
                    continue
            keep(j, st, T, wire, win)
    wires = [res[j][2] if res[j][0] == "OK" else None for j in range(n)]
    return rounds, searches, largest, alone, wires


def _same(wires, ref) -> bool:
    return all((wire is None) == (not r.routed)
               and (wire is None or np.array_equal(wire[::-1], r.cell_array()))
               for wire, r in zip(wires, ref.nets))


def _current(lay) -> tuple[int, int]:
    """The batched router's launches and nets it routed alone (through its CPU
    statement)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_router_batch import EmuBatch
    router = Router(lay, "cpu")
    router.batch = EmuBatch(router.problem, smem_limit=SMEM)
    calls = 0
    route_net = router._route_net

    def counted(index):
        nonlocal calls
        calls += 1
        return route_net(index)

    router._route_net = counted
    router.run()
    return router.batches, calls


def main() -> None:
    ap = argparse.ArgumentParser()
    cases = {c.name: c for c in ROUTING_CASES if c.pins == 2}
    ap.add_argument("cases", nargs="+", choices=sorted(cases))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--chain", action="store_true")
    ap.add_argument("--simulate", choices=["optimistic", "conservative"], default=None)
    ap.add_argument("--growth", type=int, default=2)
    ap.add_argument("--oracle", action="store_true")
    ap.add_argument("--current", action="store_true")
    args = ap.parse_args()
    for name in args.cases:
        for seed in range(args.seeds):
            lay = cases[name].layout(seed)
            ref = Router(lay, "cpu").run()
            head = f"{name} seed {seed}:"
            if args.chain:
                t0 = time.perf_counter()
                routed, depth, levels, per = chain(lay)
                print(f"{head} chain: routed {routed} of {len(lay.nets)}, deepest {depth}, "
                      f"levels on the deepest-levelled chain {levels}, true dependencies a "
                      f"net {per:.2f} ({time.perf_counter() - t0:.0f} s)", flush=True)
            if args.current:
                launches, alone = _current(lay)
                print(f"{head} batched router's launches {launches}, nets alone {alone}",
                      flush=True)
            if args.simulate:
                margins = None
                if args.oracle:
                    P = _pins(lay)
                    span = np.abs(P[:, 0] - P[:, 2]) + np.abs(P[:, 1] - P[:, 3])
                    margins = np.array([(r.length - m) // 2 + 1 if r.routed else 12
                                        for r, m in zip(ref.nets, span)])
                rounds, searches, largest, alone, wires = simulate(lay, args.simulate,
                                                            args.growth, margins)
                print(f"{head} {args.simulate} (growth {args.growth}"
                      f"{', oracle margins' if args.oracle else ''}): rounds {rounds}, "
                      f"searches {searches} ({alone} alone), largest searches summed "
                      f"{largest} cells, "
                      f"same routes as the CPU router: {_same(wires, ref)}", flush=True)


if __name__ == "__main__":
    main()
