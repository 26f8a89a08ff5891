"""Grid -> CSR/CSC/COO/Rodinia conversions (PMPP Fig. 15.3) against direct construction."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from mazeroute.errors import InputError
from mazeroute.graph import CSRGraph, GridGraph, fig15_1_graph, grid_to_csr


def test_fig15_3_forms_of_the_example_graph():
    g = fig15_1_graph()
    assert g.srcPtrs.tolist() == [0, 2, 4, 7, 9, 11, 12, 13, 15, 15]
    csc = g.csc()
    assert csc.dstPtrs.tolist() == [0, 1, 2, 3, 4, 6, 8, 11, 12, 15]
    assert csc.src.tolist() == [7, 0, 0, 1, 1, 3, 2, 4, 2, 5, 7, 2, 3, 4, 6]
    coo = g.coo()
    assert coo.src.tolist() == [0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 7]
    assert coo.dst.tolist() == g.dst.tolist()
    rod = g.rodinia()
    assert rod.starting.tolist() == g.srcPtrs[:-1].tolist()
    assert rod.no_of_edges.tolist() == [2, 2, 3, 2, 2, 1, 1, 2, 0]


def _edges_by_loops(free):
    """Edge set built cell by cell: slow, but plainly right."""
    h, w = free.shape
    edges = set()
    for y in range(h):
        for x in range(w):
            if not free[y, x]:
                continue
            for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1)):
                nx, ny = x + dx, y + dy
                if 0 <= nx < w and 0 <= ny < h and free[ny, nx]:
                    edges.add((y * w + x, ny * w + nx))
    return edges


@pytest.mark.parametrize("seed", range(8))
def test_grid_csr_has_exactly_the_free_neighbour_edges(seed):
    rng = np.random.default_rng(seed)
    h, w = rng.integers(1, 14, 2)
    free = rng.random((h, w)) > rng.uniform(0, 0.7)
    g = grid_to_csr(free)
    coo = g.coo()
    got = list(zip(coo.src.tolist(), coo.dst.tolist()))
    assert len(got) == len(set(got))
    assert set(got) == _edges_by_loops(free)
    # CSR convention: each row's columns ascend, so SciPy accepts it as canonical.
    assert csr_matrix((np.ones(g.num_edges), g.dst, g.srcPtrs),
                      shape=(h * w, h * w)).has_sorted_indices
    # The grid graph is symmetric, so CSC must equal CSR.
    csc = g.csc()
    assert csc.dstPtrs.tolist() == g.srcPtrs.tolist() and csc.src.tolist() == g.dst.tolist()


def test_grid_graph_ids_and_cells():
    g = GridGraph(np.ones((3, 5), bool))
    assert g.shape == (3, 5) and g.num_vertices == 15
    assert g.vertex(4, 2) == 14 and g.cell(14) == (4, 2)
    assert g.vertices([(0, 0), (4, 2), (1, 1)]).tolist() == [0, 14, 6]


@pytest.mark.parametrize("bad", [
    ([1, 2], [0]),                 # srcPtrs must start at 0
    ([0, 2, 1], [0, 1]),           # srcPtrs decreases
    ([0, 1, 2], [0, 5]),           # dst out of range
])
def test_bad_csr_is_an_input_error(bad):
    with pytest.raises(InputError):
        CSRGraph(np.array(bad[0]), np.array(bad[1]))


def test_empty_grid_is_an_input_error():
    with pytest.raises(InputError):
        GridGraph(np.ones((0, 3), bool))
