"""The routes checker catches every broken promise of FORMATS.md."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.contract import MAX_PROBLEMS, check_routes, load_routes
from mazeroute.errors import InputError
from mazeroute.generate import random_layout
from mazeroute.layout import save_layout
from mazeroute.readers import load_layout, parse_layout
from mazeroute.router import route
from tests.corpus import bfs_connected

LAYOUT = parse_layout({"width": 8, "height": 6, "blockages": [[3, 0, 3, 3]], "nets": [
    {"name": "a", "pins": [[0, 0], [7, 0]]},
    {"name": "b", "pins": [[0, 5], [7, 5]]},
    {"name": "t", "pins": [[5, 2], [6, 3], [5, 4]]}]}, "c.yaml")


@pytest.fixture
def good():
    res = route(LAYOUT, backend="cpu", mode="sequential").to_json()
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


# -- malformed routes files -----------------------------------------------------------
def _lines_ok(problems):
    assert isinstance(problems, list) and problems
    for p in problems:
        assert isinstance(p, str) and "\n" not in p and len(p) < 400 and p.isprintable(), p


MALFORMED = {
    "cell with text": (lambda r: _net(r, "a").update(cells=[[0, "a"]]), "cells[0]"),
    "cells a number": (lambda r: _net(r, "a").update(cells=5), "cells is not a list"),
    "null entry": (lambda r: r["nets"].append(None), "not an object"),
    "nets null": (lambda r: r.update(nets=None), "nets is not a list"),
    "nets an object": (lambda r: r.update(nets={"a": 1}), "nets is not a list"),
    "no name": (lambda r: _net(r, "a").pop("name"), "name is not a string"),
    "list name": (lambda r: _net(r, "a").update(name=["a"]), "name is not a string"),
    "no cells": (lambda r: _net(r, "a").pop("cells"), "cells is missing"),
    "no routed": (lambda r: _net(r, "a").pop("routed"), "routed is missing"),
    "no order": (lambda r: _net(r, "a").pop("order"), "order is missing"),
    "no length": (lambda r: _net(r, "a").pop("length"), "length is not"),
    "routed as 1": (lambda r: _net(r, "a").update(routed=1), "routed is not true or false"),
    "order as bool": (lambda r: _net(r, "a").update(order=False), "order is not an integer"),
    "order as text": (lambda r: _net(r, "a").update(order="0"), "order is not an integer"),
    "routed, order null": (lambda r: _net(r, "a").update(order=None), "order is null"),
    "bool coordinates": (lambda r: _net(r, "a").update(cells=[[True, False]]), "cells[0]"),
    "three coordinates": (lambda r: _net(r, "a").update(cells=[[0, 0, 0]]), "cells[0]"),
    "huge coordinate": (lambda r: _net(r, "a")["cells"].append([10 ** 400, 0]), "outside"),
    "huge order": (lambda r: _net(r, "a").update(order=10 ** 400), "orders"),
    "negative length": (lambda r: _net(r, "a").update(length=-1), "length is not"),
    "length as bool": (lambda r: _net(r, "t").update(length=True), "length is not"),
    "width as bool": (lambda r: r.update(width=True, height=True), "width/height"),
    "huge text": (lambda r: r.update(format="x" * 10 ** 6), "(1000000 characters)"),
    "mode unknown": (lambda r: r.update(mode="random"), "mode is 'random'"),
    "mode a list": (lambda r: r.update(mode=[1]), "mode is [1]"),
}


def _checked(good, table: dict, name: str):
    """``good`` spoilt by ``table[name]``'s mutation: the words its problem names, and
    the checker's problems without and with ``sequential``."""
    bad = copy.deepcopy(good)
    mutate, words = table[name]
    mutate(bad)
    return words, [check_routes(LAYOUT, bad, sequential=s) for s in (False, True)]


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_routes_file_is_problem_lines_never_an_exception(good, name):
    words, runs = _checked(good, MALFORMED, name)
    for problems in runs:
        _lines_ok(problems)
        assert any(words in p for p in problems), problems


