"""Layout parsing, netlists, writing back, and Moving AI maps."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.errors import InputError
from mazeroute.layout import (
    load_layout,
    load_netlist,
    parse_layout,
    read_movingai,
    save_layout,
    with_nets,
)

BASE = {"width": 6, "height": 4, "blockages": [[1, 1, 2, 2], {"rect": [4, 0, 4, 1]},
                                               {"cell": [5, 3]}],
        "nets": [{"name": "a", "pins": [[0, 0], [5, 0]]},
                 {"name": "b", "pins": [[0, 3], [3, 3], [3, 0]]}]}


def test_all_three_blockage_spellings_paint_the_same_cells():
    lay = parse_layout(BASE, "x.yaml")
    expected = np.zeros((4, 6), bool)
    expected[1:3, 1:3] = True
    expected[0:2, 4] = True
    expected[3, 5] = True
    np.testing.assert_array_equal(lay.blocked, expected)
    assert lay.name == "x" and lay.rects[2] == (5, 3, 5, 3)
    assert [n.name for n in lay.nets] == ["a", "b"] and lay.nets[1].pins[0] == (0, 3)


def test_defaults_name_from_file_and_empty_blockages():
    lay = parse_layout({"width": 2, "height": 1, "nets": []}, "dir/chip.yml")
    assert lay.name == "chip" and lay.rects == [] and not lay.blocked.any()


def test_extra_fields_are_ignored_as_the_contract_allows():
    lay = parse_layout({**BASE, "version": 1, "author": "x"}, "x.yaml")
    assert len(lay.nets) == 2


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.update(width=True), "width"),
    (lambda d: d["nets"].append({"name": "c", "pins": [[1, 1], [0, 1]]}), "nets[2] 'c' pins[0]"),
    (lambda d: d["blockages"].append([0, 0, 6, 0]), "blockages[3]"),
    (lambda d: d["nets"][0].update(pins="[[0, 0]]"), "nets[0] 'a'"),
    (lambda d: d.update(name=3), "name"),
])
def test_errors_name_file_and_field(mutate, field):
    data = {**BASE, "nets": [dict(n) for n in BASE["nets"]], "blockages": list(BASE["blockages"])}
    mutate(data)
    with pytest.raises(InputError) as e:
        parse_layout(data, "chip.yaml")
    assert str(e.value).startswith(f"chip.yaml: {field}")


def test_save_then_load_round_trips(tmp_path):
    lay = parse_layout(BASE, "x.yaml")
    p = tmp_path / "out" / "x.yaml"
    save_layout(lay, p)
    again = load_layout(p)
    np.testing.assert_array_equal(again.blocked, lay.blocked)
    assert [(n.name, n.pins) for n in again.nets] == [(n.name, n.pins) for n in lay.nets]
    assert [p.name for p in p.parent.iterdir()] == ["x.yaml"]      # no temporary left


def test_netlist_replaces_nets_and_is_checked_against_blockages(tmp_path):
    chip = tmp_path / "chip.yaml"
    save_layout(parse_layout(BASE, "chip.yaml"), chip)
    nl = tmp_path / "nets.yaml"
    nl.write_text("nets:\n  - {name: z, pins: [[0, 1], [3, 1]]}\n")
    lay = load_layout(chip, nl)
    assert [n.name for n in lay.nets] == ["z"]
    assert load_netlist(nl)[0].pins == [(0, 1), (3, 1)]
    nl.write_text("nets:\n  - {name: z, pins: [[0, 1], [2, 2]]}\n")
    with pytest.raises(InputError, match=r"nets.yaml: nets\[0\] 'z' pins\[1\]: .*blockages\[0\]"):
        load_layout(chip, nl)
    nl.write_text("width: 3\n")
    with pytest.raises(InputError, match="nets.yaml: nets"):
        load_netlist(nl)
    with pytest.raises(InputError):
        with_nets(lay, [*lay.nets, *lay.nets])


@pytest.mark.parametrize("header", [True, False])
def test_movingai_maps_with_or_without_header(tmp_path, header):
    body = ["..@T", ".G.O", "S..W"]
    text = ("type octile\nheight 3\nwidth 4\nmap\n" if header else "") + "\n".join(body)
    p = tmp_path / "m.map"
    p.write_text(text)
    lay = read_movingai(p)
    assert (lay.width, lay.height) == (4, 3)
    assert lay.blocked.tolist() == [[False, False, True, True], [False, False, False, True],
                                    [False, False, False, True]]


def test_shared_real_maps_load():
    from pathlib import Path
    maps = sorted(Path(__file__).resolve().parents[2].glob("shared/data/movingai/*.map"))
    maps += sorted(Path(__file__).resolve().parents[1].glob("benchmarks/maps/*.map"))
    if not maps:
        pytest.skip("no Moving AI maps in this checkout")
    for m in maps:
        lay = read_movingai(m)
        assert lay.width > 100 and 0.05 < lay.blocked.mean() < 0.95


def _load(tmp_path, text, name="l.yaml"):
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError) as err:
        load_layout(f)
    msg = str(err.value)
    assert str(f) in msg and "\n" not in msg and len(msg) < 300
    return msg


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi")) + "width: 4\nheight: 4\nnets: *i\n"


def test_yaml_alias_bomb_is_refused_at_once(tmp_path):
    """Issue 12 item 2: nested aliases would expand to 9^9 values."""
    assert "alias" in _load(tmp_path, BOMB)


def test_quoted_values_in_messages_are_capped(tmp_path):
    msg = _load(tmp_path, "width: 4\nheight: 4\nnets:\n  - name: n\n    pins: "
                + "[" + ", ".join(["[0, 0]"] * 20000) + "]\n")
    assert "lists cell" in msg or "twice" in msg
    msg = _load(tmp_path, f"width: '{'9' * 5000}'\nheight: 4\nnets: []\n")
    assert "width" in msg


@pytest.mark.parametrize("text, words", [
    ("width: 010\nheight: 4\nnets: []\n", "YAML 1.1"),
    ("width: 1:00\nheight: 4\nnets: []\n", "YAML 1.1"),
    ("width: 4\nwidth: 5\nheight: 4\nnets: []\n", "appears twice"),
    ("width: 4\nheight: 4\nnets:\n  - {name: a, name: b, pins: [[0, 0], [1, 1]]}\n",
     "appears twice"),
])
def test_yaml_1_1_surprises_and_duplicate_keys_are_errors(tmp_path, text, words):
    """Issue 12 item 12: no silent reinterpretation."""
    assert words in _load(tmp_path, text)


def test_yes_no_on_off_are_names_not_booleans(tmp_path):
    f = tmp_path / "l.yaml"
    f.write_text("name: yes\nwidth: 4\nheight: 1\nnets:\n  - {name: on, pins: [[0, 0], [3, 0]]}\n"
                 "  - {name: off, pins: [[1, 0], [2, 0]]}\n")
    lay = load_layout(f)
    assert lay.name == "yes" and [n.name for n in lay.nets] == ["on", "off"]


def test_a_fifo_is_refused_without_blocking(tmp_path):
    import os
    import threading
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    got = []
    t = threading.Thread(target=lambda: got.append(_load_error(fifo)), daemon=True)
    t.start()
    t.join(10)
    assert got and "regular file" in got[0]


def _load_error(path):
    try:
        load_layout(path)
    except InputError as e:
        return str(e)
    return "loaded"


@pytest.mark.parametrize("name, words", [
    ("x" * 201, "at most 200"),
    ("a\x00b", "U+0000"),
    ("abc\u202edef", "U+202E"),
    ("two\nlines", "U+000A"),
])
def test_names_are_short_printable_text(tmp_path, name, words):
    """FORMATS.md: names are at most 200 printable characters."""
    import json
    for layout_name, net_name in ((name, "n"), ("ok", name)):
        text = (f"name: {json.dumps(layout_name)}\nwidth: 4\nheight: 1\nnets:\n"
                f"  - {{name: {json.dumps(net_name)}, pins: [[0, 0], [3, 0]]}}\n")
        assert words in _load(tmp_path, text)
    assert parse_layout({"width": 2, "height": 1, "name": "é" * 200, "nets": []}).name
