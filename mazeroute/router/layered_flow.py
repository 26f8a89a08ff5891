"""Sequential routing of a layer stack with many nets' searches in one launch, giving
the routes of routing them one at a time in order.

Each net searches in a *claim*: a window around its pins that proves its searches the
grid's (:mod:`.layered_search`) when they stay inside it. A net's searches then read
only the cells of its claim, and of those only the wires of the nets before it in the
order (the device's board is kept in routing ranks, and a search reads later ranks'
wires as free). So a net may route as soon as the nets before it whose claims overlap
its own are done: each round launches every such net together.

What a done net read can still change: a net before it whose search outgrew its claim
may commit a wire into it, or a net before it may be ripped up. Either is caught at that
commit or rip-up (a done net whose claim holds a changed cell of an earlier net's wire
goes back to be routed again, its wire ripped up, which may send back later nets in
turn), so that when the last net is done each net's routes were searched on what the
one-at-a-time order shows it. The lowest-ranked net not done is never held back, so
every round finishes at least one more net of the order for good.

Examples
--------
>>> overlapping_pairs(np.array([[0, 0, 4, 4], [2, 2, 6, 6], [5, 1, 8, 3]])).tolist()
[[0, 1], [1, 2]]
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from .layered_search import CPUTrees, GPUTrees, overlap, search_margin, window
from .layered_tree import Tree

__all__ = ["SequentialFlow", "SerialFlow", "make_flow", "overlapping_pairs"]

#: Side of the tiles that bucket claims when their overlaps are listed, in cells.
_TILE = 64

_PENDING, _DONE = 0, 1


def overlapping_pairs(boxes: np.ndarray) -> np.ndarray:
    """Every pair ``[a, b]`` (``a < b``) of ``boxes`` ``x0, y0, x1, y1`` (ends excluded)
    that overlap, sorted, found through the tiles each box covers.

    Parameters
    ----------
    boxes : (n, 4) int array

    Returns
    -------
    (m, 2) int64 array
    """
    boxes = np.asarray(boxes, np.int64).reshape(-1, 4)
    tiles: dict[tuple[int, int], list[int]] = {}
    lo, hi = boxes[:, :2] // _TILE, (boxes[:, 2:] - 1) // _TILE
    for k in range(len(boxes)):
        for ty in range(lo[k, 1], hi[k, 1] + 1):
            for tx in range(lo[k, 0], hi[k, 0] + 1):
                tiles.setdefault((tx, ty), []).append(k)
    found = []
    for members in tiles.values():
        if len(members) < 2:
            continue
        m = np.array(members)
        a, b = np.triu_indices(len(m), 1)
        a, b = m[a], m[b]
        hit = overlap(boxes[a], boxes[b])
        found.append(np.stack([a[hit], b[hit]], axis=1))
    if not found:
        return np.zeros((0, 2), np.int64)
    return np.unique(np.concatenate(found), axis=0)


class SequentialFlow:
    """The rounds of :mod:`this module <.layered_flow>` over one board.

    Parameters
    ----------
    trees : GPUTrees
        The device's searches; its ranks are set to ``sequence``.
    sequence : list of int
        The nets in routing order.
    margin : int, optional
        Every first claim's margin around its pins; default each net's
        :func:`~.layered_search.search_margin` (tighter claims put more nets in a round
        and send more back).
    """

    def __init__(self, trees: GPUTrees, sequence: list[int], margin: int | None = None):
        self.trees, self.board = trees, trees.board
        trees.rank_by(sequence)
        self.seq = np.asarray(sequence, np.int64)
        n = len(self.seq)
        b = self.board
        self.margin = np.array([max(1, margin) if margin is not None else
                                search_margin(b.pins[i], b.rules.via_cost)
                                for i in self.seq], np.int64)
        self.claim = np.array([window(b.pins[i], b.shape, int(m))
                               for i, m in zip(self.seq, self.margin)], np.int64)
        self.claim = self.claim.reshape(n, 4)
        self.pairs = overlapping_pairs(self.claim)
        self.state = np.full(n, _PENDING, np.int8)
        self.tree: list[Tree | None] = [None] * n
        self.seconds = np.zeros(n)
        self.rounds = 0
        self.resent = 0                  # nets sent back to be routed again
        self._inflight: set[int] = set()  # this round's positions not yet taken

    def ready(self) -> np.ndarray:
        """The positions not done that no earlier position not done overlaps."""
        pending = self.state == _PENDING
        a, b = self.pairs[:, 0], self.pairs[:, 1]
        held = np.zeros(len(pending), bool)
        held[b[pending[a] & pending[b]]] = True
        return np.flatnonzero(pending & ~held)

    def run(self, final: Callable[[int], None] | None = None) -> list[Tree | None]:
        """Route every net; ``final(p)`` once position ``p``'s route is final, in order.
        Returns each position's tree."""
        told = 0
        while (self.state == _PENDING).any():
            t0 = time.perf_counter()
            ready = self.ready()
            nets = self.seq[ready].tolist()
            grown = self.trees.grow_many(nets, boxes=self.claim[ready])
            self._inflight = set(ready.tolist())
            outgrown = []
            for p, tree in zip(ready.tolist(), grown):
                if p not in self._inflight:       # sent back while in flight: searched stale
                    continue
                self._inflight.discard(p)
                if tree is None:
                    outgrown.append(p)
                else:
                    self._done(p, tree)
            self._outgrown(np.array(outgrown, np.int64))
            self.rounds += 1
            self.seconds[ready] += (time.perf_counter() - t0) / len(ready)
            pending = np.flatnonzero(self.state == _PENDING)
            upto = int(pending[0]) if len(pending) else len(self.seq)
            if final is not None:
                for p in range(told, upto):
                    final(p)
            told = upto
        return self.tree

    def _outgrown(self, grown: np.ndarray) -> None:
        """The claims of positions ``grown`` proved a search nothing: double their
        margins, and list their claims' overlaps again."""
        if not len(grown):
            return
        b = self.board
        self.margin[grown] *= 2
        for p in grown.tolist():
            self.claim[p] = window(b.pins[self.seq[p]], b.shape, int(self.margin[p]))
        moved = np.zeros(len(self.seq), bool)
        moved[grown] = True
        keep = ~moved[self.pairs[:, 0]] & ~moved[self.pairs[:, 1]]
        at, other = np.nonzero(overlap(self.claim[grown][:, None, :], self.claim[None]))
        p, q = grown[at], other
        once = (p != q) & (~moved[q] | (p < q))      # a pair of two moved claims once
        new = np.stack([np.minimum(p, q), np.maximum(p, q)], axis=1)[once]
        self.pairs = np.concatenate([self.pairs[keep], new])

    def _done(self, p: int, tree: Tree) -> None:
        """Position ``p`` routed as ``tree``: send back what its wire changes, then
        commit it."""
        i = int(self.seq[p])
        if tree.routed:
            self._send_back(p, tree.cells)
            self.trees.commit(i, tree.cells)
        self.tree[p] = tree
        self.state[p] = _DONE

    def _send_back(self, p: int, cells: np.ndarray) -> None:
        """The done positions after ``p`` whose claims hold any of ``cells`` read them
        otherwise: rip them up and route them again, and so on for their wires."""
        todo = [(p, cells)]
        while todo:
            q, changed = todo.pop()
            lo, hi = changed[:, :2].min(axis=0), changed[:, :2].max(axis=0) + 1
            box = np.array([lo[0], lo[1], hi[0], hi[1]])
            read = self.state == _DONE
            read[list(self._inflight)] = True
            read[:q + 1] = False
            near = np.flatnonzero(read & overlap(self.claim, box))
            for r in near.tolist():
                c = self.claim[r]
                inside = ((changed[:, 0] >= c[0]) & (changed[:, 0] < c[2])
                          & (changed[:, 1] >= c[1]) & (changed[:, 1] < c[3]))
                if not inside.any():
                    continue
                self.resent += 1
                if r in self._inflight:           # its search read the old cells: redo it
                    self._inflight.discard(r)
                    continue
                old = self.tree[r]
                self.state[r], self.tree[r] = _PENDING, None
                if old is not None and old.routed:
                    self.trees.uncommit(int(self.seq[r]), old.cells)
                    todo.append((r, old.cells))