#: One malformed net entry each: its own line is the only one (the other entries' orders
#: and the layout's nets are not blamed for it).
ONE_FAULT = {name: MALFORMED[name] for name in (
    "cell with text", "cells a number", "no name", "list name", "no cells", "no routed",
    "no order", "no length", "routed as 1", "order as bool", "order as text",
    "routed, order null", "bool coordinates", "three coordinates", "negative length",
    "length as bool")} | {
    "entry null": (lambda r: r["nets"].__setitem__(0, None), "nets[0]: not an object"),
    "entry twice": (lambda r: r["nets"].append(copy.deepcopy(r["nets"][0])), "appears twice"),
    "entry 1000 times": (lambda r: r["nets"].extend(copy.deepcopy(r["nets"][:1]) * 999),
                         "appears 1000 times"),
}


@pytest.mark.parametrize("name", ONE_FAULT)
def test_one_malformed_net_entry_is_one_problem_line(good, name):
    words, runs = _checked(good, ONE_FAULT, name)
    for problems in runs:
        assert len(problems) == 1 and words in problems[0], problems


def test_unreadable_entries_do_not_hide_a_net_missing_beside_them(good):
    """Two layout nets without an entry, one unreadable entry: it may be either's, so
    both are named."""
    bad = copy.deepcopy(good)
    bad["nets"] = [None, _net(bad, "t")]
    problems = check_routes(LAYOUT, bad)
    assert problems == ["nets[0]: not an object, got None",
                        "net 'a' is in only one of layout and routes",
                        "net 'b' is in only one of layout and routes"]


def test_a_renamed_net_is_its_two_lines_only(good):
    bad = copy.deepcopy(good)
    _net(bad, "a")["name"] = "zz"
    for sequential in (False, True):
        assert check_routes(LAYOUT, bad, sequential=sequential) == [
            "net 'a' is in only one of layout and routes",
            "net 'zz' is in only one of layout and routes"]


@pytest.mark.parametrize("routes", [None, [], "routes", 3, True])
def test_a_routes_file_that_is_not_an_object(routes):
    problems = check_routes(LAYOUT, routes)
    _lines_ok(problems)
    assert "JSON object" in problems[0]


def test_many_bad_cells_are_one_line_per_kind_and_the_total_is_bounded(good):
    bad = copy.deepcopy(good)
    _net(bad, "t")["cells"] += [[100 + k, 0] for k in range(10_000)]
    problems = check_routes(LAYOUT, bad)
    assert "t: cell [100, 0] is outside the grid (and 9999 more cells)" in problems
    bad["nets"] += [None] * 1000
    problems = check_routes(LAYOUT, bad)
    _lines_ok(problems)
    assert len(problems) == MAX_PROBLEMS + 1 and problems[-1].endswith("more problems")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["format", "width", "height", "mode", "nets", "name", "routed",
                         "order", "cells", "length", "a", "t"]), inner, max_size=6),
    max_leaves=25)


def _paths(value, path=()):
    """Every place in a JSON value, as the list of keys and indices leading to it."""
    yield path
    items = (value.items() if isinstance(value, dict) else
             enumerate(value) if isinstance(value, list) else ())
    for k, v in items:
        yield from _paths(v, (*path, k))


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_any_json_value_gives_problem_lines(routes):
    for sequential in (False, True):
        problems = check_routes(LAYOUT, routes, sequential=sequential)
        assert all(isinstance(p, str) and "\n" not in p for p in problems)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_part_of_a_good_routes_file_replaced_gives_problem_lines(data):
    routes = route(LAYOUT, backend="cpu", mode="sequential").to_json()
    places = list(_paths(routes))[1:]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(places))
        parent = routes
        try:
            for k in path[:-1]:
                parent = parent[k]
            parent[path[-1]] = data.draw(JSON)
        except (KeyError, IndexError, TypeError):      # an earlier swap removed the place
            continue
    for sequential in (False, True):
        problems = check_routes(LAYOUT, routes, sequential=sequential)
        assert all(isinstance(p, str) and "\n" not in p for p in problems)


