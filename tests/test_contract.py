"""The routes checker catches every broken promise of FORMATS.md."""

from __future__ import annotations

import copy

import pytest

from mazeroute.contract import check_routes
from mazeroute.layout import parse_layout
from mazeroute.router import route

LAYOUT = parse_layout({"width": 8, "height": 6, "blockages": [[3, 0, 3, 3]], "nets": [
    {"name": "a", "pins": [[0, 0], [7, 0]]},
    {"name": "b", "pins": [[0, 5], [7, 5]]},
    {"name": "t", "pins": [[5, 2], [6, 3], [5, 4]]}]}, "c.yaml")


@pytest.fixture
def good():
    res = route(LAYOUT, backend="cpu").to_json()
    assert check_routes(LAYOUT, res, sequential=True) == []
    return res


def _net(routes, name):
    return next(n for n in routes["nets"] if n["name"] == name)


MUTATIONS = {
    "format": (lambda r: r.update(format="other/1"), "format"),
    "size": (lambda r: r.update(width=9), "width"),
    "missing net": (lambda r: r["nets"].pop(), "only one of"),
    "off grid": (lambda r: _net(r, "t")["cells"].append([8, 0]), "outside"),
    "on blockage": (lambda r: _net(r, "t")["cells"].append([3, 3]), "blockage"),
    "foreign pin": (lambda r: _net(r, "t")["cells"].append([0, 5]), "pin of net 'b'"),
    "disconnected": (lambda r: _net(r, "t")["cells"].append([0, 3]), "4-connected"),
    "missing pin": (lambda r: _net(r, "t")["cells"].remove([6, 3]), "not on the wire"),
    "jump": (lambda r: _net(r, "a")["cells"].pop(2), "neighbours"),
    "length": (lambda r: _net(r, "a").update(length=1), "length"),
    "order": (lambda r: _net(r, "a").update(order=7), "orders"),
    "unrouted with cells": (lambda r: _net(r, "a").update(routed=False), "unrouted"),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_each_broken_promise_is_reported(good, name):
    bad = copy.deepcopy(good)
    mutate, words = MUTATIONS[name]
    mutate(bad)
    problems = check_routes(LAYOUT, bad)
    assert any(words in p for p in problems), problems


def test_overlap_between_nets_is_reported(good):
    bad = copy.deepcopy(good)
    _net(bad, "t")["cells"].append(_net(bad, "a")["cells"][1])
    assert any("also belongs" in p for p in check_routes(LAYOUT, bad))


def test_a_longer_path_fails_only_the_sequential_check(good):
    bad = copy.deepcopy(good)
    a = _net(bad, "a")            # a ends along the top row; make it dip down and back
    i = a["cells"].index([5, 0])
    a["cells"][i:i + 2] = [[5, 0], [5, 1], [6, 1], [6, 0]]
    a["length"] = len(a["cells"]) - 1
    assert check_routes(LAYOUT, bad) == []
    assert any("shortest" in p for p in check_routes(LAYOUT, bad, sequential=True))
