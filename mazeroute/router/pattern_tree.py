"""The via stacks where a tree's edges meet, for the dynamic programme over a net's tree
(:mod:`.groute_pattern`): at each tree point one stack spans its pins' layers and the
layer every edge there starts or ends on, and costs a via per layer it crosses.

For a point, :func:`junction_costs` gives the cost of its subtree for every stack
``lo..hi`` it could have: the stack's vias plus, for each child edge, its cheapest
start on a layer of the stack. A point's cost on arriving from its parent on layer
``z`` (:func:`arrivals`) is the cheapest stack that holds ``z``; choosing top-down
(:func:`pick`) gives each point its stack, and each child edge then starts on its
cheapest layer inside it. This is the exact layer assignment of a fixed tree topology
and fixed shapes, in the manner of CUGR's (Liu et al., ICCAD 2019).

Examples
--------
>>> f = np.array([[5, 0, 9], [0, 9, 9]])          # two children's start costs by layer
>>> tot = junction_costs(np, 1, 3, np.array([0, 0]), f, np.array([3]), np.array([-1]), 2)
>>> lo, hi = pick(np, tot, None)
>>> int(lo[0]), int(hi[0]), int(tot[0, 0, 1])
(0, 1, 2)
"""

from __future__ import annotations

import numpy as np

from .pattern_shapes import INF, scatter

__all__ = ["junction_costs", "arrivals", "pick", "start_layers"]


def _range_min(xp, f):
    """``(k, L, L)``: the least of ``f[:, lo..hi]`` for each ``lo <= hi`` (INF else)."""
    k, L = f.shape
    out = xp.full((k, L, L), INF, np.int64)
    for lo in range(L):
        cur = f[:, lo]
        out[:, lo, lo] = cur
        for hi in range(lo + 1, L):
            cur = xp.minimum(cur, f[:, hi])
            out[:, lo, hi] = cur
    return out


def junction_costs(xp, points: int, layers: int, child_point, child_cost, pin_lo, pin_hi,
                   via: int):
    """The cost of each of ``points`` points' subtrees for every stack ``lo..hi``.

    Parameters
    ----------
    points, layers : int
        How many points, and layers.
    child_point, child_cost : arrays
        Each child edge's point (``0 <= p < points``) and its cost by start layer
        (``(k, L)``).
    pin_lo, pin_hi : (points,) int arrays
        The layers the point's pins span (``L`` and ``-1`` for a Steiner point).
    via : int
        A via's cost.

    Returns
    -------
    (points, L, L) int array
        ``[p, lo, hi]``: INF where the stack misses the pins or ``lo > hi``.
    """
    L = layers
    tot = xp.zeros((points, L, L), np.int64)
    if len(child_cost):
        scatter(xp, "add", tot, child_point, _range_min(xp, child_cost))
    z = xp.arange(L, dtype=np.int64)
    lo, hi = z[None, :, None], z[None, None, :]
    ok = ((lo <= hi) & (lo <= pin_lo[:, None, None])
          & (hi >= pin_hi[:, None, None]))
    return xp.where(ok, xp.minimum(tot + via * (hi - lo), INF), INF)


def arrivals(xp, tot):
    """``(points, L)``: each point's cost on arriving on each layer: the cheapest stack
    that holds the layer."""
    n, L, _ = tot.shape
    out = xp.empty((n, L), np.int64)
    for z in range(L):
        out[:, z] = tot[:, :z + 1, z:].reshape(n, -1).min(axis=1)
    return out


def pick(xp, tot, arrive):
    """Each point's cheapest stack (the lowest first among equals), holding its arrival
    layer ``arrive`` where given."""
    n, L, _ = tot.shape
    if arrive is not None:
        z = xp.arange(L, dtype=np.int64)
        holds = ((z[None, :, None] <= arrive[:, None, None])
                 & (z[None, None, :] >= arrive[:, None, None]))
        tot = xp.where(holds, tot, INF + 1)
    flat = tot.reshape(n, -1).argmin(axis=1)
    return (flat // L).astype(np.int64), (flat % L).astype(np.int64)


def start_layers(xp, cost, lo, hi):
    """Each child edge's cheapest start layer inside its point's stack ``lo..hi``."""
    z = xp.arange(cost.shape[1], dtype=np.int64)[None]
    inside = (z >= lo[:, None]) & (z <= hi[:, None])
    return xp.where(inside, cost, INF + 1).argmin(axis=1).astype(np.int64)
