"""The PathFinder loop's stopping rules over its iterations' figures (overused cells, nets
in conflict, cells searched, nets it would keep): :class:`StopRules`, whose thresholds
are :class:`~.options.PathFinderOptions`' fields.

Examples
--------
>>> from mazeroute.router.negotiation.options import PathFinderOptions
>>> PathFinderOptions(crowd_iterations=3).crowded([200, 199, 199, 200], 200)
True
"""

from __future__ import annotations

__all__ = ["StopRules"]


class StopRules:
    """The stopping rules of :class:`~.options.PathFinderOptions` (a base of it: the
    thresholds are its fields; the loop, :class:`~.loop.Loop`, asks them in turn)."""

    def diverged(self, overused: list[int], conflicts: list[int]) -> bool:
        """Whether the overuse has grown and stayed grown (see ``diverge_factor``) after
        the iterations whose overused cells and nets in conflict are ``overused`` and
        ``conflicts``.

        >>> from mazeroute.router.negotiation.options import PathFinderOptions
        >>> opt = PathFinderOptions()
        >>> opt.diverged([1000, 1400, 1600, 1700, 1650], [90, 95, 96, 95, 95])
        True
        >>> opt.diverged([1000, 1400, 1600, 1400, 1650], [90, 95, 96, 95, 95])   # 1400 < 1500
        False
        >>> opt.diverged([1000, 20, 60, 60, 60], [900, 40, 40, 40, 40])  # a late flare-up
        False
        >>> opt.diverged([10, 40, 40, 40, 40], [4, 5, 5, 5, 5])          # few in conflict
        False
        """
        k = self.diverge_iterations
        if self.diverge_factor is None or len(overused) <= k:
            return False
        if min(conflicts[-k:]) < self.stall_min_conflicts:
            return False
        return min(overused[-k:]) >= self.diverge_factor * overused[0]

    def settled(self, kept: list[int], conflicts: list[int]) -> bool:
        """Whether the nets negotiation would keep (``kept``, one a iteration) reached no
        new high over the last ``kept_iterations`` iterations while every iteration
        (``conflicts``: nets in conflict) left at least ``stall_min_conflicts`` nets in
        conflict (see ``kept_iterations``).

        >>> from mazeroute.router.negotiation.options import PathFinderOptions
        >>> opt = PathFinderOptions(kept_iterations=3)
        >>> opt.settled([20, 30, 31, 29, 31, 30], [90, 80, 79, 80, 80, 79])
        True
        >>> opt.settled([20, 30, 31, 29, 31, 32], [90, 80, 79, 80, 80, 79])   # 32 > 31
        False
        >>> opt.settled([20, 30, 31, 29, 31, 30], [90, 80, 9, 80, 80, 79])    # few in conflict
        False
        """
        k = self.kept_iterations
        if k is None or len(kept) <= k or len(conflicts) < len(kept):
            return False
        if min(conflicts) < self.stall_min_conflicts:
            return False
        return max(kept[-k:]) <= max(kept[:-k])

    def crowded(self, conflicts: list[int], nets: int) -> bool:
        """Whether negotiation of ``nets`` nets is over-subscribed after the iterations
        that left ``conflicts`` nets in conflict (see ``crowd_iterations``).

        >>> from mazeroute.router.negotiation.options import PathFinderOptions
        >>> opt = PathFinderOptions(crowd_iterations=3)
        >>> opt.crowded([200, 199, 199, 200], 200)
        True
        >>> opt.crowded([200, 199, 185, 200], 200)     # 185: 5 % and more below the first
        False
        >>> opt.crowded([60, 40, 30, 25], 200)         # a few nets in conflict
        False
        >>> opt.crowded([29, 28, 29, 29], 29)          # fewer than stall_min_conflicts
        False
        """
        k = self.crowd_iterations
        if k is None or len(conflicts) < k or nets <= 0:
            return False
        recent = min(conflicts[-k:])
        if recent < max(self.stall_min_conflicts, self.crowd_share * nets):
            return False
        return recent > (1 - self.stall_improvement) * conflicts[0]

    def stalled(self, overused: list[int], conflicts: list[int],
                searched: list[int] | None = None) -> bool:
        """Whether negotiation has stalled after the iterations whose overused cells and
        nets in conflict are ``overused`` and ``conflicts``, and which searched
        ``searched`` cells (see ``stall_iterations``).

        >>> from mazeroute.router.negotiation.options import PathFinderOptions
        >>> opt = PathFinderOptions(stall_iterations=3, stall_improvement=0.1,
        ...                         stall_min_conflicts=0)
        >>> opt.stalled([50, 40, 41, 40, 39], [90, 80, 79, 78, 77])   # 39 > 0.9 * 40
        True
        >>> opt.stalled([50, 40, 41, 40, 35], [90, 80, 79, 78, 77])   # 35 <= 0.9 * 40
        False
        >>> opt = PathFinderOptions(stall_iterations=3, stall_min_cells=1000)
        >>> opt.stalled([2, 1, 1, 1, 1], [3, 2, 2, 2, 2], [9000, 3000, 3000, 3000, 3000])
        True
        >>> opt.stalled([2, 1, 1, 1, 1], [3, 2, 2, 2, 2], [9000, 3000, 3000, 3000, 300])
        False
        """
        k = self.stall_iterations
        if k is None or len(overused) <= k:
            return False
        dear = (self.stall_min_cells is not None and searched is not None
                and min(searched[-k:]) >= self.stall_min_cells)
        if min(conflicts) < self.stall_min_conflicts and not dear:
            return False

        def fell(seq):
            before, recent = min(seq[:-k]), min(seq[-k:])
            return recent < before and recent <= (1 - self.stall_improvement) * before
        return not (fell(overused) or fell(conflicts))

    def over_budget(self, iteration: int, searched: int) -> bool:
        """Whether negotiation stops after ``iteration`` for its budget: past
        ``budget_after`` iterations, its searches covered ``searched`` cells, at least
        ``budget_cells``.

        >>> from mazeroute.router.negotiation.options import PathFinderOptions
        >>> opt = PathFinderOptions(budget_after=50, budget_cells=1000)
        >>> opt.over_budget(50, 10**6), opt.over_budget(51, 999), opt.over_budget(51, 1000)
        (False, False, True)
        """
        return (iteration > self.budget_after and self.budget_cells is not None
                and searched >= self.budget_cells)
