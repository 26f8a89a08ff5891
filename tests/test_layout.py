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
