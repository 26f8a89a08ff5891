"""The viewer's file: the embedded data, decoded here in plain Python, is the layout and its
routes; the page is self-contained; the ``view`` command and the ``--html`` options."""

from __future__ import annotations

import base64
import json
import os
import re
import zlib

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mazeroute import view
from mazeroute.cli import main
from mazeroute.engines import UNREACHED
from mazeroute.errors import InputError
from mazeroute.generate import random_layout
from mazeroute.layout import Net, save_layout, with_nets
from mazeroute.readers import parse_layout
from mazeroute.render import net_colour
from mazeroute.router import Router, route
from mazeroute.view import read_view_data, save_view_html, save_wavefront_html

DTYPES = {"u8": "<u1", "u16": "<u2", "u32": "<u4", "i32": "<i4", "f32": "<f4"}


# -- a decoder written from the module notes, independent of the module's own ---------------
def blob(b: dict) -> np.ndarray:
    a = np.frombuffer(zlib.decompress(base64.b64decode(b["z"])), dtype=DTYPES[b["dtype"]])
    assert a.size == b["n"]
    return a


def bits(b: dict, width: int, height: int) -> np.ndarray:
    raw = blob(b)
    assert raw.size == -(-width * height // 8)
    out = [(int(raw[i >> 3]) >> (i & 7)) & 1 for i in range(width * height)]
    return np.array(out, dtype=bool).reshape(height, width)


def steps(codes, jumps, width: int) -> list[tuple[int, int]]:
    cells, c, j = [], None, 0
    for k in codes.tolist():
        if k == 4:
            c, j = int(jumps[j]), j + 1
        else:
            c += (1, -1, width, -width)[k]
        cells.append((c % width, c // width))
    assert j == len(jumps)
    return cells


def per_net(data: dict, width: int) -> list[list[tuple[int, int]]]:
    nets = data["nets"]
    flat = steps(blob(nets["codes"]), blob(nets["jumps"]), width)
    out, k = [], 0
    for n in blob(nets["cells_n"]).tolist():
        out.append(flat[k:k + n])
        k += n
    assert k == len(flat)
    return out


# -- routed layouts -------------------------------------------------------------------------
LAY = parse_layout({"width": 13, "height": 7,
                    "blockages": [[4, 0, 4, 2], {"cell": [9, 6]}, [10, 1, 12, 1], [10, 3, 12, 3],
                                  {"cell": [10, 2]}],
                    "nets": [{"name": "a", "pins": [[0, 0], [12, 0]]},
                             {"name": "tree", "pins": [[0, 6], [12, 6], [7, 2], [2, 3]]},
                             {"name": "walled", "pins": [[11, 2], [6, 6]]}]}, "v.yaml")


@pytest.fixture(scope="module")
def routed():
    res = route(LAY, backend="cpu")
    assert [n.routed for n in res.nets] == [True, True, False]
    return res


def check_data(lay, res, data):
    w, h = lay.width, lay.height
    assert data["format"] == "mazeroute-view/1" and data["kind"] == "routes"
    assert (data["width"], data["height"], data["name"]) == (w, h, lay.name)
    assert (bits(data["blocked"], w, h) == lay.blocked).all()
    nets = data["nets"]
    assert nets["names"] == [n.name for n in lay.nets]
    assert blob(nets["colour"]).reshape(-1, 3).tolist() == [
        list(net_colour(i)) for i in range(len(lay.nets))]
    counts = blob(nets["pins_n"]).tolist()
    flat = blob(nets["pins"]).tolist()
    assert counts == [len(n.pins) for n in lay.nets]
    assert [(c % w, c // w) for c in flat] == [p for n in lay.nets for p in n.pins]
    if res is None:
        assert "codes" not in nets
        return
    assert blob(nets["routed"]).tolist() == [int(n.routed) for n in res.nets]
    assert blob(nets["order"]).tolist() == [-1 if n.order is None else n.order
                                            for n in res.nets]
    assert blob(nets["length"]).tolist() == [n.length for n in res.nets]
    assert blob(nets["bends"]).tolist() == [n.bends for n in res.nets]
    assert per_net(data, w) == [[tuple(c) for c in n.cells] for n in res.nets]
    assert (data["routed"], data["wirelength"]) == (res.routed, res.wirelength)


def test_the_data_is_the_layout_and_its_routes(tmp_path, routed):
    out = save_view_html(LAY, routed, tmp_path / "v.html")
    check_data(LAY, routed, read_view_data(out))
    bare = save_view_html(LAY, None, tmp_path / "b.html", title="just the chip")
    data = read_view_data(bare)
    check_data(LAY, None, data)
    assert data["title"] == "just the chip"
    assert "<title>just the chip</title>" in bare.read_text(encoding="utf-8")


@settings(max_examples=25, deadline=None)
@given(w=st.integers(1, 40), h=st.integers(1, 30), density=st.sampled_from([0.0, 0.2, 0.4]),
       nets=st.integers(0, 6), pins=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_random_layouts_round_trip(tmp_path_factory, w, h, density, nets, pins, seed):
    try:
        lay = random_layout(w, h, density=density, nets=nets, pins=pins, seed=seed)
    except InputError:                                    # too few free cells for the pins
        assume(False)
    res = route(lay, backend="cpu")
    check_data(lay, res, view.view_data(lay, res))


def test_steps_code_a_row_end_as_a_jump():
    # (4, 0) -> (0, 1) differ by 1 as cell numbers, but are not neighbours
    runs = [np.array([[3, 0], [4, 0], [0, 1], [0, 2], [1, 2]]), np.zeros((0, 2), int),
            np.array([[2, 2], [2, 1], [1, 1], [0, 1]])]
    codes, jumps = view._steps(runs, 5)
    assert codes.tolist() == [4, 0, 4, 2, 0, 4, 3, 1, 1]
    cells = steps(codes, jumps, 5)
    assert cells == [tuple(c) for r in runs for c in r.tolist()]


def test_reasons_of_unrouted_nets_are_kept(routed):
    routed.nets[2].reason = "root walled in by blockages"
    try:
        data = view.view_data(LAY, routed)
    finally:
        del routed.nets[2].reason
    assert data["nets"]["reasons"] == {"2": "root walled in by blockages"}
    assert view.view_data(LAY, routed)["nets"]["reasons"] == {}


def test_congestion_layer(routed):
    cong = np.zeros((LAY.height, LAY.width), np.float32)
    cong[2, 5:9] = [0.5, 1.5, 3.25, 1e-3]
    data = view.view_data(LAY, routed, congestion=cong)
    assert (blob(data["congestion"]).reshape(LAY.height, LAY.width) == cong).all()
    assert data["congestion_max"] == 3.25
    assert "congestion" not in view.view_data(LAY, routed)
    with pytest.raises(ValueError, match="shape"):
        view.view_data(LAY, routed, congestion=np.zeros((3, 3)))
    cong[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        view.view_data(LAY, routed, congestion=cong)
    with pytest.raises(ValueError, match="nets"):
        view.view_data(with_nets(LAY, LAY.nets[:1]), routed)


# -- wavefronts --------------------------------------------------------------------------------
@pytest.mark.parametrize("top", [5, 300, 70000])
def test_wavefront_levels_round_trip(tmp_path, top):
    rng = np.random.default_rng(top)
    lay = parse_layout({"width": 37, "height": 11, "blockages": [[3, 0, 3, 9]], "nets": []})
    levels = rng.integers(0, top + 1, (11, 37)).astype(np.uint32)
    levels[lay.blocked] = UNREACHED
    levels[5, 7] = top
    others = [(10, 10), (36, 0)]
    path = [(0, 0), (1, 0), (1, 1), (2, 1), (8, 8), (8, 7)]     # a jump inside
    out = save_wavefront_html(lay, levels, tmp_path / "w.html", roots=[(0, 0), (5, 5)],
                              target=(36, 10), path_cells=path, others=others)
    d = read_view_data(out)
    assert d["kind"] == "wavefront" and d["top"] == top
    assert d["levels"]["dtype"] == ("u8" if top < 255 else "u16" if top < 65535 else "u32")
    v = blob(d["levels"]).astype(np.int64).reshape(11, 37)
    assert (np.where(v == 0, UNREACHED, v - 1) == levels).all()
    assert (view.decode_levels(d["levels"], 37, 11) == levels).all()
    want = np.zeros((11, 37), bool)
    want[[10, 0], [10, 36]] = True
    assert (bits(d["others"], 37, 11) == want).all()
    assert (bits(d["blocked"], 37, 11) == lay.blocked).all()
    assert d["roots"] == [0, 5 * 37 + 5] and d["target"] == 10 * 37 + 36
    assert steps(blob(d["path_codes"]), blob(d["path_jumps"]), 37) == path
    assert len(bytes.fromhex(d["viridis"])) == 3 * 256


def test_wavefront_of_a_real_search(tmp_path):
    router = Router(LAY, "cpu")
    levels = router.full_wavefront(1)
    out = save_wavefront_html(LAY, levels, tmp_path / "w.html", roots=[(0, 6)])
    d = read_view_data(out)
    assert (view.decode_levels(d["levels"], LAY.width, LAY.height) == levels).all()
    assert d["target"] is None and blob(d["path_codes"]).size == 0
    with pytest.raises(ValueError, match="shape"):
        save_wavefront_html(LAY, levels.T, tmp_path / "x.html", roots=[(0, 6)])
    assert not (tmp_path / "x.html").exists()


# -- the page ----------------------------------------------------------------------------------
def test_page_is_self_contained_and_names_cannot_escape(tmp_path):
    evil = ["</script><script>alert(1)</script>", "<!--", "a&b", "\u2028x", "时钟"]
    lay = with_nets(LAY, [Net(n, [(2 * i, 5), (2 * i, 6)]) for i, n in enumerate(evil)])
    out = save_view_html(lay, route(lay, backend="cpu"), tmp_path / "e.html")
    text = out.read_text(encoding="utf-8")
    assert read_view_data(out)["nets"]["names"] == evil
    assert text.count("<script") == 2 and text.count("</script>") == 2
    assert "alert(1)" in text and "<script>alert" not in text
    assert "default-src 'none'" in text
    # nothing to fetch: no URL, no external script, style, font or picture
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/|<link|@import|url\(|src=", text)
    assert "innerHTML = names" not in text and ".innerHTML" not in text.replace(
        '$("play").innerHTML', "")


def test_names_spelling_the_page_template_s_slots_stay_names(tmp_path):
    slots = ["{{js}}", "{{css}}", "{{data}}", "{{title}}"]
    lay = with_nets(LAY, [Net(n, [(2 * i, 5), (2 * i, 6)]) for i, n in enumerate(slots)])
    lay = parse_layout({"name": "{{js}}{{data}}", "width": lay.width, "height": lay.height,
                        "nets": [{"name": n.name, "pins": [list(p) for p in n.pins]}
                                 for n in lay.nets]})
    out = save_view_html(lay, None, tmp_path / "t.html")
    data = read_view_data(out)
    assert data["nets"]["names"] == slots and data["name"] == "{{js}}{{data}}"
    text = out.read_text(encoding="utf-8")
    assert "<title>{{js}}{{data}}</title>" in text and text.count('"use strict"') == 1


def test_failed_write_leaves_nothing(tmp_path, monkeypatch, routed):
    def broken(self, *a, **k):
        self.write_bytes(b"<html half")
        raise OSError("disk full")
    monkeypatch.setattr(type(tmp_path), "write_text", broken)
    with pytest.raises(OSError):
        save_view_html(LAY, routed, tmp_path / "v.html")
    assert os.listdir(tmp_path) == []


def test_routes_result_reads_a_routes_file(routed):
    data = json.loads(json.dumps(routed.to_json()))
    data["nets"].reverse()                                  # any order
    for e in data["nets"]:
        del e["bends"]                                      # not part of the contract
    data["nets"][0]["reason"] = "walled in"
    back = view.routes_result(LAY, data)
    assert [n.name for n in back.nets] == [n.name for n in LAY.nets]
    for a, b in zip(back.nets, routed.nets):
        assert (a.routed, a.order, a.cells, a.length) == (b.routed, b.order, b.cells, b.length)
        if len(a.pins) == 2:
            assert a.bends == b.bends
    assert back.nets[2].reason == "walled in"


@pytest.mark.parametrize("bad, words", [
    ([], "JSON object"),
    ({"nets": {}}, "JSON object"),
    ({"nets": [3]}, "nets[0]"),
    ({"nets": [{"name": "a", "routed": "yes"}]}, "'routed'"),
    ({"nets": [{"name": "a", "routed": True, "cells": [[0, "1"]]}]}, "'cells'"),
    ({"nets": [{"name": "a", "routed": True, "cells": [[0, 0]], "order": 1.5}]}, "'order'"),
    ({"nets": [{"name": "a", "routed": True, "cells": [[0, 0]]}]}, "'tree'"),
])
def test_routes_result_names_what_is_wrong(bad, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        view.routes_result(LAY, bad)


# -- the command line ---------------------------------------------------------------------------
@pytest.fixture
def chip(tmp_path):
    p = tmp_path / "chip.yaml"
    save_layout(LAY, p)
    return p


def test_route_html_then_view(tmp_path, chip, capsys):
    out = tmp_path / "out"
    assert main(["route", str(chip), "-o", str(out), "--html", "--backend", "cpu", "-q",
                 "--no-png"]) == 0
    routes = json.loads((out / "routes.json").read_text())
    assert sorted(p.name for p in out.iterdir()) == ["report.txt", "routes.json", "view.html"]
    res = view.routes_result(LAY, routes)
    check_data(LAY, res, read_view_data(out / "view.html"))
    assert main(["view", str(chip), "--routes", str(out / "routes.json"),
                 "-o", str(tmp_path / "v.html")]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / 'v.html'}"
    check_data(LAY, res, read_view_data(tmp_path / "v.html"))
    assert main(["view", str(chip), "-o", str(tmp_path / "bare.html"), "-q"]) == 0
    check_data(LAY, None, read_view_data(tmp_path / "bare.html"))


def test_view_rejects_a_bad_routes_file(tmp_path, chip, capsys):
    good = route(LAY, backend="cpu").to_json()
    cut = json.loads(json.dumps(good))
    cut["nets"][0]["cells"] = cut["nets"][0]["cells"][:-2]
    other = json.loads(json.dumps(good))
    other["nets"] = other["nets"][:2]
    cases = {"missing.json": None, "junk.json": "{not json", "list.json": "[1, 2]",
             "cut.json": json.dumps(cut), "short.json": json.dumps(other)}
    words = {"missing.json": "no such file", "junk.json": "not a JSON file",
             "list.json": "JSON object", "cut.json": "pins [[12, 0]] are not on the wire",
             "short.json": "'walled'"}
    for name, text in cases.items():
        if text is not None:
            (tmp_path / name).write_text(text)
        assert main(["view", str(chip), "--routes", str(tmp_path / name),
                     "-o", str(tmp_path / "v.html")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(tmp_path / name) in err[0] and words[name] in err[0], err
    assert not (tmp_path / "v.html").exists()


def test_view_of_numbers_a_page_cannot_hold(tmp_path, chip, capsys):
    good = route(LAY, backend="cpu").to_json()
    huge = json.loads(json.dumps(good))
    huge["nets"][1]["length"] = 10**30         # a tree's length: checked only as >= 0
    (tmp_path / "h.json").write_text(json.dumps(huge))
    capsys.readouterr()
    assert main(["view", str(chip), "--routes", str(tmp_path / "h.json"),
                 "-o", str(tmp_path / "v.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "h.json" in err[0] and "'length'" in err[0], err
    assert not (tmp_path / "v.html").exists()
    for bends in (10**30, -1, 2**32):          # not in the contract: recounted
        odd = json.loads(json.dumps(good))
        odd["nets"][0]["bends"] = bends
        (tmp_path / "b.json").write_text(json.dumps(odd))
        assert main(["view", str(chip), "--routes", str(tmp_path / "b.json"),
                     "-o", str(tmp_path / "v.html"), "-q"]) == 0
        data = read_view_data(tmp_path / "v.html")
        assert blob(data["nets"]["bends"])[0] == good["nets"][0]["bends"]


def test_wavefront_and_batch_html(tmp_path, chip):
    w = tmp_path / "w.html"
    assert main(["wavefront", str(chip), "--net", "tree", "-o", str(tmp_path / "w.png"),
                 "--html", str(w), "--backend", "cpu", "-q", "--mode", "sequential"]) == 0
    d = read_view_data(w)
    router = Router(LAY, "cpu")
    router.route_net(0)
    assert (view.decode_levels(d["levels"], LAY.width, LAY.height)
            == router.full_wavefront(1)).all()
    assert d["roots"] == [6 * LAY.width + 0]
    assert main(["batch", str(chip), "-o", str(tmp_path / "b"), "--html", "--backend", "cpu",
                 "-q", "--no-png"]) == 0
    check_data(LAY, view.routes_result(LAY, json.loads(
        (tmp_path / "b" / "v" / "routes.json").read_text())),
        read_view_data(tmp_path / "b" / "v" / "view.html"))


def test_a_layout_without_nets(tmp_path):
    lay = parse_layout({"width": 9, "height": 1, "blockages": [[8, 0, 8, 0]], "nets": []})
    for res in (None, route(lay, backend="cpu")):
        data = read_view_data(save_view_html(lay, res, tmp_path / "e.html"))
        check_data(lay, res, data)
        assert data["nets"]["names"] == [] and blob(data["nets"]["pins"]).size == 0


# -- a stack of layers ---------------------------------------------------------------------------
STACK = parse_layout({
    "name": "stack", "width": 9, "height": 5,
    "layers": [{"name": "M1", "direction": "horizontal"},
               {"name": "M2", "direction": "vertical"}],
    "blockages": [[4, 0, 4, 0], {"rect": [2, 2, 6, 2], "layer": "M1"},
                  {"rect": [7, 0, 7, 3], "layer": "M2"}],
    "nets": [{"name": "a", "pins": [[0, 0, "M1"], [8, 4, "M1"]]},
             {"name": "b", "pins": [[1, 4, "M2"], [6, 3, "M2"], [8, 1]]}]}, "stack.yaml")


def number(lay, c) -> int:
    return (c[2] * lay.height + c[1]) * lay.width + c[0]


def steps3(codes, jumps, lay) -> list[tuple[int, int, int]]:
    """The module notes' step codes with a stack's two more (5: +z, 6: -z)."""
    w, n = lay.width, lay.width * lay.height
    cells, c, j = [], None, 0
    for k in codes.tolist():
        if k == 4:
            c, j = int(jumps[j]), j + 1
        else:
            c += (1, -1, w, -w, None, n, -n)[k]
        cells.append((c % n % w, c % n // w, c // n))
    assert j == len(jumps)
    return cells


@pytest.fixture(scope="module")
def stacked():
    from mazeroute.router.layered import route_layered
    res = route_layered(STACK, "negotiate")
    assert all(r.routed for r in res.nets) and sum(r.vias for r in res.nets) > 0
    return res


def test_a_stack_s_data_are_its_layers_cells_and_vias(stacked):
    from mazeroute.render_layers import via_cells
    lay, res = STACK, stacked
    cong = np.zeros(lay.blocked.shape, np.float32)
    cong[1, 3, 5], cong[0, 1, 1] = 2.5, 0.5
    data = view.view_data(lay, res, congestion=cong)
    assert data["format"] == "mazeroute-view/1"
    assert data["layers"] == [{"name": "M1", "direction": "horizontal"},
                              {"name": "M2", "direction": "vertical"}]
    raw = blob(data["blocked"])
    got = np.array([(int(raw[i >> 3]) >> (i & 7)) & 1 for i in range(lay.blocked.size)])
    assert (got.reshape(lay.blocked.shape) == lay.blocked).all()
    assert got.reshape(lay.blocked.shape)[:, 0, 4].all()           # a blockage of every layer
    nets = data["nets"]
    assert blob(nets["pins"]).tolist() == [number(lay, p) for n in lay.nets for p in n.pins]
    flat = steps3(blob(nets["codes"]), blob(nets["jumps"]), lay)
    assert flat == [tuple(c) for r in res.nets for c in r.cells]
    assert set(blob(nets["codes"]).tolist()) & {5, 6}               # vias are steps
    want = [via_cells(np.array(r.cells), len(n.pins) <= 2) for r, n in zip(res.nets, lay.nets)]
    assert blob(nets["vias_n"]).tolist() == [len(v) for v in want]
    assert blob(nets["vias"]).tolist() == [number(lay, v) for w in want for v in w.tolist()]
    assert (blob(data["congestion"]).reshape(lay.blocked.shape) == cong).all()
    assert data["congestion_max"] == 2.5
    with pytest.raises(ValueError, match="layers, rows, columns"):
        view.view_data(lay, res, congestion=cong[0])
    # one layer's data say nothing of layers
    assert "layers" not in view.view_data(LAY, None) and "vias" not in view.view_data(
        LAY, route(LAY, backend="cpu"))["nets"]


def test_steps_of_a_stack_code_vias_and_jump_across_a_layer_s_end():
    # one row a layer: (2, 0, 0) -> (2, 0, 1) is a via up and back a via down, never a +y
    # step; (2, 0, 0) -> (0, 0, 1) are numbers 2 and 3, but no neighbours: a jump
    runs = [np.array([[1, 0, 0], [2, 0, 0], [2, 0, 1], [2, 0, 0]]),
            np.array([[2, 0, 0], [0, 0, 1]])]
    codes, jumps = view._steps(runs, 3, 1)
    assert codes.tolist() == [4, 0, 5, 6, 4, 4]
    lay = parse_layout({"width": 3, "height": 1, "layers": [{"name": "a"}, {"name": "b"}],
                        "nets": []})
    assert steps3(codes, jumps, lay) == [tuple(c) for r in runs for c in r.tolist()]


def test_a_stack_s_wavefront_round_trips(tmp_path):
    from mazeroute.batch_layers import stack_wavefront
    levels, others, net_route, _ = stack_wavefront(STACK, 1, "sequential")
    out = save_wavefront_html(STACK, levels, tmp_path / "w.html", roots=[(1, 4, 1)],
                              target=(6, 3, 1), path_cells=net_route.cells, others=others)
    d = read_view_data(out)
    assert d["layers"][1]["name"] == "M2" and d["top"] == int(levels[levels != UNREACHED]
                                                               .max())
    assert (view.decode_levels(d["levels"], 9, 5, 2) == levels).all()
    assert d["roots"] == [number(STACK, (1, 4, 1))] and d["target"] == number(STACK,
                                                                             (6, 3, 1))
    raw = blob(d["others"])
    got = {i for i in range(STACK.blocked.size) if (int(raw[i >> 3]) >> (i & 7)) & 1}
    assert got == {number(STACK, c) for c in others}
    assert steps3(blob(d["path_codes"]), blob(d["path_jumps"]), STACK) == [
        tuple(c) for c in net_route.cells]
    with pytest.raises(ValueError, match="layers, rows, columns"):
        save_wavefront_html(STACK, levels[0], tmp_path / "x.html", roots=[(1, 4, 1)])


def test_routes_result_reads_a_stack_s_routes_file(stacked):
    data = json.loads(json.dumps(stacked.to_json()))
    for e in data["nets"]:
        del e["vias"], e["bends"]                       # counted again from the cells
    back = view.routes_result(STACK, data)
    for a, b in zip(back.nets, stacked.nets):
        assert (a.cells, a.length, a.vias) == ([tuple(c) for c in b.cells], b.length, b.vias)
    data["nets"][0]["cells"] = [c[:2] for c in data["nets"][0]["cells"]]
    with pytest.raises(ValueError, match=re.escape("[x, y, layer]")):
        view.routes_result(STACK, data)
