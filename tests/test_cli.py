"""The command line: every command works, and every bad input is one line, exit 2 (its
options, its outputs and how it stops: tests/test_cli_options.py, test_cli_outputs.py,
test_cli_signals.py)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mazeroute.cli import main
from mazeroute.contract import check_routes
from mazeroute.readers import load_layout

ROOT = Path(__file__).resolve().parent.parent
LAYOUTS = ROOT / "layouts"
EXAMPLES = sorted(p for p in LAYOUTS.glob("*.yaml") if "large" not in p.name)
#: Sequential mode, for the tests of its promises (negotiate is the default).
SEQ = ("--mode", "sequential")

GOOD = """\
name: demo
width: 8
height: 6
blockages:
  - [3, 0, 3, 3]
  - {rect: [5, 4, 6, 4]}
  - {cell: [7, 0]}
nets:
  - name: a
    pins: [[0, 0], [6, 0]]
  - {name: b, pins: [[0, 5], [7, 5], [6, 3]]}
"""

# Each bad-input rule: the file's text, and words the one-line error must contain.
BAD = {
    "yaml syntax": ("width: 8\nheight: [6\n", "YAML syntax error"),
    "not a mapping": ("- 1\n- 2\n", "mapping"),
    "binary junk": (b"\xff\xfe\x00bad", "binary file"),
    "missing width": ("height: 6\nnets: []\n", "width"),
    "zero width": ("width: 0\nheight: 6\nnets: []\n", "width"),
    "negative height": ("width: 4\nheight: -2\nnets: []\n", "height"),
    "float width": ("width: 4.5\nheight: 2\nnets: []\n", "width"),
    "string height": ("width: 4\nheight: ten\nnets: []\n", "height"),
    "too large": ("width: 2000000000\nheight: 2000000000\nnets: []\n", "width"),
    "missing nets": ("width: 4\nheight: 4\n", "nets"),
    "nets not a list": ("width: 4\nheight: 4\nnets: 3\n", "nets"),
    "rect outside": ("width: 4\nheight: 4\nblockages: [[0, 0, 4, 1]]\nnets: []\n",
                     "blockages[0]"),
    "rect reversed": ("width: 4\nheight: 4\nblockages: [[2, 0, 1, 1]]\nnets: []\n",
                      "blockages[0]"),
    "rect negative": ("width: 4\nheight: 4\nblockages: [[-1, 0, 1, 1]]\nnets: []\n",
                      "blockages[0]"),
    "rect short": ("width: 4\nheight: 4\nblockages: [[1, 1, 2]]\nnets: []\n", "blockages[0]"),
    "cell outside": ("width: 4\nheight: 4\nblockages: [[0, 0, 0, 0], {cell: [4, 0]}]\n"
                     "nets: []\n", "blockages[1]"),
    "unknown blockage": ("width: 4\nheight: 4\nblockages: [{circle: 3}]\nnets: []\n",
                         "blockages[0]"),
    "pin on blockage": ("width: 4\nheight: 4\nblockages: [[1, 1, 2, 2]]\n"
                        "nets: [{name: a, pins: [[0, 0], [2, 1]]}]\n", "blockages[0]"),
    "pin outside": ("width: 4\nheight: 4\nnets: [{name: a, pins: [[0, 0], [0, 9]]}]\n",
                    "nets[0] 'a' pins[1]"),
    "pin negative": ("width: 4\nheight: 4\nnets: [{name: a, pins: [[0, 0], [-1, 2]]}]\n",
                     "nets[0] 'a' pins[1]"),
    "pin float": ("width: 4\nheight: 4\nnets: [{name: a, pins: [[0, 0], [1.5, 2]]}]\n",
                  "nets[0] 'a' pins[1]"),
    "shared pin": ("width: 4\nheight: 4\nnets: [{name: a, pins: [[0, 0], [1, 1]]},\n"
                   "  {name: b, pins: [[1, 1], [3, 3]]}]\n", "nets[1] 'b'"),
    "pin twice": ("width: 4\nheight: 4\nnets: [{name: a, pins: [[0, 0], [0, 0]]}]\n",
                  "nets[0] 'a'"),
    "one pin": ("width: 4\nheight: 4\nnets: [{name: a, pins: [[0, 0]]}]\n", "nets[0] 'a'"),
    "duplicate name": ("width: 4\nheight: 4\nnets: [{name: a, pins: [[0, 0], [1, 0]]},\n"
                       "  {name: a, pins: [[2, 2], [3, 3]]}]\n", "nets[1] 'a'"),
    "empty name": ("width: 4\nheight: 4\nnets: [{name: '', pins: [[0, 0], [1, 0]]}]\n",
                   "nets[0]"),
    "nameless": ("width: 4\nheight: 4\nnets: [{pins: [[0, 0], [1, 0]]}]\n", "nets[0]"),
}


def _env() -> dict:
    """The environment for a child process: this checkout's package first, wherever the
    child's working folder is (a relative PYTHONPATH would point elsewhere there)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run(*argv: str, cwd=None) -> subprocess.CompletedProcess:
    """The real console entry, as a user runs it (python -m mazeroute)."""
    return subprocess.run([sys.executable, "-m", "mazeroute", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=300, env=_env())


def good_layout(tmp_path: Path) -> Path:
    """The good layout (GOOD) written as demo.yaml in ``tmp_path``."""
    p = tmp_path / "demo.yaml"
    p.write_text(GOOD)
    return p


@pytest.fixture
def good(tmp_path) -> Path:
    return good_layout(tmp_path)


def _write(tmp_path: Path, text) -> Path:
    p = tmp_path / "bad.yaml"
    (p.write_bytes if isinstance(text, bytes) else p.write_text)(text)
    return p


# -- route -------------------------------------------------------------------------
def test_route_writes_routes_picture_and_report(good, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["route", str(good), "-o", str(out), "--backend", "cpu", *SEQ]) == 0
    printed = capsys.readouterr().out
    assert {p.name for p in out.iterdir()} == {"routes.json", "layout.png", "report.txt"}
    routes = json.loads((out / "routes.json").read_text())
    layout = load_layout(good)
    assert check_routes(layout, routes, sequential=True) == []
    report = (out / "report.txt").read_text()
    assert "routed 2/2 nets" in report and "cpu/grid" in report
    assert report.splitlines()[-1] in printed          # the report is printed too
    for net in routes["nets"]:
        assert any(line.split()[:3] == [net["name"], "yes", str(net["length"])]
                   for line in report.splitlines())


def test_route_console_script_and_module_agree(good, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    r = run("route", str(good), "-o", str(a), "--no-png", "--backend", "cpu")
    assert r.returncode == 0, r.stderr
    exe = Path(sys.executable).parent / "mazeroute"
    if exe.exists():
        r2 = subprocess.run([str(exe), "route", str(good), "-o", str(b), "--no-png",
                             "--backend", "cpu"], capture_output=True, text=True)
        assert r2.returncode == 0, r2.stderr
        assert (a / "routes.json").read_text() == (b / "routes.json").read_text()


def test_route_separate_netlist(good, tmp_path):
    nets = tmp_path / "nets.yaml"
    nets.write_text("nets:\n  - {name: x, pins: [[0, 1], [7, 1]]}\n")
    out = tmp_path / "o"
    assert main(["route", str(good), "--nets", str(nets), "-o", str(out), "--no-png",
                 "-q", "--backend", "cpu"]) == 0
    routes = json.loads((out / "routes.json").read_text())
    assert [n["name"] for n in routes["nets"]] == ["x"]
    assert routes["nets"][0]["routed"] and routes["nets"][0]["cells"][0] == [0, 1]


def test_route_bad_netlist_names_the_netlist(good, tmp_path, capsys):
    nets = tmp_path / "nets.yaml"
    nets.write_text("nets:\n  - {name: x, pins: [[3, 1], [7, 1]]}\n")   # [3, 1] is blocked
    assert main(["route", str(good), "--nets", str(nets), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"mazeroute: error: {nets}: nets[0] 'x' pins[0]")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", ["route", "check", "view", "wavefront"])
def test_a_full_layout_given_as_a_netlist_is_refused(good, tmp_path, capsys, command):
    """--nets takes a netlist of just 'nets:': a full layout there would route without
    its own blockages (dropped in silence before), as batch --layout refuses it too."""
    full = tmp_path / "full.yaml"
    full.write_text("width: 8\nheight: 3\nblockages: [[1, 0, 1, 1]]\n"
                    "nets:\n  - {name: x, pins: [[0, 1], [7, 1]]}\n")
    out = ["-o", str(tmp_path / "o.html" if command == "view" else tmp_path / "o")]
    argv = [command, str(good), "--nets", str(full)] + ([] if command == "check" else out)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mazeroute: error: {full}: width: ")
    assert "without --nets" in err[0]
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.html").exists()


def test_route_orders_and_unrouted_exit_status(tmp_path, capsys):
    lay = tmp_path / "cross.yaml"       # two crossing nets on one layer: one cannot route
    lay.write_text("width: 5\nheight: 5\nnets:\n  - {name: h, pins: [[0, 2], [4, 2]]}\n"
                   "  - {name: v, pins: [[2, 0], [2, 4]]}\n")
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--no-png", "--backend", "cpu",
                 *SEQ]) == 0
    routes = json.loads((out / "routes.json").read_text())
    assert [n["routed"] for n in routes["nets"]] == [True, False]
    assert "NO" in capsys.readouterr().out
    assert main(["route", str(lay), "-o", str(out), "--no-png", "--fail-unrouted",
                 "--order", "hpwl", "--backend", "cpu", *SEQ]) == 1
    assert main(["route", str(lay), "-o", str(out), "--no-png", "--fail-unrouted", "-q",
                 "--backend", "cpu"]) == 1             # negotiation cannot cross them either


def test_route_default_output_folder(good, tmp_path):
    r = run("route", str(good), "--no-png", "-q", "--backend", "cpu", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""
    assert (tmp_path / "outputs" / "demo" / "routes.json").exists()


@pytest.mark.parametrize("layout", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_routes_completely(layout, tmp_path):
    """In the default mode (negotiate) and in sequential mode, with its promises (a
    multi-layer example's shortest-path promises cannot be checked yet: the rest are)."""
    lay = load_layout(layout)
    for mode in ([], list(SEQ)):
        out = tmp_path / (layout.stem + "".join(mode))
        assert main(["route", str(layout), "-o", str(out), "-q", "--backend", "cpu",
                     *mode]) == 0
        routes = json.loads((out / "routes.json").read_text())
        assert routes["mode"] == ("sequential" if mode else "negotiate")
        assert all(n["routed"] for n in routes["nets"])
        sequential = bool(mode) and lay.stack is None
        assert check_routes(lay, routes, sequential=sequential) == []


def test_the_examples_include_a_multi_layer_layout_with_vias():
    # the README and docs/inputs.md route it as the multi-layer example
    lay = load_layout(LAYOUTS / "two_layers.yaml")
    assert lay.stack is not None and len(lay.stack.layers) >= 2
    directions = [layer.direction for layer in lay.stack.layers]
    assert all(a != b for a, b in zip(directions, directions[1:])), directions
    assert lay.stack.via_cost > 1 and LAYOUTS / "two_layers.yaml" in EXAMPLES
    assert (lay.blocked[0] != lay.blocked[1]).any()      # a blockage of one layer


# -- bad input -----------------------------------------------------------------------
@pytest.mark.parametrize("rule", BAD)
def test_bad_layout_is_one_line_exit_2(rule, tmp_path, capsys):
    text, words = BAD[rule]
    bad = _write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["route", str(bad), "-o", str(out)]) == 2     # raises nothing: no traceback
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"mazeroute: error: {bad}: ") and words in lines[0], lines[0]
    assert not out.exists()
    assert main(["check", str(bad)]) == 2
    assert capsys.readouterr().err.strip() == lines[0]


def test_bad_layout_through_the_real_console_has_no_traceback(tmp_path):
    bad = _write(tmp_path, BAD["pin on blockage"][0])
    r = run("route", str(bad), "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"mazeroute: error: {bad}: nets[0] 'a' pins[1]: pin [2, 1] lies on " \
                       "blockages[0] [1, 1, 2, 2]\n"


def test_gpu_backend_without_gpu_is_a_clear_error(good, tmp_path, monkeypatch, capsys):
    import mazeroute.engines as engines
    monkeypatch.setattr(engines, "gpu_available", lambda: False)
    assert main(["route", str(good), "--backend", "gpu", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "backend 'gpu' needs CuPy and a CUDA device" in err


# -- wavefront -------------------------------------------------------------------------
def test_wavefront_png_and_gif(good, tmp_path, capsys):
    png, gif = tmp_path / "w.png", tmp_path / "w.gif"
    assert main(["wavefront", str(good), "--net", "a", "-o", str(png), "--gif", str(gif),
                 "--backend", "cpu"]) == 0
    from PIL import Image
    with Image.open(png) as im:
        assert im.format == "PNG" and min(im.size) > 100
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames > 1
    assert "net a:" in capsys.readouterr().out


def test_wavefront_page_title_has_no_matplotlib_escapes(tmp_path, capsys):
    """A ``$`` in a name is escaped for Matplotlib's title only: the page says the name."""
    lay = tmp_path / "dollar.yaml"
    lay.write_text("name: cost $5\nwidth: 6\nheight: 4\n"
                   "nets: [{name: n$1, pins: [[0, 0], [5, 3]]}]\n")
    page = tmp_path / "w.html"
    assert main(["wavefront", str(lay), "--backend", "cpu", "-o", str(tmp_path / "w.png"),
                 "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", text, re.S).group(1)
    assert "cost $5" in title and "n$1" in title and "\\$" not in title


def test_wavefront_of_a_later_net_sees_earlier_wires(good, tmp_path, capsys):
    for flag in (["--mode", "sequential"], ["--alone"]):
        assert main(["wavefront", str(good), "--net", "b", "-o", str(tmp_path / "w.png"),
                     "--backend", "cpu", *flag]) == 0
    with_wires, alone = capsys.readouterr().out.splitlines()[::2]
    reached = lambda s: int(s.split(":")[1].split()[0])   # noqa: E731
    assert reached(with_wires) < reached(alone)


# -- batch ---------------------------------------------------------------------------
def test_batch_carries_on_past_a_bad_layout(good, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "one.yaml").write_text(GOOD)
    (src / "two.yml").write_text(GOOD.replace("name: demo", "name: demo2"))
    (src / "broken.yaml").write_text("width: 3\nheight: 3\n")
    out = tmp_path / "out"
    r = run("batch", str(src), str(good), "-o", str(out), "--no-png", "--backend", "cpu")
    assert r.returncode == 2
    assert f"{src / 'broken.yaml'}: nets" in r.stderr and "Traceback" not in r.stderr
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [row["status"] for row in rows] == ["invalid", "ok", "ok", "ok"]
    assert {row["layout"] for row in rows[1:]} == {"demo", "demo2"}
    # the two layouts named demo keep separate folders; nothing is overwritten
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["demo", "demo-2", "demo2"]
    for row in rows[1:]:
        assert row["routed"] == "2" and int(row["wirelength"]) > 0


def test_batch_json_summary_and_success(good, tmp_path):
    out = tmp_path / "out"
    assert main(["batch", str(good), "-o", str(out), "--summary", "json", "-q",
                 "--backend", "cpu", "--no-png"]) == 0
    rows = json.loads((out / "summary.json").read_text())
    assert rows[0]["status"] == "ok" and rows[0]["nets"] == 2


# -- check, generate, engines -----------------------------------------------------------
def test_check_counts_a_maps_blocked_cells(tmp_path, capsys):
    """A Moving AI map has blocked cells, not rectangles: check says so, and no longer
    "0 blockages"."""
    m = tmp_path / "room.map"
    m.write_text("type octile\nheight 3\nwidth 4\nmap\n@@..\n....\n.T.@\n")
    assert main(["check", str(m)]) == 0
    out = capsys.readouterr().out
    assert "ok: room, 4 x 3 cells, 4 blocked cells, 0 nets" in out and "blockages" not in out


def test_check_layout_and_routes(good, tmp_path, capsys):
    assert main(["check", str(good)]) == 0
    assert "ok: demo, 8 x 6 cells, 3 blockages (" in capsys.readouterr().out
    out = tmp_path / "o"
    main(["route", str(good), "-o", str(out), "-q", "--no-png", "--backend", "cpu", *SEQ])
    routes = out / "routes.json"
    assert main(["check", str(good), "--routes", str(routes), "--sequential"]) == 0
    data = json.loads(routes.read_text())
    data["nets"][0]["cells"].pop(1)
    routes.write_text(json.dumps(data))
    assert main(["check", str(good), "--routes", str(routes)]) == 1
    assert "neighbours" in capsys.readouterr().out
    routes.write_text("{not json")
    assert main(["check", str(good), "--routes", str(routes)]) == 2


@pytest.mark.parametrize("kind", ["rects", "maze"])
def test_generate_is_reproducible_and_valid(kind, tmp_path):
    a, b, c = (tmp_path / f"{n}.yaml" for n in "abc")
    argv = ["generate", kind, "-W", "33", "-H", "21", "--nets", "4", "--pins", "3", "-q"]
    assert main([*argv, "--seed", "5", "-o", str(a)]) == 0
    assert main([*argv, "--seed", "5", "-o", str(b)]) == 0
    assert main([*argv, "--seed", "6", "-o", str(c)]) == 0
    assert a.read_text() == b.read_text() != c.read_text()
    lay = load_layout(a)
    assert (lay.width, lay.height, len(lay.nets)) == (33, 21, 4)
    assert all(len(n.pins) == 3 for n in lay.nets)
    assert yaml.safe_load(a.read_text())["width"] == 33
    if kind == "maze":             # a perfect maze: corridors one cell wide, no 2x2 free block
        free = ~lay.blocked
        assert not (free[:-1, :-1] & free[1:, :-1] & free[:-1, 1:] & free[1:, 1:]).any()
    else:
        assert 0.1 < lay.blocked.mean() < 0.4


def test_engines_lists_the_registry(capsys):
    from mazeroute.engines import ENGINES
    assert main(["engines"]) == 0
    out = capsys.readouterr().out
    assert all(f"{b}/{s}" in out for b, s in ENGINES)


def test_formats_contract_ships_as_docs_formats():
    root = Path(__file__).resolve().parent.parent
    shipped = root / "docs" / "FORMATS.md"
    assert shipped.is_file()
    shared = root.parent / "shared" / "spec" / "FORMATS.md"
    if not shared.is_file():
        pytest.skip("no ../shared/spec/FORMATS.md beside this checkout")
    # the project's copy may grow (backward compatible): every section of the frozen
    # contract is there in its order, and every example of it word for word
    ours, frozen = "\n" + shipped.read_text(), shared.read_text()
    at = 0
    for heading in re.findall(r"^#+ .*$", frozen, flags=re.M):
        at = ours.find("\n" + heading + "\n", at)
        assert at >= 0, f"section {heading!r} of the frozen contract is missing or moved"
    for block in re.findall(r"^```.*?^```", frozen, flags=re.M | re.S):
        assert block in ours, f"an example of the frozen contract changed: {block[:60]!r}"


def test_readme_names_docs_formats_and_counts_the_examples_right():
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    assert "docs/FORMATS.md" in readme
    import re
    said = re.search(r"large_2048\.yaml`\s*\(2048 x 2048 with rectangular blockages and "
                     r"(\d+) nets\)", readme)
    assert said, "README no longer describes large_2048.yaml"
    data = yaml.load((LAYOUTS / "large_2048.yaml").read_text(), Loader=yaml.CSafeLoader)
    assert int(said.group(1)) == len(data["nets"])


# -- helpers of the output, option and signal tests (tests/test_cli_*.py) ------------------
def _one_line(err: str) -> str:
    """The single stderr line of a failed command (short, no traceback)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert len(lines[0]) < 300 and "Traceback" not in err
    return lines[0]


def _named(name: str, net: str = "a") -> str:
    """A small valid layout whose name (and first net's name) are given; both nets route
    at once (a layout that negotiation cannot solve runs its iterations to the cap)."""
    q = lambda s: json.dumps(s, ensure_ascii=False)      # noqa: E731 -- YAML-safe quoting
    return (f"name: {q(name)}\nwidth: 6\nheight: 3\nblockages: [[2, 0, 2, 0]]\n"
            f"nets:\n  - {{name: {q(net)}, pins: [[0, 0], [5, 0]]}}\n"
            f"  - {{name: b, pins: [[0, 2], [5, 2]]}}\n")


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def _parts(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith((".part", ".old", ".lock"))]


def test_wavefront_of_no_nets_names_the_file_that_has_none(good, tmp_path, capsys):
    empty, bare = tmp_path / "none.yaml", tmp_path / "bare.yaml"
    empty.write_text("nets: []\n")
    bare.write_text("width: 3\nheight: 2\nnets: []\n")
    for argv, at in (([str(good), "--nets", str(empty)], empty), ([str(bare)], bare)):
        assert main(["wavefront", *argv, "-o", str(tmp_path / "w.png"), "-q",
                     "--backend", "cpu"]) == 2
        line = _one_line(capsys.readouterr().err)
        assert line == f"mazeroute: error: {at}: nets: the layout has no nets", line


def before_layout(monkeypatch, name: str, action) -> None:
    """Call ``action()`` as a batch (or route) starts routing the layout ``name``."""
    import mazeroute.batch as batch
    real = batch.route_layout

    def route_layout(layout, *a, **k):
        if layout.name == name:
            action()
        return real(layout, *a, **k)
    monkeypatch.setattr(batch, "route_layout", route_layout)


def test_routes_file_is_one_net_a_line_and_parses_to_the_routes(good, tmp_path):
    """routes.json holds each net on a line of its own, compact, and parses back to the
    result's document (names with quotes and non-ASCII characters included)."""
    from mazeroute.contract import routes_text
    from mazeroute.router import route
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), "--backend", "cpu", "--no-png"]) == 0
    text = (out / "routes.json").read_text()
    lay = load_layout(good)
    doc = route(lay, backend="cpu").to_json()
    assert json.loads(text) == doc
    assert sum(line.startswith('  {"name":') for line in text.splitlines()) == len(lay.nets)
    odd = {"format": "f", "layout": 'q"\u00e9\u4e2d', "nets": [
        {"name": 'a"b\\\u00e9', "cells": [[0, 0]]}, {"name": "c", "cells": []}]}
    assert json.loads(routes_text(odd)) == odd
    assert json.loads(routes_text({"format": "f", "nets": []})) == {"format": "f", "nets": []}


NUMBERLINK = "5 3\nA...B\n.....\nA...B\n\n4 2\nC..C\nD..D\n0 0\n"


def test_route_check_and_batch_read_puzzles_by_content(tmp_path, capsys):
    """Numberlink and ADC files are layouts, recognised by content."""
    nl = tmp_path / "two.yaml"                      # the name says YAML; the content does not
    nl.write_text(NUMBERLINK)
    assert main(["route", str(nl), "-o", str(tmp_path / "r"), "-q", "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--puzzle" in line and "2 puzzles" in line
    assert main(["route", str(nl), "--puzzle", "2", "-o", str(tmp_path / "r"), "-q",
                 "--backend", "cpu", *SEQ]) == 0
    routes = json.loads((tmp_path / "r" / "routes.json").read_text())
    assert routes["layout"] == "two-2" and {n["name"] for n in routes["nets"]} == {"C", "D"}
    assert main(["check", str(nl), "--puzzle", "2", "--routes",
                 str(tmp_path / "r" / "routes.json"), "--sequential"]) == 0
    assert main(["route", str(nl), "--puzzle", "3", "-o", str(tmp_path / "x"), "-q"]) == 2
    adc3 = tmp_path / "q.txt"
    adc3.write_text("SIZE 4X4X2\r\nLINE_NUM 1\r\nLINE#1 (0,0,1) (3,3,2)\r\n")
    capsys.readouterr()
    assert main(["route", str(adc3), "-o", str(tmp_path / "a"), "-q"]) == 0
    assert json.loads((tmp_path / "a" / "routes.json").read_text())["layers"] == ["1", "2"]
    assert main(["route", str(nl), "--format", "adc", "--puzzle", "1", "-o",
                 str(tmp_path / "f"), "-q"]) == 2
    assert "forced" in _one_line(capsys.readouterr().err)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "puzzles.txt").write_text(NUMBERLINK)
    (folder / "README.txt").write_text("Notes about these puzzles.\n")
    adc2 = folder / "contest.txt"
    adc2.write_text("SIZE 5X4\nLINE_NUM 2\nLINE#1 (0,0)-(4,2)\nLINE#2 (0,3)-(4,3)\n")
    out = tmp_path / "b"
    assert main(["batch", str(folder), "-o", str(out), "-q", "--no-png", "--backend", "cpu",
                 "--summary", "json"]) == 0
    rows = json.loads((out / "summary.json").read_text())
    assert sorted(r["layout"] for r in rows) == ["contest", "puzzles-1", "puzzles-2"]
    assert all(r["status"] == "ok" for r in rows)
    assert {r["file"] for r in rows} == {str(adc2), f"{folder / 'puzzles.txt'}#1",
                                         f"{folder / 'puzzles.txt'}#2"}


def test_check_sequential_without_routes_is_refused(capsys):
    assert main(["check", str(LAYOUTS / "fig15_5.yaml"), "--sequential"]) == 2
    assert "--sequential" in _one_line(capsys.readouterr().err)


# -- maps without nets, scenarios, random nets for a map, the no-GPU notice ----------------
#: A 6 x 4 Moving AI map (a wall at x 2..3 on row 1) and a scenario of two nets for it.
ROOM_MAP = "type octile\nheight 4\nwidth 6\nmap\n......\n..@@..\n......\n......\n"
ROOM_SCEN = ("version 1\n0\troom.map\t6\t4\t0\t0\t5\t0\t5\n"
             "0\troom.map\t6\t4\t0\t3\t5\t3\t5\n")


@pytest.fixture
def room(tmp_path) -> tuple[Path, Path]:
    m, s = tmp_path / "room.map", tmp_path / "room.map.scen"
    m.write_text(ROOM_MAP)
    s.write_text(ROOM_SCEN)
    return m, s


def test_route_of_a_layout_without_nets_says_how_to_give_them(room, tmp_path, capsys):
    """A map (or any layout, or a netlist, without nets) is refused in one line that says
    how to give nets, instead of "routed 0/0 nets"; no output folder is made."""
    m, _ = room
    bare, empty = tmp_path / "bare.yaml", tmp_path / "none.yaml"
    bare.write_text("width: 3\nheight: 2\nnets: []\n")
    empty.write_text("nets: []\n")
    for argv, named in (([str(m)], m), ([str(bare)], bare),
                        ([str(m), "--nets", str(empty)], empty)):
        out = tmp_path / "out"
        assert main(["route", *argv, "-o", str(out), "--backend", "cpu"]) == 2
        line = _one_line(capsys.readouterr().err)
        assert line.startswith(f"mazeroute: error: {named}: nets: no nets to route: "), line
        for hint in ("--nets NETLIST.yaml", "--nets FILE.scen", "mazeroute generate --on MAP"):
            assert hint in line, line
        assert not out.exists()


def test_route_check_and_view_take_a_maps_nets_from_a_scenario(room, tmp_path, capsys):
    m, s = room
    out = tmp_path / "o"
    assert main(["route", str(m), "--nets", str(s), "-o", str(out), "-q", "--no-png",
                 "--backend", "cpu", *SEQ]) == 0
    routes = json.loads((out / "routes.json").read_text())
    assert [(n["name"], n["routed"]) for n in routes["nets"]] == [("s1", True), ("s2", True)]
    assert main(["route", str(m), "--nets", str(s), "--scen-limit", "1", "-o", str(out),
                 "-q", "--no-png", "--backend", "cpu", *SEQ]) == 0
    assert [n["name"] for n in json.loads((out / "routes.json").read_text())["nets"]] == [
        "s1"]
    assert main(["check", str(m), "--nets", str(s)]) == 0
    assert "6 x 4 cells, 2 blocked cells, 2 nets" in capsys.readouterr().out
    assert main(["view", str(m), "--nets", str(s), "--scen-limit", "1", "-q", "-o",
                 str(tmp_path / "v.html")]) == 0
    s.write_text(ROOM_SCEN.replace("\t6\t4\t0\t3", "\t8\t4\t0\t3"))
    assert main(["route", str(m), "--nets", str(s), "-o", str(out), "-q",
                 "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line == (f"mazeroute: error: {s}: line 3 width: the scenario's map has width 8, "
                    "the map routed has 6"), line
    for argv in (["--scen-limit", "1"], ["--nets", str(tmp_path / "o" / "routes.json"),
                                         "--scen-limit", "1"]):
        assert main(["route", str(m), *argv, "--backend", "cpu", "-q"]) == 2
        assert "--scen-limit: " in _one_line(capsys.readouterr().err)


def test_generate_on_a_map_writes_a_seeded_netlist_that_route_takes(room, tmp_path, capsys):
    m, _ = room
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    for out in (a, b):
        assert main(["generate", "--on", str(m), "--nets", "4", "--span", "3", "--seed",
                     "2", "-o", str(out), "-q"]) == 0
    assert a.read_bytes() == b.read_bytes() and a.read_text().startswith("nets:\n")
    assert main(["route", str(m), "--nets", str(a), "-o", str(tmp_path / "r"), "-q",
                 "--no-png", "--backend", "cpu"]) == 0
    assert len(json.loads((tmp_path / "r" / "routes.json").read_text())["nets"]) == 4
    for argv, field in ((["rects", "--on", str(m)], "kind"),
                        (["--on", str(m), "-W", "8"], "--width"),
                        (["--on", str(m), "--nets", "0"], "--nets"),
                        (["--on", str(m), "--nets", "30"], "--nets"),
                        (["--on", str(m), "-o", str(m)], "-o"),
                        ([], "kind")):
        assert main(["generate", *argv, "-q"]) == 2, argv
        line = _one_line(capsys.readouterr().err)
        assert f" {field}: " in line or line.startswith(f"mazeroute: error: {field}: "), line
    assert m.read_text() == ROOM_MAP


def test_batch_of_an_empty_folder_names_every_kind_it_takes(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    assert main(["batch", str(tmp_path / "in"), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    for kind in (".yaml/.yml", ".txt/.map", "numberlink", "ADC", "Moving AI", ".scen"):
        assert kind in err, err


def test_batch_fails_a_map_without_nets_and_routes_scenarios_over_a_map(room, good, tmp_path,
                                                                         capsys):
    m, s = room
    out = tmp_path / "out"
    assert main(["batch", str(m), str(good), "-o", str(out), "-q", "--no-png",
                 "--backend", "cpu"]) == 2
    rows = list(csv.DictReader((out / "summary.csv").open(newline="")))
    assert [(r["status"], r["folder"]) for r in rows] == [("invalid", ""), ("ok", "demo")]
    assert "no nets to route" in rows[0]["error"] and "--layout MAP" in rows[0]["error"]
    assert "no nets to route" in _one_line(capsys.readouterr().err)
    folder = tmp_path / "scens"
    folder.mkdir()
    (folder / "room.map.scen").write_text(ROOM_SCEN)
    out = tmp_path / "out2"
    assert main(["batch", str(folder), "--layout", str(m), "--scen-limit", "1", "-o",
                 str(out), "-q", "--no-png", "--backend", "cpu"]) == 0
    row, = csv.DictReader((out / "summary.csv").open(newline=""))
    assert (row["status"], row["nets"], row["routed"]) == ("ok", "1", "1")
    assert main(["batch", str(folder), "--scen-limit", "1", "-o", str(out), "-q"]) == 2
    assert "--scen-limit: " in _one_line(capsys.readouterr().err)


def _no_gpu() -> bool:
    from mazeroute.engines import gpu_available
    return not gpu_available()


@pytest.mark.skipif(not _no_gpu(), reason="the notice is about a machine without a GPU")
def test_the_no_gpu_notice_is_one_line_on_stderr_in_every_mode(good, tmp_path, capsys):
    """auto without a GPU: the same one note on stderr for route in both modes and for
    batch; neither on stdout nor in report.txt; none with -q."""
    notes = []
    for k, argv in enumerate((["route", str(good)], ["route", str(good), *SEQ],
                              ["batch", str(good), *SEQ])):
        out = tmp_path / f"o{k}"
        assert main([*argv, "-o", str(out), "--no-png"]) == 0
        cap = capsys.readouterr()
        lines = [x for x in cap.err.splitlines() if "using the CPU engine" in x]
        assert len(lines) == 1 and lines[0].startswith("mazeroute: note: "), cap.err
        assert "using the CPU engine" not in cap.out
        report = next(out.rglob("report.txt")).read_text()
        assert "using the CPU engine" not in report and "note:" not in report
        notes.append(lines[0])
    assert len(set(notes)) == 1
    assert main(["route", str(good), "-o", str(tmp_path / "q"), "--no-png", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_wavefront_draws_the_negotiated_route_on_the_costs_its_search_saw(
        tmp_path, capsys, monkeypatch):
    """``wavefront`` defaults to route's mode: on a layout where negotiation sends net a
    round b's pins (sequential mode runs it straight through, walling b off), the path
    drawn and the length printed are the negotiated route's, and the wavefront's value
    at the far pin is that route's cost on the costs its search saw."""
    import mazeroute.render as render
    from mazeroute.readers import parse_layout
    from mazeroute.router import route
    spec = {"width": 5, "height": 4, "nets": [{"name": "a", "pins": [[0, 1], [4, 1]]},
                                              {"name": "b", "pins": [[2, 0], [2, 2]]}]}
    lay = tmp_path / "round.yaml"
    lay.write_text(yaml.safe_dump(spec))
    neg = route(parse_layout(spec), backend="cpu", mode="negotiate").nets[0]
    seq = route(parse_layout(spec), backend="cpu", mode="sequential").nets[0]
    assert neg.length != seq.length
    drawn = {}

    def keep(layout, levels, path, **kw):
        drawn.update(levels=levels, path=kw["path_cells"])
        Path(path).write_bytes(b"")
    monkeypatch.setattr(render, "save_wavefront_png", keep)
    argv = ["wavefront", str(lay), "--net", "a", "--backend", "cpu",
            "-o", str(tmp_path / "w.png")]
    for mode, want in (([], neg), (["--mode", "negotiate"], neg), (["--mode", "sequential"],
                                                                    seq)):
        assert main([*argv, *mode]) == 0
        out = capsys.readouterr().out
        assert f"routed, length {want.length}, {want.bends} bends" in out, out
        assert [tuple(c) for c in drawn["path"]] == [tuple(c) for c in want.cells]
    assert main([*argv, "--mode", "negotiate"]) == 0
    assert "(its search in iteration" in capsys.readouterr().out
    assert drawn["levels"][1, 4] == neg.length           # unit costs at its last search
    assert main([*argv, "--mode", "negotiate", "--alone"]) == 2
    assert "--alone" in _one_line(capsys.readouterr().err)