def test_check_routes_command_on_the_issues_files(tmp_path, capsys):
    from mazeroute.cli import main

    lay = tmp_path / "c.yaml"
    save_layout(LAYOUT, lay)
    good = route(LAYOUT, backend="cpu", mode="sequential").to_json()
    for mutate in [lambda r: _net(r, "a").update(cells=[[0, "a"]]),
                   lambda r: _net(r, "a").update(cells=5),
                   lambda r: r.update(nets=[None])]:
        bad = copy.deepcopy(good)
        mutate(bad)
        f = tmp_path / "routes.json"
        f.write_text(json.dumps(bad))
        assert main(["check", str(lay), "--routes", str(f), "--sequential"]) == 1
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith(f"{lay}: ok") and len(out) > 1
        assert all(line.startswith(f"{f}: ") for line in out[1:])

    # one malformed net entry: one line naming the file and the field, nothing derived
    bad = copy.deepcopy(good)
    _net(bad, "a").update(cells=5)
    f.write_text(json.dumps(bad))
    assert main(["check", str(lay), "--routes", str(f)]) == 1
    assert capsys.readouterr().out.splitlines()[1:] == [
        f"{f}: nets[0] 'a': cells is not a list, got 5"]


# -- load_routes ---------------------------------------------------------------------
@pytest.mark.parametrize("text, words", [
    ("{", "not a JSON file: line 1"),
    ("[1, 2]", "a routes file is a JSON object, got an array"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"width": ' + "9" * 5000 + "}", "not a routes file"),
])
def test_load_routes_refuses_what_is_not_a_routes_object(tmp_path, text, words):
    f = tmp_path / "r.json"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        load_routes(f)
    msg = str(e.value)
    assert msg.startswith(f"{f}: ") and words in msg and len(msg) < 300, msg


def test_load_routes_refuses_a_fifo_and_reads_a_good_file(tmp_path, good):
    fifo = tmp_path / "r.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO, not a regular file"):
        load_routes(fifo)          # checked before opening: returns at once
    f = tmp_path / "good.json"
    f.write_text(json.dumps(good))
    assert load_routes(f) == good
    marked = tmp_path / "bom.json"                # saved by an editor with a BOM
    marked.write_bytes(b"\xef\xbb\xbf" + json.dumps(good).encode())
    assert load_routes(marked) == good


# -- sequential mode: unrouted only when no path existed, and mode ------------------
MULTINET = Path(__file__).resolve().parent.parent / "layouts" / "multinet.yaml"


def test_giving_up_on_every_net_of_multinet_fails_the_sequential_check():
    lay = load_layout(MULTINET)
    routes = route(lay, backend="cpu", mode="sequential").to_json()
    assert check_routes(lay, routes, sequential=True) == []
    for n in routes["nets"]:
        n.update(routed=False, order=None, cells=[], length=0)
    assert check_routes(lay, routes) == []              # every other promise still holds
    problems = check_routes(lay, routes, sequential=True)
    assert sorted(problems) == sorted(f"{n.name}: unrouted, but its pins can be connected "
                                      "even with every routed net's wire in place"
                                      for n in lay.nets)


def test_a_net_cut_off_by_an_earlier_wire_may_stay_unrouted():
    lay = parse_layout({"width": 5, "height": 5, "nets": [
        {"name": "h", "pins": [[0, 2], [4, 2]]}, {"name": "v", "pins": [[2, 0], [2, 4]]},
        {"name": "w", "pins": [[0, 0], [4, 0], [0, 4]]}]}, "cross.yaml")
    routes = route(lay, backend="cpu", mode="sequential").to_json()
    assert [n["routed"] for n in routes["nets"]] == [True, False, False]
    assert check_routes(lay, routes, sequential=True) == []
    _net(routes, "h").update(routed=False, order=None, cells=[], length=0)
    problems = check_routes(lay, routes, sequential=True)   # without h's wire, all connect
    assert sorted(p.split(":")[0] for p in problems) == ["h", "v", "w"]
    assert all(p.endswith(": unrouted, but its pins can be connected even with every "
                          "routed net's wire in place") for p in problems)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**16), drop=st.sets(st.integers(0, 5), max_size=4),
       pins=st.integers(2, 3), density=st.sampled_from([0.0, 0.15, 0.3]),
       order=st.sampled_from(["file", "hpwl"]))
