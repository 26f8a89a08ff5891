"""Which nets share cells, and how many would stay if negotiation stopped now:
:class:`Conflicts`, a part of :class:`~mazeroute.router.negotiate.Negotiator`.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse

__all__ = ["Conflicts"]

_NO_CELLS = np.zeros(0, np.int64)


@numba.njit(cache=True)
def _independent(indptr: np.ndarray, indices: np.ndarray) -> int:
    """The size of an independent set of the graph ``(indptr, indices)`` (a symmetric
    CSR adjacency, self-loops allowed), taken greedily fewest neighbours first (ties:
    lower vertex); it is maximal."""
    n = indptr.size - 1
    degree = np.diff(indptr)
    blocked = np.zeros(n, np.bool_)
    taken = 0
    for v in np.argsort(degree, kind="mergesort"):
        if blocked[v]:
            continue
        taken += 1
        for u in indices[indptr[v]:indptr[v + 1]]:
            blocked[u] = True
    return taken


class Conflicts:
    """The conflict graph of the routes now (see
    :class:`~mazeroute.router.negotiate.Negotiator`)."""

    def conflicting(self, changed: list[int] | None = None,
                    uses: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """The nets that use an overused cell, ascending (``changed`` as for
        :meth:`in_conflict`; ``uses``: :meth:`overused_uses`, when the caller has them);
        the cheap form the loop needs."""
        if uses is None:
            uses = self.overused_uses(changed)
        return np.unique(uses[1])

    def overused_uses(self, changed: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(cell, net)`` use of an overused cell, as two arrays (``changed`` as
        for :meth:`in_conflict`)."""
        over = self.state.overused()
        if over.size == 0:
            return _NO_CELLS, _NO_CELLS
        return self._uses(over, changed)

    def _uses(self, over: np.ndarray, changed) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(cell, net)`` use of the overused cells ``over``."""
        found = None if changed is None else self.state.users(over, changed)
        if found is not None:
            return found
        nets = [i for i, r in enumerate(self.routes) if r is not None]
        flat = np.concatenate([self.routes[i] for i in nets])
        who = np.repeat(np.array(nets, np.int64), [self.routes[i].size for i in nets])
        hit = np.isin(flat, over)
        return flat[hit], who[hit]

    def in_conflict(self, changed: list[int] | None = None) -> dict[int, set[int]]:
        """Every net that uses an overused cell, with the nets it shares cells with.

        ``changed``: the nets rerouted since the last call (None: unknown). Every other
        net keeps the route it had then, so an overused cell has at most one user
        outside ``changed`` unless that user was in conflict before and was not
        rerouted; then the overused cells' users come from ``changed``'s routes alone
        (:meth:`~.congestion.Congestion.users`), else from every route.
        """
        nets, pairs = self._conflict_graph(changed)
        out: dict[int, set[int]] = {}
        for k, i in enumerate(nets.tolist()):
            out[i] = set(nets[pairs.indices[pairs.indptr[k]:pairs.indptr[k + 1]]].tolist())
            out[i].discard(i)
        return out

    def _conflict_graph(self, changed, uses=None) -> tuple[np.ndarray, scipy.sparse.csr_matrix]:
        """The nets in conflict (ascending) and which of them share a cell, as a sparse
        matrix over their positions in that list (its diagonal set)."""
        flat, who = self.overused_uses(changed) if uses is None else uses
        if flat.size == 0:
            return _NO_CELLS, scipy.sparse.csr_matrix((0, 0), dtype=np.int32)
        # nets x nets sharing counts as a sparse product: on an oversubscribed layout a
        # cell has a hundred users, and pairing them in Python took seconds
        _, cell = np.unique(flat, return_inverse=True)
        nets, net = np.unique(who, return_inverse=True)
        use = scipy.sparse.csr_matrix((np.ones(flat.size, np.int32), (cell, net)),
                                      shape=(int(cell.max()) + 1, nets.size))
        return nets, (use.T @ use).tocsr()

    def kept(self, changed: list[int] | None = None,
             uses: tuple[np.ndarray, np.ndarray] | None = None) -> int:
        """An estimate of the nets that would stay routed if negotiation stopped now:
        the routed nets less those a greedy cover of the conflict graph drops (the nets
        in conflict less an independent set of them taken fewest conflicts first;
        :meth:`legalise` takes a like cover, most conflicts first). ``changed`` and
        ``uses`` as for :meth:`conflicting`."""
        nets, pairs = self._conflict_graph(changed, uses)
        if not nets.size:
            return self.routed
        return self.routed - nets.size + _independent(pairs.indptr, pairs.indices)
