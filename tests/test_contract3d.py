"""Routes files of multi-layer layouts (contract version 1.2), written by hand: every
3-D promise that ``check`` keeps, each broken once."""

from __future__ import annotations

import copy
import json

import pytest

from mazeroute.cli import main
from mazeroute.contract import check_routes
from mazeroute.errors import InputError
from mazeroute.readers import parse_yaml
from mazeroute.readers.yaml import parse_layout

LAYOUT = """\
width: 8
height: 6
layers:
  - {name: M1, direction: horizontal}
  - {name: M2, direction: vertical}
via_sites: [[1, 1], [6, 4], [7, 5]]
blockages:
  - {rect: [3, 0, 3, 4], layer: M2}
nets:
  - {name: a, pins: [[0, 5, M1], [7, 0, M2]]}
  - {name: b, pins: [[2, 2], [5, 2]]}
  - {name: c, pins: [[2, 1, M2], [2, 4, M2]]}
"""
#: a: along M1's row 5, a via at [7, 5], up M2's column 7; b: along M1; c: down M2,
#: across b's row on the other layer
A = [[x, 5, 0] for x in range(8)] + [[7, y, 1] for y in range(5, -1, -1)]
ROUTES = {"format": "mazeroute-routes/1", "layout": "m", "width": 8, "height": 6,
          "layers": ["M1", "M2"], "mode": "sequential", "vias": 1, "nets": [
              {"name": "a", "routed": True, "order": 0, "cells": A, "length": 12, "vias": 1},
              {"name": "b", "routed": True, "order": 1,
               "cells": [[2, 2, 0], [3, 2, 0], [4, 2, 0], [5, 2, 0]], "length": 3,
               "vias": 0},
              {"name": "c", "routed": True, "order": 2,
               "cells": [[2, 1, 1], [2, 2, 1], [2, 3, 1], [2, 4, 1]], "length": 3,
               "vias": 0}]}


def _layout(text: str = LAYOUT):
    return parse_layout(parse_yaml(text), "m.yaml")


def _check(routes, text: str = LAYOUT) -> list[str]:
    return check_routes(_layout(text), routes)


def _edit(**nets) -> dict:
    """ROUTES with the named nets' fields replaced."""
    r = copy.deepcopy(ROUTES)
    for e in r["nets"]:
        e.update(nets.get(e["name"], {}))
    return r


def test_hand_written_valid_routes_pass():
    assert _check(ROUTES) == []


def test_a_blockage_of_one_layer_leaves_the_other_free():
    # c crosses [2, 2]: b's cell on M1, c's on M2; a blockage on M1 there would matter
    on_m2 = LAYOUT.replace("blockages:\n", "blockages:\n  - {cell: [4, 5], layer: M2}\n")
    assert _check(ROUTES, on_m2) == []
    on_m1 = LAYOUT.replace("blockages:\n", "blockages:\n  - {cell: [4, 5], layer: M1}\n")
    assert _check(ROUTES, on_m1) == ["a: cell [4, 5, 0] is on a blockage of layer 'M1'"]


@pytest.mark.parametrize("routes, expected", [
    (_edit(b={"cells": [[2, 2, 0], [2, 3, 0], [3, 3, 0], [4, 3, 0], [5, 3, 0], [5, 2, 0]],
              "length": 5}),
     ["b: cells are not connected by steps along their layers' directions and vias",
      "b: consecutive cells are no step or via: step from [2, 2, 0] to [2, 3, 0] runs "
      "against layer 'M1''s direction (horizontal)"]),
    (_edit(b={"cells": [[2, 2, 0], [2, 2, 1], [2, 2, 0]]}),
     ["b: a cell is listed twice", "b: pins [[5, 2, 0]] are not on the wire",
      "b: cells are not connected by steps along their layers' directions and vias",
      "b: a two-pin path must run from pins[0] to pins[1]",
      "b: consecutive cells are no step or via: via at [2, 2] is not at a via site",
      "c: cell [2, 2, 1] also belongs to net 'b'"]),
    (_edit(a={"cells": A[:-1]}),
     ["a: pins [[7, 0, 1]] are not on the wire",
      "a: a two-pin path must run from pins[0] to pins[1]",
      "a: length 12 is not the path's 11 steps inside a layer"]),
    (_edit(a={"cells": A[:3] + A[4:], "length": 11}),
     ["a: cells are not connected by steps along their layers' directions and vias",
      "a: consecutive cells are no step or via: [2, 5, 0] and [4, 5, 0] are not "
      "neighbours"]),
    (_edit(a={"length": 13}), ["a: length 13 is not the path's 12 steps inside a layer"]),
    (_edit(a={"vias": 0}), ["a: vias 0 is not the path's 1 vias",
                            "vias 1 is not the sum of the nets' vias (0)"]),
    ({**ROUTES, "vias": 2}, ["vias 2 is not the sum of the nets' vias (1)"]),
    ({**ROUTES, "layers": ["M1"]}, ["layers ['M1'] differ from the layout's ['M1', 'M2']"]),
    (_edit(c={"cells": [[2, 1, 1], [2, 2, 1], [2, 3, 1], [2, 4, 1], [2, 5, 1], [2, 5, 0]],
              "length": 4}),
     ["c: cell [2, 5, 0] also belongs to net 'a'",
      "c: cells are not connected by steps along their layers' directions and vias",
      "c: a two-pin path must run from pins[0] to pins[1]",
      "c: consecutive cells are no step or via: via at [2, 5] is not at a via site"]),
    (_edit(b={"cells": [[2, 2, 0], [3, 2, 0], [4, 2, 0], [5, 2, 2]]}),
     ["b: cell [5, 2, 2] is outside the grid", "b: pins [[5, 2, 0]] are not on the wire"]),
    (_edit(b={"cells": [[2, 2], [5, 2]]}),
     ["nets[1] 'b': cells[0] is not a cell [x, y, layer] of three integers, got [2, 2]"]),
    (_edit(b={"vias": None}), ["nets[1] 'b': vias is not an integer >= 0, got None"]),
])
def test_each_broken_3d_promise_has_its_line(routes, expected):
    assert _check(routes) == expected


