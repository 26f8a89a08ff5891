"""The GCell grid and capacities: worked by hand on a tiny design, and against OpenROAD's
own resources table for gcd."""

import re
from pathlib import Path

import numpy as np
import pytest

from mazeroute.errors import InputError
from mazeroute.gcells import gcell_grid, resources_table
from mazeroute.readers.lefdef import read_design
from tests.test_lefdef import DATA, write_tiny


def tiny(tmp_path):
    return read_design(*write_tiny(tmp_path))


def test_tiny_grid_by_hand(tmp_path):
    g = gcell_grid(tiny(tmp_path))
    # GCell: 15 x the middle of the m2, m3, m4 steps (100, 100, 200) = 1500 DBU.
    # Die 3200 x 3000: 3200 // 1500 = 2 columns, the last one 1700 wide; 2 rows.
    assert g.tile == 1500
    assert g.xs.tolist() == [0, 1500, 3200] and g.ys.tolist() == [0, 1500, 3000]
    # Default range m2..m4 (m1 is below it: no capacity).
    assert (g.min_layer, g.max_layer) == (2, 4)
    # m2 (vertical), tracks x = 50, 150, ..., 3150: 15 in [0, 1500), 17 in [1500, 3200);
    # one vertical edge per column. u1's pin Z on m2, (1050,1050)-(1150,1100), lies in
    # GCell (0, 0): it blocks the edge up from it by ceil(100 / 100) = 1 track. u2's Z,
    # mirrored (FS) to (2050,1300)-(2150,1350), does the same in column 1.
    assert g.v_cap[1].tolist() == [[14, 16]]
    # m3 (horizontal), tracks y = 50, ..., 2950: 15 a row; one horizontal edge a row.
    assert g.h_cap[2].tolist() == [[15], [15]]
    # m4 (vertical), tracks x = 100, 300, ..., 3100: 7 in column 0, 9 in column 1.
    assert g.v_cap[3].tolist() == [[7, 9]]
    assert g.original == (0, 30, 30, 16) and g.derated == g.original


def test_adjust_and_layer_range(tmp_path):
    d = tiny(tmp_path)
    g = gcell_grid(d, adjust={"m3": 0.5, "m4": 0.99})
    # floor(15 * 0.5) = 7 a row; m4 floor(7 * 0.01) = 0 and floor(9 * 0.01) = 0, kept at 1
    assert g.h_cap[2].tolist() == [[7], [7]] and g.v_cap[3].tolist() == [[1, 1]]
    assert g.derated == (0, 30, 14, 2) and g.original == (0, 30, 30, 16)
    g = gcell_grid(d, min_layer="m3", max_layer="m3")
    # one routing layer on top: the GCell is 15 of its pitches, 1500; m2 is below range
    assert g.original == (0, 0, 30) and g.tile == 1500
    with pytest.raises(InputError) as e:
        gcell_grid(d, max_layer="m9")
    assert e.value.field == "--max-layer"
    with pytest.raises(InputError) as e:
        gcell_grid(d, adjust={"m2": 1.5})
    assert e.value.field == "--adjust"


def openroad_resources(log: Path) -> dict[str, tuple[str, int, int]]:
    """The ``Routing resources analysis`` table of an OpenROAD log, by layer."""
    text = log.read_text()
    table = text[text.index("Routing resources analysis"):]
    rows = re.findall(r"^(\S+)\s+(Horizontal|Vertical)\s+(\d+)\s+(\d+)\s+[\d.]+%$", table,
                      re.MULTILINE)
    return {name: (d, int(o), int(r)) for name, d, o, r in rows}


@pytest.mark.parametrize("log", ["gcd.fastroute.log", "gcd.cugr.log"])
def test_gcd_resources_match_openroad(log):
    if not DATA.is_dir():
        pytest.skip(f"the shared LEF/DEF designs are absent ({DATA})")
    want = openroad_resources(DATA / "gcd" / log)
    assert len(want) == 10
    d = read_design(DATA / "gcd" / "gcd.def", [DATA / "nangate45" / "Nangate45.lef"])
    g = gcell_grid(d)
    got = {lay.name: (lay.direction.capitalize(), o, r)
           for lay, o, r in zip(g.layers, g.original, g.derated)}
    assert set(got) == set(want)
    for name, (direction, orig, der) in want.items():
        assert got[name][0] == direction, name
        assert abs(got[name][1] - orig) <= 0.02 * orig, (name, got[name], orig)
        assert abs(got[name][2] - der) <= 0.02 * der, (name, got[name], der)
    table = resources_table(g)
    assert re.search(r"^metal2\s+Vertical\s+\d+\s+\d+\s+0\.00%$", table, re.MULTILINE)


def test_ispd18_test1_grid():
    if not DATA.is_dir():
        pytest.skip(f"the shared LEF/DEF designs are absent ({DATA})")
    d = read_design(DATA / "ispd18_test1" / "ispd18_test1.input.def",
                    [DATA / "ispd18_test1" / "ispd18_test1.input.lef"])
    g = gcell_grid(d)
    # every edge on a layer in range carries tracks, and none more than the GCell fits
    assert g.tile == 15 * 400
    for lay in g.layers[g.min_layer - 1:]:
        cap = (g.h_cap if lay.direction == "HORIZONTAL" else g.v_cap)[lay.level - 1]
        assert np.all(cap >= 0) and cap.max() <= 2 * g.tile // lay.pitch + 1
        assert cap.sum() > 0
