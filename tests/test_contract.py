"""The routes checker catches every broken promise of FORMATS.md."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    "missing net": (lambda r: r["nets"].pop(), "has no entry"),
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


MALFORMED = {
    "cell of a string": lambda r: _net(r, "a").update(cells=[[0, "a"]]),
    "cells a number": lambda r: _net(r, "a").update(cells=5),
    "null entry": lambda r: r["nets"].append(None),
    "entry a list": lambda r: r["nets"].append([1, 2]),
    "name a number": lambda r: _net(r, "a").update(name=7),
    "routed a string": lambda r: _net(r, "a").update(routed="yes"),
    "order a float": lambda r: _net(r, "a").update(order=1.5),
    "bool coordinates": lambda r: _net(r, "a").update(cells=[[True, False]]),
    "three coordinates": lambda r: _net(r, "a").update(cells=[[0, 0, 0]]),
    "huge coordinate": lambda r: _net(r, "a").update(cells=[[10**30, 0]]),
    "nets a dict": lambda r: r.update(nets={"a": 1}),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_routes_files_give_lines_not_exceptions(good, name):
    """Issue 12 item 10: each malformed part is a problem line, never a traceback."""
    bad = copy.deepcopy(good)
    MALFORMED[name](bad)
    problems = check_routes(LAYOUT, bad)
    assert problems and all("\n" not in p and len(p) < 300 for p in problems)


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda kids: st.lists(kids, max_size=4)
                    | st.dictionaries(st.sampled_from(["name", "cells", "routed", "order",
                                                       "length", "nets", "format"]), kids,
                                      max_size=4), max_leaves=20))
def test_random_json_never_raises(value):
    problems = check_routes(LAYOUT, value)
    assert isinstance(problems, list) and problems
    wrapped = {"format": "mazeroute-routes/1", "width": LAYOUT.width,
               "height": LAYOUT.height, "nets": [value]}
    assert check_routes(LAYOUT, wrapped)


def test_sequential_flags_nets_given_up_while_a_path_existed():
    """Issue 12 item 11: every net of multinet.yaml marked unrouted must fail."""
    from pathlib import Path

    from mazeroute.layout import load_layout
    lay = load_layout(Path(__file__).resolve().parents[1] / "layouts" / "multinet.yaml")
    routes = route(lay, backend="cpu").to_json()
    assert check_routes(lay, routes, sequential=True) == []
    for n in routes["nets"]:
        n.update(routed=False, cells=[], order=None, length=0)
    problems = check_routes(lay, routes, sequential=True)
    assert len(problems) == len(lay.nets) and all("path exists" in p for p in problems)
    assert check_routes(lay, routes) == []          # without --sequential: a valid file


def test_sequential_accepts_a_net_walled_off_by_earlier_wires(good):
    walled = parse_layout({"width": 7, "height": 5, "nets": [
        {"name": "a", "pins": [[0, 2], [6, 2]]}, {"name": "b", "pins": [[3, 0], [3, 4]]}]})
    res = route(walled, backend="cpu").to_json()
    assert [n["routed"] for n in res["nets"]] == [True, False]
    assert check_routes(walled, res, sequential=True) == []


def test_mode_field_is_checked(good):
    bad = copy.deepcopy(good)
    bad["mode"] = "magic"
    assert any("mode" in p for p in check_routes(LAYOUT, bad))
    neg = copy.deepcopy(good)
    neg["mode"] = "negotiate"
    assert check_routes(LAYOUT, neg) == []
    assert any("negotiate" in p for p in check_routes(LAYOUT, neg, sequential=True))
