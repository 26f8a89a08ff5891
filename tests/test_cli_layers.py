"""The command line on multi-layer layouts: route (both modes), ADC answers written and
checked, batch summaries with vias, the options that still refuse layers, and the viewer,
wavefront page and heat map, which draw every layer."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from pathlib import Path

import pytest

from mazeroute.cli import main
from mazeroute.generate3d import problem_text, solvable_puzzle
from mazeroute.readers.adc_answer import answer_text

ADC = Path(__file__).resolve().parents[2] / "shared" / "data" / "adc"
STACK_YAML = """\
name: two-layers
width: 6
height: 4
layers:
  - {name: M1, direction: horizontal}
  - {name: M2, direction: vertical}
via_cost: 2
blockages:
  - {rect: [0, 3, 2, 3], layer: M1}
nets:
  - {name: a, pins: [[0, 1, M1], [5, 1, M1]]}
  - {name: b, pins: [[1, 0, M2], [4, 3, M2]]}
"""
FLAT_YAML = """\
name: flat
width: 5
height: 3
nets:
  - {name: a, pins: [[0, 0], [4, 2]]}
"""
#: What check --answer may say of a router's answer besides "valid": the contest's
#: rules that the layer model does not hold a route to (VIA columns used whole, by one
#: line) and unrouted lines.
CONTEST_RULES = re.compile(r"LINE#\w+ has no cells|VIA#\w+ |LINE#\w+ changes layer at")


@pytest.fixture
def stack_file(tmp_path: Path) -> Path:
    p = tmp_path / "stack.yaml"
    p.write_text(STACK_YAML)
    return p


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("mode", ["sequential", "negotiate"])
def test_route_yaml_stack_both_modes(tmp_path, capsys, stack_file, mode):
    out = tmp_path / "out"
    code, text, _ = _run(capsys, "route", stack_file, "-o", out, "--mode", mode,
                         "--backend", "cpu")
    assert code == 0
    routes = json.loads((out / "routes.json").read_text())
    assert routes["layers"] == ["M1", "M2"]
    assert all(n["routed"] for n in routes["nets"])
    assert all(len(c) == 3 for n in routes["nets"] for c in n["cells"])
    assert routes["vias"] == sum(n["vias"] for n in routes["nets"]) > 0
    report = (out / "report.txt").read_text()
    assert report.splitlines()[0] == "layout two-layers: 6 x 4 cells, 2 layers, 2 nets"
    assert re.search(r"^net\s+routed\s+length\s+vias\s+bends", report, re.M)
    assert f", {routes['vias']} vias, wall time" in report
    assert "routed 2/2 nets" in text
    code, text, _ = _run(capsys, "check", stack_file, "--routes", out / "routes.json")
    assert code == 0 and "ok: every promise" in text


def test_flat_report_has_no_vias(tmp_path, capsys):
    lay = tmp_path / "flat.yaml"
    lay.write_text(FLAT_YAML)
    out = tmp_path / "out"
    assert _run(capsys, "route", lay, "-o", out, "--backend", "cpu", "--no-png")[0] == 0
    report = (out / "report.txt").read_text()
    assert "vias" not in report
    assert "vias" not in json.loads((out / "routes.json").read_text())


@pytest.mark.parametrize("mode", ["sequential", "negotiate"])
@pytest.mark.parametrize("name", ["NL_Q01.txt", "NL_Q02.txt", "NL_Q03.txt"])
def test_route_adc_samples_with_answer(tmp_path, capsys, mode, name):
    problem = ADC / name
    if not problem.exists():
        pytest.skip("shared ADC samples are absent")
    out, answer = tmp_path / "out", tmp_path / "answer.txt"
    code, text, _ = _run(capsys, "route", problem, "-o", out, "--mode", mode,
                         "--answer", answer, "--no-png")
    assert code == 0 and "answer.txt" in text.splitlines()[-1]
    assert answer.read_text().startswith("SIZE ")
    code, text, _ = _run(capsys, "check", problem, "--routes", out / "routes.json")
    assert code == 0 and "ok: every promise" in text
    code, text, _ = _run(capsys, "check", problem, "--answer", answer)
    lines = [s.split(": ", 1)[1] for s in text.splitlines()[1:]]
    if code == 0:
        assert lines[0].startswith("valid")
    else:
        assert code == 1 and lines
        assert all(CONTEST_RULES.match(s) for s in lines), lines


def test_route_adc_q02_negotiate_routes_every_net(tmp_path, capsys):
    if not (ADC / "NL_Q02.txt").exists():
        pytest.skip("shared ADC samples are absent")
    out = tmp_path / "out"
    assert _run(capsys, "route", ADC / "NL_Q02.txt", "-o", out, "-q")[0] == 0
    routes = json.loads((out / "routes.json").read_text())
    assert [n["routed"] for n in routes["nets"]] == [True, True]


def test_stack_picture_drawn(tmp_path, capsys, stack_file):
    out = tmp_path / "out"
    assert _run(capsys, "route", stack_file, "-o", out, "-q")[0] == 0
    assert (out / "layout.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_backend_gpu_routes_layers_or_says_why(tmp_path, capsys, stack_file):
    """Without a usable GPU, one line and nothing written; with one, the CPU's routes."""
    from mazeroute.engines import gpu_available
    code, _, err = _run(capsys, "route", stack_file, "-o", tmp_path / "o", "--backend", "gpu",
                        "--no-png")
    if not gpu_available():
        assert code != 0 and len(err.strip().splitlines()) == 1
        assert "backend 'gpu' needs CuPy and a CUDA device" in err
        assert not (tmp_path / "o").exists()
        return
    assert code == 0
    assert _run(capsys, "route", stack_file, "-o", tmp_path / "c", "--backend", "cpu",
                "--no-png")[0] == 0
    gpu = json.loads((tmp_path / "o" / "routes.json").read_text())
    cpu = json.loads((tmp_path / "c" / "routes.json").read_text())
    assert [n["cells"] for n in gpu["nets"]] == [n["cells"] for n in cpu["nets"]]