def test_a_blocked_via_and_a_cell_under_a_blockage():
    # a's via at [7, 5] is a via site, but M2 is blocked there: the cell says so
    blocked = LAYOUT.replace("blockages:\n", "blockages:\n  - {cell: [7, 5], layer: M2}\n")
    assert _check(ROUTES, blocked) == ["a: cell [7, 5, 1] is on a blockage of layer 'M2'"]
    # without via sites, a via may go at any cell free on both layers
    anywhere = LAYOUT.replace("via_sites: [[1, 1], [6, 4], [7, 5]]\n", "")
    moved = _edit(a={"cells": [[x, 5, 0] for x in range(7)] + [[6, 5, 1]]
                     + [[6, 4, 1], [6, 4, 0], [7, 4, 0], [7, 4, 1]]
                     + [[7, y, 1] for y in range(3, -1, -1)],
                     "length": 6 + 1 + 1 + 4, "vias": 3})
    assert _check({**moved, "vias": 3}, anywhere) == []
    assert "a: consecutive cells are no step or via: via at [6, 5] is not at a via site" \
        in _check({**moved, "vias": 3})


def test_per_pair_via_sites_allow_a_via_between_their_own_layers_alone():
    three = LAYOUT.replace("  - {name: M2, direction: vertical}\n",
                           "  - {name: M2, direction: vertical}\n  - {name: M3}\n")
    routes = {**ROUTES, "layers": ["M1", "M2", "M3"]}
    assert _check(routes, three.replace("[7, 5]]", "[7, 5, M1]]")) == []
    assert _check(routes, three.replace("[7, 5]]", "[7, 5, M2]]")) == [
        "a: cells are not connected by steps along their layers' directions and vias",
        "a: consecutive cells are no step or via: via at [7, 5] between layers 'M1' and "
        "'M2' is not at a via site"]


def test_the_check_command_reads_3d_routes(tmp_path, capsys):
    lay, good, bad = tmp_path / "m.yaml", tmp_path / "good.json", tmp_path / "bad.json"
    lay.write_text(LAYOUT)
    good.write_text(json.dumps(ROUTES))
    bad.write_text(json.dumps(_edit(a={"vias": 2})))
    assert main(["check", str(lay), "--routes", str(good)]) == 0
    assert "ok: every promise" in capsys.readouterr().out
    assert main(["check", str(lay), "--routes", str(bad)]) == 1
    assert "a: vias 2 is not the path's 1 vias" in capsys.readouterr().out
    assert main(["check", str(lay), "--routes", str(good), "--sequential"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--sequential" in err and "multi-layer" in err


def test_sequential_promises_of_3d_routes_are_refused_not_guessed():
    with pytest.raises(InputError, match="cannot be checked yet"):
        check_routes(_layout(), ROUTES, sequential=True)


def test_2d_routes_need_no_layers_or_vias():
    lay = parse_layout(parse_yaml("width: 3\nheight: 1\nnets: [{name: a, pins: [[0, 0], "
                                  "[2, 0]]}]\n"), "t.yaml")
    routes = {"format": "mazeroute-routes/1", "width": 3, "height": 1, "nets": [
        {"name": "a", "routed": True, "order": 0, "cells": [[0, 0], [1, 0], [2, 0]],
         "length": 2}]}
    assert check_routes(lay, routes) == []
    three = copy.deepcopy(routes)
    three["nets"][0]["cells"] = [[0, 0, 0], [1, 0, 0], [2, 0, 0]]
    assert check_routes(lay, three) == [
        "nets[0] 'a': cells[0] is not a cell [x, y] of two integers, got [0, 0, 0]"]


def test_the_examples_of_contract_1_2_in_docs_formats_agree():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "FORMATS.md").read_text()
    section = text[text.index("## Multi-layer layouts and routes, version 1.2"):]
    layout = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    routes = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    assert check_routes(parse_layout(parse_yaml(layout), "demo.yaml"), routes) == []
