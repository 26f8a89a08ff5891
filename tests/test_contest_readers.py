"""The contests' global routing inputs: ISPD 2024's .cap and .net, ISPD 2007/2008's .gr.

Every file is small and written here, its values worked out in comments; each malformed
case must fail in one line that names the file, the line and the field.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from mazeroute import limits
from mazeroute.errors import InputError
from mazeroute.readers.contest import (
    HORIZONTAL,
    NO_DIRECTION,
    VERTICAL,
    read_cap,
    read_gr,
    read_net,
)

# Two layers of 3 x 2 GCells. Line numbers, for the malformed cases below:
CAP = """\
2 3 2
0.5 4 1 2
10 12
9
Metal1 0 0
1 2 3
4 5 6
Metal2 1 10.5
7.5 0 8
9 10 11
"""
# line 1: nLayers 2, xSize 3, ySize 2
# line 2: UnitLengthWireCost 0.5, UnitViaCost 4, OFWeight 1 (Metal1) and 2 (Metal2)
# line 3: the xSize - 1 = 2 horizontal edge lengths; line 4: the ySize - 1 = 1 vertical one
# lines 5-7: Metal1, horizontal, its rows y=0 and y=1; lines 8-10: Metal2, vertical

# Two nets on that grid: clk with 2 pins (2 + 1 access points), n1 with 3 (1 + 3 + 1).
NET = """\
clk
(
[(0, 0, 0), (0, 0, 1)]
[(1, 2, 1)]
)
n1
(
[(0, 1, 1)]
[(1, 2, 0), (1, 2, 1), (0, 2, 1)]
[(0, 0, 1)]
)
"""

# 3 x 2 GCells of 10 x 20 length units from (100, 200), two layers: layer 1 horizontal
# (capacity 30), layer 2 vertical (20); wires of width 1 and spacing 1 (2 units a track).
GR = """\
grid 3 2 2
vertical capacity 0 20
horizontal capacity 30 0
minimum width 1 1
minimum spacing 1 1
via spacing 0 0
100 200 10 20

num net 2
netA 0 2 1
105 205 1
125 235 2
netB 1 3 1
115 219 1
115 220 1
129 239 2

