"""Multi-layer puzzles made from disjoint paths, and random multi-layer layouts."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.contract import check_routes
from mazeroute.errors import InputError
from mazeroute.generate3d import problem_text, random_layout3d, solvable_puzzle
from mazeroute.layers import edge_kind
from mazeroute.layout import check_layout
from mazeroute.readers.adc import parse_adc_problem
from mazeroute.readers.adc_answer import answer_text, check_adc_answer, parse_adc_answer
from mazeroute.router.result import ROUTES_FORMAT

SIZES = [(6, 5, 2, 3), (12, 10, 3, 8), (20, 8, 4, 12), (30, 30, 2, 40)]


def routes_of(puzzle) -> dict:
    """The known solution as a routes file (contract 1.2)."""
    nets, total = [], 0
    for order, (name, path) in enumerate(puzzle.solution.items()):
        kinds = [edge_kind(puzzle.layout.stack, a, b) for a, b in zip(path, path[1:])]
        vias = kinds.count("via")
        total += vias
        nets.append({"name": name, "routed": True, "order": order,
                     "cells": [list(c) for c in path], "length": kinds.count("step"),
                     "vias": vias})
    lay = puzzle.layout
    return {"format": ROUTES_FORMAT, "layout": lay.name, "width": lay.width,
            "height": lay.height, "layers": list(lay.stack.names), "mode": "sequential",
            "nets": nets, "vias": total}


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}x{d}:{n}" for w, h, d, n in SIZES])
@pytest.mark.parametrize("seed", range(5))
def test_puzzle_solution_is_complete_and_keeps_the_contests_rules(size, seed):
    w, h, d, n = size
    p = solvable_puzzle(w, h, d, nets=n, seed=seed)
    assert len(p.layout.nets) == n and p.layout.blocked.shape == (d, h, w)
    check_layout(p.layout)
    assert check_adc_answer(p.problem, p.solution) == []
    for net in p.layout.nets:
        path = p.solution[net.name]
        assert [path[0], path[-1]] == net.pins
        kinds = [edge_kind(p.layout.stack, a, b) for a, b in zip(path, path[1:])]
        assert None not in kinds and "via" in kinds       # a walk that changes layer
        assert kinds[0] == kinds[-1] == "step"             # no terminal inside a via
    cells = [c for path in p.solution.values() for c in path]
    assert len(cells) == len(set(cells))                   # disjoint
    users = [{k for k, path in p.solution.items() if set(v.cells()) & set(path)} for v in p.vias]
    assert all(len(u) == 1 for u in users)
    assert check_routes(p.layout, routes_of(p)) == []


def test_a_broken_solution_is_caught_by_both_checks():
    p = solvable_puzzle(12, 10, 3, nets=6, seed=4)
    path = p.solution["1"]
    broken = {**p.solution, "1": path[:1] + path[2:]}
    assert check_adc_answer(p.problem, broken)
    routes = routes_of(p)
    routes["nets"][0]["cells"] = [list(c) for c in broken["1"]]
    assert check_routes(p.layout, routes)


def test_puzzle_is_the_same_for_a_seed_and_differs_between_seeds():
    a = solvable_puzzle(12, 10, 3, nets=8, seed=7)
    b = solvable_puzzle(12, 10, 3, nets=8, seed=7)
    c = solvable_puzzle(12, 10, 3, nets=8, seed=8)
    assert problem_text(a) == problem_text(b) and a.solution == b.solution
    assert problem_text(a) != problem_text(c)


def test_puzzle_written_as_adc_reads_back_and_its_answer_checks():
    p = solvable_puzzle(10, 10, 3, nets=6, seed=2)
    problem = parse_adc_problem(problem_text(p), "gen.txt")
    assert problem.vias == p.vias
    assert [(n.name, n.pins) for n in problem.layout.nets] == [
        (n.name, n.pins) for n in p.layout.nets]
    assert np.array_equal(problem.layout.stack.via_sites, p.layout.stack.via_sites)
    answer = parse_adc_answer(answer_text(p.layout, p.solution), "gen-answer.txt")
    assert check_adc_answer(problem, answer) == []


def test_puzzle_refuses_one_layer_and_more_paths_than_fit():
    with pytest.raises(InputError, match="layers: must be an integer >= 2"):
        solvable_puzzle(5, 5, 1, nets=1)
    with pytest.raises(InputError, match="cannot draw 30 disjoint paths"):
        solvable_puzzle(3, 3, 2, nets=30)


def test_random_layout3d_has_blockages_per_layer_and_local_nets():
    lay = random_layout3d(40, 30, 3, density=0.2, nets=25, span=6, seed=5,
                          directions=["horizontal", "vertical", "any"], via_cost=2)
    check_layout(lay)
    assert lay.blocked.shape == (3, 30, 40)
    assert lay.stack.directions == ("horizontal", "vertical", "any") and lay.stack.via_cost == 2
    share = lay.blocked.reshape(3, -1).mean(axis=1)
    assert all(0.15 <= s <= 0.3 for s in share), share
    assert not np.array_equal(lay.blocked[0], lay.blocked[1])
    assert len(lay.nets) == 25
    for net in lay.nets:
        (x0, y0, z0), (x1, y1, z1) = net.pins
        assert abs(x0 - x1) + abs(y0 - y1) <= 6
        assert not lay.blocked[z0, y0, x0] and not lay.blocked[z1, y1, x1]
    again = random_layout3d(40, 30, 3, density=0.2, nets=25, span=6, seed=5,
                            directions=["horizontal", "vertical", "any"], via_cost=2)
    assert np.array_equal(again.blocked, lay.blocked) and again.nets == lay.nets
    other = random_layout3d(40, 30, 3, density=0.2, nets=25, span=6, seed=6)
    assert not np.array_equal(other.blocked, lay.blocked)


def test_random_layout3d_refuses_bad_directions_and_crowding():
    with pytest.raises(InputError, match="directions"):
        random_layout3d(10, 10, 2, directions=["any"])
    with pytest.raises(InputError, match="directions"):
        random_layout3d(10, 10, 2, directions=["any", "up"])
    with pytest.raises(InputError, match="cannot place 100 nets"):
        random_layout3d(4, 4, 2, density=0.0, nets=100)
