"""3-D ADC problems read into stacked layouts; answers written, read back and checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mazeroute.cli import main
from mazeroute.errors import InputError
from mazeroute.layers import Layer, Stack
from mazeroute.layout import Layout, Net, check_layout
from mazeroute.readers import load_layouts, read_adc
from mazeroute.readers.adc import AdcProblem, Via, parse_adc_problem, read_adc_problem
from mazeroute.readers.adc_answer import (
    AdcAnswer,
    answer_text,
    check_adc_answer,
    parse_adc_answer,
    read_adc_answer,
    write_adc_answer,
)
from tests.test_readers import assert_one_line_error

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adc"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data folder {DATA} is absent")
QUESTIONS = ["01", "02", "03"]


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_bytes(text.replace("\n", "\r\n").encode())
    return p


# -- reading problems ------------------------------------------------------------------
@needs_data
def test_shared_10x10x2_problem_reads_into_a_stack_with_its_via_columns():
    p = read_adc_problem(DATA / "NL_Q01.txt")
    lay = p.layout
    assert (lay.name, lay.width, lay.height, lay.blocked.shape) == ("NL_Q01", 10, 10, (2, 10, 10))
    assert not lay.blocked.any()
    assert lay.stack.names == ("1", "2") and lay.stack.directions == ("any", "any")
    assert lay.stack.via_cost == 1
    assert lay.nets[0].name == "1" and lay.nets[0].pins == [(8, 1, 0), (8, 9, 1)]
    assert len(lay.nets) == 7 and len(p.vias) == 7
    assert p.vias[0] == Via("a", 8, 8, 0, 1)
    assert lay.stack.via_sites.shape == (1, 10, 10)
    assert sorted(zip(*np.nonzero(lay.stack.via_sites[0]))) == sorted((v.y, v.x)
                                                                     for v in p.vias)
    check_layout(lay)
    assert read_adc(DATA / "NL_Q01.txt").nets == lay.nets
    loaded, = load_layouts(DATA / "NL_Q01.txt")
    assert loaded.stack is not None and loaded.nets == lay.nets


@needs_data
def test_shared_three_layer_problem_keeps_each_via_columns_layer_range():
    p = read_adc_problem(DATA / "NL_Q03.txt")
    assert p.layout.blocked.shape == (3, 4, 4)
    assert p.vias == (Via("a", 2, 2, 0, 2), Via("b", 2, 0, 0, 1))
    assert p.layout.nets[0].pins == [(0, 0, 0), (3, 3, 2)]
    # each column allows vias between the adjacent layers of its own range alone
    sites = p.layout.stack.via_sites
    assert sites.shape == (2, 4, 4)
    assert [list(map(int, c)) for c in np.argwhere(sites)] == [[0, 0, 2], [0, 2, 2],
                                                               [1, 2, 2]]


@needs_data
def test_routed_three_layer_answer_keeps_every_via_inside_its_column(tmp_path):
    ans = tmp_path / "q3.ans"
    assert main(["route", str(DATA / "NL_Q03.txt"), "-o", str(tmp_path / "out"),
                 "--backend", "cpu", "--answer", str(ans)]) == 0
    problem = read_adc_problem(DATA / "NL_Q03.txt")
    assert check_adc_answer(problem, read_adc_answer(ans)) == []


def test_a_problem_of_one_layer_stays_two_dimensional(tmp_path):
    lay = read_adc(write(tmp_path, "q.txt", "SIZE 3X3X1\nLINE_NUM 1\nLINE#1 (0,0,1) (2,2,1)\n"))
    assert lay.stack is None and lay.blocked.shape == (3, 3)
    assert lay.nets[0].pins == [(0, 0), (2, 2)]


def test_a_three_layer_problem_without_vias_has_no_via_site(tmp_path):
    lay = read_adc(write(tmp_path, "q.txt", "SIZE 3X2X3\nLINE_NUM 1\nLINE#1 (0,0,1)-(2,1,3)\n"))
    assert lay.stack.via_sites.shape == (2, 2, 3) and not lay.stack.via_sites.any()
    assert lay.nets[0].pins == [(0, 0, 0), (2, 1, 2)]


BAD_3D = {
    "pin off grid": ("SIZE 3X3X2\nLINE_NUM 1\nLINE#1 (0,0,1) (3,1,2)\n", 3,
                     "pin (3,1,2) of LINE#1 lies outside the 3 x 3 grid"),
    "layer 0": ("SIZE 3X3X2\nLINE_NUM 1\nLINE#1 (0,0,0) (2,1,2)\n", 3,
                "pin (0,0,0) of LINE#1 is on layer 0, but SIZE has layers 1 to 2"),
    "layer above D": ("SIZE 3X3X2\nLINE_NUM 1\nLINE#1 (0,0,1) (2,1,3)\n", 3,
                      "pin (2,1,3) of LINE#1 is on layer 3, but SIZE has layers 1 to 2"),
    "pin without layer": ("SIZE 3X3X2\nLINE_NUM 1\nLINE#1 (0,0)-(2,1)\n", 3,
                          "pin (0,0) of LINE#1 has no layer: SIZE has 2 layers"),
    "pin shared": ("SIZE 3X3X2\nLINE_NUM 2\nLINE#1 (0,0,1) (2,1,2)\nLINE#2 (0,1,1) (2,1,2)\n",
                   4, "pin (2,1,2) of LINE#2 is also a pin of LINE#1 (line 3)"),
    "count": ("SIZE 3X3X2\nLINE_NUM 2\nLINE#1 (0,0,1) (2,1,2)\n", 2,
              "LINE_NUM says 2 lines, but the file has 1"),
    "via same z twice": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (1,1,1) (1,1,1)\n", 3,
                         "VIA#a lists layer 1 twice"),
    "via moves in x/y": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (1,1,1) (1,2,2)\n", 3,
                         "VIA#a cell (1,2,2) is not at (1,1) as its first"),
    "via one cell": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (1,1,1)\n", 3, "VIA#a lists 1 cell"),
    "via layer above D": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (1,1,1) (1,1,3)\n", 3,
                          "VIA#a cell (1,1,3) is on layer 3, but SIZE has layers 1 to 2"),
    "via off grid": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (4,1,1) (4,1,2)\n", 3,
                     "VIA#a at (4,1) lies outside the 3 x 3 grid"),
    "via without layer": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (1,1) (1,1,2)\n", 3,
                          "VIA#a cell (1,1) has no layer"),
    "via name twice": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (1,1,1) (1,1,2)\nVIA#a (0,1,1) (0,1,2)\n",
                       4, "VIA#a repeats line 3"),
    "vias overlap": ("SIZE 3X3X3\nLINE_NUM 0\nVIA#a (1,1,1) (1,1,2)\nVIA#b (1,1,2) (1,1,3)\n",
                     4, "VIA#b overlaps VIA#a (line 3) at (1,1)"),
    "via malformed": ("SIZE 3X3X2\nLINE_NUM 0\nVIA#a (1,1,1) x\n", 3,
                      "expected 'VIA#name (x,y,z) (x,y,z)'"),
    "via in one layer": ("SIZE 3X3\nLINE_NUM 0\nVIA#a (1,1,1) (1,1,2)\n", 3,
                         "VIA#a cell (1,1,2) is on layer 2, but SIZE has layer 1 only"),
    "line malformed": ("SIZE 3X3X2\nLINE_NUM 1\nLINE#1 (0,0,1)\n", 3,
                       "expected 'LINE#k (x,y,z) (x,y,z)'"),
}


@pytest.mark.parametrize("case", BAD_3D, ids=list(BAD_3D))
def test_malformed_3d_problem_names_file_line_and_field(tmp_path, case):
    text, line, words = BAD_3D[case]
    p = write(tmp_path, "NL_bad.txt", text)
    with pytest.raises(InputError) as e:
        read_adc(p)
    assert_one_line_error(e.value, p, line)
    assert words in str(e.value)


# -- answers: the shared samples --------------------------------------------------------
@needs_data
@pytest.mark.parametrize("q", QUESTIONS)
def test_shared_answers_are_valid(q):
    answer = read_adc_answer(DATA / f"T99_A{q}.txt")
    problem = read_adc_problem(DATA / f"NL_Q{q}.txt")
    assert check_adc_answer(problem, answer) == []
    named = {str(k): v for k, v in answer.cells.items()}
    assert check_adc_answer(problem, named) == []


@needs_data
def test_shared_answer_reads_cells_by_line_number():
    a = read_adc_answer(DATA / "T99_A03.txt")
    assert (a.width, a.height, a.depth) == (4, 4, 3)
    assert sorted(a.cells) == [1, 2]
    assert sorted(a.cells[1]) == sorted([(0, 0, 0), (0, 1, 0), (0, 2, 0), (1, 2, 0), (2, 2, 0),
                                         (2, 2, 1), (2, 2, 2), (2, 3, 2), (3, 3, 2)])


@needs_data
def test_one_line_on_one_place_of_two_layers_without_a_via_is_allowed():
    """The contest's own answer holds (3,9) on both layers for line 2, joined only through
    VIA#b: holding a place twice is no layer change."""
    answer = read_adc_answer(DATA / "T99_A01.txt")
    assert {(3, 9, 0), (3, 9, 1)} <= set(answer.cells[2])
    assert check_adc_answer(read_adc_problem(DATA / "NL_Q01.txt"), answer) == []


