"""Negotiation's conflicts (router.negotiation.conflicts): the conflict graph, the nets
kept, the independent set, and nets cut off from their pins."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import mazeroute.router.negotiate as neg
from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions
from mazeroute.router.negotiate import Negotiator
from tests.corpus import (
    bfs_connected,
)


@pytest.mark.parametrize("seed", range(3))
def test_conflicts_found_from_the_rerouted_nets_equal_a_full_scan(seed, monkeypatch):
    """The loop finds the nets in conflict from the nets it rerouted (and id sums); a
    scan of every route gives the same, in every iteration."""
    lay = random_layout(40, 36, density=0.25, nets=70, pins=2 + seed % 2, seed=seed, span=14)
    real = Negotiator.conflicting
    calls = []

    def both(self, changed=None, uses=None):
        got = real(self, changed, uses)
        assert got.tolist() == sorted(self.in_conflict()) == real(self).tolist()
        calls.append(uses is not None and bool(got.size))
        return got
    monkeypatch.setattr(Negotiator, "conflicting", both)
    Negotiator(lay, "cpu", PathFinderOptions(max_iterations=12)).run()
    assert any(calls)                                  # some iteration had conflicts


@pytest.mark.parametrize("edges, n, want", [
    ([], 3, 3),                                        # no edges: every vertex
    ([(0, 1), (1, 2)], 3, 2),                          # a path: both ends
    ([(0, 1), (0, 2), (0, 3), (0, 4)], 5, 4),          # a star: its leaves
    ([(0, 1), (1, 2), (0, 2)], 3, 1),                  # a triangle
    ([(a, b) for a in (0, 1) for b in (2, 3, 4)], 5, 3),   # K(2,3): the side of three
    ([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], 6, 3),  # a path of six
])
def test_independent_set_of_hand_made_conflict_graphs(edges, n, want):
    from mazeroute.router.negotiate import _independent
    m = scipy.sparse.eye(n, dtype=np.int32, format="lil")
    for a, b in edges:
        m[a, b] = m[b, a] = 1
    m = m.tocsr()
    assert _independent(m.indptr, m.indices) == want


@pytest.mark.parametrize("seed", range(25))
def test_independent_set_is_maximal_and_never_beats_the_best(seed):
    """On random graphs: never more than a maximum independent set (brute force), and
    at least n / (largest degree + 1), as every maximal independent set."""
    from itertools import combinations

    from mazeroute.router.negotiate import _independent
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 11))
    adj = np.triu(rng.random((n, n)) < rng.uniform(0.1, 0.7), 1)
    adj = adj | adj.T
    m = scipy.sparse.csr_matrix(adj | np.eye(n, dtype=bool))
    got = _independent(m.indptr, m.indices)
    best = max(k for k in range(n + 1) for c in combinations(range(n), k)
               if not adj[np.ix_(c, c)].any())
    assert n / (adj.sum(axis=1).max() + 1) <= got <= best


def _pair_routes(routes) -> tuple[dict[int, set[int]], int]:
    """Each net that shares a cell with others, with those nets, by pairing the routes
    (flat cell lists) directly; and the most users of one cell."""
    cells: dict[int, set[int]] = {}
    for i, r in enumerate(routes):
        for c in ([] if r is None else r.tolist()):
            cells.setdefault(c, set()).add(i)
    graph: dict[int, set[int]] = {}
    for users in cells.values():
        if len(users) > 1:
            for i in users:
                graph.setdefault(i, set()).update(users - {i})
    return graph, max((len(u) for u in cells.values()), default=0)


@pytest.mark.parametrize("seed", range(3))
def test_nets_kept_are_the_routed_nets_less_a_cover_of_the_conflicts(seed, monkeypatch):
    """Negotiator.kept against the routes themselves after each iteration: the routed
    nets, less the nets in conflict outside an independent set of the conflict graph
    built by pairing routes directly (the set taken fewest conflicts first, as kept's
    own, whose greedy the tests above hold against brute force)."""
    lay = random_layout(40, 36, density=0.25, nets=120, pins=2, seed=seed)
    seen = []
    real = Negotiator.kept

    def check(self, changed=None, uses=None):
        got = real(self, changed, uses)
        graph, _ = _pair_routes(self.routes)
        routed = sum(r is not None for r in self.routes)
        free = routed - len(graph)
        assert free <= got <= routed
        # the fewest-first greedy on the direct pairing gives the same count
        left, taken = dict(graph), 0
        for i in sorted(graph, key=lambda j: (len(graph[j]), j)):
            if i in left:
                taken += 1
                for j in graph[i]:
                    left.pop(j, None)
                left.pop(i)
        assert got == free + taken
        seen.append(len(graph))
        return got
    monkeypatch.setattr(Negotiator, "kept", check)
    Negotiator(lay, "cpu", PathFinderOptions(max_iterations=6, stall_min_conflicts=0)).run()
    assert seen and max(seen) > 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 5)), max_size=40))
def test_sharing_lists_each_net_that_shares_a_cell_once(uses):
    """The compiled pairing against sets: net a is beside net b when some cell has
    both among its users (a beside itself), each neighbour once, whatever the order
    of the uses and however often one repeats."""
    from mazeroute.router.negotiation.conflicts import _sharing
    cell = np.array([c for c, _ in uses], np.int64)
    net = np.array([n for _, n in uses], np.int64)
    indptr, indices = _sharing(cell, net, 8, 6)
    users = {c: {n for c2, n in uses if c2 == c} for c, _ in uses}
    for v in range(6):
        row = indices[indptr[v]:indptr[v + 1]].tolist()
        want = set().union(*(u for u in users.values() if v in u))
        assert len(row) == len(set(row)) and set(row) == want


@pytest.mark.parametrize("seed", range(3))
def test_conflict_graph_pairs_the_nets_that_share_a_cell(seed, monkeypatch):
    """Legalisation's conflict graph: each net in conflict with exactly the nets whose
    routes share a cell with its own, checked against pairing the routes directly, on
    layouts with many users to a cell."""
    lay = random_layout(40, 36, density=0.25, nets=120, pins=2, seed=seed)
    seen = []
    real = Negotiator.legalise

    def check(self):
        want, most = _pair_routes(self.routes)
        assert self.in_conflict() == want
        seen.append(most)
        return real(self)
    monkeypatch.setattr(Negotiator, "legalise", check)
    Negotiator(lay, "cpu", PathFinderOptions(max_iterations=2)).run()
    assert seen and seen[0] > 2                          # some cell had several users


def _enclosure_whole_grid(ng: Negotiator, i: int) -> str:
    """The reason of an enclosed net from one labelling of the whole grid (the rule
    written plainly, to hold the windowed search of ``Negotiator._enclosure`` to)."""
    import scipy.ndimage
    passable = ng.free & ((ng.owner == -1) | (ng.owner == i))
    label, _ = scipy.ndimage.label(passable)
    pins = ng.pins[i]
    parts = np.unique(label[pins[:, 1], pins[:, 0]])
    sizes = np.bincount(label.ravel())
    part = parts[np.argmin(sizes[parts])]
    inside = np.pad(label == part, 1)
    rim = (inside[:-2, 1:-1] | inside[2:, 1:-1] | inside[1:-1, :-2] | inside[1:-1, 2:])
    others = set(ng.owner[rim & (ng.owner >= 0) & (ng.owner != i)].tolist())
    if not others:
        return "cut off from its pins by blockages"
    return f"enclosed by the pins of nets {neg._names(ng.layout, others)}"


def _pockets(seed: int, side: tuple[int, int], densities: list[float],
             nets: tuple[int, int], span: int):
    """A random layout of 2-4-pin nets, its sides, blockage density and net count drawn
    from ``side``, ``densities`` and ``nets``; local nets of ``span`` on even seeds."""
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(*side)), int(rng.integers(*side))
    return random_layout(w, h, density=float(rng.choice(densities)),
                         nets=int(rng.integers(*nets)), pins=2 + seed % 3, seed=seed,
                         span=None if seed % 2 else span)


@pytest.mark.parametrize("seed", range(8))
def test_enclosure_in_windows_equals_the_whole_grid(seed):
    """Pockets small and large (dense pins, blockages up to 45 %, grids past the first
    window): the windowed search names the same nets as one whole-grid labelling."""
    lay = _pockets(seed, (20, 160), [0.1, 0.3, 0.45], (20, 200), 12)
    ng = Negotiator(lay, "cpu")
    reasons = [ng._enclosure(i) for i in range(len(lay.nets))]
    assert reasons == [_enclosure_whole_grid(ng, i) for i in range(len(lay.nets))]
    assert len(set(reasons)) > 1


def _reaches_all_pins(ng: Negotiator, i: int) -> bool:
    """A plain BFS over the cells net ``i`` may enter (free, no other net's pin)."""
    may = ng.free & ((ng.owner < 0) | (ng.owner == i))
    return bfs_connected(may, [tuple(p) for p in ng.pins[i].tolist()])


@pytest.mark.parametrize("seed", range(10))
def test_cut_off_equals_a_search_of_the_cells_a_net_may_enter(seed):
    lay = _pockets(seed, (8, 60), [0.2, 0.35, 0.45], (10, 120), 6)
    """All nets at once (two-pin nets together) and one at a time."""
    ng = Negotiator(lay, "cpu")
    n = len(lay.nets)
    want = [not _reaches_all_pins(ng, i) for i in range(n)]
    every = ng._cut_off(list(range(n)))
    assert [i in every for i in range(n)] == want
    assert [bool(ng._cut_off([i])) for i in range(n)] == want


def test_cut_off_nets_over_the_corpus_include_both_answers():
    seen = set()
    for seed in range(10):
        lay = random_layout(30, 30, density=0.4, nets=80, pins=2 + seed % 3, seed=seed)
        ng = Negotiator(lay, "cpu")
        cut = ng._cut_off(list(range(len(lay.nets))))
        seen |= {i in cut for i in range(len(lay.nets))}
    assert seen == {True, False}


def test_a_cut_off_net_is_enclosed_without_growing_its_box_to_the_grid():
    # net c's pin (100, 100) is ringed by the pins of a and b, on a grid of 200 x 200
    lay = random_layout(200, 200, density=0.0, nets=0, seed=1)
    from mazeroute.layout import Net
    lay.nets = [Net("a", [(100, 99), (101, 100)]), Net("b", [(99, 100), (100, 101)]),
                Net("c", [(100, 100), (150, 150)]), Net("d", [(10, 10), (30, 40)])]
    ng = Negotiator(lay, "cpu")
    res = ng.run()
    assert [n.routed for n in res.nets] == [True, True, False, True]
    assert ng.enclosed == {2} and not ng._whole(2)
    assert "enclosed by the pins of nets a, b" in res.nets[2].reason
