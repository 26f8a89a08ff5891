"""The multi-layer model and its YAML format: reading, errors, writing back, and the
commands that read (``check``) or refuse (``route``, ``wavefront``, ``batch``, ``view``)
a multi-layer layout."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.cli import main
from mazeroute.errors import InputError
from mazeroute.layers import Layer, Stack, edge_kind, paint_stack, pair_sites, why_not_edge
from mazeroute.layout import Layout, Net, check_layout, save_layout
from mazeroute.readers import load_layout, load_netlist

LAYOUT = """\
width: 8
height: 6
layers:
  - {name: M1, direction: horizontal}
  - {name: M2, direction: vertical}
via_cost: 2
via_sites: [[1, 1], [6, 4], [7, 5]]
blockages:
  - [0, 0, 0, 0]
  - {rect: [3, 0, 3, 4], layer: M2}
  - {cell: [6, 0], layer: 0}
nets:
  - {name: a, pins: [[0, 5, M1], [7, 0, M2]]}
  - {name: b, pins: [[2, 2], [5, 2]]}
"""


def _file(tmp_path, text: str, name: str = "m.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _error(tmp_path, text: str) -> str:
    p = _file(tmp_path, text)
    with pytest.raises(InputError) as e:
        load_layout(p)
    assert "\n" not in str(e.value)
    return str(e.value).removeprefix(f"{p}: ")


def test_a_multi_layer_layout_reads_into_a_stack(tmp_path):
    lay = load_layout(_file(tmp_path, LAYOUT))
    st = lay.stack
    assert st.names == ("M1", "M2") and st.directions == ("horizontal", "vertical")
    assert st.via_cost == 2
    assert sorted(map(tuple, np.argwhere(st.via_sites).tolist())) == [(1, 1), (4, 6), (5, 7)]
    assert lay.blocked.shape == (2, 6, 8)
    # a blockage without a layer blocks both; one with a layer (by name or index) its own
    assert lay.blocked[:, 0, 0].tolist() == [True, True]
    assert lay.blocked[:, 2, 3].tolist() == [False, True]
    assert lay.blocked[:, 0, 6].tolist() == [True, False]
    assert int(lay.blocked.sum()) == 2 + 5 + 1
    # a pin without a layer lies on the first
    assert [n.pins for n in lay.nets] == [[(0, 5, 0), (7, 0, 1)], [(2, 2, 0), (5, 2, 0)]]
    check_layout(lay)


def test_a_layout_without_layers_is_unchanged(tmp_path):
    lay = load_layout(_file(tmp_path, "width: 4\nheight: 2\nnets: [{name: a, pins: "
                                      "[[0, 0], [3, 1]]}]\n"))
    assert lay.stack is None and lay.blocked.shape == (2, 4)
    assert lay.nets[0].pins == [(0, 0), (3, 1)]


def test_layer_directions_and_via_sites_decide_the_edges():
    sites = np.zeros((3, 3), bool)
    sites[1, 1] = True
    st = Stack((Layer("a", "horizontal"), Layer("b", "vertical"), Layer("c", "any")), 1,
               sites)
    assert st.moves(0) == (True, False) and st.moves(1) == (False, True)
    assert st.moves(2) == (True, True)
    assert edge_kind(st, (0, 0, 0), (1, 0, 0)) == "step"
    assert edge_kind(st, (0, 0, 0), (0, 1, 0)) is None            # against horizontal
    assert edge_kind(st, (0, 0, 1), (0, 1, 1)) == "step"
    assert edge_kind(st, (0, 0, 1), (1, 0, 1)) is None            # against vertical
    assert edge_kind(st, (0, 0, 2), (1, 0, 2)) == "step"
    assert edge_kind(st, (1, 1, 0), (1, 1, 1)) == "via"
    assert edge_kind(st, (0, 1, 0), (0, 1, 1)) is None            # not a via site
    assert edge_kind(st, (1, 1, 0), (1, 1, 2)) is None            # layers not adjacent


def test_per_pair_via_sites_allow_a_via_between_their_pair_alone():
    sites = np.zeros((2, 3, 3), bool)
    sites[0, 1, 1] = sites[1, 2, 2] = True
    st = Stack((Layer("a"), Layer("b"), Layer("c")), 1, sites)
    assert edge_kind(st, (1, 1, 0), (1, 1, 1)) == "via"
    assert edge_kind(st, (1, 1, 2), (1, 1, 1)) is None            # pair b-c: not here
    assert edge_kind(st, (2, 2, 2), (2, 2, 1)) == "via"
    assert edge_kind(st, (2, 2, 0), (2, 2, 1)) is None
    assert why_not_edge(st, (1, 1, 2), (1, 1, 1)) == \
        "via at [1, 1] between layers 'b' and 'c' is not at a via site"
    assert pair_sites(sites[0], 3, 3, 3).tolist() == [sites[0].tolist()] * 2
    with pytest.raises(InputError, match=r"via_sites: .*\(2, 3, 3\)"):
        check_layout(Layout("x", 3, 3, stack=Stack(st.layers, 1, np.ones((3, 3, 3), bool))))


def test_per_pair_via_sites_read_and_save_as_x_y_layer(tmp_path):
    text = LAYOUT.replace("layers:\n", "layers:\n  - {name: M0, direction: any}\n").replace(
        "via_sites: [[1, 1], [6, 4], [7, 5]]", "via_sites: [[1, 1, M1], [6, 4], [7, 5, 0]]")
    lay = load_layout(_file(tmp_path, text))
    got = sorted(tuple(map(int, c)) for c in np.argwhere(lay.stack.via_sites))
    assert got == [(0, 4, 6), (0, 5, 7), (1, 1, 1), (1, 4, 6)]
    save_layout(lay, tmp_path / "again.yaml")
    assert "via_sites: [[6, 4, 0], [7, 5, 0], [1, 1, 1], [6, 4, 1]]" in \
        (tmp_path / "again.yaml").read_text()
    back = load_layout(tmp_path / "again.yaml")
    assert np.array_equal(back.stack.via_sites, lay.stack.via_sites)
    top = text.replace("[1, 1, M1]", "[1, 1, M2]")
    assert _error(tmp_path, top) == ("via_sites[0]: layer 'M2' is the top one: a via site "
                                     "names the lower of the two layers it joins")


def test_paint_stack_blocks_every_layer_or_one():
    b = paint_stack(3, 2, 3, [(0, 0, 1, 0), (2, 1, 2, 1, 2)])
    assert b.shape == (3, 2, 3)
    assert b[:, 0, :2].all() and int(b.sum()) == 3 * 2 + 1 and b[2, 1, 2]


@pytest.mark.parametrize("edit, message", [
    (("{name: M2, direction: vertical}", "{name: M1, direction: vertical}"),
     "layers[1] name: 'M1' repeats layers[0]"),
    (("direction: vertical", "direction: diagonal"),
     "layers[1] direction: must be one of horizontal, vertical, any, got 'diagonal'"),
    (("direction: vertical", "directon: vertical"),
     "layers[1]: unknown key 'directon' (did you mean 'direction'?)"),
    (("via_cost: 2", "via_cost: 0"), "via_cost: must be an integer >= 1, got 0"),
    (("via_cost: 2", "via_cost: 1.5"), "via_cost: must be an integer >= 1, got 1.5"),
    (("[6, 4]", "[8, 4]"), "via_sites[1]: [8, 4] lies outside the 8 x 6 grid"),
    (("[7, 0, M2]", "[7, 0, M3]"),
     "nets[0] 'a' pins[1]: unknown layer 'M3'; the layers are "
     "['M1', 'M2']"),
    (("[7, 0, M2]", "[7, 0, 2]"),
     "nets[0] 'a' pins[1]: a layer is one of the names ['M1', 'M2'] or an index 0 .. 1, "
     "got 2"),
    (("layer: M2}", "layer: M9}"),
     "blockages[1] layer: unknown layer 'M9'; the layers are ['M1', 'M2']"),
    (("[7, 0, M2]", "[3, 2, M2]"),
     "nets[0] 'a' pins[1]: pin [3, 2] on layer 'M2' lies on blockages[1] [3, 0, 3, 4]"),
    (("[5, 2]]", "[5, 2], [5, 2, M1]]"), "nets[1] 'b': lists cell [5, 2, 0] twice"),
    (("layers:\n", "layer: 2\nlayers:\n"), "unknown key 'layer' (did you mean 'layers'?)"),
    (("  - {name: M1, direction: horizontal}\n  - {name: M2, direction: vertical}\n", ""),
     "layers: must be a list of at least one layer {name, direction}, got None"),
])
def test_multi_layer_faults_are_one_line_naming_the_field(tmp_path, edit, message):
    text = LAYOUT.replace(*edit)
    assert text != LAYOUT
    assert _error(tmp_path, text) == message


def test_a_pin_on_a_layer_free_of_the_blockage_is_fine(tmp_path):
    # [3, 2] is blocked on M2 only: on M1 it is a pin like any other
    lay = load_layout(_file(tmp_path, LAYOUT.replace("[7, 0, M2]", "[3, 2, M1]")))
    assert lay.nets[0].pins[1] == (3, 2, 0)


def test_a_layer_without_layers_is_refused(tmp_path):
    two_d = "width: 4\nheight: 3\nnets: [{name: a, pins: [[0, 0], [3, 0, M1]]}]\n"
    assert _error(tmp_path, two_d) == \
        "nets[0] 'a' pins[1]: names layer 'M1', but the layout has no 'layers'"


def test_save_layout_round_trips_a_multi_layer_layout(tmp_path):
    lay = load_layout(_file(tmp_path, LAYOUT))
    out = tmp_path / "again.yaml"
    save_layout(lay, out)
    back = load_layout(out)
    assert back.stack.names == lay.stack.names
    assert back.stack.directions == lay.stack.directions
    assert back.stack.via_cost == 2
    assert np.array_equal(back.stack.via_sites, lay.stack.via_sites)
    assert np.array_equal(back.blocked, lay.blocked)
    assert [(n.name, n.pins) for n in back.nets] == [(n.name, n.pins) for n in lay.nets]
    assert back.rects == lay.rects
    save_layout(back, tmp_path / "third.yaml")
    assert (tmp_path / "third.yaml").read_text() == out.read_text()


def test_save_layout_keeps_a_mask_built_in_python(tmp_path):
    st = Stack((Layer("1"), Layer("2")))
    blocked = np.zeros((2, 3, 4), bool)
    blocked[:, 0, 0] = True                      # both layers
    blocked[1, 2, 1:3] = True                    # the second alone
    lay = Layout("py", 4, 3, nets=[Net("n", [(1, 1, 0), (3, 2, 1)])], blocked=blocked,
                 stack=st)
    check_layout(lay)
    save_layout(lay, tmp_path / "py.yaml")
    text = (tmp_path / "py.yaml").read_text()
    assert 'layer: "2"' in text and '[3, 2, "2"]' in text   # names that read as numbers
    back = load_layout(tmp_path / "py.yaml")
    assert np.array_equal(back.blocked, blocked) and back.nets[0].pins == [(1, 1, 0),
                                                                            (3, 2, 1)]
    assert back.stack.via_sites is None


def test_check_layout_refuses_a_python_stack_that_breaks_a_rule():
    with pytest.raises(InputError, match="layers\\[0\\] direction"):
        check_layout(Layout("x", 2, 2, stack=Stack((Layer("a", "up"),))))
    with pytest.raises(InputError, match=r"blocked: must be a bool array of shape "
                                         r"\(layers, height, width\)"):
        check_layout(Layout("x", 2, 2, blocked=np.zeros((2, 2), bool),
                            stack=Stack((Layer("a"),))))
    with pytest.raises(InputError, match="three integers x, y, layer"):
        check_layout(Layout("x", 2, 2, nets=[Net("n", [(0, 0), (1, 1)])],
                            stack=Stack((Layer("a"),))))


def test_the_grid_of_a_multi_layer_layout_is_refused(tmp_path):
    lay = load_layout(_file(tmp_path, LAYOUT))
    with pytest.raises(InputError, match="not supported yet"):
        lay.grid()


def test_a_netlist_over_a_multi_layer_layout_names_its_layers(tmp_path):
    nets = _file(tmp_path, "nets: [{name: c, pins: [[1, 3, M2], [1, 5, M2]]}]\n", "n.yaml")
    lay = load_layout(_file(tmp_path, LAYOUT), nets)
    assert [n.pins for n in lay.nets] == [[(1, 3, 1), (1, 5, 1)]]
    with pytest.raises(InputError, match="names layer 'M2', but the layout has no"):
        load_netlist(nets)


def test_check_reads_a_multi_layer_layout(tmp_path, capsys):
    p = _file(tmp_path, LAYOUT)
    assert main(["check", str(p)]) == 0
    assert "ok: m, 8 x 6 cells" in capsys.readouterr().out


def test_view_draws_a_multi_layer_layout(tmp_path, capsys):
    p = _file(tmp_path, LAYOUT)
    assert main(["view", str(p), "-o", str(tmp_path / "v.html")]) == 0
    page = (tmp_path / "v.html").read_text()
    assert '"layers"' in page and "mazeroute-view/1" in page


def test_batch_writes_a_multi_layer_layouts_page(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    p = _file(folder, LAYOUT)
    out = tmp_path / "out"
    assert main(["batch", str(folder), "-o", str(out), "-q", "--html", "--no-png"]) == 0
    pages = list(out.glob("*/view.html"))
    assert len(pages) == 1 and '"layers"' in pages[0].read_text()
    # --resume finds the page and keeps the layout as finished
    assert main(["batch", str(folder), "-o", str(out), "-q", "--html", "--no-png",
                 "--resume"]) == 0
    assert p.exists()


def test_batch_routes_a_multi_layer_layout_not_as_a_base(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    p = _file(folder, LAYOUT)
    assert main(["batch", str(folder), "-o", str(tmp_path / "out"), "-q"]) == 0
    assert main(["batch", str(folder), "--layout", str(p), "-o", str(tmp_path / "o2"),
                 "-q"]) == 2
