"""Route guides: written and read back unchanged, malformed files refused in one line that
names the file and the line, and the shared OpenROAD guides read whole."""

import re

import pytest

from mazeroute.errors import InputError
from mazeroute.guides import read_guides, write_guides
from tests.test_lefdef import DATA

GUIDES = {
    "net_b": [(0, 0, 5700, 11400, "metal2"), (-100, 5700, 11400, 11400, "metal3")],
    "net_a": [(51300, 102600, 57000, 108300, "metal1")],
    "empty": [],
}


def test_round_trip_keeps_nets_order_and_rectangles(tmp_path):
    path = tmp_path / "out" / "a.guide"
    write_guides(path, GUIDES)
    assert read_guides(path) == GUIDES
    # nets in the dict's order, not sorted: net_b first
    assert list(read_guides(path)) == ["net_b", "net_a", "empty"]
    assert path.read_text().splitlines()[:4] == ["net_b", "(", "0 0 5700 11400 metal2",
                                                 "-100 5700 11400 11400 metal3"]


def test_write_is_atomic_and_replaces(tmp_path):
    path = tmp_path / "a.guide"
    path.write_text("old\n")
    write_guides(path, {"n": [(0, 0, 1, 1, "m1")]})
    assert read_guides(path) == {"n": [(0, 0, 1, 1, "m1")]}
    # no temporary file is left beside it
    assert [p.name for p in tmp_path.iterdir()] == ["a.guide"]


@pytest.mark.parametrize("guides, says", [
    ({"a b": []}, "net name"),
    ({"n": [(0, 0, 1, 1, "metal 1")]}, "layer name"),
    ({"n": [(5, 0, 1, 1, "m1")]}, "empty rectangle"),
])
def test_write_refuses_what_the_format_cannot_hold(tmp_path, guides, says):
    path = tmp_path / "a.guide"
    with pytest.raises(InputError) as e:
        write_guides(path, guides)
    assert says in str(e.value) and str(path) in str(e.value)
    assert not path.exists()


@pytest.mark.parametrize("text, line, says", [
    ("n\n(\n0 0 10 10\n)\n", 3, "without its layer name"),
    ("n\n(\n0 0 1O 10 m1\n)\n", 3, "'1O' is not an integer"),
    ("n\n(\n0 0 10 10 m1 extra\n)\n", 3, "got 6 fields"),
    ("n\n(\n0 0 10 10 m1\n", 2, "never closed"),
    ("n\n(\n0 0 10 10 m1\n)\n)\n", 5, "')' without a matching '('"),
    ("n\n(\n(\n", 3, "'(' inside net 'n'"),
    ("(\n0 0 1 1 m1\n)\n", 1, "'(' without a net name"),
    ("0 0 10 10 m1\n", 1, "a rectangle outside"),
    ("n\n0 0 10 10 m1\n", 2, "expected '(' after net name"),
    ("n\n", 1, "without its '('"),
    ("n\n(\n10 0 10 10 m1\n)\n", 3, "empty rectangle"),
    ("n\n(\n)\nn\n(\n)\n", 4, "listed twice (first on line 1)"),
])
def test_malformed_files_are_one_line_naming_file_and_line(tmp_path, text, line, says):
    path = tmp_path / "bad.guide"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        read_guides(path)
    msg = str(e.value)
    assert "\n" not in msg and str(path) in msg
    assert e.value.field == f"line {line}" and says in msg, msg


def test_blank_lines_are_allowed(tmp_path):
    path = tmp_path / "a.guide"
    path.write_text("\nn\n(\n\n0 0 10 10 m1\n)\n\n")
    assert read_guides(path) == {"n": [(0, 0, 10, 10, "m1")]}


def test_a_binary_file_is_refused(tmp_path):
    path = tmp_path / "a.guide"
    path.write_bytes(b"n\n(\x00\n")
    with pytest.raises(InputError, match="binary"):
        read_guides(path)


@pytest.mark.parametrize("name", ["gcd.fastroute.guide", "gcd.cugr.guide"])
def test_shared_openroad_guides_read_whole(name, tmp_path):
    if not DATA.is_dir():
        pytest.skip(f"the shared LEF/DEF designs are absent ({DATA})")
    guides = read_guides(DATA / "gcd" / name)
    # every net the log says OpenROAD routed has guides
    log = (DATA / "gcd" / name.replace(".guide", ".log")).read_text()
    routed = int(re.search(r"Routed nets: (\d+)", log).group(1))
    assert len(guides) == routed and all(guides.values())
    assert guides["_000_"][0] == (51300, 102600, 57000, 108300, "metal1")
    write_guides(tmp_path / name, guides)
    assert read_guides(tmp_path / name) == guides
