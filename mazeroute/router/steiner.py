"""Rectilinear Steiner trees of many nets at once: a minimum spanning tree of each net's
points under the Manhattan distance (Prim's), improved by Steiner points.

The improvement is the edge-pair rule of Borah, Owens and Irwin (IEEE TCAD 1994): two
tree edges ``(u, a)`` and ``(u, b)`` that meet at ``u`` are replaced by three edges
meeting at the median point ``s`` of ``u``, ``a`` and ``b`` when that shortens the tree;
the pair that gains most is taken first, until no pair gains. The result is a tree whose
length is at most the spanning tree's, every new point on the Hanan grid of the net.

No package on PyPI ships a maintained rectilinear Steiner construction (FLUTE's tables
come with OpenROAD's C++ only), so this one is written here, compiled by Numba: it runs
once per net, before any search.

Examples
--------
>>> import numpy as np
>>> xy = np.array([[0, 0], [4, 0], [2, 3]])
>>> points, edges = steiner_tree(xy)
>>> points.tolist(), edges.tolist()
([[0, 0], [4, 0], [2, 3], [2, 0]], [[0, 3], [3, 1], [3, 2]])
>>> tree_length(points, edges)
7
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["steiner_tree", "steiner_trees", "tree_length"]


@numba.njit(cache=True)
def _distance(x0, y0, x1, y1, straight_first):
    """Twice the Manhattan distance, plus one for a join across a bend when
    ``straight_first``: among equally near points, one in a straight line joins
    first (a bend costs a via)."""
    d = 2 * (abs(x1 - x0) + abs(y1 - y0))
    if straight_first and x0 != x1 and y0 != y1:
        d += 1
    return d


@numba.njit(cache=True)
def _prim(xs, ys, ea, eb, straight_first):
    """Prim's spanning tree of the points under the Manhattan distance into ``ea, eb``
    (the first point the root; among equals as :func:`_distance` says, then the
    lower index)."""
    n = len(xs)
    best = np.full(n, np.iinfo(np.int64).max, np.int64)
    parent = np.zeros(n, np.int64)
    done = np.zeros(n, np.bool_)
    done[0] = True
    for j in range(1, n):
        best[j] = _distance(xs[0], ys[0], xs[j], ys[j], straight_first)
    for k in range(n - 1):
        pick = -1
        for j in range(n):
            if not done[j] and (pick < 0 or best[j] < best[pick]):
                pick = j
        done[pick] = True
        ea[k] = parent[pick]
        eb[k] = pick
        for j in range(n):
            if not done[j]:
                d = _distance(xs[pick], ys[pick], xs[j], ys[j], straight_first)
                if d < best[j]:
                    best[j] = d
                    parent[j] = pick


@numba.njit(cache=True)
def _median(a, b, c):
    return max(min(a, b), min(max(a, b), c))


@numba.njit(cache=True)
def _incidence(n, ea, eb, m):
    """Each point's edges: point ``v``'s are ``inc[deg[v]:deg[v + 1]]``."""
    deg = np.zeros(n + 1, np.int64)
    for i in range(m):
        deg[ea[i] + 1] += 1
        deg[eb[i] + 1] += 1
    for v in range(n):
        deg[v + 1] += deg[v]
    fill = deg[:n].copy()
    inc = np.empty(2 * m, np.int64)
    for i in range(m):
        inc[fill[ea[i]]] = i
        fill[ea[i]] += 1
        inc[fill[eb[i]]] = i
        fill[eb[i]] += 1
    return deg, inc


@numba.njit(cache=True)
def _improve(xs, ys, n, ea, eb, m):
    """Steiner points into the tree of ``m`` edges over ``n`` points (``xs, ys`` have room
    for more), the best edge pair first; returns the points' and the edges' counts."""
    while True:
        # each node's edges, so that only the pairs that meet are tried
        deg, inc = _incidence(n, ea, eb, m)
        gain, bu, bi, bj = 0, -1, -1, -1
        for u in range(n):
            for p in range(deg[u], deg[u + 1]):
                i = inc[p]
                a = eb[i] if ea[i] == u else ea[i]
                for q in range(p + 1, deg[u + 1]):
                    j = inc[q]
                    b = eb[j] if ea[j] == u else ea[j]
                    sx = _median(xs[u], xs[a], xs[b])
                    sy = _median(ys[u], ys[a], ys[b])
                    old = (abs(xs[u] - xs[a]) + abs(ys[u] - ys[a])
                           + abs(xs[u] - xs[b]) + abs(ys[u] - ys[b]))
                    new = (abs(xs[u] - sx) + abs(ys[u] - sy) + abs(sx - xs[a])
                           + abs(sy - ys[a]) + abs(sx - xs[b]) + abs(sy - ys[b]))
                    if old - new > gain:
                        gain, bu, bi, bj = old - new, u, i, j
        if gain == 0:
            return n, m
        u = bu
        a = eb[bi] if ea[bi] == u else ea[bi]
        b = eb[bj] if ea[bj] == u else ea[bj]
        sx = _median(xs[u], xs[a], xs[b])
        sy = _median(ys[u], ys[a], ys[b])
        if sx == xs[a] and sy == ys[a]:         # b hangs from a instead of from u
            ea[bj], eb[bj] = a, b
        elif sx == xs[b] and sy == ys[b]:
            ea[bi], eb[bi] = b, a
        else:
            xs[n], ys[n] = sx, sy
            ea[bi], eb[bi] = n, a
            ea[bj], eb[bj] = n, b
            ea[m], eb[m] = u, n
            n += 1
            m += 1


@numba.njit(cache=True)
def _orient(n, ea, eb, m, out, depth):
    """The tree's edges from its first point outwards, breadth first, each as
    ``(parent, child)`` with the parent's depth."""
    deg, inc = _incidence(n, ea, eb, m)
    level = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    queue[0], level[0] = 0, 0
    head, tail, k = 0, 1, 0
    while head < tail:
        u = queue[head]
        head += 1
        for p in range(deg[u], deg[u + 1]):
            i = inc[p]
            v = eb[i] if ea[i] == u else ea[i]
            if level[v] < 0:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
                out[k, 0], out[k, 1], depth[k] = u, v, level[u]
                k += 1


