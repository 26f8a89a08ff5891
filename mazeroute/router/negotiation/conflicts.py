"""Which nets share cells, and how many would stay if negotiation stopped now:
:class:`Conflicts`, a part of :class:`~mazeroute.router.negotiate.Negotiator`.
"""

from __future__ import annotations

import numba
import numpy as np

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


@numba.njit(cache=True)
def _csr(keys: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``values`` grouped by ``keys`` (each in ``[0, n)``): ``(indptr, grouped)``."""
    indptr = np.zeros(n + 1, np.int64)
    for k in keys:
        indptr[k + 1] += 1
    for k in range(n):
        indptr[k + 1] += indptr[k]
    at = indptr[:-1].copy()
    grouped = np.empty(keys.size, np.int64)
    for j in range(keys.size):
        grouped[at[keys[j]]] = values[j]
        at[keys[j]] += 1
    return indptr, grouped


@numba.njit(cache=True)
def _sharing(cell: np.ndarray, net: np.ndarray, cells: int, nets: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``nets`` nets share a cell, given their uses ``(cell[k], net[k])``: a
    symmetric CSR adjacency ``(indptr, indices)``, each net beside itself, each
    neighbour once."""
    cptr, users = _csr(cell, net, cells)
    nptr, held = _csr(net, cell, nets)
    mark = np.full(nets, -1, np.int64)
    indptr = np.zeros(nets + 1, np.int64)
    for v in range(nets):          # twice: count each net's neighbours, then list them
        d = 0
        for c in held[nptr[v]:nptr[v + 1]]:
            for u in users[cptr[c]:cptr[c + 1]]:
                if mark[u] != v:
                    mark[u] = v
                    d += 1
        indptr[v + 1] = indptr[v] + d
    indices = np.empty(indptr[-1], np.int64)
    mark[:] = -1
    for v in range(nets):
        d = indptr[v]
        for c in held[nptr[v]:nptr[v + 1]]:
            for u in users[cptr[c]:cptr[c + 1]]:
                if mark[u] != v:
                    mark[u] = v
                    indices[d] = u
                    d += 1
    return indptr, indices


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
        flat, who = self._wired()
        # a mark on the grid rather than np.isin, which sorts every routed cell
        overused = np.zeros(self.free.size, bool)
        overused[over] = True
        hit = overused[flat]
        return flat[hit], who[hit]

    def in_conflict(self, changed: list[int] | None = None) -> dict[int, set[int]]:
        """Every net that uses an overused cell, with the nets it shares cells with.

        ``changed``: the nets rerouted since the last call (None: unknown). Every other
        net keeps the route it had then, so an overused cell has at most one user
        outside ``changed`` unless that user was in conflict before and was not
        rerouted; then the overused cells' users come from ``changed``'s routes alone
        (:meth:`~.congestion.Congestion.users`), else from every route.
        """
        nets, indptr, indices = self._conflict_graph(changed)
        out: dict[int, set[int]] = {}
        for k, i in enumerate(nets.tolist()):
            out[i] = set(nets[indices[indptr[k]:indptr[k + 1]]].tolist())
            out[i].discard(i)
        return out

    def _conflict_graph(self, changed, uses=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The nets in conflict (ascending) and which of them share a cell, as a CSR
        adjacency ``(indptr, indices)`` over their positions in that list (each beside
        itself)."""
        flat, who = self.overused_uses(changed) if uses is None else uses
        if flat.size == 0:
            return _NO_CELLS, np.zeros(1, np.int64), _NO_CELLS
        # on an oversubscribed layout a cell has a hundred users, and pairing them in
        # Python took seconds: compiled, over the uses grouped by cell and by net
        _, cell = np.unique(flat, return_inverse=True)
        nets, net = np.unique(who, return_inverse=True)
        indptr, indices = _sharing(cell.astype(np.int64), net.astype(np.int64),
                                   int(cell.max()) + 1, nets.size)
        return nets, indptr, indices

    def kept(self, changed: list[int] | None = None,
             uses: tuple[np.ndarray, np.ndarray] | None = None) -> int:
        """An estimate of the nets that would stay routed if negotiation stopped now:
        the routed nets less those a greedy cover of the conflict graph drops (the nets
        in conflict less an independent set of them taken fewest conflicts first;
        :meth:`legalise` takes a like cover, most conflicts first). ``changed`` and
        ``uses`` as for :meth:`conflicting`."""
        nets, indptr, indices = self._conflict_graph(changed, uses)
        if not nets.size:
            return self.routed
        return self.routed - nets.size + _independent(indptr, indices)
