"""The one registry of engines: ``(backend, strategy)`` names mapped to the classes that
run them, by import path, so that the planner can choose among names on a machine
without CuPy and :mod:`mazeroute.engines` loads only the class it is given.

Examples
--------
>>> ENGINES[("cpu", "grid")].figure
'Fig. 15.5'
>>> strategies("cpu")
['grid', 'csr']
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["ENGINES", "EngineSpec", "DEFAULT_STRATEGY", "NET_SEARCHES", "STACK_ENGINES",
           "strategies"]


@dataclass(frozen=True)
class EngineSpec:
    """One registry entry.

    ``form`` says what graph the engine walks: ``"grid"`` engines need a
    :class:`GridGraph`; ``"csr"`` engines take any graph (a grid is converted).
    """

    backend: str
    strategy: str
    form: str
    cls: str
    summary: str
    figure: str = ""

    def load(self) -> type:
        module, _, name = self.cls.partition(":")
        return getattr(importlib.import_module(module), name)


_SPECS = [
    EngineSpec("cpu", "grid", "grid", "mazeroute.engines.cpu:GridQueueProblem",
               "sequential queue BFS on the implicit 4-neighbour grid (compiled)", "Fig. 15.5"),
    EngineSpec("cpu", "csr", "csr", "mazeroute.engines.cpu:CSRQueueProblem",
               "sequential queue BFS over CSR (compiled); works on any graph", "Fig. 15.3A"),
    EngineSpec("gpu", "push", "csr", "mazeroute.engines.gpu:PushProblem",
               "vertex-centric push: one thread per vertex, one launch per level", "Fig. 15.6"),
    EngineSpec("gpu", "pull", "csr", "mazeroute.engines.gpu:PullProblem",
               "vertex-centric pull over CSC: unvisited vertices scan in-neighbours",
               "Fig. 15.8"),
    EngineSpec("gpu", "edge", "csr", "mazeroute.engines.gpu:EdgeProblem",
               "edge-centric over COO: one thread per edge", "Fig. 15.10"),
    EngineSpec("gpu", "frontier", "csr", "mazeroute.engines.gpu:FrontierProblem",
               "frontier queues: threads only for the previous frontier", "Fig. 15.12"),
    EngineSpec("gpu", "privatized", "csr", "mazeroute.engines.gpu:PrivatizedProblem",
               "frontier queues privatized in shared memory, one atomicAdd per block",
               "Fig. 15.14"),
    EngineSpec("gpu", "diropt", "csr", "mazeroute.engines.gpu:DirOptProblem",
               "direction-optimised: push while the frontier is small, pull when large",
               "15.3 end"),
    EngineSpec("gpu", "singleblock", "csr", "mazeroute.engines.gpu:SingleBlockProblem",
               "one block runs many small levels in shared memory, hands back on overflow",
               "Fig. 15.16"),
    EngineSpec("gpu", "rodinia", "csr", "mazeroute.engines.gpu:RodiniaProblem",
               "Rodinia two-kernel mask scheme over Node{start, count} lists",
               "ROCm tutorial"),
    EngineSpec("gpu", "grid", "grid", "mazeroute.engines.gpu_grid:GridRelaxProblem",
               "tiled bit-parallel relaxation on the implicit grid: one persistent kernel, "
               "device work queue of 64-column tiles, windowed early exit", "Fig. 15.5"),
]

#: ``(backend, strategy) -> EngineSpec`` for every engine mazeroute offers.
ENGINES: dict[tuple[str, str], EngineSpec] = {(s.backend, s.strategy): s for s in _SPECS}

#: What ``strategy=None`` means per backend and graph kind.
DEFAULT_STRATEGY = {("cpu", "grid"): "grid", ("cpu", "csr"): "csr",
                    ("gpu", "grid"): "grid", ("gpu", "csr"): "frontier"}


#: Weighted net-search engines (:class:`~mazeroute.engines.weighted.NetSearch`: "route
#: these nets on these costs", what negotiated routing runs), by backend.
NET_SEARCHES: dict[str, str] = {"cpu": "mazeroute.engines.weighted:CPUNetSearch",
                                "gpu": "mazeroute.engines.gpu_weighted:GPUNetSearch"}


#: The 3-D engines of multi-layer layouts, by backend: modules with ``bfs3d`` and
#: ``weighted3d`` of one signature.
STACK_ENGINES: dict[str, str] = {"cpu": "mazeroute.engines.grid3d",
                                 "gpu": "mazeroute.engines.gpu_grid3d"}


def strategies(backend: str | None = None) -> list[str]:
    """Strategy names offered by ``backend`` (all backends when None), registry order."""
    names = [s.strategy for s in ENGINES.values() if backend in (None, s.backend)]
    return list(dict.fromkeys(names))