@needs_data
@pytest.mark.parametrize("q", QUESTIONS)
def test_written_answer_reads_back_to_the_same_cells(tmp_path, q):
    answer = read_adc_answer(DATA / f"T99_A{q}.txt")
    problem = read_adc_problem(DATA / f"NL_Q{q}.txt")
    out = tmp_path / "answer.txt"
    write_adc_answer(out, problem.layout, {str(k): v for k, v in answer.cells.items()})
    again = read_adc_answer(out)
    assert again == answer
    assert [p.name for p in tmp_path.iterdir()] == ["answer.txt"]


@needs_data
def test_written_answer_is_the_contests_text_with_two_digit_numbers():
    answer = read_adc_answer(DATA / "T99_A01.txt")
    problem = read_adc_problem(DATA / "NL_Q01.txt")
    text = answer_text(problem.layout, {str(k): v for k, v in answer.cells.items()})
    original = (DATA / "T99_A01.txt").read_text().replace("\r\n", "\n")
    assert text == original.replace("SIZE 10X10x2", "SIZE 10X10X2")


def test_answer_writer_refuses_shared_cells_and_unknown_nets(tmp_path):
    problem = parse_adc_problem(SMALL, "small.txt")
    with pytest.raises(InputError, match=r"cell \(1,0,1\) is held by LINE#1 and LINE#2"):
        answer_text(problem.layout, {"1": [(1, 0, 0)], "2": [(1, 0, 0)]})
    with pytest.raises(InputError, match="no net '9'"):
        answer_text(problem.layout, {"9": [(1, 0, 0)]})
    with pytest.raises(InputError, match=r"\(3,0,1\) of LINE#1 lies outside"):
        answer_text(problem.layout, {"1": [(3, 0, 0)]})