def test_the_unrouted_check_agrees_with_a_plain_bfs(seed, drop, pins, density, order):
    lay = random_layout(12, 10, density=density, nets=6, pins=pins, seed=seed)
    routes = route(lay, backend="cpu", order=order, mode="sequential").to_json()
    assert check_routes(lay, routes, sequential=True) == []      # the router's own output
    entries = routes["nets"]
    for i in drop:                       # the checked file gives up on some routed nets
        if i < len(entries):
            entries[i].update(routed=False, order=None, cells=[], length=0)
    kept = sorted((e["order"], e["name"]) for e in entries if e["routed"])
    for k, (_, name) in enumerate(kept):
        _net(routes, name)["order"] = k
    free = ~lay.blocked.copy()
    for n in lay.nets:
        for x, y in n.pins:
            free[y, x] = False
    for e in entries:
        for x, y in e["cells"]:
            free[y, x] = False
    expected = set()
    for n, e in zip(lay.nets, entries):
        if not e["routed"]:
            mine = free.copy()
            for x, y in n.pins:
                mine[y, x] = True
            if bfs_connected(mine, n.pins):
                expected.add(n.name)
    problems = check_routes(lay, routes, sequential=True)
    flagged = {p.split(": unrouted, but")[0] for p in problems if ": unrouted, but" in p}
    assert flagged == expected


def test_mode_is_optional_and_validated(good):
    assert good["mode"] == "sequential"    # mazeroute writes it (FORMATS 1.1)
    absent = {k: v for k, v in good.items() if k != "mode"}
    assert check_routes(LAYOUT, absent, sequential=True) == []     # optional: sequential
    for mode in ("sequential", "negotiate"):
        assert check_routes(LAYOUT, {**good, "mode": mode}) == []
    assert check_routes(LAYOUT, {**good, "mode": "sequential"}, sequential=True) == []
    problems = check_routes(LAYOUT, {**good, "mode": "negotiate"}, sequential=True)
    assert len(problems) == 1 and "mode is 'negotiate'" in problems[0]
    assert "without --sequential" in problems[0]
    problems = check_routes(LAYOUT, {**good, "mode": "fast"})
    assert problems == ["mode is 'fast', not one of 'sequential', 'negotiate'"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**62), st.integers(0, 2**62)), max_size=40))
def test_cells_written_from_an_array_are_the_lists_json_writes(cells):
    import numpy as np

    from mazeroute.contract import routes_text
    as_lists = {"format": "f", "nets": [{"name": "n", "cells": [list(c) for c in cells],
                                         "length": len(cells)}]}
    as_array = {"format": "f", "nets": [{"name": "n", "length": len(cells),
                                         "cells": np.array(cells, np.int64).reshape(-1, 2)}]}
    as_array["nets"][0] = {k: as_array["nets"][0][k] for k in ("name", "cells", "length")}
    assert routes_text(as_array) == routes_text(as_lists)


_PLAIN = (st.integers(-2**70, 2**70) | st.booleans() | st.none()
          | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _PLAIN | st.lists(_PLAIN, max_size=3),
                       max_size=6),
       st.lists(st.tuples(st.integers(-3, 2**40), st.integers(-3, 2**40)), max_size=6))
def test_a_net_is_written_as_json_writes_it(fields, cells):
    """The net's text (plain values without json.dumps, cells from the array) equals
    json.dumps of the same net with its cells as lists, whatever the values."""
    import numpy as np

    from mazeroute.contract import _net_text
    net = {**fields, "cells": np.array(cells, np.int64).reshape(-1, 2)}
    want = json.dumps({**net, "cells": [list(c) for c in cells]}, separators=(",", ":"))
    assert _net_text(net) == want


@pytest.mark.parametrize("mode", ["sequential", "negotiate"])
def test_a_routes_file_from_arrays_equals_the_one_from_lists(mode):
    """routes.json is written from each wire's array (no Python list a cell): the same
    text as from RouteResult.to_json()'s lists, unrouted and multi-pin nets included."""
    from mazeroute.contract import routes_text
    from mazeroute.generate import random_layout
    from mazeroute.router import route
    for seed, pins in ((1, 2), (2, 3)):
        lay = random_layout(40, 30, density=0.3, nets=25, pins=pins, seed=seed)
        res = route(lay, backend="cpu", mode=mode)
        assert any(not n.routed for n in res.nets) or mode == "negotiate"
        assert routes_text(res.to_json(arrays=True)) == routes_text(res.to_json())
        assert check_routes(lay, json.loads(routes_text(res.to_json(arrays=True)))) == []
