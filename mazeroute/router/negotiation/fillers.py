"""The searches for the nets negotiation leaves unrouted on dense layouts of two-pin
nets: the space-filling search (:mod:`mazeroute.router.fill`), exact windows
(:mod:`mazeroute.router.windows`), and the shortening of touching wires
(:mod:`mazeroute.router.shorten`): :class:`Fillers`, a part of
:class:`~mazeroute.router.negotiate.Negotiator`.
"""

from __future__ import annotations

import time

import numpy as np

from ..fill import fill_routes
from ..shorten import shorten_wires
from ..windows import available as windows_available
from ..windows import complete_in_windows

__all__ = ["Fillers"]


class Fillers:
    """Fill, windows, shorten (see :class:`~mazeroute.router.negotiate.Negotiator`)."""

    def _fills(self) -> bool:
        """Whether the space-filling search (:mod:`.fill`) connects every net; it runs
        once (its answer depends on the layout alone), the first time it is asked."""
        if self.filled is None:
            if not self._fill_applies():
                self.filled = False    # an enclosed net has no wire at all: nothing fills
            else:
                start = time.perf_counter()
                got = fill_routes(self.free, self.pins, self.options.fill_steps,
                                  seconds=self._left())
                if got.status == "time":
                    self.cut.setdefault("space-filling search", "cut short")
                self.filled = got if got.status == "found" else False
                self.fill_seconds = time.perf_counter() - start
        return self.filled is not False

    def _fill_applies(self) -> bool:
        """Whether the space-filling search may run on this layout at all."""
        return not (self.options.fill_steps == 0 or self.enclosed
                    or any(len(p) != 2 for p in self.pins))

    def _fill(self) -> bool:
        """Try to connect every net by the space-filling search (:mod:`.fill`); on
        success the routes are its wires (in routing order) and True is returned."""
        if not self._fills():
            return False
        start = time.perf_counter() - self.fill_seconds
        got = self.filled
        for i in self.order:
            self._set_route(int(i), got.routes[i])
        # its wires cover every free cell: neighbours trade cells for shorter wires
        _, self.filled_gain = self._take_shortened(list(self.routes))
        self.seconds += (time.perf_counter() - start) / max(1, len(self.pins))
        return True

    def _take_shortened(self, routes: list[np.ndarray | None]) -> tuple[list[int], int]:
        """Let the touching wires of ``routes`` (flat cells; a legal routing) trade cells
        for shorter ones (:mod:`.shorten`), and give each net its wire where that differs
        from its route now; the nets whose route changed (in routing order), and the cells
        the wires lost."""
        w = self.shape[1]
        shorter, gained = shorten_wires(self.free, self.pins, routes, self.options.shorten_group)
        changed = [i for i in self.order.tolist() if shorter[i] is not None and (
            self.routes[i] is None or not np.array_equal(shorter[i], self.routes[i]))]
        for i in changed:
            self._set_route(i, np.stack([shorter[i] % w, shorter[i] // w], axis=1))
        return changed, gained

    def _windows(self) -> int | None:
        """Connect nets still unrouted by exact re-solves of windows round their pins
        (:mod:`.windows`), then let touching wires trade cells for shorter ones
        (:mod:`.shorten`), and again while that connects more (the shorter wires leave
        other windows room) and the option's work lasts; the nets it connected, or
        None when it does not apply (an option, a net of more than two pins, or no SAT
        solver installed)."""
        if not self._windows_apply():
            return None
        opt = self.options
        budget, added = opt.window_work, 0
        while budget > 0 and not self._late("exact windows"):
            start = time.perf_counter()
            todo = [i for i, c in enumerate(self.cells)
                    if c is None and i not in self.enclosed]
            got = complete_in_windows(self.free, self.pins, self.routes, nets=todo,
                                      work=budget, until=lambda: self._late("exact windows"))
            budget = 0 if got.full else budget - max(1, got.work)
            if not got.added:
                break
            added += got.added
            changed, _ = self._take_shortened(got.routes)
            self.seconds[changed] += (time.perf_counter() - start) / len(changed)
        return added

    def _windows_apply(self) -> bool:
        """Whether :meth:`_windows` may run on this layout at all."""
        return (self.options.window_work != 0 and all(len(p) == 2 for p in self.pins)
                and windows_available())