2
0 0 1   1 0 1   10
2 0 2   2 1 2   4
"""
# Line numbers: 1 grid, 2-6 the per-layer lines, 7 origin and tile, 8 blank, 9 num net,
# 10 netA, 11-12 its pins, 13 netB, 14-16 its pins, 17 blank, 18 the count, 19-20 the
# adjustments.


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(read, path, *args) -> str:
    with pytest.raises(InputError) as info:
        read(path, *args)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


def replaced(text: str, line: int, new: str | None) -> str:
    """``text`` with its line ``line`` (from 1) replaced by ``new`` (removed if None)."""
    lines = text.splitlines()
    lines[line - 1:line] = [] if new is None else [new]
    return "\n".join(lines) + "\n"


# -- .cap ----------------------------------------------------------------------------------
def test_cap_reads_the_grid_costs_and_capacities(tmp_path):
    grid = read_cap(write(tmp_path, "t.cap", CAP))
    assert (grid.layers, grid.nx, grid.ny) == (2, 3, 2)
    assert (grid.wire_cost, grid.via_cost) == (0.5, 4.0)
    assert grid.overflow_weights.tolist() == [1.0, 2.0]
    assert grid.edge_lengths_x.tolist() == [10, 12] and grid.edge_lengths_y.tolist() == [9]
    assert grid.layer_names == ("Metal1", "Metal2")
    assert grid.directions.tolist() == [HORIZONTAL, VERTICAL]
    assert grid.min_lengths.tolist() == [0.0, 10.5]
    assert grid.capacity.shape == (2, 2, 3) and grid.capacity.dtype == np.float32
    # capacity[layer, y, x]: Metal1's rows 1 2 3 / 4 5 6 sum to 21; Metal2's to
    # 7.5 + 0 + 8 + 9 + 10 + 11 = 45.5
    assert grid.capacity[0].tolist() == [[1, 2, 3], [4, 5, 6]]
    assert grid.capacity.sum(axis=(1, 2)).tolist() == [21.0, 45.5]
    assert not grid.capacity.flags.writeable


def test_cap_edge_capacity_is_the_baseline_routers_reading(tmp_path):
    h, v = read_cap(write(tmp_path, "t.cap", CAP)).edge_capacity()
    assert h.shape == (2, 2, 2) and v.shape == (2, 1, 3)
    # Metal1 (horizontal): the edge (x, y)-(x + 1, y) has GCell (x, y)'s value, the last
    # column none: [[1, 2], [4, 5]], 12 in all; no vertical edges
    assert h[0].tolist() == [[1, 2], [4, 5]] and v[0].sum() == 0
    # Metal2 (vertical): the edge (x, 0)-(x, 1) has row y=0: 7.5 + 0 + 8 = 15.5
    assert v[1].tolist() == [[7.5, 0, 8]] and v[1].sum() == 15.5 and h[1].sum() == 0


def test_cap_of_one_column_has_an_empty_line_of_edge_lengths(tmp_path):
    # xSize 1: no horizontal edges, so line 3 is empty; ySize 2: one vertical length
    grid = read_cap(write(tmp_path, "t.cap", "1 1 2\n1 4 2\n\n7\nM1 1 0\n5\n6\n"))
    assert grid.edge_lengths_x.tolist() == [] and grid.capacity[0, :, 0].tolist() == [5, 6]


CAP_CASES = {
    # a count the lines after it contradict
    "a weight missing": (2, "0.5 4 1", ["line 2:", "unit costs", "3 values, expected 4"]),
    "one layer counted, two given": (1, "1 3 2", ["line 2:", "4 values, expected 3"]),
    "three rows counted, two given": (1, "2 3 3", ["line 4:", "vertical GCell edge lengths",
                                                   "1 value, expected 2"]),
    "an edge length too many": (3, "10 12 14", ["line 3:", "horizontal GCell edge lengths",
                                                "3 values, expected 2"]),
    "a short row": (7, "4 5", ["line 7:", "layer 0 (Metal1), row y=1",
                               "2 values, expected 3"]),
    # bad numbers
    "a word for a capacity": (9, "7.5 x 8", ["line 9:", "row y=0, value 1",
                                             "'x' is not a number"]),
    "a negative capacity": (9, "7.5 -1 8", ["line 9:", "value 1", "-1 is out of range"]),
    "NaN": (9, "nan 0 8", ["line 9:", "value 0", "'nan' is not a number"]),
    "a fractional size": (1, "2 3.0 2", ["line 1:", "xSize", "'3.0' is not an integer"]),
    "no layers": (1, "0 3 2", ["line 1:", "nLayers", "0 is out of range"]),
    "a fractional edge length": (4, "9.5", ["line 4:", "value 0", "'9.5' is not an integer"]),
    "a direction of 2": (8, "Metal2 2 10.5", ["line 8:", "layer 1 (Metal2) direction",
                                              "expected 0 (horizontal) or 1 (vertical)"]),
    "a bad minimum length": (8, "Metal2 1 ten", ["line 8:", "minLength", "'ten'"]),
    "a layer header short": (5, "Metal1 0", ["line 5:", "layer 0's header", "2 values"]),
    # cut short, or more after the end
    "the last row missing": (10, None, ["line 10:", "the file ends after 9 lines",
                                        "layer 1 (Metal2), row y=1"]),
    "empty": (None, "", ["line 1:", "the file ends after 0 lines", "nLayers xSize ySize"]),
}


@pytest.mark.parametrize("case", CAP_CASES, ids=list(CAP_CASES))
def test_cap_refuses_each_malformed_file_in_one_line(tmp_path, case):
    line, new, expected = CAP_CASES[case]
    text = "" if line is None else replaced(CAP, line, new)
    message = error_of(read_cap, write(tmp_path, "bad.cap", text))
    for part in expected:
        assert part in message, (message, part)


def test_cap_refuses_lines_after_the_last_layer(tmp_path):
    message = error_of(read_cap, write(tmp_path, "t.cap", CAP + "\n1 2 3\n"))
    assert "line 12:" in message and "unexpected '1 2 3' after the capacities" in message
    read_cap(write(tmp_path, "ok.cap", CAP + "\n\n"))        # blank lines at the end do not


def test_cap_refuses_a_grid_too_large_before_making_it(tmp_path):
    message = error_of(read_cap, write(tmp_path, "t.cap", "100 100000 100000\n"))
    assert "line 1:" in message and "more than the" in message and "GCells" in message


def test_cap_cut_short_after_a_large_header_names_the_line(tmp_path):
    # 1 x 300 x 300 values need 180,000 characters: the few lines here cannot hold them,
    # so nothing of that size is made, and reading stops at the first short row
    lengths = " ".join(["5"] * 299)
    text = f"1 300 300\n1 1 1\n{lengths}\n{lengths}\nM1 0 0\n1 2 3\n"
    message = error_of(read_cap, write(tmp_path, "t.cap", text))
    assert "line 6:" in message and "row y=0" in message and "3 values, expected 300" in message


# -- .net ----------------------------------------------------------------------------------
def test_net_keeps_every_access_point_of_every_pin(tmp_path):
    nets = read_net(write(tmp_path, "t.net", NET), read_cap(write(tmp_path, "t.cap", CAP)))
    assert nets.names == ("clk", "n1") and len(nets) == 2 and nets.num_pins == 5
    # 2 + 1 access points for clk's pins, 1 + 3 + 1 for n1's: 8 points, 5 pins
    assert nets.points.shape == (8, 3) and nets.points.dtype == np.int32
    assert nets.pin_start.tolist() == [0, 2, 3, 4, 7, 8]
    assert nets.net_start.tolist() == [0, 2, 5]
    assert [p.tolist() for p in nets.pins(0)] == [[[0, 0, 0], [0, 0, 1]], [[1, 2, 1]]]
    assert nets.pins(1)[1].tolist() == [[1, 2, 0], [1, 2, 1], [0, 2, 1]]


def test_net_without_a_grid_takes_any_coordinates(tmp_path):
    nets = read_net(write(tmp_path, "t.net", "big\n(\n[(9, 70000, 12544)]\n)\n"))
    assert nets.points.tolist() == [[9, 70000, 12544]]


NET_CASES = {
    "no '(' after the name": (2, "[(0, 0, 0)]", ["line 2:", "net 'clk'", "expected '('"]),
    "a word for a coordinate": (3, "[(0, a, 1)]", ["line 3:", "net 'clk', pin 0",
                                                   "is not a list of access points"]),
    "a negative coordinate": (4, "[(1, -2, 1)]", ["line 4:", "net 'clk', pin 1"]),
    "a pin of no access points": (8, "[]", ["line 8:", "net 'n1', pin 0", "'[]'"]),
    "a point of two numbers": (10, "[(0, 1)]", ["line 10:", "net 'n1', pin 2"]),
    "a net named twice": (6, "clk", ["line 6:", "net 'clk' is named twice"]),
    "a name of two words": (6, "n 1", ["line 6:", "expected a net's name"]),
    "a net with no pins": (None, "e\n(\n)\n", ["line 3:", "net 'e' has no pins"]),
    "the closing ')' missing": (11, None, ["line 11:", "the file ends after 10 lines",
                                           "the ')' that closes net 'n1'"]),
    # off the .cap's grid of 2 layers of 3 x 2 GCells, on the pin's own line
    "layer 2": (9, "[(1, 2, 0), (2, 2, 1), (0, 2, 1)]",
                ["line 9:", "net 'n1', pin 1, access point 1", "layer 2 is off the grid",
                 "(0 to 1)"]),
    "x 3": (4, "[(1, 3, 1)]", ["line 4:", "net 'clk', pin 1: x 3", "(0 to 2)"]),
    "y 2": (10, "[(0, 0, 2)]", ["line 10:", "net 'n1', pin 2", "y 2 is off", "(0 to 1)"]),
}


@pytest.mark.parametrize("case", NET_CASES, ids=list(NET_CASES))
def test_net_refuses_each_malformed_file_in_one_line(tmp_path, case):
    line, new, expected = NET_CASES[case]
    text = new if line is None else replaced(NET, line, new)
    grid = read_cap(write(tmp_path, "t.cap", CAP))
    message = error_of(read_net, write(tmp_path, "bad.net", text), grid)
    for part in expected:
        assert part in message, (message, part)


# -- .gr -----------------------------------------------------------------------------------
def test_gr_reads_capacities_after_the_adjustments(tmp_path):
    gr = read_gr(write(tmp_path, "t.gr", GR))
    assert (gr.layers, gr.nx, gr.ny) == (2, 3, 2)
    assert (gr.origin, gr.tile) == ((100, 200), (10, 20))
    assert gr.directions.tolist() == [HORIZONTAL, VERTICAL]
    assert gr.h_cap.shape == (2, 2, 2) and gr.v_cap.shape == (2, 1, 3)
    # layer 1: 30 on each of its 4 horizontal edges, but the first adjustment sets the
    # edge (0, 0)-(1, 0) to 10: 10 + 30 + 30 + 30 = 100; no vertical capacity
    assert gr.h_cap[0].tolist() == [[10, 30], [30, 30]] and gr.h_cap[0].sum() == 100
    assert gr.v_cap[0].sum() == 0 and gr.h_cap[1].sum() == 0
    # layer 2: 20 on its 3 vertical edges, the second adjustment sets (2, 0)-(2, 1) to 4
    assert gr.v_cap[1].tolist() == [[20, 20, 4]] and gr.v_cap[1].sum() == 44
    # in tracks of width 1 + spacing 1 = 2 units: 10 / 2 = 5, 30 / 2 = 15, 4 / 2 = 2
    h_tracks, v_tracks = gr.tracks()
    assert h_tracks[0].tolist() == [[5, 15], [15, 15]] and v_tracks[1].tolist() == [[10, 10, 2]]
    assert gr.adjustments.tolist() == [[0, 0, 0, 1, 0, 0, 10], [2, 0, 1, 2, 1, 1, 4]]


def test_gr_pins_are_gcells_with_layers_from_zero(tmp_path):
    nets = read_gr(write(tmp_path, "t.gr", GR)).nets
    assert nets.names == ("netA", "netB") and nets.net_start.tolist() == [0, 2, 5]
    # (x - 100) // 10, (y - 200) // 20, layer - 1: (105, 205, 1) -> (0, 0, 0);
    # (125, 235, 2) -> (1, 2, 1) as (layer, x, y); (115, 219) is still row 0, (115, 220)
    # row 1; (129, 239, 2) -> x 2, y 1
    assert nets.points.tolist() == [[0, 0, 0], [1, 2, 1], [0, 1, 0], [0, 1, 1], [1, 2, 1]]
    assert [len(p) for p in nets.pins(1)] == [1, 1, 1]


def test_gr_keeps_net_ids_and_widths(tmp_path):
    gr = read_gr(write(tmp_path, "t.gr", GR))
    assert gr.net_ids.tolist() == [0, 1] and gr.net_widths.tolist() == [1, 1]
    assert gr.min_width.tolist() == [1, 1] and gr.via_spacing.tolist() == [0, 0]


def test_gr_layer_with_capacity_both_ways_has_no_direction(tmp_path):
    text = replaced(replaced(GR, 2, "vertical capacity 5 20"), 3, "horizontal capacity 30 0")
    assert read_gr(write(tmp_path, "t.gr", text)).directions.tolist() == [NO_DIRECTION,
                                                                           VERTICAL]


GR_CASES = {
    # counts the lines after them contradict
    "a net counting 3 pins of 2": (10, "netA 0 3 1", ["line 13:", "net 'netA', pin 2",
                                                      "expected 'x y layer'",
                                                      "pin 2 of the 3 that net 'netA'"]),
    "a net counting 1 pin of 2": (10, "netA 0 1 1", ["line 12:", "net 1",
                                                     "expected 'name id pins minWidth'"]),
    "3 nets counted, 2 given": (9, "num net 3", ["line 18:", "net 2", "of the 3"]),
    "1 net counted, 2 given": (9, "num net 1", ["line 13:", "number of capacity adjustments",
                                                "after the 1 nets"]),
    "3 adjustments counted, 2 given": (18, "3", ["line 21:", "the file ends after 20 lines",
                                                 "capacity adjustment 2 of the 3"]),
    "1 adjustment counted, 2 given": (18, "1", ["line 20:", "unexpected",
                                                "after the 1 capacity adjustments"]),
    "a capacity a layer too few": (2, "vertical capacity 0", ["line 2:", "1 value, expected 2"]),
    "the header out of order": (3, "minimum width 1 1", ["line 3:",
                                                         "the 'horizontal capacity' line"]),
    "a grid line short": (1, "grid 3 2", ["line 1:", "expected 'grid nx ny layers'"]),
    "a zero tile width": (7, "100 200 0 20", ["line 7:", "tile width: 0 is out of range"]),
    # bad numbers
    "a letter in a pin": (11, "105 2o5 1", ["line 11:", "net 'netA', pin 0, y",
                                            "'2o5' is not an integer"]),
    "a fractional capacity": (2, "vertical capacity 0 2.5", ["line 2:", "'2.5'"]),
    "a word for the net count": (9, "num net two", ["line 9:", "num net", "'two'"]),
    # off the grid
    "a pin right of the grid": (11, "135 205 1", ["line 11:", "net 'netA', pin 0",
                                                  "x 3 (a GCell", "is off the grid (0 to 2)"]),
    "a pin left of the origin": (14, "95 219 1", ["line 14:", "net 'netB', pin 0",
                                                  "x -1 (a GCell"]),
    "a pin above the grid": (16, "129 240 2", ["line 16:", "pin 2", "y 2 (a GCell"]),
    "a pin on layer 3": (12, "125 235 3", ["line 12:", "layer: 3 is off the grid",
                                           "(1 to 2)"]),
    "a pin on layer 0": (12, "125 235 0", ["line 12:", "layer: 0 is off the grid"]),
    "an adjustment off the grid": (19, "0 2 1 1 2 1 10", ["line 19:", "capacity adjustment 0",
                                                         "y1: 2 is off the grid"]),
    "an adjustment on layer 3": (20, "2 0 3 2 1 3 4", ["line 20:", "capacity adjustment 1",
                                                      "layer1: 3 is off the grid (1 to 2)"]),
    "an adjustment between far GCells": (19, "0 0 1 2 0 1 10", [
        "line 19:", "(0, 0, 1) and (2, 0, 1) are not neighbouring GCells of one layer"]),
    "an adjustment across layers": (19, "0 0 1 1 0 2 10", ["line 19:", "not neighbouring"]),
    "an adjustment of six numbers": (19, "0 0 1 1 0 1", ["line 19:", "6 values, expected 7"]),
    # cut short
    "the adjustments missing": (18, None, ["line 18:", "number of capacity adjustments"]),
}


@pytest.mark.parametrize("case", GR_CASES, ids=list(GR_CASES))
def test_gr_refuses_each_malformed_file_in_one_line(tmp_path, case):
    line, new, expected = GR_CASES[case]
    text = replaced(GR, line, new)
    if new is None:                    # cut short: everything from that line on is gone
        text = "\n".join(GR.splitlines()[:line - 1]) + "\n"
    message = error_of(read_gr, write(tmp_path, "bad.gr", text))
    for part in expected:
        assert part in message, (message, part)


def test_gr_cut_inside_a_net_names_the_pin_that_was_due(tmp_path):
    text = "\n".join(GR.splitlines()[:15]) + "\n"            # netB's last pin gone
    message = error_of(read_gr, write(tmp_path, "t.gr", text))
    assert "line 16:" in message and "pin 2 of the 3 that net 'netB' counts" in message


def test_gr_refuses_a_grid_too_large_before_making_it(tmp_path):
    message = error_of(read_gr, write(tmp_path, "t.gr", "grid 100000 100000 100\n"))
    assert "line 1:" in message and "more than the" in message


def test_windows_line_ends_and_a_byte_order_mark_read_the_same(tmp_path):
    for name, text, read in (("t.cap", CAP, read_cap), ("t.net", NET, read_net),
                             ("t.gr", GR, read_gr)):
        (tmp_path / name).write_bytes(("\ufeff" + text).replace("\n", "\r\n").encode())
        read(tmp_path / name)
    assert read_net(tmp_path / "t.net").pin_start.tolist() == [0, 2, 3, 4, 7, 8]
    assert read_cap(tmp_path / "t.cap").capacity.sum() == 21 + 45.5
    assert read_gr(tmp_path / "t.gr").h_cap.sum() == 100


def test_an_empty_net_file_has_no_nets(tmp_path):
    nets = read_net(write(tmp_path, "t.net", "\n"))
    assert len(nets) == 0 and nets.points.shape == (0, 3) and nets.pin_start.tolist() == [0]


# -- compressed and oversized inputs ---------------------------------------------------------
def test_gzip_files_read_as_their_text(tmp_path):
    # recognised by their first bytes: the name need not end in .gz
    for name, text in (("t.cap.gz", CAP), ("t.net.gz", NET), ("gr.bin", GR)):
        (tmp_path / name).write_bytes(gzip.compress(text.encode()))
    grid = read_cap(tmp_path / "t.cap.gz")
    assert grid.capacity.sum() == 21 + 45.5
    assert read_net(tmp_path / "t.net.gz", grid).pin_start.tolist() == [0, 2, 3, 4, 7, 8]
    assert read_gr(tmp_path / "gr.bin").v_cap[1].tolist() == [[20, 20, 4]]


def test_gzip_errors_name_their_lines_too(tmp_path):
    (tmp_path / "t.cap.gz").write_bytes(gzip.compress(replaced(CAP, 6, "1 2 z").encode()))
    message = error_of(read_cap, tmp_path / "t.cap.gz")
    assert "line 6:" in message and "'z' is not a number" in message


def test_a_broken_gzip_file_is_one_line(tmp_path):
    data = gzip.compress(CAP.encode())
    (tmp_path / "cut.gz").write_bytes(data[:len(data) // 2])
    assert "not a readable gzip file" in error_of(read_cap, tmp_path / "cut.gz")
    (tmp_path / "junk.gz").write_bytes(b"\x1f\x8b" + b"\x00junk" * 10)
    assert "not a readable gzip file" in error_of(read_gr, tmp_path / "junk.gz")
    (tmp_path / "bin.gz").write_bytes(gzip.compress(b"1 2\x00"))
    assert "binary" in error_of(read_net, tmp_path / "bin.gz")


def test_inputs_are_bounded_compressed_or_not(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 64)
    (tmp_path / "t.cap.gz").write_bytes(gzip.compress(CAP.encode() * 10))
    assert "decompresses to more than" in error_of(read_cap, tmp_path / "t.cap.gz")
    assert "is larger than" in error_of(read_gr, write(tmp_path, "t.gr", GR))


def test_missing_files_and_folders_are_one_line(tmp_path):
    assert "no such file" in error_of(read_cap, tmp_path / "none.cap")
    assert "is a directory" in error_of(read_net, tmp_path)