# -- answers: each rule broken by hand --------------------------------------------------
SMALL = ("SIZE 3X2X2\nLINE_NUM 2\nLINE#1 (0,0,1) (2,0,2)\nLINE#2 (0,1,1) (2,1,1)\n"
         "VIA#a (1,0,1) (1,0,2)\nVIA#b (1,1,1) (1,1,2)\n")
LINE1 = [(0, 0, 0), (1, 0, 0), (1, 0, 1), (2, 0, 1)]
LINE2 = [(0, 1, 0), (1, 1, 0), (1, 1, 1), (2, 1, 1), (2, 1, 0)]


def small(**cells) -> list[str]:
    return check_adc_answer(parse_adc_problem(SMALL, "small.txt"),
                            {k.removeprefix("l"): v for k, v in cells.items()})


def test_hand_made_answer_is_valid():
    assert small(l1=LINE1, l2=LINE2) == []


BROKEN = {
    "line apart": (dict(l1=[(0, 0, 0), (1, 0, 1), (2, 0, 1)], l2=LINE2),
                   "LINE#1 does not join its terminals (0,0,1) and (2,0,2) through its cells"),
    "missing terminal": (dict(l1=LINE1[:-1], l2=LINE2),
                         "LINE#1 does not join its terminals"),
    "no cells": (dict(l1=LINE1), "LINE#2 has no cells"),
    "shared cell": (dict(l1=LINE1 + [(1, 1, 1)], l2=LINE2),
                    "(1,1,2) is held by LINE#1 and LINE#2"),
    "via partly used": (dict(l1=LINE1, l2=[(0, 1, 0), (1, 1, 0), (2, 1, 0)]),
                         "VIA#b runs through layers 1 to 2, but LINE#2 leaves out layer 2"),
    "layer change outside a via": (
        dict(l1=[(0, 0, 0), (0, 0, 1), (1, 0, 1), (2, 0, 1)], l2=LINE2),
        "LINE#1 changes layer at (0,0) between layers 1 and 2, outside a VIA column"),
    "outside the grid": (dict(l1=LINE1 + [(3, 0, 1)], l2=LINE2), "LINE#1 holds (3,0,2), "
                         "outside the grid"),
    "unknown line": (dict(l1=LINE1, l2=LINE2, l9=[(0, 0, 1)]),
                     "line '9' of the answer is no line of the problem"),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_each_broken_rule_is_named(case):
    cells, words = BROKEN[case]
    problems = small(**cells)
    assert any(words in p for p in problems), problems


def test_one_via_held_by_two_lines_is_named():
    lines = {"1": LINE1 + [(1, 1, 1)], "2": [(0, 1, 0), (1, 1, 0), (2, 1, 0)]}
    problems = check_adc_answer(parse_adc_problem(SMALL, "small.txt"), lines)
    assert "VIA#b is used by LINE#1 and LINE#2" in problems


def test_a_via_no_line_uses_is_named():
    text = SMALL.replace("SIZE 3X2X2", "SIZE 4X2X2") + "VIA#c (3,0,1) (3,0,2)\n"
    problems = check_adc_answer(parse_adc_problem(text, "small.txt"), {"1": LINE1, "2": LINE2})
    assert problems == ["VIA#c is used by no line"]


def test_answer_of_another_size_is_named():
    problem = parse_adc_problem(SMALL, "small.txt")
    assert check_adc_answer(problem, AdcAnswer(3, 2, 3, {})) == [
        "the answer is 3 x 2 x 3, the problem 3 x 2 x 2"]


def test_bare_layout_takes_its_via_sites_as_columns():
    problem = parse_adc_problem(SMALL, "small.txt")
    assert check_adc_answer(problem.layout, {"1": LINE1, "2": LINE2}) == []
    bent = [(0, 0, 0), (0, 0, 1), (1, 0, 1), (2, 0, 1)]
    assert any("outside a VIA column" in p
               for p in check_adc_answer(problem.layout, {"1": bent, "2": LINE2}))
    assert check_adc_answer(AdcProblem(problem.layout), {"1": LINE1, "2": LINE2}) == [
        "LINE#1 changes layer at (1,0) between layers 1 and 2, outside a VIA column"]


# -- answers: malformed files ---------------------------------------------------------
BAD_ANSWERS = {
    "empty": ("\n\n", None, "empty: expected 'SIZE WxHxD' first"),
    "no size": ("LAYER 1\n01,01\n", 1, "expected 'SIZE WxHxD' first"),
    "no layer line": ("SIZE 2X1X2\n01,01\nLAYER 2\n00,00\n", 2, "expected 'LAYER 1'"),
    "layer out of order": ("SIZE 2X1X2\nLAYER 1\n01,01\nLAYER 3\n00,00\n", 4,
                           "expected 'LAYER 2', got 'LAYER 3'"),
    "short row": ("SIZE 3X1X1\nLAYER 1\n01,01\n", 3, "row 0 of LAYER 1 has 2 numbers, but "
                  "SIZE gives 3"),
    "not a number": ("SIZE 2X1X1\nLAYER 1\n01,x1\n", 3, "field 2 of row 0 of LAYER 1 is 'x1'"),
    "rows missing": ("SIZE 2X2X2\nLAYER 1\n01,01\nLAYER 2\n00,00\n00,00\n", 4,
                     "LAYER 1 has 1 rows, but SIZE gives 2"),
    "layer missing": ("SIZE 2X1X2\nLAYER 1\n01,01\n", None, "expected 'LAYER 2', got the end"),
    "line after": ("SIZE 2X1X1\nLAYER 1\n01,01\n00,00\n", 4,
                   "'00,00' after the last of the 1 layers"),
    "zero size": ("SIZE 0X1X1\n", 1, "sizes are integers >= 1"),
}


@pytest.mark.parametrize("case", BAD_ANSWERS, ids=list(BAD_ANSWERS))
def test_malformed_answer_names_file_line_and_field(tmp_path, case):
    text, line, words = BAD_ANSWERS[case]
    p = write(tmp_path, "T_bad.txt", text)
    with pytest.raises(InputError) as e:
        read_adc_answer(p)
    assert_one_line_error(e.value, p, line)
    assert words in str(e.value)


def test_answer_of_one_layer_may_leave_out_its_layer_line():
    a = parse_adc_answer("SIZE 2X1\n1,0\n", "a.txt")
    assert (a.depth, a.cells) == (1, {1: [(0, 0, 0)]})


def test_bare_layout_with_per_pair_sites_takes_each_pair_as_a_column():
    sites = np.zeros((2, 1, 3), bool)
    sites[0, 0, 0] = sites[1, 0, 2] = True
    lay = Layout("p", 3, 1, nets=[Net("1", [(0, 0, 0), (2, 0, 2)])],
                 stack=Stack((Layer("1"), Layer("2"), Layer("3")), via_sites=sites))
    good = [(0, 0, 0), (0, 0, 1), (1, 0, 1), (2, 0, 1), (2, 0, 2)]
    assert check_adc_answer(lay, {"1": good}) == []
    up = [(0, 0, 0), (0, 0, 1), (0, 0, 2), (1, 0, 2), (2, 0, 2)]
    assert "LINE#1 changes layer at (0,0) between layers 2 and 3, outside a VIA column" \
        in check_adc_answer(lay, {"1": up})
