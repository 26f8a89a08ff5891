"""PathFinder's pricing on the host: a cell's cost from its base, history and load.

The rule is :class:`~mazeroute.engines.costs.Pricing`'s (the contract a device kernel
that prices cells itself shares, :mod:`mazeroute.engines.costs`); the router's
congestion state (:mod:`.congestion`) prices with it, the search engines only read the
costs it makes.

Examples
--------
>>> cost = np.zeros(3, COST_DTYPE)
>>> price_cells(np.array([2, 0, 2]), np.full(3, COST_SCALE), np.zeros(3, np.int64),
...             np.array([1, 0, 2]), COST_SCALE // 2, cost)
>>> (cost // COST_SCALE).tolist()
[1, 0, 2]
"""

from __future__ import annotations

import numba
import numpy as np

from ..engines.costs import COST_DTYPE, COST_MAX, COST_SCALE
from ..limits import many_cores

__all__ = ["price_cells", "price_all", "PARALLEL_PRICE_CELLS", "COST_DTYPE", "COST_SCALE"]


@numba.njit(cache=True, nogil=True, inline="always")
def _price(c, base, history, load, pres, cost):
    value = (base[c] + history[c]) * (COST_SCALE + pres * load[c]) // COST_SCALE
    cost[c] = min(max(value, 1), COST_MAX)


@numba.njit(cache=True, nogil=True)
def _price_cells_serial(cells, base, history, load, pres, cost):
    for j in range(cells.size):
        _price(cells[j], base, history, load, pres, cost)


@numba.njit(cache=True, nogil=True, parallel=True)
def _price_cells_parallel(cells, base, history, load, pres, cost):
    # a cell listed twice is priced twice to the same value: the writes cannot differ
    for j in numba.prange(cells.size):
        _price(cells[j], base, history, load, pres, cost)


#: From this many cells on, :func:`price_cells` prices on every core (where there are
#: many): a change of the present factor re-prices every cell in use, millions of
#: scattered cells on the largest layouts each iteration (benchmarks/RESULTS.md,
#: "Quality and speed").
PARALLEL_PRICE_CELLS = 1 << 16


def price_cells(cells: np.ndarray, base: np.ndarray, history: np.ndarray,
                load: np.ndarray, pres: int, cost: np.ndarray) -> None:
    """Set ``cost[c]`` of every cell of ``cells`` by the pricing rule.

    Parameters
    ----------
    cells : int64 flat cell indices (repeats allowed)
    base, history, load : int64 per cell
    pres : the present factor in units of ``1 / COST_SCALE``
    cost : :data:`COST_DTYPE` per cell, written in place

    Examples
    --------
    >>> cost = np.zeros(2, COST_DTYPE)
    >>> price_cells(np.array([1]), np.full(2, COST_SCALE), np.zeros(2, np.int64),
    ...             np.array([0, 3]), COST_SCALE, cost)
    >>> cost.tolist()
    [0, 64]
    """
    run = (_price_cells_parallel if cells.size >= PARALLEL_PRICE_CELLS and many_cores()
           else _price_cells_serial)
    run(cells, base, history, load, pres, cost)


@numba.njit(cache=True, nogil=True)
def price_all(base, history, load, pres, cost):
    """:func:`price_cells` of every cell."""
    for c in range(cost.size):
        _price(c, base, history, load, pres, cost)
