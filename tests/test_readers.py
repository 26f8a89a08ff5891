"""Input readers: numberlink puzzles, ADC problems, Moving AI maps, YAML, and sniffing."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazeroute import limits, readers
from mazeroute.contract import check_routes
from mazeroute.errors import InputError
from mazeroute.layout import save_layout
from mazeroute.readers import (
    FORMATS,
    load_layout,
    load_layouts,
    read_adc,
    read_movingai,
    read_numberlink,
    sniff_format,
)
from mazeroute.router import route

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(),
                                reason=f"shared data folder {DATA} is absent")


def write(tmp_path: Path, name: str, text: str, newline: str = "\n") -> Path:
    p = tmp_path / name
    p.write_bytes(text.replace("\n", newline).encode())
    return p


def nets_of(layout) -> list[tuple[str, list[tuple[int, int]]]]:
    return [(n.name, n.pins) for n in layout.nets]


def assert_one_line_error(e: InputError, path: Path, line: int | None):
    text = str(e)
    assert "\n" not in text and len(text) < 300, text
    prefix = f"{path}: line {line}: " if line is not None else f"{path}: "
    assert text.startswith(prefix), text


# -- the shared samples ---------------------------------------------------------------
@needs_data
def test_inputs9_is_101_puzzles_of_40_by_20():
    layouts = read_numberlink(DATA / "numberlink" / "inputs9.txt")
    assert len(layouts) == 101
    assert {(lay.width, lay.height) for lay in layouts} == {(40, 20)}
    assert [lay.name for lay in layouts[:2]] == ["inputs9-001", "inputs9-002"]
    assert layouts[-1].name == "inputs9-101"
    assert all(lay.nets and not lay.blocked.any() for lay in layouts)
    # the first puzzle's rows 0-2 read "1....", "2....", "........42...", and row 17 ends
    # "...1..": nets 1 and 2 come first, in that order
    first = layouts[0]
    assert nets_of(first)[:2] == [("1", [(0, 0), (37, 17)]), ("2", [(0, 1), (9, 2)])]


@needs_data
def test_inputs10_is_11_puzzles_of_50_by_50():
    layouts = load_layouts(DATA / "numberlink" / "inputs10.txt")
    assert len(layouts) == 11
    assert {(lay.width, lay.height) for lay in layouts} == {(50, 50)}
    assert layouts[0].name == "inputs10-01" and layouts[10].name == "inputs10-11"


@needs_data
def test_inputs6_is_three_large_puzzles_and_one_small():
    layouts = load_layouts(DATA / "numberlink" / "inputs6.txt")
    assert [(lay.width, lay.height) for lay in layouts] == [(1002, 1002)] * 3 + [(122, 123)]
    assert [lay.name for lay in layouts] == [f"inputs6-{k}" for k in range(1, 5)]


@needs_data
@pytest.mark.parametrize("name", ["inputs9.txt", "inputs10.txt", "inputs6.txt"])
def test_every_shared_puzzle_agrees_with_a_plain_count_of_its_characters(name):
    # an independent reading: split the file at its size lines and count each character
    lines = (DATA / "numberlink" / name).read_text().splitlines()
    expected = []
    i = 0
    while i < len(lines):
        parts = lines[i].split()
        if len(parts) == 2 and all(p.isdigit() for p in parts):
            w, h = map(int, parts)
            if w == 0:
                break
            cells: dict[str, list] = {}
            for y, row in enumerate(lines[i + 1:i + 1 + h]):
                for x, c in enumerate(row):
                    if c != ".":
                        cells.setdefault(c, []).append((x, y))
            expected.append((w, h, cells))
            i += h
        i += 1
    layouts = load_layouts(DATA / "numberlink" / name)
    assert len(layouts) == len(expected)
    for lay, (w, h, cells) in zip(layouts, expected):
        assert (lay.width, lay.height) == (w, h)
        assert {n.name: n.pins for n in lay.nets} == cells


@needs_data
@pytest.mark.parametrize("name", ["NL_Q01.txt", "NL_Q02.txt", "NL_Q03.txt"])
def test_shared_adc_problems_are_3d_and_read_as_multi_layer(name):
    path = DATA / "adc" / name
    assert sniff_format(path) == "adc"
    lay, = load_layouts(path)
    assert lay.stack is not None and lay.blocked.ndim == 3
    assert read_adc(path).nets == lay.nets
    assert all(len(p) == 3 for n in lay.nets for p in n.pins)


@needs_data
@pytest.mark.parametrize("name", ["T99_A01.txt", "T99_A02.txt", "T99_A03.txt"])
def test_shared_adc_answers_are_refused_as_answers(name):
    path = DATA / "adc" / name
    with pytest.raises(InputError, match="ADC answer .* not a problem") as e:
        load_layouts(path)
    assert_one_line_error(e.value, path, 2)


@needs_data
def test_shared_movingai_maps_go_through_read_movingai():
    maps = sorted((DATA / "movingai").glob("*.map"))
    assert maps
    for path in maps:
        assert sniff_format(path) == "movingai"
        lay, = load_layouts(path)
        np.testing.assert_array_equal(lay.blocked, read_movingai(path).blocked)
        assert lay.nets == [] and lay.name == path.stem


@pytest.mark.parametrize("text", ["SIZE 5Y4\nLINE_NUM 1\n", "-3 3\n...\n", "3 3 3\n"])
def test_a_file_no_reader_recognises_says_which_formats_it_is_not(tmp_path, text):
    """A broken header of another format falls through to YAML; the one-line error says
    that it is none of the other formats either, and how to force one."""
    path = tmp_path / "q.txt"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        load_layouts(path)
    assert "\n" not in str(e.value) and str(e.value).startswith(f"{path}: ")
    assert "nor is it numberlink" in str(e.value) and "--format" in str(e.value)
    yaml_path = tmp_path / "l.yaml"                   # a YAML file gone wrong: no hint
    yaml_path.write_text("width 4\nheight: 3\n")
    with pytest.raises(InputError) as e:
        load_layouts(yaml_path)
    assert "nor is it" not in str(e.value)


@pytest.mark.parametrize("stem", ["p" * 210, "tab\tx", "nl\u202eevil"])
def test_a_puzzle_file_is_never_refused_for_its_file_name(tmp_path, stem):
    """Numberlink and ADC files have no name field, so the layout is named after the
    file: a long name is cut to MAX_NAME (room kept for a puzzle's number) and
    characters that are not printable become ``_``."""
    from mazeroute.limits import MAX_NAME
    puzzles = tmp_path / f"{stem}.txt"
    puzzles.write_text("3 2\na.a\nb.b\n\n2 2\nxy\nxy\n")
    adc = tmp_path / f"{stem}.adc"
    adc.write_text("SIZE 5X4\nLINE_NUM 1\nLINE#1 (0,0)-(4,2)\n")
    names = [lay.name for lay in load_layouts(puzzles) + load_layouts(adc)]
    assert len(names) == 3 and len(set(names[:2])) == 2
    assert all(0 < len(n) <= MAX_NAME and n.isprintable() for n in names)
    assert names[0].endswith("-1") and names[1].endswith("-2")


MAP_VARIANTS = {
    "plain": "type octile\nheight 2\nwidth 3\nmap\n...\n.@.\n",
    "no header": "...\n.@.\n",
    "CRLF": "type octile\r\nheight 2\r\nwidth 3\r\nmap\r\n...\r\n.@.\r\n",
    "blank rows": "type octile\nheight 2\nwidth 3\nmap\n\n...\n\n.@.\n",
    "BOM and header": "\ufefftype octile\nheight 2\nwidth 3\nmap\n...\n.@.\n",
    "BOM, no header": "\ufeff...\n.@.\n",
    "spaced header": " type octile\nheight 2 \nwidth 3\n\n map \n...\n.@.\n",
    "trailing spaces": "...  \n.@.\t\n",
}


@pytest.mark.parametrize("variant", list(MAP_VARIANTS))
def test_a_movingai_map_is_the_grid_its_rows_draw(tmp_path, variant):
    """Byte-order marks, CR line ends, blank lines and spaces round the header's words
    or after a row are not cells: the reader that checks the file and the one that
    builds the grid agree on the 3 x 2 map."""
    path = tmp_path / "m.map"
    path.write_bytes(MAP_VARIANTS[variant].encode("utf-8"))
    for lay in (load_layouts(path)[0], load_layouts(path, "movingai")[0],
                read_movingai(path)):
        assert (lay.width, lay.height) == (3, 2)
        assert lay.blocked.tolist() == [[False, False, False], [False, True, False]]


# -- hand-made files of known content -------------------------------------------------
def test_one_puzzle_is_named_after_the_file_with_exact_pins(tmp_path):
    p = write(tmp_path, "tiny.txt", "# made by hand\n5 3\na...b\n.c.c.\nb...a\n")
    lay, = read_numberlink(p)
    assert (lay.name, lay.width, lay.height, lay.source) == ("tiny", 5, 3, str(p))
    assert not lay.blocked.any() and lay.rects == []
    assert nets_of(lay) == [("a", [(0, 0), (4, 2)]), ("b", [(4, 0), (0, 2)]),
                            ("c", [(1, 1), (3, 1)])]


def test_several_puzzles_comments_crlf_and_the_end_line(tmp_path):
    text = ("# first\n2 1\nxx\n\n# second, after a blank line\n\n3 2\n1.2\n2.1\n"
            "0 0\nanything after the end line is ignored\n")
    p = write(tmp_path, "pair.txt", text, newline="\r\n")
    a, b = load_layouts(p)
    assert (a.name, b.name) == ("pair-1", "pair-2")
    assert nets_of(a) == [("x", [(0, 0), (1, 0)])]
    assert nets_of(b) == [("1", [(0, 0), (2, 1)]), ("2", [(2, 0), (0, 1)])]


def test_puzzle_names_are_zero_padded_to_the_count(tmp_path):
    p = write(tmp_path, "ten.txt", "".join("2 1\nzz\n" for _ in range(10)))
    assert [lay.name for lay in read_numberlink(p)] == [f"ten-{k:02d}" for k in range(1, 11)]


def test_a_puzzle_without_pins_is_a_layout_without_nets(tmp_path):
    lay, = read_numberlink(write(tmp_path, "empty.txt", "3 2\n...\n...\n"))
    assert (lay.width, lay.height, lay.nets) == (3, 2, [])


def test_adc_2d_problem_with_crlf(tmp_path):
    # the 2-D example of SOURCES.md
    p = write(tmp_path, "NL_Q99.txt", "SIZE 5X4\nLINE_NUM 2\nLINE#1 (0,0)-(4,2)\n"
              "LINE#2 (0,3)-(4,3)\n", newline="\r\n")
    lay = read_adc(p)
    assert (lay.name, lay.width, lay.height) == ("NL_Q99", 5, 4)
    assert nets_of(lay) == [("1", [(0, 0), (4, 2)]), ("2", [(0, 3), (4, 3)])]
    assert nets_of(load_layouts(p)[0]) == nets_of(lay)


def test_adc_spellings_lower_x_space_separator_and_one_layer(tmp_path):
    p = write(tmp_path, "q.txt", "\nSIZE 3x3\n\nLINE_NUM 2\n\nLINE#7 (0,0) (2,2)\n"
              "LINE#10 ( 2 , 0 )-( 0 , 2 )\n")
    assert nets_of(read_adc(p)) == [("7", [(0, 0), (2, 2)]), ("10", [(2, 0), (0, 2)])]
    # a single layer is a plain 2-D problem, whichever way it is spelled
    p = write(tmp_path, "q1.txt", "SIZE 3X3X1\nLINE_NUM 1\nLINE#1 (0,0,1) (2,1,1)\n")
    assert nets_of(read_adc(p)) == [("1", [(0, 0), (2, 1)])]


def test_yaml_goes_through_load_layout(tmp_path):
    p = write(tmp_path, "chip.yaml", "width: 4\nheight: 3\nblockages: [[1, 0, 1, 1]]\n"
              "nets: [{name: a, pins: [[0, 0], [3, 0]]}]\n")
    lay, = load_layouts(p)
    ref = load_layout(p)
    assert (lay.name, nets_of(lay), lay.rects) == (ref.name, nets_of(ref), ref.rects)


def test_a_netlist_replaces_the_nets_of_every_layout(tmp_path):
    p = write(tmp_path, "two.txt", "3 2\na.a\n...\n3 2\n...\nb.b\n")
    nl = write(tmp_path, "nets.yaml", "nets: [{name: n, pins: [[1, 0], [1, 1]]}]\n")
    layouts = load_layouts(p, netlist=nl)
    assert [nets_of(lay) for lay in layouts] == [[("n", [(1, 0), (1, 1)])]] * 2
    clash = write(tmp_path, "clash.yaml", "nets: [{name: n, pins: [[3, 0], [1, 1]]}]\n")
    with pytest.raises(InputError, match="outside"):
        load_layouts(p, netlist=clash)


# -- malformed files ------------------------------------------------------------------
NUMBERLINK_BAD = {
    "short row": ("3 2\na.a\nb.\n", 3, "row 2 of puzzle 1 has 2 characters, expected 3"),
    "long row": ("3 2\na.a\nb..b\n", 3, "row 2 of puzzle 1 has 4 characters, expected 3"),
    "rows cut by the end": ("3 3\na.a\n...\n", 1, "ends after 2 of its 3 rows"),
    "rows cut by the next puzzle": ("3 3\na.a\n...\n3 1\nb.b\n", 4, "has only 2 of its 3"),
    "blank line inside": ("3 3\na.a\n\n...\n", 3, "has only 1 of its 3 rows"),
    "non-integer size": ("3 x\na.a\n", 1, "expected a size line 'W H' of two integers"),
    "decimal size": ("3.0 1\na.a\n", 1, "expected a size line"),
    "one number": ("3\na.a\n", 1, "expected a size line"),
    "negative size": ("-3 1\na.a\n", 1, "expected a size line"),
    "zero width": ("0 2\n\n\n", 1, "sizes are integers >= 1"),
    "size after comment": ("# c\n\nthree two\n", 3, "got 'three two'"),
    "second puzzle bad": ("1 2\na\na\n2 x\n", 4, "expected a size line"),
    "pin once": ("3 2\na.a\n.b.\n", 3, "puzzle 1: 'b' marks 1 cell ([1, 1])"),
    "pin thrice": ("3 2\nc.c\n.c.\n", 3, "'c' marks 3 cells ([0, 0], [2, 0], [1, 1])"),
    "tab in a row": ("3 1\na\ta\n", 2, "'\\t' cannot mark a pin"),
    "no puzzle": ("# only a comment\n\n", 2, "no puzzle"),
    "end line first": ("0 0\n3 1\na.a\n", 1, "no puzzle"),
}


@pytest.mark.parametrize("case", NUMBERLINK_BAD, ids=list(NUMBERLINK_BAD))
def test_malformed_numberlink_names_file_and_line(tmp_path, case):
    text, line, words = NUMBERLINK_BAD[case]
    p = write(tmp_path, "bad.txt", text)
    with pytest.raises(InputError) as e:
        load_layouts(p, fmt="numberlink")
    assert_one_line_error(e.value, p, line)
    assert words in str(e.value)


ADC_BAD = {
    "count too high": ("SIZE 3X3\nLINE_NUM 2\nLINE#1 (0,0)-(2,2)\n", 2,
                       "LINE_NUM says 2 lines, but the file has 1"),
    "count too low": ("SIZE 3X3\nLINE_NUM 0\nLINE#1 (0,0)-(2,2)\n", 2, "says 0 lines"),
    "no count": ("SIZE 3X3\nLINE#1 (0,0)-(2,2)\n", 1, "no LINE_NUM line"),
    "two counts": ("SIZE 3X3\nLINE_NUM 1\nLINE_NUM 1\nLINE#1 (0,0)-(2,2)\n", 3,
                   "a second LINE_NUM (the first is on line 2)"),
    "pin outside": ("SIZE 3X3\nLINE_NUM 1\nLINE#1 (0,0)-(3,2)\n", 3,
                    "pin (3,2) of LINE#1 lies outside the 3 x 3 grid"),
    "pin shared": ("SIZE 3X3\nLINE_NUM 2\nLINE#1 (0,0)-(2,2)\nLINE#2 (1,1)-(2,2)\n", 4,
                   "pin (2,2) of LINE#2 is also a pin of LINE#1 (line 3)"),
    "both ends alike": ("SIZE 3X3\nLINE_NUM 1\nLINE#1 (1,1)-(1,1)\n", 3,
                        "same cell (1,1) at both ends"),
    "name twice": ("SIZE 3X3\nLINE_NUM 2\nLINE#1 (0,0)-(2,2)\nLINE#1 (0,1)-(2,1)\n", 4,
                   "LINE#1 repeats line 3"),
    "malformed line": ("SIZE 3X3\nLINE_NUM 1\nLINE#1 (0,0)->(2\n", 3,
                       "expected 'LINE#k (x,y)-(x,y)'"),
    "junk line": ("SIZE 3X3\nLINE_NUM 1\nLINE#1 (0,0)-(2,2)\nhello\n", 4, "got 'hello'"),
    "no size": ("LINE_NUM 1\nLINE#1 (0,0)-(2,2)\n", 1, "expected 'SIZE WxH' first"),
    "bad size": ("SIZE 3\nLINE_NUM 0\n", 1, "expected 'SIZE WxH' first"),
    "zero size": ("SIZE 0X3\nLINE_NUM 0\n", 1, "sizes are integers >= 1"),
    "two sizes": ("SIZE 3X3\nSIZE 3X3\nLINE_NUM 0\n", 2, "a second SIZE"),
    "3-D pin without layer": ("SIZE 3X3X2\nLINE_NUM 1\nLINE#1 (0,0)-(2,2)\n", 3,
                              "pin (0,0) of LINE#1 has no layer"),
    "upper layer": ("SIZE 3X3\nLINE_NUM 1\nLINE#1 (0,0,1) (2,2,2)\n", 3,
                    "pin (2,2,2) of LINE#1 is on layer 2, but SIZE has layer 1 only"),
    "via": ("SIZE 3X3\nLINE_NUM 0\nVIA#a (1,1,1) (1,1,2)\n", 3,
            "VIA#a cell (1,1,2) is on layer 2, but SIZE has layer 1 only"),
    "answer": ("SIZE 2X2\nLAYER 1\n01,01\n00,00\n", 2, "ADC answer"),
    "answer rows": ("SIZE 2X2\n01,01\n00,00\n", 2, "ADC answer"),
}


@pytest.mark.parametrize("case", ADC_BAD, ids=list(ADC_BAD))
def test_malformed_adc_names_file_and_line(tmp_path, case):
    text, line, words = ADC_BAD[case]
    p = write(tmp_path, "NL_bad.txt", text, newline="\r\n")
    with pytest.raises(InputError) as e:
        read_adc(p)
    assert_one_line_error(e.value, p, line)
    assert words in str(e.value)


BIG = "9" * 5000          # past Python's 4300-digit limit on reading an integer
HUGE_NUMBERS = {
    "numberlink width": ("numberlink", f"{BIG} 1\na.a\n", 1),
    "numberlink height": ("numberlink", f"3 {BIG}\na.a\n", 1),
    "adc size": ("adc", f"SIZE {BIG}X3\nLINE_NUM 0\n", 1),
    "adc layers": ("adc", f"SIZE 3X3X{BIG}\nLINE_NUM 0\n", 1),
    "adc count": ("adc", f"SIZE 3X3\nLINE_NUM {BIG}\n", 2),
    "adc pin": ("adc", f"SIZE 3X3\nLINE_NUM 1\nLINE#1 ({BIG},0)-(2,2)\n", 3),
    "adc layer": ("adc", f"SIZE 3X3\nLINE_NUM 1\nLINE#1 (0,0,{BIG}) (2,2,1)\n", 3),
}


@pytest.mark.parametrize("case", HUGE_NUMBERS, ids=list(HUGE_NUMBERS))
def test_a_number_of_thousands_of_digits_is_an_input_error(tmp_path, case):
    fmt, text, line = HUGE_NUMBERS[case]
    p = write(tmp_path, "big.txt", text)
    for forced in ("auto", fmt):
        with pytest.raises(InputError) as e:
            load_layouts(p, fmt=forced)
        assert_one_line_error(e.value, p, line)
        assert "a number of 5000 digits is too large" in str(e.value)


def test_empty_adc_file(tmp_path):
    p = write(tmp_path, "empty.txt", "\n\n")
    with pytest.raises(InputError, match="empty") as e:
        read_adc(p)
    assert_one_line_error(e.value, p, None)


MOVINGAI_BAD = {
    "stray character": ("..@\n.x.\n", 2, "'x' at column 2 is not a Moving AI map character"),
    "header without map": ("type octile\nheight 1\nwidth 3\n", 3, "'map' line"),
}


@pytest.mark.parametrize("case", MOVINGAI_BAD, ids=list(MOVINGAI_BAD))
def test_malformed_movingai_names_file_and_line(tmp_path, case):
    text, line, words = MOVINGAI_BAD[case]
    p = write(tmp_path, "bad.map", text)
    with pytest.raises(InputError) as e:
        load_layouts(p, fmt="movingai")
    assert_one_line_error(e.value, p, line)
    assert words in str(e.value)


def test_movingai_header_must_agree_with_the_map(tmp_path):
    p = write(tmp_path, "m.map", "type octile\nheight 3\nwidth 3\nmap\n...\n.@.\n")
    with pytest.raises(InputError, match="header says height '3', the map has 2"):
        load_layouts(p)
    p = write(tmp_path, "ok.map", "type octile\nheight 2\nwidth 3\nmap\n..T\n.@.\n")
    lay, = load_layouts(p)
    assert lay.blocked.tolist() == [[False, False, True], [False, True, False]]


def test_a_movingai_map_too_big_for_a_layout_is_refused_before_it_is_made(tmp_path,
                                                                         monkeypatch):
    """A small file whose short rows are padded to a grid past MAX_CELLS (one long row,
    many one-cell rows), or past the memory there is: one line naming the file, at
    once, as for a YAML layout of that size."""
    p = write(tmp_path, "big.map", "." * 60000 + "\n" + ".\n" * 40000)
    with pytest.raises(InputError, match="60000 x 40001 cells is more than") as e:
        load_layouts(p)
    assert str(p) in str(e.value) and "\n" not in str(e.value)
    small = write(tmp_path, "small.map", "...\n.@.\n")
    monkeypatch.setattr(limits, "available_memory", lambda: 10)
    with pytest.raises(InputError, match="more than the .* GiB of memory available"):
        load_layouts(small)


# -- files that are not layouts ---------------------------------------------------------
def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputError, match="no such file") as e:
        load_layouts(tmp_path / "nope.txt")
    assert_one_line_error(e.value, tmp_path / "nope.txt", None)
    with pytest.raises(InputError, match="is a directory"):
        load_layouts(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    outcome = []

    def attempt():
        for call in (load_layouts, sniff_format, read_numberlink):
            try:
                call(fifo)
            except InputError as e:
                outcome.append(str(e))

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert len(outcome) == 3 and all("not a regular file" in m for m in outcome)


def test_a_huge_file_is_refused_with_a_clear_message(tmp_path, monkeypatch):
    p = write(tmp_path, "big.txt", "3 1\na.a\n" * 50)
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 64)
    with pytest.raises(InputError, match="larger than the .* MiB an input file may be") as e:
        load_layouts(p)
    assert_one_line_error(e.value, p, None)


@pytest.mark.parametrize("data, words", [(b"3 1\na\0a\n", "binary"),
                                         (b"3 1\na\xffa\n", "not UTF-8")])
def test_binary_and_non_utf8_files(tmp_path, data, words):
    p = tmp_path / "odd.txt"
    p.write_bytes(data)
    with pytest.raises(InputError, match=words):
        load_layouts(p)


def test_unknown_format_is_an_input_error(tmp_path):
    p = write(tmp_path, "a.txt", "2 1\nxx\n")
    with pytest.raises(InputError, match="unknown format 'csv'; choose from auto, yaml"):
        load_layouts(p, fmt="csv")
    assert FORMATS == ("auto", "yaml", "numberlink", "adc", "movingai")


# -- sniffing and forced formats --------------------------------------------------------
YAML_TEXT = "# a layout\nwidth: 3\nheight: 2\nnets: [{name: a, pins: [[0, 0], [2, 1]]}]\n"
SAMPLES = {
    "numberlink": "# puzzles\n\n3 2\na.a\nb.b\n",
    "adc": "SIZE 4X3\r\nLINE_NUM 1\r\nLINE#1 (0,0)-(3,2)\r\n",
    "movingai": "type octile\nheight 2\nwidth 3\nmap\n..@\nT..\n",
    "yaml": YAML_TEXT,
}


@pytest.mark.parametrize("text, fmt", [
    *[(t, f) for f, t in SAMPLES.items()],
    ("..@@\n.TT.\nGSWO\n", "movingai"),       # a map body without header
    ("\ufeff40 20\n", "numberlink"),           # a byte order mark
    ("SIZE 10X10X2\n", "adc"),
    ("size: 3\nwidth: 3\n", "yaml"),           # 'size' in YAML is not an ADC SIZE
    ("---\nwidth: 3\n", "yaml"),
    ("", "yaml"),
    ("40 20 7\n", "yaml"),                      # three numbers: no format of ours
])
def test_sniff_text(text, fmt):
    assert sniff_format(text) == fmt


@pytest.mark.parametrize("fmt, filename", [("numberlink", "puzzle.yaml"),
                                           ("yaml", "layout.txt"),
                                           ("adc", "problem.map"),
                                           ("movingai", "map.yaml")])
def test_sniffing_reads_content_not_the_extension(tmp_path, fmt, filename):
    p = write(tmp_path, filename, SAMPLES[fmt])
    assert sniff_format(p) == fmt and sniff_format(str(p)) == fmt
    lay = load_layouts(p)[0]
    assert lay.name == Path(filename).stem
    assert load_layouts(p, fmt=fmt)[0].width == lay.width


def test_sniffing_a_large_file_reads_only_its_head(tmp_path):
    p = write(tmp_path, "big.map", ".@" * 50 + "\n" + ("." * 100 + "\n") * 2000)
    assert sniff_format(p) == "movingai"


@pytest.mark.parametrize("forced, actual", [(f, a) for f in SAMPLES for a in SAMPLES
                                             if f != a])
def test_a_forced_format_that_does_not_fit_is_one_line(tmp_path, forced, actual):
    p = write(tmp_path, "in.txt", SAMPLES[actual])
    with pytest.raises(InputError) as e:
        load_layouts(p, fmt=forced)
    text = str(e.value)
    assert "\n" not in text and len(text) < 300 and text.startswith(f"{p}: ")
    if forced != "yaml":                        # YAML's own errors name a field instead
        assert re.match(rf"{re.escape(str(p))}: line \d+: ", text), text
    assert f"--format {forced} was forced, but the content looks like {actual}" in str(e.value)


# -- round trip -------------------------------------------------------------------------
PIN_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#@+*"


@st.composite
def puzzles(draw):
    w = draw(st.integers(1, 12))
    h = draw(st.integers(1, 12))
    cells = [(x, y) for y in range(h) for x in range(w)]
    k = draw(st.integers(0, min(len(cells) // 2, len(PIN_CHARS))))
    chosen = draw(st.permutations(cells))[:2 * k]
    names = draw(st.permutations(PIN_CHARS))[:k]
    return w, h, {c: sorted(chosen[2 * i:2 * i + 2], key=lambda p: (p[1], p[0]))
                  for i, c in enumerate(names)}


def puzzle_text(w, h, nets) -> str:
    grid = [["."] * w for _ in range(h)]
    for c, pins in nets.items():
        for x, y in pins:
            grid[y][x] = c
    return f"{w} {h}\n" + "".join("".join(row) + "\n" for row in grid)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(puzzles(), min_size=1, max_size=3), st.sampled_from(["\n", "\r\n"]),
       st.booleans())
def test_random_puzzles_written_and_read_back_give_the_same_nets(tmp_path, many, newline,
                                                                   end_line):
    text = "# random\n" + "\n".join(puzzle_text(*p) for p in many) + ("0 0\n" if end_line else "")
    path = write(tmp_path, "random.txt", text, newline=newline)
    layouts = load_layouts(path)
    assert len(layouts) == len(many)
    for lay, (w, h, nets) in zip(layouts, many):
        assert (lay.width, lay.height) == (w, h)
        assert {n.name: n.pins for n in lay.nets} == nets
        # nets come in order of their first cell, row by row
        firsts = [(n.pins[0][1], n.pins[0][0]) for n in lay.nets]
        assert firsts == sorted(firsts)


# -- routing what was read ----------------------------------------------------------------
def _route_and_check(lay):
    result = route(lay, backend="cpu", mode="sequential")
    assert check_routes(lay, result.to_json(), sequential=True) == []
    return result


@needs_data
def test_shared_puzzles_route_validly_with_the_sequential_router():
    layouts = read_numberlink(DATA / "numberlink" / "inputs9.txt")
    for lay in layouts[:3]:
        result = _route_and_check(lay)
        assert 0 < result.routed <= len(lay.nets)   # some nets may be walled off


def test_hand_made_puzzle_and_adc_problem_route_completely(tmp_path):
    lay, = read_numberlink(write(tmp_path, "p.txt", "4 3\na..b\n....\na..b\n"))
    assert _route_and_check(lay).routed == 2
    adc = read_adc(write(tmp_path, "q.txt", "SIZE 5X4\nLINE_NUM 2\nLINE#1 (0,0)-(4,2)\n"
                         "LINE#2 (0,3)-(4,3)\n"))
    assert _route_and_check(adc).routed == 2


def test_a_read_puzzle_saves_as_yaml_and_loads_back(tmp_path):
    lay, = read_numberlink(write(tmp_path, "p.txt", "3 2\nab.\n.ab\n"))
    out = tmp_path / "p.yaml"
    save_layout(lay, out)
    again, = load_layouts(out)
    assert nets_of(again) == nets_of(lay) and again.name == "p"


def test_a_movingai_map_of_short_rows_and_foreign_characters(tmp_path):
    """Short rows are padded with blockages; any character but ``. G S`` is blocked,
    whether it is ASCII, Latin-1 or beyond (the grid is built a byte a cell)."""
    path = tmp_path / "odd.map"
    path.write_text("..GS@\n.\n.é.\n.\u2603S\n", encoding="utf-8")
    lay = read_movingai(path)
    assert (lay.width, lay.height) == (5, 4)
    assert lay.blocked.tolist() == [[False, False, False, False, True],
                                    [False, True, True, True, True],
                                    [False, True, False, True, True],
                                    [False, True, False, True, True]]


# -- Moving AI scenarios (.scen): the nets of a map ---------------------------------------
#: A 6 x 4 map: a wall at x 2..3 on row 1, a tree at (1, 3).
ROOM = "type octile\nheight 4\nwidth 6\nmap\n......\n..@@..\n......\n.T....\n"


def scen_row(sx: int, sy: int, gx: int, gy: int, size: str = "6\t4") -> str:
    return f"0\troom.map\t{size}\t{sx}\t{sy}\t{gx}\t{gy}\t5.0\n"


def test_a_scenario_gives_a_map_its_nets_row_by_row(tmp_path):
    room = write(tmp_path, "room.map", ROOM)
    scen = write(tmp_path, "room.map.scen", "version 1\n" + scen_row(0, 0, 5, 0)
                 + "1 room.map 6 4 0 2 5 3 5.5\n" + scen_row(0, 1, 4, 1))   # spaces too
    lay, = load_layouts(room, netlist=scen)
    assert nets_of(lay) == [("s1", [(0, 0), (5, 0)]), ("s2", [(0, 2), (5, 3)]),
                            ("s3", [(0, 1), (4, 1)])]
    first, = load_layouts(room, netlist=scen, scen_limit=2)
    assert [n.name for n in first.nets] == ["s1", "s2"]
    assert sniff_format(scen) == "scen" and readers.is_scen(scen)
    assert not readers.is_scen(room) and not readers.is_scen(tmp_path / "missing.scen")
    write(tmp_path, "v10.scen", "version 1.0\n" + scen_row(0, 0, 5, 0))
    assert [n.name for n in load_layouts(room, netlist=tmp_path / "v10.scen")[0].nets] == [
        "s1"]


@pytest.mark.parametrize("body, where, words", [
    ("", "", "starts with 'version 1' (the file is empty)"),
    ("version 2\n" + scen_row(0, 0, 5, 0), "line 1", "starts with 'version 1', got"),
    ("version 1\n0\troom.map\t6\t4\t0\t0\n", "line 2", "expected 9 fields"),
    ("version 1\n0\troom.map\t6\t4\tx\t0\t5\t0\t5\n", "line 2 start_x", "integer >= 0"),
    ("version 1\n0\troom.map\t6\t4\t-1\t0\t5\t0\t5\n", "line 2 start_x", "integer >= 0"),
    ("version 1\n" + scen_row(0, 0, 5, 0) + scen_row(0, 2, 5, 2, "8\t4"), "line 3 width",
     "the scenario's map has width 8, the map routed has 6"),
    ("version 1\n" + scen_row(0, 0, 5, 0, "6\t5"), "line 2 height",
     "the scenario's map has height 5, the map routed has 4"),
    ("version 1\n" + scen_row(0, 0, 6, 0), "line 2 goal_x/goal_y",
     "goal (6, 0) lies outside the 6 x 4 map"),
    ("version 1\n" + scen_row(2, 1, 5, 0), "line 2 start_x/start_y",
     "start (2, 1) lies on a blocked cell"),
    ("version 1\n" + scen_row(1, 3, 5, 0), "line 2 start_x/start_y",
     "start (1, 3) lies on a blocked cell"),
    ("version 1\n" + scen_row(4, 2, 4, 2), "line 2 goal_x/goal_y",
     "start and goal are the same cell (4, 2)"),
    ("version 1\n" + scen_row(0, 0, 5, 0) + "\n" + scen_row(5, 3, 0, 0), "line 4 goal_x/goal_y",
     "goal (0, 0) is also a pin of s1 (line 2); nets share no pin (--scen-limit N"),
])
def test_a_bad_scenario_is_one_line_naming_file_line_and_field(tmp_path, body, where, words):
    room = write(tmp_path, "room.map", ROOM)
    scen = write(tmp_path, "bad.scen", body)
    with pytest.raises(InputError) as e:
        lay, = load_layouts(room)
        readers.read_scen(scen, lay)
    assert e.value.file == str(scen) and (e.value.field or "") == where, str(e.value)
    assert words in e.value.message and "\n" not in str(e.value)


def test_a_scenario_limit_stops_before_a_bad_row_and_needs_a_scenario(tmp_path):
    room = write(tmp_path, "room.map", ROOM)
    scen = write(tmp_path, "r.scen", "version 1\n" + scen_row(0, 0, 5, 0) + "not a row\n")
    lay, = load_layouts(room, netlist=scen, scen_limit=1)
    assert nets_of(lay) == [("s1", [(0, 0), (5, 0)])]
    with pytest.raises(InputError, match="line 3: expected 9 fields"):
        load_layouts(room, netlist=scen)
    nets = write(tmp_path, "n.yaml", "nets: [{name: a, pins: [[0, 0], [5, 0]]}]\n")
    for netlist, limit in ((nets, 1), (scen, 0), (None, 1)):
        with pytest.raises(InputError) as e:
            load_layouts(room, netlist=netlist, scen_limit=limit)
        assert e.value.field == "--scen-limit", str(e.value)


def test_a_scenario_given_as_the_layout_says_what_it_is(tmp_path):
    scen = write(tmp_path, "room.map.scen", "version 1\n" + scen_row(0, 0, 5, 0))
    with pytest.raises(InputError, match="is a Moving AI scenario: it holds nets, not a "
                                         "grid; route the map it names with --nets"):
        load_layouts(scen)


def test_a_scenario_read_is_bounded(tmp_path, monkeypatch):
    room = write(tmp_path, "room.map", ROOM)
    scen = write(tmp_path, "big.scen", "version 1\n" + scen_row(0, 0, 5, 0) * 100)
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 256)
    with pytest.raises(InputError, match="is larger than"):
        load_layouts(room, netlist=scen, scen_limit=1)
