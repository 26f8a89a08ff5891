"""Rectilinear Steiner trees (mazeroute.router.steiner): every tree spans its net's
points, is a tree, is no longer than the Manhattan spanning tree (SciPy's, the oracle),
puts its Steiner points on the Hanan grid, and lists its edges parent first from the
first point outwards."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial.distance import cdist

from mazeroute.router.steiner import steiner_tree, steiner_trees, tree_length


def _mst_length(xy: np.ndarray) -> int:
    return int(minimum_spanning_tree(cdist(xy, xy, "cityblock")).sum())


def test_three_points_meet_at_their_median():
    points, edges = steiner_tree(np.array([[0, 0], [4, 0], [2, 3]]))
    assert points[3].tolist() == [2, 0]
    assert tree_length(points, edges) == 7 < _mst_length(points[:3])


def test_a_cross_of_four_gains_one_centre():
    points, edges = steiner_tree(np.array([[2, 0], [0, 2], [4, 2], [2, 4]]))
    assert tree_length(points, edges) == 8
    assert [2, 2] in points.tolist()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=1,
                max_size=25, unique=True))
def test_a_tree_spans_its_points_and_is_no_longer_than_the_spanning_tree(pts):
    xy = np.array(pts, np.int64)
    points, edges = steiner_tree(xy)
    n = len(points)
    assert points[:len(xy)].tolist() == xy.tolist()
    assert len(edges) == n - 1
    # a tree: every point reached from the first, each edge parent (already reached)
    # to a new child
    seen = {0}
    for a, b in edges.tolist():
        assert a in seen and b not in seen
        seen.add(b)
    assert seen == set(range(n))
    assert tree_length(points, edges) <= _mst_length(xy)
    hanan_x, hanan_y = set(xy[:, 0].tolist()), set(xy[:, 1].tolist())
    assert all(x in hanan_x and y in hanan_y for x, y in points[len(xy):].tolist())


def test_many_nets_at_once_are_each_nets_own_tree():
    rng = np.random.default_rng(3)
    nets = [np.unique(rng.integers(0, 20, (int(k), 2)), axis=0) for k in rng.integers(1, 9, 30)]
    xy = np.concatenate(nets)
    starts = np.concatenate([[0], np.cumsum([len(n) for n in nets])])
    points, p_start, edges, e_start, depth = steiner_trees(xy, starts)
    for k, net in enumerate(nets):
        own_pts, own_edges = steiner_tree(net)
        assert points[p_start[k]:p_start[k + 1]].tolist() == own_pts.tolist()
        assert edges[e_start[k]:e_start[k + 1]].tolist() == own_edges.tolist()
        d = depth[e_start[k]:e_start[k + 1]]
        assert (np.diff(d) >= 0).all()                 # breadth first
        assert len(d) == 0 or d[0] == 0
