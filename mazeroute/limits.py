"""What the host allows: its cores (and, with the readers, the sizes a file may have).

Examples
--------
>>> isinstance(many_cores(), bool)
True
"""

from __future__ import annotations

import os

#: Cores a machine needs before host passes run on all of them (Numba's parallel loops:
#: the CPU engine's requests, the planner's probes): on two busy cores the thread pool
#: waits for descheduled threads, milliseconds a pass (benchmarks/RESULTS.md), while on
#: idle many-core machines it wins.
PARALLEL_CORES = 4


def many_cores() -> bool:
    """Whether this process may use at least :data:`PARALLEL_CORES` cores.

    Returns
    -------
    bool
        True on a host (or CPU set) of at least :data:`PARALLEL_CORES` cores.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:                 # not on Linux
        cores = os.cpu_count() or 1
    return cores >= PARALLEL_CORES
