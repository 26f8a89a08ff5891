"""Layout parsing, netlists, writing back, Moving AI maps, and hostile files."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute import limits
from mazeroute.errors import InputError
from mazeroute.layout import (
    Layout,
    Net,
    check_layout,
    mask_rects,
    paint,
    save_layout,
    with_nets,
)
from mazeroute.limits import MAX_NAME
from mazeroute.readers import (
    load_layout,
    load_netlist,
    parse_layout,
    parse_yaml,
    read_movingai,
)
from mazeroute.readers import yaml as yaml_reader

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


def test_the_format_version_may_be_given_and_must_be_1():
    assert len(parse_layout({**BASE, "version": 1}, "x.yaml").nets) == 2
    for bad in (2, "1", True):
        assert _error(parse_layout, {**BASE, "version": bad}, "x.yaml").startswith(
            "x.yaml: version: this mazeroute reads layout format version 1, got ")


# -- strict keys: a misspelt key is an error, never a field passed over ----------------
NET = "{name: a, pins: [[0, 0], [3, 0]]}"


@pytest.mark.parametrize("text, message", [
    ("width: 4\nheight: 3\nblockage: [[1, 1, 1, 1]]\nnets: []\n",
     "unknown key 'blockage' (did you mean 'blockages'?)"),
    ("widht: 10\nheight: 3\nnets: []\n", "unknown key 'widht' (did you mean 'width'?)"),
    ("width: 4\nheight: 3\nnet: []\n", "unknown key 'net' (did you mean 'nets'?)"),
    ("width: 4\nheight: 3\nauthor: me\nnets: []\n", "unknown key 'author'"),
    ("width: 4\nheight: 3\n7: x\nnets: []\n", "unknown key 7"),
    ("width: 4\nheight: 3\nnets: [{name: a, pins: [[0, 0], [3, 0]], width: 2}]\n",
     "nets[0] 'a': unknown key 'width'"),
    ("width: 4\nheight: 3\nnets: [" + NET + ", {name: b, pin: [[0, 1], [3, 1]]}]\n",
     "nets[1] 'b': unknown key 'pin' (did you mean 'pins'?)"),
    ("width: 4\nheight: 3\nnets: [{nme: a, pins: [[0, 0], [3, 0]]}]\n",
     "nets[0]: unknown key 'nme' (did you mean 'name'?)"),
    ("width: 4\nheight: 3\nblockages: [[0, 2, 0, 2], {rec: [1, 1, 1, 1]}]\nnets: []\n",
     "blockages[1]: unknown key 'rec' (did you mean 'rect'?)"),
    ("width: 4\nheight: 3\nblockages: [{cell: [1, 1], size: 2}]\nnets: []\n",
     "blockages[0]: unknown key 'size'"),
])
def test_an_unknown_key_is_named_with_the_nearest_known_one(tmp_path, text, message):
    p = _file(tmp_path, text)
    assert _error(load_layout, p) == f"{p}: {message}"


@pytest.mark.parametrize("text, message", [
    # the multi-layer keys are keys of the format now: a bad value is named, not the key
    ("width: 4\nheight: 3\nlayers: 2\nnets: []\n",
     "layers: must be a list of at least one layer {name, direction}, got 2"),
    ("width: 4\nheight: 3\nvia_cost: 5\nnets: []\n",
     "via_cost: belongs to a multi-layer layout: give 'layers' too"),
    ("width: 4\nheight: 3\nvia_sites: [[1, 1]]\nnets: []\n",
     "via_sites: belongs to a multi-layer layout: give 'layers' too"),
    ("width: 4\nheight: 3\nnets: [{name: a, pins: [[0, 0], [3, 0]], layer: 2}]\n",
     "nets[0] 'a': unknown key 'layer'"),
    ("width: 4\nheight: 3\nnets: [{name: a, pins: [[0, 0], [3, 0, 1]]}]\n",
     "nets[0] 'a' pins[1]: names layer 1, but the layout has no 'layers'"),
    ("width: 4\nheight: 3\nblockages: [{rect: [1, 1, 1, 1], layer: 2}]\nnets: []\n",
     "blockages[0] layer: names layer 2, but the layout has no 'layers'"),
])
def test_multi_layer_keys_without_layers_are_named(tmp_path, text, message):
    p = _file(tmp_path, text)
    assert _error(load_layout, p) == f"{p}: {message}"


@pytest.mark.parametrize("text, message", [
    ("nets: [" + NET + "]\nnet: []\n", "unknown key 'net' (did you mean 'nets'?)"),
    ("name: mine\nnets: [" + NET + "]\n", "unknown key 'name'"),
    ("nets: [{name: a, pins: [[0, 0], [3, 0]], width: 2}]\n", "nets[0] 'a': unknown key 'width'"),
    ("layers: 2\nnets: [" + NET + "]\n", "unknown key 'layers'"),
    ("net: [" + NET + "]\n", "unknown key 'net' (did you mean 'nets'?)"),
])
def test_a_netlist_refuses_unknown_keys_too(tmp_path, text, message):
    p = _file(tmp_path, text, "n.yaml")
    assert _error(load_netlist, p) == f"{p}: {message}"


def test_a_netlist_still_says_when_it_is_a_full_layout_or_has_no_nets(tmp_path):
    full = _file(tmp_path, "width: 4\nwidht: 4\nnets: []\n", "f.yaml")
    assert _error(load_netlist, full).startswith(f"{full}: width: is a full layout")
    empty = _file(tmp_path, "{}\n", "e.yaml")
    assert _error(load_netlist, empty) == \
        f"{empty}: nets: a netlist file must be a mapping with a 'nets' list"


def test_the_contracts_example_and_every_shipped_layout_still_load():
    docs = Path(__file__).resolve().parent.parent / "docs" / "FORMATS.md"
    example = docs.read_text(encoding="utf-8").split("```yaml\n")[1].split("```")[0]
    lay = parse_layout(parse_yaml(example, "FORMATS.md"), "FORMATS.md")
    assert (lay.name, lay.width, len(lay.rects), len(lay.nets)) == ("demo", 16, 3, 1)
    root = Path(__file__).resolve().parent.parent
    files = sorted([*root.glob("layouts/*.yaml"), *root.glob("tests/data/*.yaml")])
    assert len(files) >= 5
    for f in files:
        assert load_layout(f).nets, f


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
    maps = sorted(Path(__file__).resolve().parents[2].glob("shared/data/movingai/*.map"))
    maps += sorted(Path(__file__).resolve().parents[1].glob("benchmarks/maps/*.map"))
    if not maps:
        pytest.skip("no Moving AI maps in this checkout")
    for m in maps:
        lay = read_movingai(m)
        assert lay.width > 100 and 0.05 < lay.blocked.mean() < 0.95


# -- hostile files --------------------------------------------------------------------
SMALL = "width: 4\nheight: 3\nnets:\n  - {name: a, pins: [[0, 0], [3, 2]]}\n"


def _file(tmp_path, text, name="t.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _error(fn, *args) -> str:
    with pytest.raises(InputError) as e:
        fn(*args)
    text = str(e.value)
    assert "\n" not in text and len(text) < 300 and text.isprintable(), text
    return text


def test_an_alias_is_refused_with_its_line(tmp_path):
    p = _file(tmp_path, "size: &s 4\nwidth: *s\nheight: 3\nnets: []\n")
    assert _error(load_layout, p) == f"{p}: line 2: YAML aliases (*s) are not accepted; " \
                                      "write the value out"


def test_an_alias_bomb_is_refused_before_any_expansion(tmp_path):
    # nine levels of nine aliases each: 9**9 cells once expanded
    lines = ["l0: &l0 [[0, 0], [1, 1]]"]
    lines += [f"l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * 9)}]" for k in range(1, 10)]
    p = _file(tmp_path, "\n".join(lines) + "\nwidth: 4\nheight: 4\nnets: [*l9]\n")
    assert ": line 2: YAML aliases (*l0)" in _error(load_layout, p)
    nl = _file(tmp_path, "\n".join(lines) + "\nnets: [{name: a, pins: *l9}]\n", "n.yaml")
    assert _error(load_netlist, nl).startswith(f"{nl}: line 2: YAML aliases")


def test_deep_nesting_is_refused_not_a_crash(tmp_path):
    # PyYAML's C composer recurses once per level: this used to crash the interpreter
    p = _file(tmp_path, "width: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert _error(load_layout, p) == f"{p}: line 1: nested more than 32 levels deep"


def test_deep_nesting_names_the_line_where_the_limit_is_passed(tmp_path):
    # on a newer libyaml its own depth limit stops the file first (on line 22 here)
    p = _file(tmp_path, "a: [\n" + "[0,\n" * 20 + "[" * 3000 + "]" * 3021 + "\n")
    assert _error(load_layout, p) == f"{p}: line 22: nested more than 32 levels deep"


def test_libyamls_own_depth_limit_is_the_projects_one_line(monkeypatch):
    mark = yaml.Mark("<unicode string>", 0, 4, 1006, None, None)

    class DeepLoader:
        """A loader whose libyaml refuses to nest deeper (as libyaml 0.2.6 words it)."""

        def __init__(self, text):
            pass

        def get_event(self):
            raise yaml.scanner.ScannerError("while increasing flow level", mark,
                                            "exceeded maximum nesting depth", mark)

        def dispose(self):
            pass

    monkeypatch.setattr(yaml_reader, "_Loader", DeepLoader)
    assert _error(parse_yaml, "width: 1\n", "f.yaml") == \
        "f.yaml: line 5: nested more than 32 levels deep"


def test_duplicate_keys_are_an_error_naming_key_and_line(tmp_path):
    p = _file(tmp_path, "width: 4\nheight: 3\nwidth: 5\nnets: []\n")
    assert _error(load_layout, p) == f"{p}: line 3: key 'width' appears twice in one mapping"
    p = _file(tmp_path, "width: 4\nheight: 3\nnets: [{name: a, name: b, pins: []}]\n")
    assert "line 3: key 'name' appears twice" in _error(load_layout, p)


@pytest.mark.parametrize("text", ["010", "0010", "1:00", "1_000", "0b101", "+0777"])
def test_yaml_1_1_integers_are_errors_naming_the_field(text):
    msg = _error(parse_layout, parse_yaml(f"width: {text}\nheight: 3\nnets: []\n"), "x.yaml")
    assert msg.startswith(f"x.yaml: width: must be an integer >= 1, got '{text}' (read as text")


def test_yaml_1_1_booleans_stay_the_text_written():
    data = parse_yaml("name: yes\nwidth: 4\nheight: 3\n"
                      "nets: [{name: on, pins: [[0, 0], [1, 0]]}, {name: n, pins: [[2, 0], "
                      "[3, 0]]}, {name: off, pins: [[0, 2], [1, 2]]}]\n")
    lay = parse_layout(data, "x.yaml")
    assert lay.name == "yes" and [n.name for n in lay.nets] == ["on", "n", "off"]


def test_scalars_follow_the_yaml_1_2_core_schema():
    assert parse_yaml("[1, -2, 0, 0o17, 0x1F, 1.5, 1e3, -.5E-1, 2., .inf, -.Inf, true, False, "
                      "~, null, '', 2001-12-14, 'quoted 010', Yes, 1e3e3, 1.2.3, 0x, e3]") == \
        [1, -2, 0, 15, 31, 1.5, 1000.0, -0.05, 2.0, float("inf"), -float("inf"), True, False,
         None, None, "", "2001-12-14", "quoted 010", "Yes", "1e3e3", "1.2.3", "0x", "e3"]


@pytest.mark.parametrize("text, words", [
    ("width: !!int 010\n", "line 1: '010' is not a YAML 1.2 int"),
    ("width: !!bool yes\n", "is not a YAML 1.2 bool"),
    ("width: !!python/object:os.system x\n", "line 1: the tag"),
    ("nets: !!set {a, b}\n", "line 1: the tag"),
    ("width: 4\n---\nwidth: 5\n", "line 2: more than one YAML document"),
    ("? [1, 2]\n: 3\n", "line 1: a mapping key must be a plain value"),
    ("width: " + "9" * 5000 + "\n", "line 1: an integer of 5000 digits is too large"),
    ("width: [1\n", "YAML syntax error: line 2"),
])
def test_unsupported_yaml_is_one_line_naming_the_line(text, words):
    msg = _error(parse_yaml, text, "f.yaml")
    assert msg.startswith("f.yaml: ") and words in msg, msg


def test_explicit_standard_tags_still_work():
    assert parse_yaml("[!!int 7, !!str 8, !!float 1, !!bool true, !!null null]") == \
        [7, "8", 1.0, True, None]


def _finishes(fn, *args):
    """Run ``fn`` in a thread; the result or the exception, or None if it is still stuck
    after a generous watchdog (a blocked open() of a FIFO never returns)."""
    out = []

    def target():
        try:
            out.append(fn(*args))
        except BaseException as e:          # handed to the test
            out.append(e)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(60)
    return out[0] if out else None


@pytest.mark.parametrize("loader", [load_layout, load_netlist])
def test_a_fifo_is_refused_at_once(tmp_path, loader):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    got = _finishes(loader, fifo)
    assert isinstance(got, InputError), got
    assert str(got) == f"{fifo}: is a FIFO, not a regular file"


def test_sockets_and_devices_are_refused(tmp_path):
    sock_path = tmp_path / "s.yaml"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        assert _error(load_layout, sock_path) == f"{sock_path}: is a socket, not a regular file"
    assert _error(load_layout, "/dev/null") == \
        "/dev/null: is a character device, not a regular file"


def test_a_broken_link_says_so(tmp_path):
    link = tmp_path / "gone.yaml"
    link.symlink_to(tmp_path / "nowhere.yaml")
    assert _error(load_layout, link) == f"{link}: is a broken symbolic link"


def test_a_file_over_the_size_bound_is_refused_before_parsing(tmp_path, monkeypatch):
    p = _file(tmp_path, SMALL + "# padding\n" * 20)
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 100)
    assert "is larger than the" in _error(load_layout, p)
    assert "is larger than the" in _error(load_netlist, p)
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 1 << 20)
    assert load_layout(p).width == 4


def test_quoted_values_in_messages_are_capped(tmp_path):
    huge = "x" * 100_000
    for text in [f"width: {huge}\nheight: 3\nnets: []\n",
                 f"width: 4\nheight: 3\nblockages: [{huge}]\nnets: []\n",
                 f"width: 4\nheight: 3\nblockages: [[0, 0, 0, {huge}]]\nnets: []\n",
                 f"width: 4\nheight: 3\nnets: [{{name: a, pins: [[0, {huge}], [1, 1]]}}]\n",
                 "width: 4\nheight: 3\nnets: [{name: a, pins: {" +
                 ", ".join(f"k{i}: {i}" for i in range(20_000)) + "}}]\n",
                 "width: 4\nheight: 3\nnets: []\nblockages: [{rect: {" +
                 ", ".join(f"k{i}: {i}" for i in range(20_000)) + "}}]\n",
                 f"width: 4\nheight: 3\n? {huge}\n: 1\nnets: []\n"]:
        p = _file(tmp_path, text)
        msg = _error(load_layout, p)
        assert "characters)" in msg or "items)" in msg, msg


def _quote_yaml(s: str) -> str:
    return '"' + "".join(f"\\u{ord(c):04x}" if not c.isprintable() else c for c in s) + '"'


@pytest.mark.parametrize("bad, words", [
    ("a\x00b", "holds U+0000"), ("evil\u202etxt", "holds U+202E"), ("two\nlines", "U+000A"),
    ("tab\there", "U+0009"), ("n" * (MAX_NAME + 1), f"at most {MAX_NAME} characters"),
])
def test_names_are_short_printable_text(tmp_path, bad, words):
    lay = {"width": 4, "height": 3, "nets": [{"name": "a", "pins": [[0, 0], [1, 0]]}]}
    msg = _error(parse_layout, {**lay, "name": bad}, "x.yaml")
    assert msg.startswith("x.yaml: name: ") and words in msg
    msg = _error(parse_layout, {**lay, "nets": [{"name": bad, "pins": [[0, 0], [1, 0]]}]},
                 "x.yaml")
    assert msg.startswith("x.yaml: nets[0] name: ") and words in msg
    nl = _file(tmp_path, "", "n.yaml")
    nl.write_text(f"nets: [{{name: {_quote_yaml(bad)}, pins: [[0, 0], [1, 0]]}}]\n")
    assert _error(load_netlist, nl).startswith(f"{nl}: nets[0] name: ")


def test_a_name_of_exactly_the_limit_is_fine():
    name = "n" * MAX_NAME
    lay = parse_layout({"name": name, "width": 2, "height": 1,
                        "nets": [{"name": name, "pins": [[0, 0], [1, 0]]}]}, "x.yaml")
    assert lay.name == lay.nets[0].name == name


def test_a_default_name_from_an_unusable_file_name_says_where_it_came_from():
    msg = _error(parse_layout, {"width": 2, "height": 1, "nets": []}, "dir/a\x01b.yaml")
    assert "holds U+0001" in msg and "taken from the file name" in msg


@pytest.mark.parametrize("seed", range(5))
def test_paint_agrees_with_cell_by_cell_painting_however_rects_overlap(seed):
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(1, 40)), int(rng.integers(1, 40))
    many = int(rng.integers(0, 3000))          # enough overlap for the summed-marks path
    x0, y0 = rng.integers(0, w, many), rng.integers(0, h, many)
    x1, y1 = rng.integers(x0, w), rng.integers(y0, h)
    rects = list(zip(x0.tolist(), y0.tolist(), x1.tolist(), y1.tolist()))
    expected = np.zeros((h, w), bool)
    for a, b, c, d in rects:
        for y in range(b, d + 1):
            for x in range(a, c + 1):
                expected[y, x] = True
    np.testing.assert_array_equal(paint(w, h, rects), expected)


YAMLISH = st.text(alphabet=st.sampled_from(list("[]{}:,-+&*!|>'\"#%@`?~ \n\t01aeXyz\\.")),
                  max_size=80)


@settings(max_examples=300, deadline=None)
@given(YAMLISH)
def test_any_text_loads_or_is_one_input_error(text):
    try:
        data = parse_yaml(text, "f.yaml")
    except InputError as e:
        assert "\n" not in str(e) and len(str(e)) < 300
        return
    try:
        parse_layout(data, "f.yaml")
    except InputError as e:
        assert "\n" not in str(e) and len(str(e)) < 300


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(
        st.sampled_from(["width", "height", "name", "nets", "pins", "blockages", "rect",
                         "cell", "x"]), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({"width": st.integers(-2, 6) | JSONISH,
                              "height": st.integers(-2, 6) | JSONISH},
                             optional={"name": JSONISH, "nets": JSONISH,
                                       "blockages": JSONISH}))
def test_any_structure_parses_or_is_one_input_error(data):
    try:
        parse_layout(data, "f.yaml")
    except InputError as e:
        assert "\n" not in str(e) and len(str(e)) < 300 and str(e).isprintable()


@pytest.mark.parametrize("name", ["1e3", "0o17", "0x1F", "010", "yes", "Off", "null", "~",
                                  "a: b", "- x", "#c", "[x]", "'q'", '"dq"', "é ü", "x\\y",
                                  "w " * 99 + "w", "&a", "*a", "!t", "%", "@", "`"])
def test_save_then_load_keeps_any_valid_name(tmp_path, name):
    lay = parse_layout({"name": name, "width": 2, "height": 1,
                        "nets": [{"name": name, "pins": [[0, 0], [1, 0]]}]}, "x.yaml")
    p = tmp_path / "x.yaml"
    save_layout(lay, p)
    again = load_layout(p)
    assert again.name == again.nets[0].name == name
    data = yaml.safe_load(        # a YAML 1.1 reader takes the same text too
        p.read_text(encoding="utf-8"))
    assert data["name"] == data["nets"][0]["name"] == name


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 14), st.integers(1, 14), st.integers(0, 2**32 - 1), st.floats(0, 1))
def test_mask_rects_paint_exactly_the_mask(h, w, seed, fill):
    b = np.random.default_rng(seed).random((h, w)) < fill
    rects = mask_rects(b)
    assert np.array_equal(paint(w, h, rects), b)
    assert all(0 <= x0 <= x1 < w and 0 <= y0 <= y1 < h for x0, y0, x1, y1 in rects)
    assert sum((x1 - x0 + 1) * (y1 - y0 + 1) for x0, y0, x1, y1 in rects) == b.sum()


def test_a_layout_built_from_a_mask_keeps_its_blockages_when_written(tmp_path):
    """A Moving AI map and a generated class are masks with no rectangles: written and
    read back, every blocked cell is still blocked (they were dropped before)."""
    from mazeroute.generate import class_mask, random_nets
    from mazeroute.layout import Layout

    m = read_movingai(Path(__file__).resolve().parents[1] / "benchmarks/maps/den520d.map")
    blocked = class_mask("maze:0.1", 60, seed=3)
    made = Layout("made", 60, 60, [], [], blocked)
    made.nets = random_nets(blocked, 5, 2, np.random.default_rng(1))
    for lay in (m, made):
        save_layout(lay, tmp_path / "x.yaml")
        back = load_layout(tmp_path / "x.yaml")
        assert np.array_equal(back.blocked, lay.blocked)
        assert [n.pins for n in back.nets] == [n.pins for n in lay.nets]


def test_rectangles_that_paint_the_mask_are_written_as_they_are(tmp_path):
    lay = parse_layout(BASE, "chip.yaml")
    save_layout(lay, tmp_path / "x.yaml")
    assert load_layout(tmp_path / "x.yaml").rects == lay.rects


@pytest.mark.parametrize("nets, words", [
    ([("n", [(0, 0), (1, 0)]), ("n", [(2, 2), (3, 3)])], "nets[1] 'n': name repeats nets[0]"),
    ([("n", [(0, 0)])], "nets[0] 'n': pins must be a list of at least 2 cells, got 1"),
    ([("n", [(0, 0), (1, 1), (0, 0)])], "nets[0] 'n': lists cell [0, 0] twice"),
])
def test_a_file_and_a_layout_built_in_python_break_a_net_rule_in_the_same_words(nets, words):
    from mazeroute.errors import InputError
    from mazeroute.layout import Layout, Net, check_layout
    from mazeroute.readers import parse_layout
    data = {"width": 4, "height": 4,
            "nets": [{"name": n, "pins": [list(c) for c in pins]} for n, pins in nets]}
    with pytest.raises(InputError) as from_file:
        parse_layout(data, "f.yaml")
    with pytest.raises(InputError) as built:
        check_layout(Layout("a", 4, 4, nets=[Net(n, pins) for n, pins in nets]))
    assert str(from_file.value) == f"f.yaml: {words}"
    assert str(built.value) == words


_FAULTS = ["none", "bool", "float", "negative", "outside", "blocked", "shared", "twice",
           "one pin", "name", "name type", "three", "huge", "numpy", "no pin", "pins"]


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(_FAULTS))
def test_whole_array_checks_refuse_what_the_net_by_net_checks_refuse(seed, fault):
    """check_layout's whole-array path against its checks a net at a time: the same
    error (type and words) or none, on layouts with one fault of each kind put into a
    random net."""
    import mazeroute.layout as layout_module
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(3, 9)), int(rng.integers(3, 9))
    blocked = rng.random((h, w)) < 0.2
    free = [(int(x), int(y)) for y, x in zip(*np.nonzero(~blocked))]
    rng.shuffle(free)
    if len(free) < 6:
        return
    nets = [Net(f"n{k}", [free[2 * k], free[2 * k + 1]]) for k in range(len(free) // 2)]
    k = int(rng.integers(len(nets)))
    pins = list(nets[k].pins)
    b = [(int(x), int(y)) for y, x in zip(*np.nonzero(blocked))]
    change = {"bool": lambda: [(True, pins[0][1]), pins[1]],
              "float": lambda: [(float(pins[0][0]), pins[0][1]), pins[1]],
              "negative": lambda: [(-1, pins[0][1]), pins[1]],
              "outside": lambda: [(w, pins[0][1]), pins[1]],
              "blocked": lambda: [b[0], pins[1]] if b else pins,
              "shared": lambda: [nets[k - 1].pins[0], pins[1]],
              "twice": lambda: [pins[0], pins[0]],
              "one pin": lambda: pins[:1],
              "three": lambda: [(*pins[0], 0), pins[1]],
              "huge": lambda: [(2**70, pins[0][1]), pins[1]],
              "numpy": lambda: [tuple(np.int32(v) for v in pins[0]), pins[1]],
              "no pin": lambda: [3, pins[1]],       # no cell at all (a TypeError)
              "pins": lambda: 5}                    # no list of pins
    if fault in change:
        nets[k] = Net(nets[k].name, change[fault]())
    elif fault == "name":
        nets[k] = Net(nets[k - 1].name, pins)
    elif fault == "name type":
        nets[k] = Net(7, pins)
    if fault in ("no pin", "pins") and k > 0 and seed % 2:  # an earlier net's fault first
        nets[k - 1] = Net(nets[k - 1].name, [(-1, 0), nets[k - 1].pins[1]])
    lay = Layout("faults", w, h, blocked=blocked, nets=nets)

    def outcome():
        try:
            check_layout(lay)
        except (InputError, TypeError) as e:
            return type(e).__name__, str(e)
        return None

    fast = outcome()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(layout_module, "_plainly_valid", lambda lay: False)
        slow = outcome()
    assert fast == slow
    assert (fast is None) == (fault in ("none", "numpy") or (fault == "blocked" and not b))
    assert layout_module._plainly_valid(lay) == (fast is None)   # the fast path is taken