def test_strategy_refused_for_layers(tmp_path, capsys, stack_file):
    code, _, err = _run(capsys, "route", stack_file, "-o", tmp_path / "o", "--mode",
                        "sequential", "--backend", "cpu", "--strategy", "sweep")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--strategy" in err


def test_answer_refused_for_yaml(tmp_path, capsys, stack_file):
    code, _, err = _run(capsys, "route", stack_file, "-o", tmp_path / "o", "--answer",
                        tmp_path / "a.txt")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--answer" in err and "is yaml" in err
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "o").exists()


def test_answer_may_not_replace_input(tmp_path, capsys):
    problem = tmp_path / "q.txt"
    problem.write_text(problem_text(solvable_puzzle(6, 5, 2, nets=2, seed=1)))
    before = problem.read_text()
    code, _, err = _run(capsys, "route", problem, "-o", tmp_path / "o", "--answer", problem)
    assert code == 2 and "--answer" in err and problem.read_text() == before


def test_check_answer_of_known_solution_is_valid(tmp_path, capsys):
    puzzle = solvable_puzzle(8, 6, 2, nets=3, seed=4)
    problem, answer = tmp_path / "q.txt", tmp_path / "a.txt"
    problem.write_text(problem_text(puzzle))
    answer.write_text(answer_text(puzzle.layout, puzzle.solution))
    code, text, _ = _run(capsys, "check", problem, "--answer", answer)
    assert code == 0 and text.splitlines()[-1].startswith(f"{answer}: valid")
    # one line of the solution taken out: each broken rule on a line of its own
    broken = dict(puzzle.solution)
    del broken["1"]
    answer.write_text(answer_text(puzzle.layout, broken))
    code, text, _ = _run(capsys, "check", problem, "--answer", answer)
    assert code == 1
    assert f"{answer}: LINE#1 has no cells" in text.splitlines()


def test_check_malformed_answer(tmp_path, capsys):
    puzzle = solvable_puzzle(6, 5, 2, nets=2, seed=1)
    problem, answer = tmp_path / "q.txt", tmp_path / "a.txt"
    problem.write_text(problem_text(puzzle))
    answer.write_text("SIZE 6X5X2\nLAYER 1\n00,00\n")
    code, _, err = _run(capsys, "check", problem, "--answer", answer)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "a.txt" in err


