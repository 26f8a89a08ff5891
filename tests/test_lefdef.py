"""Reading LEF/DEF into a Design: a tiny hand-made design, the shared real designs, and
one-line errors for bad input."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.errors import InputError
from mazeroute.readers.lefdef import ORIENTS, Component, Macro, place, placed, read_design

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lefdef"

# Units: 1000 DBU a micron. Four routing layers, alternating, m1 horizontal.
TINY_LEF = """VERSION 5.8 ;
BUSBITCHARS "[]" ;
DIVIDERCHAR "/" ;
UNITS
  DATABASE MICRONS 1000 ;
END UNITS
LAYER m1
  TYPE ROUTING ;
  DIRECTION HORIZONTAL ;
  PITCH 0.1 ;
  WIDTH 0.05 ;
  SPACING 0.05 ;
END m1
LAYER v1
  TYPE CUT ;
END v1
LAYER m2
  TYPE ROUTING ;
  DIRECTION VERTICAL ;
  PITCH 0.1 ;
  WIDTH 0.05 ;
  SPACING 0.05 ;
END m2
LAYER v2
  TYPE CUT ;
END v2
LAYER m3
  TYPE ROUTING ;
  DIRECTION HORIZONTAL ;
  PITCH 0.1 ;
  WIDTH 0.05 ;
END m3
LAYER v3
  TYPE CUT ;
END v3
LAYER m4
  TYPE ROUTING ;
  DIRECTION VERTICAL ;
  PITCH 0.2 ;
  WIDTH 0.1 ;
END m4
MACRO INV
  CLASS CORE ;
  ORIGIN 0 0 ;
  SIZE 0.2 BY 0.4 ;
  PIN A
    DIRECTION INPUT ;
    PORT
      LAYER m1 ;
        RECT 0.02 0.1 0.08 0.2 ;
    END
  END A
  PIN Z
    DIRECTION OUTPUT ;
    PORT
      LAYER m2 ;
        RECT 0.05 0.05 0.15 0.1 ;
    END
  END Z
  OBS
    LAYER m1 ;
      RECT 0.1 0.3 0.2 0.4 ;
  END
END INV
END LIBRARY
"""

# A 3.2 x 3.0 um die. u1 at (1000, 1000); in1 an IO pin on m3 at (0, 1500).
TINY_DEF = """VERSION 5.8 ;
DIVIDERCHAR "/" ;
BUSBITCHARS "[]" ;
DESIGN tiny ;
UNITS DISTANCE MICRONS 1000 ;
DIEAREA ( 0 0 ) ( 3200 3000 ) ;
TRACKS Y 50 DO 30 STEP 100 LAYER m1 ;
TRACKS X 50 DO 32 STEP 100 LAYER m2 ;
TRACKS Y 50 DO 30 STEP 100 LAYER m3 ;
TRACKS X 100 DO 16 STEP 200 LAYER m4 ;
COMPONENTS 2 ;
- u1 INV + PLACED ( 1000 1000 ) N ;
- u2 INV + FIXED ( 2000 1000 ) FS ;
END COMPONENTS
PINS 1 ;
- in1 + NET n1 + DIRECTION INPUT + USE SIGNAL
  + LAYER m3 ( 0 -50 ) ( 100 50 )
  + PLACED ( 0 1500 ) N ;
