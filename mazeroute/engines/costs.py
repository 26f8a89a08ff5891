"""The cost contract that the weighted searches, their kernel and the router share.

One small module that :mod:`.weighted` (the CPU engine), :mod:`.gpu_weighted` (which
passes every value here to ``kernels/weighted.cu`` as a ``-D`` define at compile time)
and the router's pricing (:mod:`mazeroute.router.pricing`) all read, so that no side
keeps a copy of its own; ``tests/test_weighted.py`` ties the kernel's fallback
``#define`` values to it.

Examples
--------
>>> COST_SCALE, COST_MAX, int(np.iinfo(COST_DTYPE).max) == COST_MAX
(16, 65535, True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["COST_MAX", "COST_DTYPE", "DIST_MAX", "COST_SCALE", "Pricing", "kernel_defines"]

#: Largest cell cost. Costs are stored as :data:`COST_DTYPE`.
COST_MAX = 65535
#: dtype of a cost array (every value in ``[1, COST_MAX]``).
COST_DTYPE = np.uint16
#: Largest path cost a search accepts; dearer paths count as unreachable. 2**32 - 2, so
#: an engine may keep distances in 32 bits with ``2**32 - 1`` as "unreached".
DIST_MAX = 2**32 - 2
#: Fixed-point unit of negotiated cost: the cost of an ordinary cell (base cost 1, no
#: congestion).
COST_SCALE = 16


class Pricing(NamedTuple):
    """Negotiated congestion's cost rule as arrays (the router's, read at the call), for
    an engine that prices cells itself while it routes a chain
    (:meth:`~mazeroute.engines.weighted.NetSearch.route_chain`).

    A cell ``c`` costs ``clamp((base[c] + history[c]) * (COST_SCALE + pres * load[c])
    // COST_SCALE, 1, COST_MAX)`` (:func:`mazeroute.router.pricing.price_cells` on the
    host, ``chain_uses`` in ``kernels/weighted.cu`` on a device); ``load[c]`` is the sum
    of ``weight[net]`` over the nets using ``c``. ``base``, ``history`` and ``load`` are
    flat int64 per cell, ``weight`` int64 per net, ``pres`` the present factor in units
    of ``1 / COST_SCALE``; costs never fall below ``min(base + history)`` (``load`` and
    ``pres`` are never negative). ``changed``: flat indices (repeats allowed) of the
    cells whose ``base``, ``history`` or ``load`` changed since the previous Pricing
    handed to the engine (None: unknown, all of them), so that a device need upload only
    those.
    """

    base: np.ndarray
    history: np.ndarray
    load: np.ndarray
    weight: np.ndarray
    pres: int
    changed: np.ndarray | None = None


def kernel_defines() -> tuple[str, ...]:
    """The NVRTC ``-D`` flags that carry this contract into a kernel.

    Returns
    -------
    tuple of str
        One ``-DNAME=value`` flag per constant the kernel reads.

    Examples
    --------
    >>> kernel_defines()
    ('-DCOST_MAX=65535', '-DCOST_SCALE=16', '-DDIST_MAX=4294967294u')
    """
    return (f"-DCOST_MAX={COST_MAX}", f"-DCOST_SCALE={COST_SCALE}", f"-DDIST_MAX={DIST_MAX}u")
