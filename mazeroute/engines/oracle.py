"""The test oracle: a tiny, obviously-correct sequential BFS. Not used for routing."""

from __future__ import annotations

from collections import deque

import numpy as np

from ..graph import CSRGraph
from .base import UNREACHED


def oracle_levels(graph: CSRGraph, sources, blocked=None) -> np.ndarray:
    """Textbook BFS over CSR in plain Python; ``blocked`` vertices are never entered.

    >>> from mazeroute.graph import fig15_1_graph
    >>> oracle_levels(fig15_1_graph(), [0]).tolist()
    [0, 1, 1, 2, 2, 2, 2, 2, 3]
    """
    n = graph.num_vertices
    srcPtrs, dst = graph.srcPtrs.tolist(), graph.dst.tolist()
    bad = set() if blocked is None else set(np.flatnonzero(blocked).tolist())
    level = [None] * n
    queue = deque()
    for s in sources:
        level[s] = 0
        queue.append(s)
    while queue:
        v = queue.popleft()
        for u in dst[srcPtrs[v]:srcPtrs[v + 1]]:
            if level[u] is None and u not in bad:
                level[u] = level[v] + 1
                queue.append(u)
    return np.array([UNREACHED if x is None else x for x in level], dtype=np.uint32)