END PINS
NETS 2 ;
- n1 ( PIN in1 ) ( u1 A ) ;
- n2 ( u1 Z ) ( u2 A ) ;
END NETS
END DESIGN
"""


def write_tiny(tmp_path: Path, lef: str = TINY_LEF, def_: str = TINY_DEF):
    (tmp_path / "tiny.lef").write_text(lef)
    (tmp_path / "tiny.def").write_text(def_)
    return tmp_path / "tiny.def", [tmp_path / "tiny.lef"]


def test_tiny_design_is_read_whole(tmp_path):
    d = read_design(*write_tiny(tmp_path))
    assert (d.name, d.dbu, d.die, d.special_nets) == ("tiny", 1000, (0, 0, 3200, 3000), 0)
    assert [(lay.name, lay.level, lay.direction, lay.pitch) for lay in d.layers] == [
        ("m1", 1, "HORIZONTAL", 100), ("m2", 2, "VERTICAL", 100),
        ("m3", 3, "HORIZONTAL", 100), ("m4", 4, "VERTICAL", 200)]
    assert d.layer("m1").spacing == 50 and d.layer("m4").width == 100
    assert ("m2", "X", 50, 32, 100) in [(t.layer, t.axis, t.start, t.count, t.step)
                                        for t in d.tracks]
    assert d.macros["INV"].obs == (("m1", (100, 300, 200, 400)),)
    assert [(c.name, c.orient, c.status) for c in d.components] == [
        ("u1", "N", "PLACED"), ("u2", "FS", "FIXED")]
    assert d.io_pins["in1"] == (("m3", (0, 1450, 100, 1550)),)
    # u1's pin Z (50,50)-(150,100) moved by (1000,1000); u2's A mirrored in y (FS)
    shapes = {(c, p): s for c, p, s in d.pin_shapes(d.nets[1])}
    assert shapes[("u1", "Z")] == (("m2", (1050, 1050, 1150, 1100)),)
    assert shapes[("u2", "A")] == (("m1", (2020, 1200, 2080, 1300)),)


def test_orientations_keep_the_cell_in_its_box():
    m = Macro("M", "CORE", 200, 400)
    for o in ("N", "S", "W", "E", "FN", "FS", "FW", "FE"):
        r = place((0, 0, 200, 400), Component("u", "M", 0, 0, o, "PLACED"), m)
        assert r in ((0, 0, 200, 400), (0, 0, 400, 200)), o


@pytest.mark.parametrize("change, field", [
    (("- u2 INV", "- u2 NOPE"), "COMPONENTS u2"),
    (("LAYER m3 ( 0 -50 )", "LAYER m9 ( 0 -50 )"), "PINS in1"),
    (("PLACED ( 0 1500 ) N", "PLACED ( 3300 1500 ) N"), "PINS in1"),
    (("( u2 A )", "( u2 Q )"), "NETS n2"),
    (("END DESIGN\n", ""), "END DESIGN"),
])
def test_bad_def_names_file_and_field(tmp_path, change, field):
    def_path, lefs = write_tiny(tmp_path, def_=TINY_DEF.replace(*change))
    with pytest.raises(InputError) as e:
        read_design(def_path, lefs)
    assert e.value.field == field and e.value.file == str(def_path)
    assert "\n" not in str(e.value)


def test_not_lef_or_def_is_one_line(tmp_path):
    def_path, lefs = write_tiny(tmp_path)
    junk = tmp_path / "junk.txt"
    junk.write_text("hello world\n")
    with pytest.raises(InputError) as e:
        read_design(def_path, [junk])
    assert (e.value.file, e.value.field) == (str(junk), "LEF")
    with pytest.raises(InputError) as e:
        read_design(junk, lefs)
    assert (e.value.file, e.value.field) == (str(junk), "DESIGN")


def test_def_the_c_reader_rejects_is_one_line(tmp_path):
    # a header that passes the cheap checks, a body the C++ reader cannot parse
    def_path, lefs = write_tiny(tmp_path, def_=TINY_DEF.replace("COMPONENTS 2 ;",
                                                                "COMPONENTS 2 ; ((("))
    with pytest.raises(InputError) as e:
        read_design(def_path, lefs)
    assert (e.value.file, e.value.field) == (str(def_path), "DEF")


SHARED = [("gcd/gcd.def", "nangate45/Nangate45.lef", 676, 54, 579),
          ("ispd18_sample/ispd18_sample.input.def", "ispd18_sample/ispd18_sample.input.lef",
           22, 0, 11),
          ("ispd18_test1/ispd18_test1.input.def", "ispd18_test1/ispd18_test1.input.lef",
           8879, 0, 3153)]


@pytest.mark.parametrize("def_name, lef_name, comps, pins, nets", SHARED)
def test_shared_designs_are_read(def_name, lef_name, comps, pins, nets):
    if not DATA.is_dir():
        pytest.skip(f"the shared LEF/DEF designs are absent ({DATA})")
    d = read_design(DATA / def_name, [DATA / lef_name])
    assert (len(d.components), len(d.io_pins), len(d.nets)) == (comps, pins, nets)
    assert d.dbu == 2000 and len(d.layers) >= 9
    # every pin of every net has at least one shape on a layer of the technology
    names = {lay.name for lay in d.layers}
    for net in d.nets[:50]:
        for _, _, shapes in d.pin_shapes(net):
            assert shapes and {lay for lay, _ in shapes} <= names


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(ORIENTS), st.integers(1, 40), st.integers(1, 40),
       st.lists(st.integers(0, 40), min_size=4, max_size=4),
       st.integers(0, 1000), st.integers(0, 1000))
def test_placed_is_place_for_every_orientation(orient, w, h, corners, x, y):
    r = (min(corners[0], corners[2]), min(corners[1], corners[3]),
         max(corners[0], corners[2]), max(corners[1], corners[3]))
    want = place(r, Component("u", "M", x, y, orient, "PLACED"), Macro("M", "CORE", w, h))
    got = placed(np.array([r]), np.array([[x, y, ORIENTS.index(orient), w, h]]))
    assert tuple(got[0].tolist()) == want


def test_pin_table_holds_every_routing_layer_shape():
    design = read_design(DATA / "gcd" / "gcd.def", [DATA / "nangate45" / "Nangate45.lef"])
    t = design.pin_table
    levels = {lay.name: lay.level for lay in design.layers}
    want = [(k, j, levels[lay], *r) for k, net in enumerate(design.nets)
            for j, (_c, _p, shapes) in enumerate(design.pin_shapes(net))
            for lay, r in shapes if lay in levels]
    got = np.column_stack([t.net, t.pin, t.level, t.rect]).tolist()
    assert [tuple(g) for g in got] == want