@numba.njit(cache=True)
def _trees(xs, ys, starts, out_xy, out_start, out_edges, edge_start, out_depth, straight_first):
    for k in range(len(starts) - 1):
        lo, hi = starts[k], starts[k + 1]
        n = hi - lo
        # a tree of n points has n - 1 edges and gains at most n - 2 Steiner points
        px = np.empty(max(2 * n - 2, n), np.int64)
        py = np.empty(max(2 * n - 2, n), np.int64)
        px[:n] = xs[lo:hi]
        py[:n] = ys[lo:hi]
        ea = np.empty(max(2 * n - 3, 1), np.int64)
        eb = np.empty(max(2 * n - 3, 1), np.int64)
        m = n - 1
        if n > 1:
            _prim(px[:n], py[:n], ea, eb, straight_first)
        if n > 2:
            n, m = _improve(px, py, n, ea, eb, m)
        o = out_start[k]
        out_xy[o:o + n, 0] = px[:n]
        out_xy[o:o + n, 1] = py[:n]
        e = edge_start[k]
        if m:
            _orient(n, ea, eb, m, out_edges[e:e + m], out_depth[e:e + m])
        out_start[k + 1] = o + n
        edge_start[k + 1] = e + m


def steiner_trees(xy: np.ndarray, starts: np.ndarray, straight_first: bool = True
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The Steiner trees of many nets.

    Parameters
    ----------
    xy : (P, 2) int array
        Every net's distinct points, net after net.
    starts : (N + 1,) int array
        Where each net's points begin in ``xy`` (and, last, their count).
    straight_first : bool
        Among equally near points, the spanning tree joins one in a straight line
        first (else the first listed).

    Returns
    -------
    points, point_starts, edges, edge_starts, depths : arrays
        Each net's tree points (its own points first, in their order, then its Steiner
        points) net after net, where each net's begin; its edges as ``(parent, child)``
        indices into its own points, breadth first from its first point, and where each
        net's edges begin; each edge's parent's depth in its tree (0 at the first point).

    Examples
    --------
    >>> pts, ps, edges, es, depths = steiner_trees(np.array([[0, 0], [3, 0], [5, 5], [6, 5]]),
    ...                                    np.array([0, 2, 4]))
    >>> ps.tolist(), es.tolist(), edges.tolist()
    ([0, 2, 4], [0, 1, 2], [[0, 1], [0, 1]])
    """
    xy = np.asarray(xy, np.int64).reshape(-1, 2)
    starts = np.asarray(starts, np.int64)
    sizes = np.diff(starts)
    room = np.concatenate([[0], np.cumsum(np.maximum(2 * sizes - 2, sizes))])
    out_xy = np.zeros((int(room[-1]), 2), np.int64)
    out_edges = np.zeros((int(max(room[-1], 1)), 2), np.int64)
    out_depth = np.zeros(len(out_edges), np.int64)
    out_start = np.zeros(len(starts), np.int64)
    edge_start = np.zeros(len(starts), np.int64)
    _trees(xy[:, 0].copy(), xy[:, 1].copy(), starts, out_xy, out_start, out_edges,
           edge_start, out_depth, straight_first)
    m = edge_start[-1]
    return out_xy[:out_start[-1]], out_start, out_edges[:m], edge_start, out_depth[:m]


def steiner_tree(xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One net's Steiner tree: its points (``xy``'s first) and edges, as
    :func:`steiner_trees` gives them."""
    xy = np.asarray(xy, np.int64).reshape(-1, 2)
    pts, _, edges, _, _ = steiner_trees(xy, np.array([0, len(xy)]))
    return pts, edges


def tree_length(points: np.ndarray, edges: np.ndarray) -> int:
    """The Manhattan length of a tree's edges."""
    d = np.abs(points[edges[:, 0]] - points[edges[:, 1]])
    return int(d.sum())
