"""The negotiation state (router.congestion): the cost rule, its fixed point, the
schedule of pres_fac, history and net weights, and the ``changed`` cells."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.engines.weighted import COST_DTYPE, COST_MAX
from mazeroute.router.congestion import COST_SCALE, Congestion, PathFinderOptions


def test_pres_fac_schedule_follows_vpr():
    opt = PathFinderOptions(first_iter_pres_fac=0.0, initial_pres_fac=0.5, pres_fac_mult=1.3,
                            max_pres_fac=10.0)
    assert opt.pres_fac(1) == 0.0
    assert opt.pres_fac(2) == 0.5
    assert opt.pres_fac(3) == pytest.approx(0.65)
    assert opt.pres_fac(4) == pytest.approx(0.845)
    assert opt.pres_fac(100) == 10.0
    assert opt.pres_fac(10**6) == 10.0           # the power overflows a float long before


@pytest.mark.parametrize("field, value", [("max_iterations", 0), ("pres_fac_mult", 0.9),
                                          ("acc_fac", -1), ("bb_grow", 1), ("time_limit", -1),
                                          ("bb_patience", 0), ("net_acc", -1),
                                          ("stall_iterations", 0), ("bb_grow_limit", -1),
                                          ("stall_improvement", 1.0),
                                          ("stall_min_conflicts", -1),
                                          ("stall_min_cells", -1),
                                          ("diverge_factor", 0.9),
                                          ("diverge_iterations", 0),
                                          ("kept_iterations", 0)])
def test_options_out_of_range_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        PathFinderOptions(**{field: value})


@pytest.mark.parametrize("field, value", [
    ("max_iterations", 1.5), ("max_iterations", True), ("max_iterations", "3"),
    ("max_iterations", 10**30), ("fill_steps", 10**20), ("snapshot_nets", float("inf")),
    ("acc_fac", float("inf")), ("acc_fac", 1e300), ("max_pres_fac", float("nan")),
    ("first_iter_pres_fac", float("inf")), ("time_limit", "1"), ("bb_factor", 2.5),
    ("bb_grow_limit", float("inf")), ("stall_iterations", 1.5), ("net_acc", 10**30),
    ("bb_grow", 2**40)])
def test_options_of_the_wrong_kind_or_size_are_refused(field, value):
    """Nonsense values fail at once with a ValueError naming the option, not deep in the
    router (an overflow, a compiled function's argument error, a box off the grid)."""
    with pytest.raises(ValueError, match=field):
        PathFinderOptions(**{field: value})


def test_numpy_numbers_are_the_numbers_they_hold():
    """A value read from an array (np.int64, np.float32) is taken as the number it holds,
    as a plain int or float; a NumPy bool, or a fraction for a whole number, is not."""
    opt = PathFinderOptions(window_work=np.int64(5), max_iterations=np.int32(7),
                            acc_fac=np.float32(0.5))
    assert (opt.window_work, opt.max_iterations, opt.acc_fac) == (5, 7, 0.5)
    assert type(opt.window_work) is int and type(opt.acc_fac) is float
    for field, value in (("window_work", np.float64(2.5)), ("window_work", np.bool_(True)),
                         ("acc_fac", np.float64("nan")), ("fill_steps", np.int64(-1))):
        with pytest.raises(ValueError, match=field):
            PathFinderOptions(**{field: value})


def _expected_costs(state: Congestion, pres_fac: float) -> np.ndarray:
    """The cost rule written out cell by cell, in exact integers."""
    pres = int(round(pres_fac * COST_SCALE))
    out = np.empty(state.base.size, np.int64)
    for c in range(state.base.size):
        load = sum(int(state.weight[n]) for n, r in enumerate(state.routes)
                   if r is not None and c in set(r.tolist()))
        value = (int(state.base[c]) + int(state.history[c])) * (COST_SCALE + pres * load)
        out[c] = min(COST_MAX, max(1, value // COST_SCALE))
    return out


def test_incremental_costs_equal_the_rule_and_changed_lists_every_change():
    rng = np.random.default_rng(3)
    free = np.ones((6, 7), bool)
    nets = 5
    state = Congestion(free, nets, acc_fac=1.0, net_acc=2)
    before, _ = state.costs()
    before = before.copy()
    pres = 0.0
    for step in range(60):
        action = rng.integers(4)
        net = int(rng.integers(nets))
        if action == 0:
            state.remove(net)
            state.add(net, rng.choice(free.size, int(rng.integers(1, 12)), replace=False))
        elif action == 1:
            state.remove(net)
        elif action == 2:
            pres = float(rng.choice([0.0, 0.5, 1.7, 40.0]))
            state.set_pres_fac(pres)
        else:
            state.end_iteration([n for n in range(nets) if rng.random() < 0.5])
        cost, changed = state.costs()
        assert cost.dtype == COST_DTYPE and cost.shape == free.shape
        np.testing.assert_array_equal(cost.ravel(), _expected_costs(state, pres))
        moved = np.flatnonzero(cost.ravel() != before.ravel())
        assert set(moved.tolist()) <= set(changed.tolist()), step
        before = cost.copy()


def test_history_grows_by_overuse_and_weights_by_conflicts():
    state = Congestion(np.ones((1, 5), bool), 3, acc_fac=2.0, net_acc=1)
    state.add(0, np.array([0, 1, 2]))
    state.add(1, np.array([2, 3]))
    state.add(2, np.array([2, 4]))
    assert state.overused().tolist() == [2]
    state.end_iteration([0, 1, 2])
    assert state.history_cost().tolist() == [[0, 0, 4, 0, 0]]      # acc_fac * overuse 2
    assert state.weight.tolist() == [2, 2, 2]
    assert state.load.tolist() == [2, 2, 6, 2, 2]
    state.remove(2)
    assert state.load.tolist() == [2, 2, 4, 2, 0] and state.overused().tolist() == [2]


def test_a_net_is_added_once():
    state = Congestion(np.ones((2, 2), bool), 1)
    state.add(0, np.array([0]))
    with pytest.raises(ValueError, match="routed already"):
        state.add(0, np.array([1]))
    state.remove(0)
    state.remove(0)             # removing an unrouted net changes nothing
    assert state.occupancy.sum() == 0


def test_costs_saturate_at_cost_max():
    state = Congestion(np.ones((1, 2), bool), 2)
    state.set_pres_fac(1e6)
    state.add(0, np.array([0]))
    assert state.costs()[0].tolist() == [[COST_MAX, COST_SCALE]]


def test_stall_rule_looks_at_the_best_of_a_window_whatever_nets_conflict():
    opt = PathFinderOptions(stall_iterations=3, stall_improvement=0.1, stall_min_conflicts=0)
    assert not opt.stalled([9, 8, 8], [5, 5, 5])              # too few iterations yet
    assert opt.stalled([8, 9, 8, 8], [5, 5, 5, 5])             # nothing fell
    assert not opt.stalled([8, 9, 8, 7], [5, 5, 5, 5])         # 7 <= 0.9 * 8
    assert not opt.stalled([8, 9, 8, 8], [50, 50, 50, 44])     # nets in conflict fell
    assert opt.stalled([8, 9, 8, 8], [50, 50, 50, 46])         # 46 > 0.9 * 50
    assert opt.stalled([99, 80, 81, 80, 79, 78], [9, 9, 9, 9, 9, 9])  # 78 > 0.9 * 80
    assert opt.stalled([2, 1, 2, 1, 2, 1], [4, 2, 4, 2, 4, 2])  # oscillating: no new best
    assert not PathFinderOptions(stall_iterations=None).stalled([5] * 99, [5] * 99)
    # a fall of one cell counts however small the fraction, when it is a new best
    assert not PathFinderOptions(stall_iterations=2, stall_improvement=0.0,
                                 stall_min_conflicts=0).stalled([100, 100, 99], [9, 9, 9])
    # few nets in conflict: no stall, however long the plateau
    few = PathFinderOptions(stall_iterations=3, stall_min_conflicts=6)
    assert not few.stalled([8, 9, 8, 8], [5, 5, 5, 5]) and few.stalled([8, 9, 8, 8], [6] * 4)
    # ... unless each iteration of the window searched many cells
    dear = PathFinderOptions(stall_iterations=3, stall_min_conflicts=6, stall_min_cells=100)
    assert dear.stalled([8, 9, 8, 8], [5] * 4, [10, 100, 100, 100])
    assert not dear.stalled([8, 9, 8, 8], [5] * 4, [100, 100, 99, 100])   # one was cheap
    assert not dear.stalled([8, 9, 8, 8], [5] * 4)                        # none counted
    assert not dear.stalled([8, 9, 8, 7], [5] * 4, [100] * 4)             # 7 is a new best
    off = PathFinderOptions(stall_iterations=3, stall_min_conflicts=6, stall_min_cells=None)
    assert not off.stalled([8, 9, 8, 8], [5] * 4, [10 ** 9] * 4)


def test_kept_rule_waits_for_a_new_high_of_the_nets_kept():
    opt = PathFinderOptions(kept_iterations=2, stall_min_conflicts=10)
    assert not opt.settled([5, 9], [50, 50])                       # too few iterations yet
    assert opt.settled([5, 9, 8, 9], [50] * 4)                     # 9 is no new high
    assert not opt.settled([5, 9, 8, 10], [50] * 4)                # 10 is
    assert not opt.settled([5, 9, 8, 9], [50, 50, 9, 50])          # once few in conflict
    assert not opt.settled([9, 5, 5, 5, 5], [50] * 4)              # a kept for each iteration
    assert not PathFinderOptions(kept_iterations=None).settled([9] * 20, [50] * 20)


def test_divergence_rule_compares_a_window_with_the_first_iteration():
    opt = PathFinderOptions(diverge_factor=2.0, diverge_iterations=2, stall_min_conflicts=10)
    assert not opt.diverged([100, 300], [50, 50])                   # too few iterations yet
    assert opt.diverged([100, 150, 200, 250], [50] * 4)             # both of the window >= 200
    assert not opt.diverged([100, 150, 250, 199], [50] * 4)          # one fell below
    assert not opt.diverged([100, 300, 300, 300], [50, 50, 50, 9])  # few nets in conflict
    assert not opt.diverged([1000, 5, 20, 20], [900, 10, 10, 10])    # grown from a low, not
    assert not PathFinderOptions(diverge_factor=None).diverged([1] + [99] * 9, [99] * 10)


@pytest.mark.parametrize("seed", range(4))
def test_overused_cells_and_users_follow_adds_and_removes(seed):
    """The overused cells kept by add/remove equal a scan of the grid, however many
    changes come between two queries; users() names every user of those cells from the
    known nets' routes and id_sum, or gives up (None)."""
    rng = np.random.default_rng(seed)
    free = np.ones((6, 7), bool)
    state = Congestion(free, nets=9)
    for _ in range(120):
        net = int(rng.integers(9))
        if state.routes[net] is None:
            state.add(net, rng.choice(free.size, int(rng.integers(1, 12)), replace=False))
        else:
            state.remove(net)
        if rng.random() < 0.6:          # several changes between queries, now and then
            continue
        over = state.overused()
        assert over.tolist() == np.flatnonzero(state.occupancy > 1).tolist()
        truth = sorted((int(c), n) for n, r in enumerate(state.routes) if r is not None
                       for c in r.tolist() if c in set(over.tolist()))
        known = sorted(int(k) for k in rng.choice(9, int(rng.integers(0, 10)), replace=False))
        found = state.users(over, known)
        outside = [sum(1 for n, r in enumerate(state.routes) if r is not None
                       and n not in known and c in set(r.tolist())) for c in over.tolist()]
        if max(outside, default=0) > 1:
            assert found is None
        else:
            assert found is not None
            assert sorted(zip(found[0].tolist(), found[1].tolist())) == truth


def test_add_many_with_the_routes_laid_flat_equals_without():
    rng = np.random.default_rng(4)
    free = np.ones((6, 6), bool)
    routes = [rng.choice(36, int(rng.integers(1, 8)), replace=False) for _ in range(5)]
    a, b = Congestion(free, 5), Congestion(free, 5)
    a.add_many(range(5), routes)
    flat = np.concatenate(routes).astype(np.int64)
    b.add_many(range(5), routes, (flat, np.repeat(np.arange(5), [r.size for r in routes])))
    for field in ("occupancy", "load", "id_sum"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_array_equal(a.overused(), b.overused())
    np.testing.assert_array_equal(a.costs()[0], b.costs()[0])


@pytest.mark.parametrize("seed", range(4))
def test_history_map_is_the_history_over_the_scale(seed):
    # the map is made from the cells whose history grew; every cell is compared
    rng = np.random.default_rng(seed)
    state = Congestion(np.ones((6, 7), bool), nets=4, acc_fac=1.5)
    for it in range(5):
        state.set_pres_fac(0.5 * it)
        for net in range(4):
            state.remove(net)
            state.add(net, rng.choice(42, size=rng.integers(1, 12), replace=False))
        state.end_iteration([0, 1, 2, 3])
        assert state.history_cost().tolist() == (state.history / COST_SCALE).reshape(
            6, 7).tolist()
    assert state.history.any()