class SerialFlow:
    """One net at a time in order (the CPU's searches): :class:`SequentialFlow`'s
    interface.

    Parameters
    ----------
    trees : CPUTrees
        The searches.
    sequence : list of int
        The nets in routing order.
    """

    def __init__(self, trees: CPUTrees, sequence: list[int]):
        self.trees, self.seq = trees, list(sequence)
        self.tree: list[Tree | None] = [None] * len(self.seq)
        self.seconds = np.zeros(len(self.seq))

    def run(self, final: Callable[[int], None] | None = None) -> list[Tree | None]:
        """As :meth:`SequentialFlow.run`."""
        for p, i in enumerate(self.seq):
            t0 = time.perf_counter()
            tree = self.trees.grow(i)
            if tree.routed:
                self.trees.commit(i, tree.cells)
            self.tree[p] = tree
            self.seconds[p] = time.perf_counter() - t0
            if final is not None:
                final(p)
        return self.tree


def make_flow(trees: CPUTrees | GPUTrees, sequence: list[int]) -> SerialFlow | SequentialFlow:
    """The sequential order's flow on ``trees``' backend: many nets a launch on the
    GPU, one at a time on the CPU."""
    return SequentialFlow(trees, sequence) if trees.backend == "gpu" else \
        SerialFlow(trees, sequence)