def test_check_answer_refused_for_yaml(tmp_path, capsys, stack_file):
    (tmp_path / "a.txt").write_text("SIZE 6X4X2\n")
    code, _, err = _run(capsys, "check", stack_file, "--answer", tmp_path / "a.txt")
    assert code == 2 and "--answer" in err


def test_view_shows_layers(tmp_path, capsys, stack_file):
    """``view`` draws a multi-layer layout, bare and with its routes (it refused both)."""
    from mazeroute.view import read_view_data

    page = tmp_path / "x.html"
    code, _, err = _run(capsys, "view", stack_file, "-o", page)
    assert code == 0, err
    data = read_view_data(page)
    assert [layer["name"] for layer in data["layers"]] == ["M1", "M2"]
    assert "codes" not in data["nets"]
    out = tmp_path / "out"
    assert _run(capsys, "route", stack_file, "-o", out, "--no-png", "-q")[0] == 0
    code, _, err = _run(capsys, "view", stack_file, "--routes", out / "routes.json", "-o",
                        page, "-q")
    assert code == 0, err
    routes = json.loads((out / "routes.json").read_text())
    nets = read_view_data(page)["nets"]
    assert nets["names"] == ["a", "b"]
    assert _blob(nets["vias_n"]).sum() == routes["vias"] > 0


def test_wavefront_draws_layers(tmp_path, capsys, stack_file):
    picture = tmp_path / "x.png"
    code, text, err = _run(capsys, "wavefront", stack_file, "-o", picture, "--backend", "cpu")
    assert code == 0, err
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "cells reached" in text


@pytest.mark.parametrize("kind", ["csv", "json"])
def test_batch_flat_and_stacked(tmp_path, capsys, stack_file, kind):
    (tmp_path / "flat.yaml").write_text(FLAT_YAML)
    out = tmp_path / "out"
    code, _, _ = _run(capsys, "batch", tmp_path, "-o", out, "--summary", kind,
                      "--no-png", "-q", "--backend", "cpu")
    assert code == 0
    text = (out / f"summary.{kind}").read_text()
    if kind == "csv":
        rows = list(csv.DictReader(text.splitlines()))
        header = text.splitlines()[0].split(",")
        assert header[header.index("wirelength") + 1] == "vias"
    else:
        rows = json.loads(text)
    by_layout = {r["layout"]: r for r in rows}
    assert {r["status"] for r in rows} == {"ok"}
    routes = json.loads((out / "two-layers" / "routes.json").read_text())
    assert int(by_layout["two-layers"]["vias"]) == routes["vias"] > 0
    assert by_layout["flat"]["vias"] in ("", None)


def test_batch_flat_summary_has_no_vias(tmp_path, capsys):
    (tmp_path / "flat.yaml").write_text(FLAT_YAML)
    out = tmp_path / "out"
    assert _run(capsys, "batch", tmp_path, "-o", out, "--no-png", "-q")[0] == 0
    header = (out / "summary.csv").read_text().splitlines()[0]
    assert header == ("file,layout,folder,status,width,height,nets,routed,wirelength,"
                      "seconds,engine,error,worker,device")


def test_overlay_draws_the_layers_in_one_panel(tmp_path):
    """--overlay: a stack's picture is one panel (narrower than a panel per layer)."""
    from PIL import Image

    lay = tmp_path / "two.yaml"
    lay.write_text("width: 12\nheight: 8\nlayers: [{name: M1, direction: horizontal}, "
                   "{name: M2, direction: vertical}]\n"
                   "nets: [{name: a, pins: [[0, 0, M1], [11, 7, M2]]}]\n")
    sizes = {}
    for extra in ([], ["--overlay"]):
        out = tmp_path / ("o" if extra else "p")
        assert main(["route", str(lay), "-o", str(out), "--backend", "cpu", "-q",
                     *extra]) == 0
        with Image.open(out / "layout.png") as im:
            sizes[bool(extra)] = im.size
    assert sizes[True][0] < sizes[False][0]


