"""The corpus of 3-D cases that every 3-D engine, CPU or GPU, is checked on.

A case is a layer stack (free mask, directions, via sites, via cost), its sources and
targets, and entry costs for the weighted search. The expected answers always come from
the oracle (:mod:`mazeroute.engines.oracle3d`), never from a stored answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from mazeroute.engines.oracle3d import oracle_early3d
from mazeroute.generate import maze_mask


@dataclass(frozen=True)
class Case3D:
    id: str
    free: np.ndarray
    sources: tuple[tuple[int, int, int], ...]
    targets: tuple[tuple[int, int, int], ...]
    directions: tuple[str, ...]
    via_cost: int = 1
    via_sites: np.ndarray | None = None
    cost: np.ndarray | None = field(default=None, repr=False)

    @property
    def rules(self) -> dict:
        return dict(directions=list(self.directions), via_cost=self.via_cost,
                    via_sites=self.via_sites)

    def weights(self) -> np.ndarray:
        """Entry costs for the weighted search: the case's own, else seeded ones in 1..9."""
        if self.cost is not None:
            return self.cost
        return np.random.default_rng(len(self.id)).integers(1, 10, self.free.shape)

    def expected(self, targets: bool = True, weighted: bool = False) -> np.ndarray:
        return oracle_early3d(self.free, self.sources, self.targets if targets else (),
                              cost=self.weights() if weighted else None, **self.rules)


def _ones(layers, h, w):
    return np.ones((layers, h, w), bool)


def _base_cases() -> list[Case3D]:
    hv = _ones(2, 5, 6)
    sites = np.zeros((5, 6), bool)
    sites[4, 5] = sites[0, 3] = True
    walled = _ones(3, 5, 5)
    walled[:, 1:4, 1:4] = False
    walled[1, 2, 2] = True                        # a pocket closed on every layer
    detour = _ones(2, 3, 7)
    detour[0, 0:2, 3] = False                     # layer 0: a wall with a gap at the bottom
    four = _ones(4, 6, 6)
    four[0, 2, 1:] = False
    four[1, :4, 3] = False
    four[2, 3, :5] = False
    four[3, 1:, 2] = False
    pairs = np.zeros((3, 6, 6), bool)              # each pair its own via columns
    pairs[0, 0, 5] = pairs[1, 5, 5] = pairs[2, 5, 0] = pairs[0, 3, 3] = True
    maze = ~maze_mask(9, 7, seed=5)
    open_cells = [(int(x), int(y), 0) for y, x in np.argwhere(maze)]
    return [
        Case3D("1x1x1", _ones(1, 1, 1), ((0, 0, 0),), ((0, 0, 0),), ("any",)),
        Case3D("open-2x4x4", _ones(2, 4, 4), ((0, 0, 0),), ((3, 3, 1),), ("any", "any")),
        Case3D("h-then-v", hv, ((0, 0, 0),), ((5, 4, 0),), ("horizontal", "vertical")),
        Case3D("v-then-h", hv, ((2, 3, 1),), ((0, 0, 1), (5, 4, 0)),
               ("vertical", "horizontal")),
        Case3D("horizontal-only", _ones(1, 3, 4), ((1, 1, 0),), ((3, 2, 0),),
               ("horizontal",)),
        Case3D("vertical-only", _ones(1, 4, 3), ((1, 1, 0),), ((1, 3, 0),), ("vertical",)),
        Case3D("two-via-sites", hv, ((0, 0, 0),), ((0, 4, 1),), ("horizontal", "vertical"),
               via_sites=sites),
        Case3D("no-via-sites", hv, ((0, 0, 0),), ((0, 4, 1),), ("any", "any"),
               via_sites=np.zeros((5, 6), bool)),
        Case3D("walled-off-target", walled, ((0, 0, 0),), ((2, 2, 1),),
               ("any", "horizontal", "vertical")),
        Case3D("via-or-detour", detour, ((0, 0, 0),), ((6, 0, 0),), ("any", "any")),
        Case3D("multi-source", _ones(3, 5, 5), ((0, 0, 0), (4, 4, 2), (2, 0, 1)),
               ((4, 0, 0), (0, 4, 2)), ("horizontal", "vertical", "any")),
        Case3D("four-layers", four, ((0, 0, 0),), ((5, 5, 3), (0, 5, 2)),
               ("horizontal", "vertical", "horizontal", "vertical")),
        Case3D("per-pair-via-sites", _ones(4, 6, 6), ((0, 0, 0),), ((0, 5, 3),),
               ("any",) * 4, via_sites=pairs),
        Case3D("per-pair-no-pair", _ones(3, 2, 3), ((0, 0, 0),), ((2, 1, 2),),
               ("any",) * 3, via_sites=np.array([[[1, 0, 0], [0, 0, 0]],
                                                 [[0, 0, 0], [0, 0, 0]]], bool)),
        Case3D("one-layer-maze", maze[None], (open_cells[0],), (open_cells[-1],), ("any",)),
        Case3D("dear-middle", _ones(2, 3, 5), ((0, 1, 0),), ((4, 1, 0),), ("any", "any"),
               cost=np.array([[[1, 1, 1, 1, 1], [1, 9, 9, 9, 1], [1, 1, 1, 1, 1]],
                              [[5, 5, 5, 5, 5], [2, 2, 2, 2, 2], [5, 5, 5, 5, 5]]])),
    ]


def hand_cases3d() -> list[Case3D]:
    """Small cases a reader can check by eye, each with via cost 1 and 3."""
    out = []
    for case in _base_cases():
        for via_cost in (1, 3):
            out.append(replace(case, id=f"{case.id}-via{via_cost}", via_cost=via_cost))
    return out