def test_routing_memory_counts_every_layer_and_check_names_them(capsys):
    """The memory a route is weighed against grows with the layers; check says them."""
    from mazeroute.batch_memory import routing_bytes
    from mazeroute.readers import load_layout

    root = Path(__file__).resolve().parent.parent
    stack = load_layout(root / "layouts" / "two_layers.yaml")
    flat = dataclasses.replace(stack, stack=None, blocked=stack.blocked.any(axis=0),
                               nets=[])
    for mode in ("sequential", "negotiate"):
        assert routing_bytes(stack, mode) == 2 * routing_bytes(flat, mode) > 0
    assert main(["check", str(root / "layouts" / "two_layers.yaml")]) == 0
    assert "16 x 10 cells x 2 layers (M1, M2)" in capsys.readouterr().out


# -- the viewer, the wavefront page and the heat map of a stack ----------------------------------
TWO_LAYERS = Path(__file__).resolve().parent.parent / "layouts" / "two_layers.yaml"


def _blob(b: dict):
    import base64
    import zlib

    import numpy as np
    kinds = {"u8": "<u1", "u16": "<u2", "u32": "<u4", "i32": "<i4", "f32": "<f4"}
    return np.frombuffer(zlib.decompress(base64.b64decode(b["z"])), kinds[b["dtype"]])


def test_route_html_and_congestion_draw_every_layer(tmp_path, capsys):
    from PIL import Image

    from mazeroute.readers import load_layout
    from mazeroute.render_layers import panel_origin
    from mazeroute.view import read_view_data

    out, png = tmp_path / "out", tmp_path / "heat.png"
    code, text, err = _run(capsys, "route", TWO_LAYERS, "-o", out, "--html", "--congestion",
                           png, "--mode", "negotiate")
    assert code == 0, err
    assert "view.html" in text.splitlines()[-1] and "heat.png" in text.splitlines()[-1]
    assert sorted(p.name for p in out.iterdir()) == ["layout.png", "report.txt",
                                                     "routes.json", "view.html"]
    routes = json.loads((out / "routes.json").read_text())
    data = read_view_data(out / "view.html")
    lay = load_layout(TWO_LAYERS)
    assert [layer["name"] for layer in data["layers"]] == ["M1", "M2"]
    assert data["nets"]["names"] == [n["name"] for n in routes["nets"]]
    assert _blob(data["nets"]["cells_n"]).tolist() == [len(n["cells"]) for n in routes["nets"]]
    cong = _blob(data["congestion"])                  # negotiation's history, every layer
    assert cong.size == lay.blocked.size and data["congestion_max"] == cong.max() > 0
    with Image.open(png) as im:
        assert im.format == "PNG"
        w, h = im.size
    x1, _ = panel_origin(lay, 1)                      # a second panel, for M2
    assert w > x1 + lay.width and h > lay.height


def test_wavefront_html_of_a_stack(tmp_path, capsys):
    import numpy as np

    from mazeroute.batch_layers import stack_wavefront
    from mazeroute.readers import load_layout
    from mazeroute.view import decode_levels, read_view_data

    page = tmp_path / "w.html"
    code, text, err = _run(capsys, "wavefront", TWO_LAYERS, "--net", "data", "-o",
                           tmp_path / "w.png", "--html", page, "--mode", "sequential")
    assert code == 0, err
    assert "w.html" in text.splitlines()[-1]
    lay = load_layout(TWO_LAYERS)
    levels = stack_wavefront(lay, 1, "sequential")[0]
    d = read_view_data(page)
    assert d["kind"] == "wavefront" and len(d["layers"]) == 2
    got = decode_levels(d["levels"], lay.width, lay.height, 2)
    assert got.shape == (2, 10, 16) and (got == levels).all()
    assert d["roots"] == [5 * lay.width + 0]          # data's root, (0, 5) on M1
    assert d["target"] == (1 * lay.height + 5) * lay.width + 15  # (15, 5) on M2
    assert np.asarray(levels[1] != np.iinfo(np.uint32).max).any()
