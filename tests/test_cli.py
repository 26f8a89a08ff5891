"""The command line: every command works, and every bad input is one line, exit 2."""

from __future__ import annotations

import csv
import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
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


@pytest.fixture
def good(tmp_path) -> Path:
    p = tmp_path / "demo.yaml"
    p.write_text(GOOD)
    return p


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


@pytest.mark.parametrize("argv, words", [
    (["route", "{missing}"], "no such file"),
    (["route", "{dir}"], "is a directory"),
    (["route", "{good}", "--backend", "tpu"], "invalid choice"),
    (["route", "{good}", "--mode", "sequential", "--strategy", "teleport"],
     "--strategy: unknown strategy 'teleport'"),
    (["wavefront", "{good}", "--strategy", "teleport"], "--strategy: unknown strategy"),
    (["wavefront", "{good}", "--net", "zz"], "--net: no net 'zz'"),
    (["check", "{good}", "--routes", "{missing}"], "no such file"),
    (["generate", "rects", "--density", "1.5"], "--density"),
    (["generate", "rects", "--nets", "9999", "-W", "4", "-H", "4"], "nets"),
])
def test_bad_options_are_one_line_exit_2(argv, words, good, tmp_path):
    fill = {"missing": str(tmp_path / "nope.yaml"), "dir": str(tmp_path), "good": str(good)}
    r = run(*[a.format(**fill) for a in argv], cwd=tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and words in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("mazeroute") and "error: " in last


def test_gpu_backend_without_gpu_is_a_clear_error(good, tmp_path, monkeypatch, capsys):
    import mazeroute.engines as engines
    monkeypatch.setattr(engines, "gpu_available", lambda: False)
    assert main(["route", str(good), "--backend", "gpu", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "backend 'gpu' needs CuPy and a CUDA device" in err


def test_failed_picture_leaves_the_old_outputs_whole(good, tmp_path, monkeypatch, capsys):
    """A run's outputs are replaced together, or not at all."""
    import mazeroute.render as render
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 0
    old = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(old) == {"routes.json", "report.txt", "layout.png"}
    nets = tmp_path / "nets.yaml"                   # a run whose routes differ
    nets.write_text("nets:\n  - {name: x, pins: [[0, 1], [7, 1]]}\n")

    def broken(img, fp, *a, **k):
        Path(fp).write_bytes(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(render.Image.Image, "save", broken)
    assert main(["route", str(good), "--nets", str(nets), "-o", str(out), "-q",
                 "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(out / "layout.png") in line and "No space left on device" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == old


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


def test_help_for_every_command():
    for cmd in ["route", "wavefront", "batch", "check", "generate", "engines"]:
        r = run(cmd, "--help")
        assert r.returncode == 0 and "usage: mazeroute" in r.stdout


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


# -- names, outputs, faults, interruption, locks ----------------------------------------
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


# Names the contract allows (printable, at most 200 characters) that are not paths.
PATH_LIKE_NAMES = ["../../escaped", "{abs}", "..", ".", "summary.csv", "SUMMARY.JSON",
                   ".hidden", "a/b/../../c", "-rf", "~", "*", "a\\b", "Demo", "demo", " "]


def test_layout_names_are_data_not_paths(tmp_path, monkeypatch, capsys):
    """Whatever a layout is called, its outputs stay inside -o."""
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "in"
    src.mkdir()
    names = [n.replace("{abs}", str(tmp_path / "ABS")) for n in PATH_LIKE_NAMES]
    for i, name in enumerate(names):
        (src / f"l{i:02d}.yaml").write_text(_named(name))
    before = _files(tmp_path)
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "--no-png", "-q", "--backend", "cpu"]) == 0
    new = _files(tmp_path) - before
    assert all(out in p.parents or p == out for p in new), sorted(new)
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["status"] for r in rows] == ["ok"] * len(names)
    folders = [r["folder"] for r in rows]
    assert len({f.casefold() for f in folders}) == len(folders)        # one folder each
    assert sorted(p.name for p in out.iterdir()) == sorted([*folders, "summary.csv"])
    for f in folders:
        assert not f.startswith(".") and "/" not in f and "\\" not in f
        assert (out / f / "routes.json").is_file() and (out / f / "report.txt").is_file()
    # route without -o: outputs/<safe name>/, inside ./outputs
    for i in range(len(names)):
        assert main(["route", str(src / f"l{i:02d}.yaml"), "-q", "--no-png",
                     "--backend", "cpu"]) == 0
    new = _files(tmp_path) - before
    assert all(out in p.parents or tmp_path / "outputs" in p.parents or p in (out,
               tmp_path / "outputs") for p in new), sorted(new)
    from mazeroute.io import safe_folder_name
    made = sorted(p.name for p in (tmp_path / "outputs").iterdir())
    assert made == sorted({safe_folder_name(n) for n in names})
    for f in made:
        assert json.loads((tmp_path / "outputs" / f / "routes.json").read_text())["layout"] \
            in names


def test_a_link_planted_in_the_output_folder_is_not_followed(good, tmp_path, capsys):
    """Every output path is checked to be inside the named folder."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "demo").symlink_to(elsewhere)
    assert main(["batch", str(good), "-o", str(out), "-q", "--no-png", "--backend",
                 "cpu"]) == 2
    row, = csv.DictReader((out / "summary.csv").open())
    assert row["status"] == "failed" and "outside the output folder" in row["error"]
    assert list(elsewhere.iterdir()) == []
    (out / "demo").unlink()
    (tmp_path / "outputs").symlink_to(elsewhere)
    r = run("route", str(good), "-q", "--no-png", "--backend", "cpu", cwd=tmp_path)
    assert r.returncode == 0 and list(elsewhere.iterdir()) == [elsewhere / "demo"]
    # outputs/ may be a link (the user's), but outputs/demo -> outside it is refused
    (elsewhere / "demo").rename(tmp_path / "moved")
    (elsewhere / "demo").symlink_to(tmp_path / "moved")
    old = (tmp_path / "moved" / "routes.json").stat().st_mtime_ns
    r = run("route", str(good), "-q", "--no-png", "--backend", "cpu", cwd=tmp_path)
    assert r.returncode == 2 and "lies outside the output folder" in _one_line(r.stderr)
    assert sorted(os.listdir(tmp_path / "moved")) == ["report.txt", "routes.json"]
    assert (tmp_path / "moved" / "routes.json").stat().st_mtime_ns == old


@pytest.mark.parametrize("case", ["file", "under-file", "proc", "enospc", "unwritable"])
def test_output_path_problems_are_one_line_exit_2(case, good, tmp_path, monkeypatch, capsys):
    """-o that cannot be written is one line naming it, exit 2."""
    import pathlib

    import mazeroute.io as mio
    (tmp_path / "afile").write_text("x")
    out = {"file": tmp_path / "afile", "under-file": tmp_path / "afile" / "sub",
           "proc": Path("/proc/mazeroute-test/out")}.get(case, tmp_path / "out")
    if case == "proc" and not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    if case == "enospc":
        real = pathlib.Path.write_text

        def full(self, *a, **k):
            if self.name.endswith(".part"):
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(self, *a, **k)
        monkeypatch.setattr(pathlib.Path, "write_text", full)
    if case == "unwritable":
        def denied(*a, **k):
            raise PermissionError(errno.EACCES, "Permission denied")
        monkeypatch.setattr(mio.tempfile, "mkstemp", denied)
    reason = {"file": "not a folder", "under-file": "is a file, not a folder",
              "proc": "cannot create the folder", "enospc": "No space left on device",
              "unwritable": "Permission denied"}[case]
    assert main(["route", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(out) in line and reason in line, line
    assert not out.exists() or out.is_file()            # a folder it made is gone again
    assert main(["batch", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert all(len(x) < 300 and x.startswith("mazeroute: error: ") for x in lines), lines
    assert str(out) in lines[-1] and reason in lines[-1], lines
    if case == "enospc":           # the layout's row failed; the summary says so
        row, = csv.DictReader((out / "summary.csv").open())
        assert row["status"] == "failed" and reason in row["error"]
        assert sorted(os.listdir(out)) == ["summary.csv"]
    else:
        assert len(lines) <= 2 and (not out.exists() or out.is_file())
    assert (tmp_path / "afile").read_text() == "x"


def test_wavefront_and_generate_refuse_a_folder_as_output(good, tmp_path, capsys):
    """`wavefront -o DIR` and `generate -o DIR`."""
    folder = tmp_path / "d"
    folder.mkdir()
    (tmp_path / "afile").write_text("x")
    for argv in (["wavefront", str(good), "-o", str(folder), "--backend", "cpu"],
                 ["wavefront", str(good), "--gif", str(folder), "-o", str(tmp_path / "w.png"),
                  "--backend", "cpu"],
                 ["generate", "rects", "-o", str(folder)],
                 ["generate", "rects", "-o", str(tmp_path / "afile" / "y.yaml")]):
        assert main(argv) == 2
        line = _one_line(capsys.readouterr().err)
        assert str(folder) in line or "afile is a file, not a folder" in line
    assert list(folder.iterdir()) == [] and not (tmp_path / "w.png").exists()


def test_wavefront_of_no_nets_names_the_file_that_has_none(good, tmp_path, capsys):
    empty, bare = tmp_path / "none.yaml", tmp_path / "bare.yaml"
    empty.write_text("nets: []\n")
    bare.write_text("width: 3\nheight: 2\nnets: []\n")
    for argv, at in (([str(good), "--nets", str(empty)], empty), ([str(bare)], bare)):
        assert main(["wavefront", *argv, "-o", str(tmp_path / "w.png"), "-q",
                     "--backend", "cpu"]) == 2
        line = _one_line(capsys.readouterr().err)
        assert line == f"mazeroute: error: {at}: nets: the layout has no nets", line


def test_no_output_file_overwrites_an_input(good, tmp_path, capsys):
    """An output named like the layout, netlist or routes file read would be replaced by
    a picture or a page: refused before any work, the input left as it was."""
    main(["route", str(good), "-o", str(tmp_path / "r"), "--no-png", "-q", "--backend",
          "cpu", "--mode", "sequential"])
    routes = tmp_path / "r" / "routes.json"
    link = tmp_path / "link.yaml"
    link.symlink_to(good)
    inputs = {p: p.read_bytes() for p in (good, routes)}
    png = str(tmp_path / "w.png")
    for argv, field in (
            (["view", str(good), "-o", str(good)], "-o"),
            (["view", str(good), "-o", str(link)], "-o"),
            (["view", str(good), "--routes", str(routes), "-o", str(routes)], "-o"),
            (["view", str(good), "--nets", str(good), "-o", str(good)], "-o"),
            (["wavefront", str(good), "-o", str(good), "--backend", "cpu"], "-o"),
            (["wavefront", str(good), "-o", png, "--gif", str(good), "--backend", "cpu"],
             "--gif"),
            (["wavefront", str(good), "-o", png, "--html", str(link), "--backend", "cpu"],
             "--html"),
            (["route", str(good), "-o", str(tmp_path / "r2"), "--mode", "negotiate",
              "--congestion", str(good), "--backend", "cpu"], "--congestion")):
        assert main(argv) == 2, argv
        line = _one_line(capsys.readouterr().err)
        assert line.startswith(f"mazeroute: error: {field}: ") and "input" in line, line
        assert {p: p.read_bytes() for p in inputs} == inputs
    assert not (tmp_path / "w.png").exists() and not (tmp_path / "r2").exists()


def test_batch_records_any_failure_as_a_row_and_goes_on(tmp_path, monkeypatch, capsys):
    """OSError, MemoryError, any exception: a failed row, not an abort."""
    import pathlib

    import mazeroute.cli as cli
    src = tmp_path / "in"
    src.mkdir()
    faults = {"nametoolong": OSError(errno.ENAMETOOLONG, "File name too long"),
              "memory": MemoryError(), "bug": ValueError("negative dimensions"),
              "enospc": None}
    for name in ["ok1", *faults, "ok2"]:
        (src / f"{name}.yaml").write_text(_named(name))
    real_run, real_write = cli.Router.run, pathlib.Path.write_text

    def run_or_fail(self, *a, **k):
        fault = faults.get(self.layout.name)
        if fault is not None:
            raise fault
        return real_run(self, *a, **k)

    def write(self, *a, **k):
        if self.parent.name == "enospc" and self.name.endswith(".part"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, *a, **k)
    monkeypatch.setattr(cli.Router, "run", run_or_fail)
    monkeypatch.setattr(pathlib.Path, "write_text", write)
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "-q", "--backend", "cpu", *SEQ]) == 2
    rows = {Path(r["file"]).stem: r for r in csv.DictReader((out / "summary.csv").open())}
    assert set(rows) == {"ok1", "ok2", *faults}
    assert rows["ok1"]["status"] == rows["ok2"]["status"] == "ok"
    assert (out / "ok2" / "layout.png").is_file()
    for name in faults:
        assert rows[name]["status"] == "failed" and rows[name]["folder"] == ""
        assert "\n" not in rows[name]["error"] and not (out / name).exists()
    assert "File name too long" in rows["nametoolong"]["error"]
    assert "out of memory" in rows["memory"]["error"]
    assert "ValueError: negative dimensions" in rows["bug"]["error"]
    assert "No space left on device" in rows["enospc"]["error"]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == len(faults) and all(line.startswith("mazeroute: error: ") for line in err)
    assert _parts(out) == []


def test_batch_failing_to_create_its_folder_is_one_line(good, tmp_path, monkeypatch, capsys):
    """The batch's own folder cannot be made: exit 2 before any work."""
    import pathlib

    import mazeroute.batch as batch
    out = tmp_path / "out"
    real = pathlib.Path.mkdir

    def mkdir(self, *a, **k):
        if self == out:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *a, **k)
    monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    monkeypatch.setattr(batch, "Router", None)           # must not get as far as routing
    assert main(["batch", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line == f"mazeroute: error: {out}: cannot create the folder: Permission denied"


def _batch_src(tmp_path: Path, n: int) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    for i in range(n):
        (src / f"l{i}.yaml").write_text(_named(f"n{i}"))
    return src


def _stop_at(monkeypatch, k: int, stop, seen: list) -> None:
    """Make the k-th report (1-based) call ``stop()``: outputs are half staged by then."""
    import mazeroute.batch as batch
    real = batch.format_report

    def report(result, *a, **kw):
        seen.append(result.layout.name)
        if len(seen) == k:
            stop()
        return real(result, *a, **kw)
    monkeypatch.setattr(batch, "format_report", report)


def _interrupt():
    raise KeyboardInterrupt


def before_layout(monkeypatch, name: str, action) -> None:
    """Call ``action()`` as a batch (or route) starts routing the layout ``name``."""
    import mazeroute.batch as batch
    real = batch.route_layout

    def route_layout(layout, *a, **k):
        if layout.name == name:
            action()
        return real(layout, *a, **k)
    monkeypatch.setattr(batch, "route_layout", route_layout)


def test_interrupted_batch_keeps_a_summary_of_what_finished(tmp_path, monkeypatch, capsys):
    """The summary is rewritten as layouts finish; the one cut off
    leaves no folder, and is marked interrupted."""
    src, out = _batch_src(tmp_path, 5), tmp_path / "out"
    seen: list = []
    summaries = []

    def stop():
        _interrupt()

    def look():                                   # the summary as the 3rd layout starts
        summaries.append([r["layout"] for r in csv.DictReader((out / "summary.csv").open())])
    _stop_at(monkeypatch, 3, stop, seen)
    before_layout(monkeypatch, "n2", look)
    assert main(["batch", str(src), "-o", str(out), "-q", "--backend", "cpu"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "mazeroute: error: interrupted"
    assert summaries == [["n0", "n1"]]
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [(r["layout"], r["status"]) for r in rows] == [("n0", "ok"), ("n1", "ok"),
                                                           ("", "interrupted")]
    assert rows[2]["file"] == str(src / "l2.yaml")
    assert sorted(p.name for p in out.iterdir()) == ["n0", "n1", "summary.csv"]
    for f in ("n0", "n1"):
        assert {p.name for p in (out / f).iterdir()} == {"routes.json", "report.txt",
                                                         "layout.png"}
    assert _parts(tmp_path) == []


def test_sigterm_stops_like_ctrl_c(tmp_path, monkeypatch, capsys, request):
    """SIGTERM mid-batch, mid-route, mid-generate: clean stop, exit 143."""
    def unhandled(signum, frame):       # without main's handler: fail, not kill pytest
        raise AssertionError("SIGTERM reached the test's own handler")
    previous = signal.signal(signal.SIGTERM, unhandled)
    request.addfinalizer(lambda: signal.signal(signal.SIGTERM, previous))
    before = signal.getsignal(signal.SIGTERM)
    src, out = _batch_src(tmp_path, 4), tmp_path / "out"
    term = lambda: os.kill(os.getpid(), signal.SIGTERM)   # noqa: E731
    seen: list = []
    _stop_at(monkeypatch, 2, term, seen)
    assert main(["batch", str(src), "-o", str(out), "-q", "--backend", "cpu"]) == 143
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        "mazeroute: error: terminated (SIGTERM)"
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["status"] for r in rows] == ["ok", "interrupted"]
    assert sorted(p.name for p in out.iterdir()) == ["n0", "summary.csv"]
    assert signal.getsignal(signal.SIGTERM) == before
    seen.clear()
    _stop_at(monkeypatch, 1, term, seen)
    assert main(["route", str(src / "l0.yaml"), "-o", str(tmp_path / "r"), "-q",
                 "--backend", "cpu"]) == 143
    assert not (tmp_path / "r").exists()
    import mazeroute.cli as cli
    real = cli.random_layout

    def generate(*a, **k):
        term()
        return real(*a, **k)
    monkeypatch.setattr(cli, "random_layout", generate)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == 143
    assert not (tmp_path / "g.yaml").exists()
    assert _parts(tmp_path) == [] and signal.getsignal(signal.SIGTERM) == before


@pytest.mark.parametrize("which", ["SIGTERM", "Ctrl-C"])
def test_an_interrupt_behind_a_system_error_is_an_interrupt(tmp_path, monkeypatch, capsys,
                                                            which):
    """A signal that lands while compiled code calls back into Python (Numba loading a
    cached function) comes out as a SystemError caused by the interrupt: one line and
    the interrupt's status, as anywhere else."""
    import mazeroute.cli as cli
    exc, status, line = ((cli.Terminated(), 143, "terminated (SIGTERM)") if which == "SIGTERM"
                         else (KeyboardInterrupt(), 130, "interrupted"))

    def command(args):
        try:
            raise exc
        except KeyboardInterrupt as e:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") \
                from e
    monkeypatch.setattr(cli, "cmd_generate", command)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == status
    assert capsys.readouterr().err.strip().splitlines() == [f"mazeroute: error: {line}"]


def test_a_swallowed_sigterm_still_ends_in_143_without_a_traceback(tmp_path, monkeypatch,
                                                                   capsys, request):
    """Python swallows an exception raised inside some callbacks of compiled code and
    reports it through ``sys.unraisablehook``; the command then runs to its end. Its
    status still says it was terminated, in one line; other unraisable errors are
    reported as before."""
    import types

    import mazeroute.cli as cli
    previous = signal.getsignal(signal.SIGTERM)
    request.addfinalizer(lambda: signal.signal(signal.SIGTERM, previous))

    def command(args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)        # main's handler raises here
        except KeyboardInterrupt as e:                  # ... and a callback swallows it
            sys.unraisablehook(types.SimpleNamespace(
                exc_type=type(e), exc_value=e, exc_traceback=None, err_msg=None, object=None))
        sys.unraisablehook(types.SimpleNamespace(
            exc_type=ValueError, exc_value=ValueError("other"), exc_traceback=None,
            err_msg="Exception ignored in", object=None))
        return 0
    monkeypatch.setattr(cli, "cmd_generate", command)
    reported: list = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == 143
    assert capsys.readouterr().err.strip().splitlines() == [
        "mazeroute: error: terminated (SIGTERM)"]
    assert [type(u.exc_value) for u in reported] == [ValueError]
    assert signal.getsignal(signal.SIGTERM) == previous
    assert sys.unraisablehook == reported.append


SLOW_BATCH = """\
import sys, time
import mazeroute.cli as cli
real = cli.Router.run
def run(self, *a, **k):
    time.sleep(0.2)
    return real(self, *a, **k)
cli.Router.run = run
sys.exit(cli.main(sys.argv[1:]))
"""


def test_sigterm_to_a_real_batch_leaves_summary_and_no_part_files(tmp_path):
    """An interrupted batch keeps its summary, through the real process and a real
    signal."""
    src, out = _batch_src(tmp_path, 30), tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_BATCH, "batch", str(src), "-o",
                             str(out), "-q", "--backend", "cpu", *SEQ], stderr=subprocess.PIPE,
                            text=True, env=_env())
    try:
        deadline = time.monotonic() + 120
        while not (out / "summary.csv").exists() and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == "mazeroute: error: terminated (SIGTERM)"
    rows = list(csv.DictReader((out / "summary.csv").open()))
    done = [r["folder"] for r in rows if r["status"] == "ok"]
    assert 1 <= len(done) < 30 and len(rows) <= len(done) + 1
    assert sorted(p.name for p in out.iterdir()) == sorted([*done, "summary.csv"])
    for f in done:
        assert {p.name for p in (out / f).iterdir()} == {"routes.json", "report.txt",
                                                         "layout.png"}
    assert _parts(tmp_path) == []


@pytest.mark.parametrize("scale", ["0", "-3", "100000"])
def test_scale_is_checked_before_any_work(scale, good, tmp_path, monkeypatch, capsys):
    """A bad option fails before routing or writing anything."""
    import mazeroute.batch as batch
    monkeypatch.setattr(batch, "Router", None)           # routing would raise TypeError
    monkeypatch.setattr(batch, "load_layouts", None)     # so would loading
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), "--scale", scale]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--scale" in line and scale in line
    assert not out.exists()


def test_no_png_rerun_takes_the_old_picture_away(good, tmp_path):
    """The folder holds one run's outputs, never a mix of two."""
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 0
    assert (out / "layout.png").exists()
    assert main(["route", str(good), "-o", str(out), "-q", "--no-png", "--backend", "cpu"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["report.txt", "routes.json"]


def test_picture_too_big_for_memory_is_skipped_with_a_notice(tmp_path, monkeypatch, capsys):
    """The whole run (engine + picture) is weighed against available memory."""
    import mazeroute.cli as cli
    import mazeroute.limits as layout
    lay = tmp_path / "wide.yaml"
    lay.write_text("width: 200\nheight: 100\nnets: [{name: a, pins: [[0, 0], [199, 99]]}]\n")
    monkeypatch.setattr(layout, "available_memory", lambda: 7 * 2**19)   # 3.5 MiB free
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--backend", "cpu"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"note: no layout.png: a \d+ x \d+ picture needs about", err)
    assert sorted(p.name for p in out.iterdir()) == ["report.txt", "routes.json"]
    # asked for explicitly (--scale), the same picture is an error, before any work
    monkeypatch.setattr(cli, "Router", None)
    assert main(["route", str(lay), "-o", str(tmp_path / "o2"), "--scale", "2"]) == 2
    assert "--scale" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "o2").exists()
    # a layout whose engine alone does not fit: one line, exit 2, nothing written
    huge = tmp_path / "huge.yaml"
    huge.write_text("width: 1000000000\nheight: 1\nnets: []\n")
    monkeypatch.setattr(layout, "available_memory", lambda: 16 * 2**30)
    for argv in (["check", str(huge)], ["route", str(huge), "-o", str(tmp_path / "o3")]):
        assert main(argv) == 2
        assert "GiB of memory available" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "o3").exists()


def test_negotiation_that_cannot_fit_in_memory_is_refused_before_any_work(tmp_path,
                                                                          monkeypatch, capsys):
    """Negotiated routing needs several times sequential routing's memory a cell
    (NEGOTIATE_BYTES_PER_CELL): a layout whose negotiation cannot fit is one line and exit
    2 before any work (not a run that the system kills), naming the file, the field and
    the mode that fits; sequential mode still routes it."""
    import mazeroute.batch as batch
    import mazeroute.cli as cli
    import mazeroute.limits as layout
    lay = tmp_path / "wide.yaml"
    lay.write_text("width: 400\nheight: 300\nnets: [{name: a, pins: [[0, 0], [399, 299]]}]\n")
    cells = 400 * 300
    monkeypatch.setattr(layout, "available_memory",
                        lambda: cells * (layout.BYTES_PER_CELL + layout.NEGOTIATE_BYTES_PER_CELL)
                        // 2)
    real = batch.route
    monkeypatch.setattr(batch, "route", None)
    monkeypatch.setattr(cli, "Router", None)
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--no-png"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(lay) in line and "width" in line and "negotiate mode" in line
    assert "sequential mode needs less" in line and not out.exists()
    assert main(["batch", str(lay), "-o", str(tmp_path / "b"), "--no-png", "-q"]) == 2
    assert "negotiate mode" in capsys.readouterr().err
    monkeypatch.setattr(batch, "route", real)
    assert main(["route", str(lay), "-o", str(out), "--no-png", "--mode", "sequential",
                 "--backend", "cpu"]) == 0


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


def test_a_file_output_named_like_a_folder_is_refused(good, tmp_path, capsys):
    """``-o pictures/`` for a file output means a folder: one line, exit 2, nothing
    written (it wrote a file called ``pictures`` before)."""
    for argv in (["view", str(good), "-o"], ["generate", "rects", "-o"],
                 ["route", str(good), "-o", str(tmp_path / "r"), "--congestion"]):
        target = tmp_path / "pictures"
        assert main([*argv, str(target) + os.sep]) == 2
        assert "names a folder" in _one_line(capsys.readouterr().err)
        assert not target.exists() and not (tmp_path / "r").exists()


def test_a_killed_runs_temporary_files_go_at_the_next_run(good, tmp_path):
    """``kill -9`` mid-write leaves staged outputs (``.routes.*.json.part``) behind; the
    next run into the folder removes them, and nothing of the user's."""
    out = tmp_path / "o"
    out.mkdir()
    left = [out / ".routes.x1y2.json.part", out / ".layout.abc.png.part"]
    mine = out / ".notes.part"
    for p in [*left, mine]:
        p.write_text("half")
    assert main(["route", str(good), "-o", str(out), "--backend", "cpu"]) == 0
    assert not any(p.exists() for p in left) and mine.exists()
    assert {"routes.json", "report.txt", "layout.png"} <= {p.name for p in out.iterdir()}


def test_picture_over_the_pixel_cap_is_skipped(good, tmp_path, monkeypatch, capsys):
    """The picture's size is bounded whatever the memory."""
    import mazeroute.render as render
    monkeypatch.setattr(render, "MAX_PICTURE_PIXELS", 10_000)
    out = tmp_path / "o"
    assert main(["batch", str(good), "-o", str(out), "--backend", "cpu", "-q"]) == 0
    assert not (out / "demo" / "layout.png").exists() and (out / "demo" / "routes.json").exists()
    assert main(["batch", str(good), "-o", str(out), "--backend", "cpu"]) == 0
    assert "more than the 10000 pixels allowed" in capsys.readouterr().err
    with pytest.raises(ValueError, match="more than the 10000 pixels"):
        render.layout_image(load_layout(good))          # the renderer's own guard


def test_generate_has_a_memory_guard(tmp_path, monkeypatch, capsys):
    """`generate -W 100000 -H 100000` is one line, exit 2, at once."""
    import mazeroute.cli as cli
    import mazeroute.limits as layout
    monkeypatch.setattr(cli, "random_layout", None)
    monkeypatch.setattr(cli, "perfect_maze", None)
    out = tmp_path / "g.yaml"
    assert main(["generate", "rects", "-W", "100000", "-H", "100000", "-o", str(out)]) == 2
    assert "--width/--height" in _one_line(capsys.readouterr().err)
    monkeypatch.setattr(layout, "available_memory", lambda: 2**30)
    assert main(["generate", "maze", "-W", "20000", "-H", "20000", "-o", str(out)]) == 2
    assert "GiB of memory available" in _one_line(capsys.readouterr().err)
    assert not out.exists()


@pytest.mark.parametrize("argv, field", [
    (["--seed", "-1"], "--seed"), (["--pins", "1"], "--pins"), (["--span", "0"], "--span"),
    (["--name", "a\x00b"], "--name"), (["--name", "x" * 201], "--name"),
    (["--nets", "100", "-W", "4", "-H", "4"], "--nets")])
def test_generate_options_are_checked_first(argv, field, tmp_path, monkeypatch, capsys):
    """Every generate option before any work."""
    import mazeroute.cli as cli
    monkeypatch.setattr(cli, "random_layout", None)
    assert main(["generate", "rects", *argv, "-o", str(tmp_path / "g.yaml")]) == 2
    assert field in _one_line(capsys.readouterr().err)


def test_generate_names_its_flags_where_the_layout_itself_refuses(tmp_path, capsys):
    """A maze has fewer free cells than its grid: too many nets for them is found by the
    generator, whose error names the flag (``--nets``), as the checks before it do."""
    out = tmp_path / "g.yaml"
    assert main(["generate", "maze", "-W", "9", "-H", "9", "--nets", "30", "-o", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("mazeroute: error: --nets: 30 nets of 2 pins need 60 free cells")
    assert not out.exists()


def test_generate_default_file_name_is_safe(tmp_path, monkeypatch):
    """`generate --name ../../x` writes ./x.yaml, not ../../x.yaml."""
    monkeypatch.chdir(tmp_path / ".")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert main(["generate", "rects", "-W", "8", "-H", "8", "--nets", "1", "-q",
                 "--name", "../../x"]) == 0
    assert os.listdir(tmp_path / "sub") == ["x.yaml"]
    assert load_layout(tmp_path / "sub" / "x.yaml").name == "../../x"


LOCK_HOLDER = """\
import sys
from mazeroute.io import output_folder
with output_folder(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_run_into_a_locked_folder_fails_at_once(good, tmp_path, capsys):
    """Another process holds the output folder: one line, exit 2."""
    from mazeroute.io import LOCK_NAME
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(out)], env=_env(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        for cmd in ("batch", "route"):
            assert main([cmd, str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
            line = _one_line(capsys.readouterr().err)
            assert str(out) in line and "another mazeroute run is writing" in line
        assert os.listdir(out) == [LOCK_NAME]
    finally:
        holder.communicate("", timeout=60)
    assert holder.returncode == 0
    assert main(["batch", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 0
    assert sorted(os.listdir(out)) == ["demo", "summary.csv"]


def test_batch_collects_every_layout_once_and_reports_odd_files(good, tmp_path, monkeypatch):
    """.YAML/.YML of any case, broken links and FIFOs are rows; one file
    named four ways is routed once."""
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "in"
    src.mkdir()
    for i, name in enumerate(["A.YAML", "b.YML", "c.Yaml", "d.yml"]):
        (src / name).write_text(_named(f"case{i}"))
    (src / "notes.txt").write_text("not a layout")
    (src / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (src / "loop.yaml").symlink_to(src / "loop.yaml")
    (src / "folder.yaml").mkdir()                        # searched, not routed
    (src / "folder.yaml" / "e.yaml").write_text(_named("inner"))
    (tmp_path / "link.yaml").symlink_to(good)
    if hasattr(os, "mkfifo"):
        os.mkfifo(src / "pipe.yaml")
        os.mkfifo(tmp_path / "given.yaml")
    out = tmp_path / "out"
    argv = [str(src), str(good), "demo.yaml", "./demo.yaml", str(tmp_path / "link.yaml")]
    argv += ["given.yaml"] if hasattr(os, "mkfifo") else []
    r = subprocess.run([sys.executable, "-m", "mazeroute", "batch", *argv, "-o", str(out),
                        "-q", "--no-png", "--backend", "cpu"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60, env=_env())     # a blocked read would hang
    assert r.returncode == 2 and "Traceback" not in r.stderr
    rows = {Path(r["file"]).name: r for r in csv.DictReader((out / "summary.csv").open())}
    fifos = {"pipe.yaml", "given.yaml"} if hasattr(os, "mkfifo") else set()
    assert set(rows) == {"A.YAML", "b.YML", "c.Yaml", "d.yml", "e.yaml", "gone.yaml",
                         "loop.yaml", "demo.yaml", *fifos}
    assert rows["demo.yaml"]["status"] == "ok"           # four spellings, one row
    assert len(list(out.glob("demo*"))) == 1
    assert "broken symbolic link" in rows["gone.yaml"]["error"]
    assert rows["loop.yaml"]["status"] == "invalid"
    for f in fifos:
        assert rows[f]["status"] == "invalid" and "FIFO" in rows[f]["error"]
    assert sum(r["status"] == "ok" for r in rows.values()) == 6


def test_names_are_printed_safely_and_briefly(tmp_path, capsys):
    """Long names are cut in the terminal, report.txt and the summary."""
    lay = tmp_path / "names.yaml"
    nets = "".join(f"  - {{name: {c * 200}, pins: [[{i}, 0], [{i}, 4]]}}\n"
                   for i, c in enumerate("xyz"))
    lay.write_text(f"name: {'L' * 200}\nwidth: 8\nheight: 5\nnets:\n{nets}")
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--backend", "cpu"]) == 0
    printed = capsys.readouterr().out
    report = (out / "report.txt").read_text()
    for text in (printed, report):
        assert all(len(line) < 160 for line in text.splitlines()
                   if not line.startswith("wrote ")), text
        assert "x" * 37 + "..." in text and "L" * 77 + "..." in text
    assert main(["batch", str(lay), "-o", str(tmp_path / "b"), "-q", "--no-png",
                 "--backend", "cpu"]) == 0
    with (tmp_path / "b" / "summary.csv").open() as fh:
        row, = csv.DictReader(fh)
    assert row["layout"] == "L" * 77 + "..." and row["folder"] == "L" * 60


def test_control_characters_never_reach_the_outputs_raw(tmp_path, capsys):
    """Defence in depth: names the loader should refuse, if one got
    through, are escaped in report.txt, the picture's legend and the summary."""
    import mazeroute.batch as batch
    from mazeroute.layout import Layout, Net
    from mazeroute.report import summary_row
    from mazeroute.router import route
    hostile = ["a\x00b", "\u202eevil", "tab\there", "x" * 10000, "esc\x1b[31m", "new\nline"]
    lay = Layout("lay\u202e\n" + "y" * 5000, 8, 5,
                 nets=[Net(n, [(i, 0), (i, 4)]) for i, n in enumerate(hostile)])
    result = route(lay, backend="cpu")
    out = tmp_path / "o"
    written = batch.write_outputs(result, out, batch.Picture(True))
    assert [p.name for p in written] == ["routes.json", "report.txt", "layout.png"]
    report = (out / "report.txt").read_text()
    assert all(line.isprintable() and len(line) < 160 for line in report.splitlines())
    for escaped in ("\\x00", "\\u202e", "\\t", "\\x1b", "\\n"):
        assert escaped in report
    assert json.loads((out / "routes.json").read_text())["nets"][0]["name"] == "a\x00b"
    row = summary_row("f\nile.yaml", result, folder="f")
    assert all(str(v).isprintable() and len(str(v)) <= 300 for v in row.values())


def test_wavefront_picture_and_gif_are_replaced_together(good, tmp_path, monkeypatch, capsys):
    """New folders are made; a failed GIF keeps the old PNG too."""
    import mazeroute.render as render
    png, gif = tmp_path / "p" / "w.png", tmp_path / "g" / "sub" / "w.gif"
    argv = ["wavefront", str(good), "-o", str(png), "--gif", str(gif), "-q", "--backend", "cpu"]
    assert main(argv) == 0
    old = png.read_bytes(), gif.read_bytes()

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(render, "save_wavefront_gif", full)
    assert main([*argv, "--net", "b"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(gif) in line and "No space left on device" in line
    assert (png.read_bytes(), gif.read_bytes()) == old
    assert sorted(os.listdir(png.parent)) == ["w.png"] and os.listdir(gif.parent) == ["w.gif"]
    assert main([*argv[:4], "--gif", str(png)]) == 2            # one file named twice
    assert "--gif" in _one_line(capsys.readouterr().err)


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


def test_negotiation_shows_its_phases_after_the_iterations(tmp_path, capsys):
    """After the last iteration line, each phase (legalise, repair, tidy, ...) is a line
    on stderr as it ends; -q shows none, and the router's logger is left as it was."""
    import logging

    from mazeroute.layout import save_layout
    from tests.corpus import unroutable_layout
    lay = tmp_path / "stuck.yaml"
    save_layout(unroutable_layout(), lay)
    logger = logging.getLogger("mazeroute.router.negotiate")
    before = (logger.level, list(logger.handlers))
    assert main(["route", str(lay), "-o", str(tmp_path / "o"), "--backend", "cpu",
                 "--no-png", "--max-iterations", "3"]) == 0
    err = capsys.readouterr().err.splitlines()
    last = max(k for k, line in enumerate(err) if line.startswith("iteration "))
    phases = [line.split(":")[0] for line in err[last + 1:] if " nets routed, " in line]
    assert phases[:3] == ["legalise", "repair", "tidy"]
    routed = sum(n["routed"] for n in json.loads((tmp_path / "o" / "routes.json")
                                                 .read_text())["nets"])
    assert err[last + 1].startswith(f"legalise: {routed} of 8 nets routed, ")
    assert (logger.level, list(logger.handlers)) == before
    assert main(["route", str(lay), "-o", str(tmp_path / "q"), "--backend", "cpu",
                 "--no-png", "--max-iterations", "3", "-q"]) == 0
    assert " nets routed, " not in capsys.readouterr().err
    empty = tmp_path / "empty.yaml"                 # no nets: refused, no phase lines
    empty.write_text("width: 4\nheight: 3\nnets: []\n")
    assert main(["route", str(empty), "-o", str(tmp_path / "e"), "--backend", "cpu",
                 "--no-png"]) == 2
    assert " nets routed, " not in capsys.readouterr().err


def test_mode_negotiate_connects_what_sequential_walls_off(tmp_path, capsys):
    """--mode negotiate on route; routes.json says its mode."""
    from mazeroute.layout import save_layout
    from tests.corpus import other_side_layout
    lay = tmp_path / "swap.yaml"
    save_layout(other_side_layout(), lay)     # a's straight wire walls b off
    seq, neg = tmp_path / "s", tmp_path / "n"
    assert main(["route", str(lay), "-o", str(seq), "-q", "--backend", "cpu", *SEQ]) == 0
    assert main(["route", str(lay), "-o", str(neg), "--backend", "cpu", "--mode",
                 "negotiate"]) == 0
    assert "iteration 1:" in capsys.readouterr().err
    s = json.loads((seq / "routes.json").read_text())
    n = json.loads((neg / "routes.json").read_text())
    assert s["mode"] == "sequential" and n["mode"] == "negotiate"
    assert sum(x["routed"] for x in s["nets"]) < sum(x["routed"] for x in n["nets"]) == 2
    assert main(["check", str(lay), "--routes", str(neg / "routes.json")]) == 0
    assert "iteration" in (neg / "report.txt").read_text().lower()


@pytest.mark.parametrize("argv, field", [
    (["--max-iterations", "0", "--mode", "negotiate"], "--max-iterations"),
    (["--time-limit", "-1", "--mode", "negotiate"], "--time-limit"),
    (["--max-iterations", "5", *SEQ], "--max-iterations"),
    (["--time-limit", "5", *SEQ], "--time-limit"),
    (["--fill-steps", "-1", "--mode", "negotiate"], "--fill-steps"),
    (["--fill-steps", "5", *SEQ], "--fill-steps"),
    (["--snapshot-nets", "0", "--mode", "negotiate"], "--snapshot-nets"),
    (["--snapshot-nets", "4", *SEQ], "--snapshot-nets"),
    (["--group-nets", "-1", "--mode", "negotiate"], "--group-nets"),
    (["--group-nets", "8", *SEQ], "--group-nets"),
    (["--reroute-order", "hpwl", *SEQ], "--reroute-order"),
    (["--congestion", "c.png", *SEQ], "--congestion"),
    (["--order", "hpwl"], "--order"),                          # sequential only
    (["--strategy", "cpu/grid", "--mode", "negotiate"], "--strategy"),
])
def test_mode_options_are_checked_before_any_work(argv, field, good, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), *argv]) == 2
    assert field in _one_line(capsys.readouterr().err)
    assert not out.exists()


def test_batch_takes_the_routing_mode(tmp_path):
    from mazeroute.layout import save_layout
    from tests.corpus import other_side_layout
    folder = tmp_path / "in"
    folder.mkdir()
    save_layout(other_side_layout(), folder / "swap.yaml")
    for mode, routed in (("sequential", 1), ("negotiate", 2)):
        out = tmp_path / mode
        assert main(["batch", str(folder), "-o", str(out), "-q", "--no-png", "--backend",
                     "cpu", "--mode", mode, "--summary", "json"]) == 0
        rows = json.loads((out / "summary.json").read_text())
        assert [int(r["routed"]) for r in rows] == [routed]
        assert json.loads((out / rows[0]["folder"] / "routes.json").read_text())["mode"] == mode


def test_default_mode_is_negotiate_and_sequential_is_unchanged(tmp_path):
    """Negotiate is the default of route and batch; --mode sequential
    writes exactly the sequential router's routes."""
    from mazeroute.cli import build_parser
    from mazeroute.layout import save_layout
    from mazeroute.router import Router
    from tests.corpus import other_side_layout
    for command in ("route", "batch"):
        assert build_parser().parse_args([command, "x.yaml"]).mode == "negotiate"
    layout = other_side_layout()                   # sequential walls b off; negotiate not
    folder = tmp_path / "in"
    folder.mkdir()
    lay = folder / "swap.yaml"
    save_layout(layout, lay)
    default, seq = tmp_path / "d", tmp_path / "s"
    assert main(["route", str(lay), "-o", str(default), "-q", "--no-png", "--backend",
                 "cpu"]) == 0
    d = json.loads((default / "routes.json").read_text())
    assert d["mode"] == "negotiate" and [n["routed"] for n in d["nets"]] == [True, True]
    assert main(["route", str(lay), "-o", str(seq), "-q", "--no-png", "--backend", "cpu",
                 *SEQ, "--order", "file"]) == 0
    s = json.loads((seq / "routes.json").read_text())
    want = Router(layout, "cpu").run("file").to_json()
    assert s["mode"] == "sequential" and s["nets"] == want["nets"]
    assert [n["routed"] for n in s["nets"]] == [True, False]
    out = tmp_path / "b"
    assert main(["batch", str(folder), "-o", str(out), "-q", "--no-png", "--backend", "cpu",
                 "--summary", "json"]) == 0
    row, = json.loads((out / "summary.json").read_text())
    assert int(row["routed"]) == 2
    assert json.loads((out / row["folder"] / "routes.json").read_text())["mode"] == "negotiate"


@pytest.mark.parametrize("flag, field, value, default", [
    ("--snapshot-nets", "snapshot_nets", 8, 1),
    ("--group-nets", "group_nets", 8, 0),
    ("--reroute-order", "reroute_order", "hpwl", "colour"),
])
def test_pathfinder_options_reach_the_negotiation_of_route_and_batch(tmp_path, flag, field,
                                                                      value, default):
    """``--snapshot-nets 8`` and ``--reroute-order hpwl`` route as the API's option of
    that value (which differs from the default's routes on this layout), in ``route``
    and in ``batch``."""
    import yaml

    from mazeroute.generate import random_layout
    from mazeroute.router import PathFinderOptions, route
    lay = random_layout(72, 64, density=0.25, nets=110, pins=2, seed=0, span=20)
    path = tmp_path / "lay.yaml"
    path.write_text(yaml.safe_dump(lay.to_dict()))
    want = [route(lay, backend="cpu", mode="negotiate",
                  options=PathFinderOptions(**{field: v})).to_json()["nets"]
            for v in (value, default)]
    assert want[0] != want[1]
    one, many = tmp_path / "one", tmp_path / "many"
    assert main(["route", str(path), "-o", str(one), "--backend", "cpu", flag, str(value),
                 "--no-png"]) == 0
    assert json.loads((one / "routes.json").read_text())["nets"] == want[0]
    assert main(["batch", str(path), "-o", str(many), "--backend", "cpu", flag, str(value),
                 "--no-png", "--quiet"]) == 0
    got = next(many.rglob("routes.json"))
    assert json.loads(got.read_text())["nets"] == want[0]


@pytest.mark.parametrize("flag, value", [("--fill-steps", "100000000000000000000"),
                                         ("--window-work", "100000000000000000000"),
                                         ("--snapshot-nets", "100000000000000000000"),
                                         ("--max-iterations", "100000000000000000000"),
                                         ("--time-limit", "1e300")])
def test_huge_negotiation_options_are_one_line(tmp_path, good, capsys, flag, value):
    """Values beyond what the compiled code takes are refused before any work."""
    assert main(["route", str(good), "-o", str(tmp_path / "x"), "--backend", "cpu", flag,
                 value]) == 2
    assert flag in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "x").exists()


def test_an_unknown_reroute_order_is_refused(tmp_path, good):
    with pytest.raises(SystemExit) as bad:
        main(["route", str(good), "-o", str(tmp_path / "x"), "--reroute-order", "random"])
    assert bad.value.code == 2


def test_fill_steps_turn_the_space_filling_search_off_or_on(tmp_path, capsys):
    from tests.corpus import PUZZLE
    puzzle = tmp_path / "puzzle.txt"
    puzzle.write_text(PUZZLE)
    off, on = tmp_path / "off", tmp_path / "on"
    # held to 50 iterations, negotiation leaves this puzzle incomplete (with its whole
    # budget it completes it: tests/test_negotiate.py)
    held = ["--max-iterations", "50"]
    off_ = ["--fill-steps", "0", "--window-work", "0"]       # and the exact windows
    assert main(["route", str(puzzle), "-o", str(off), *off_, *held]) == 0
    assert main(["route", str(puzzle), "-o", str(on), *held]) == 0
    printed = capsys.readouterr().out
    assert "space-filling search connected them all" in printed
    routed = [sum(n["routed"] for n in json.loads((d / "routes.json").read_text())["nets"])
              for d in (off, on)]
    assert routed[0] < routed[1] == 18
    assert main(["check", str(puzzle), "--routes", str(on / "routes.json")]) == 0
    windows = tmp_path / "windows"      # without the search, windows do it (given twice
    assert main(["route", str(puzzle), "-o", str(windows), "--fill-steps", "0",   # the work
                 "--window-work", "100000", *held]) == 0
    assert "exact re-solves of windows round the others connected" in capsys.readouterr().out
    assert sum(n["routed"] for n in json.loads((windows / "routes.json").read_text())[
        "nets"]) == 18
    assert main(["check", str(puzzle), "--routes", str(windows / "routes.json")]) == 0
    batch = tmp_path / "batch"                      # batch takes it too
    assert main(["batch", str(puzzle), "-o", str(batch), *off_, *held]) == 0
    rows = list(csv.DictReader((batch / "summary.csv").open()))
    assert [int(r["routed"]) for r in rows] == [routed[0]]


def test_a_signal_inside_numbas_compiler_is_put_off_until_it_is_done(tmp_path, monkeypatch,
                                                                     capsys, request):
    """Raised inside Numba's compiler (a callback of LLVM's that hands over cached machine
    code), an interrupt is ignored there and the code then run is garbage: a segfault.
    So a signal landing while the compile lock is held waits for its release; then it
    stops the command as anywhere else."""
    from numba.core.compiler_lock import global_compiler_lock

    import mazeroute.cli as cli
    previous = signal.getsignal(signal.SIGINT)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    reached = []

    def command(args):
        with global_compiler_lock:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):             # bytecodes: the handler has run by now
                pass
            reached.append("inside")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:      # the signal, sent again, lands here
            time.sleep(0.01)
        reached.append("after")
        return 0
    monkeypatch.setattr(cli, "cmd_generate", command)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == 130
    assert reached == ["inside"]
    assert capsys.readouterr().err.strip().splitlines() == ["mazeroute: error: interrupted"]


@pytest.mark.parametrize("which", ["SIGTERM", "Ctrl-C"])
def test_a_signal_before_the_commands_guard_is_one_line_and_its_status(monkeypatch, capsys,
                                                                       request, which):
    """``python -m mazeroute`` guards the moments before and after ``cli.main``'s own
    handlers (loading modules, reading the arguments): one line, 143 or 130."""
    import mazeroute.__main__ as entry
    import mazeroute.cli as cli
    previous = signal.getsignal(signal.SIGTERM)
    request.addfinalizer(lambda: signal.signal(signal.SIGTERM, previous))

    def early(argv=None):
        if which == "SIGTERM":
            os.kill(os.getpid(), signal.SIGTERM)
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "main", early)
    assert entry.run() == (143 if which == "SIGTERM" else 130)
    line = "terminated (SIGTERM)" if which == "SIGTERM" else "interrupted"
    assert capsys.readouterr().err.strip().splitlines() == [f"mazeroute: error: {line}"]
    assert signal.getsignal(signal.SIGTERM) == previous


def test_route_never_replaces_its_input_files(tmp_path, capsys):
    """A layout saved as ``routes.json`` (or a netlist as ``report.txt``) in the output
    folder, and a congestion picture named like one of route's outputs: refused before
    any work, one line, exit 2, the files intact."""
    out = tmp_path / "out"
    out.mkdir()
    text = "width: 3\nheight: 1\nnets: [{name: a, pins: [[0,0],[2,0]]}]\n"
    (out / "routes.json").write_text(text)
    assert main(["route", str(out / "routes.json"), "-o", str(out), "-q"]) == 2
    assert (out / "routes.json").read_text() == text
    assert capsys.readouterr().err.count("is an input file of this command") == 1
    good = tmp_path / "good.yaml"
    good.write_text(text)
    for name in ("routes.json", "report.txt", "layout.png"):
        target = tmp_path / "o2" / name
        assert main(["route", str(good), "-o", str(tmp_path / "o2"), "-q",
                     "--congestion", str(target)]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "--congestion" in err and "own outputs" in err
    assert not (tmp_path / "o2").exists()


# -- paths and faults the file system refuses -----------------------------------------------
LONG = "a" * 300          # one path component over the 255 bytes file systems allow


@pytest.mark.parametrize("argv", [
    ["route", "{fig}", "-o", "{tmp}/" + LONG, "--no-png"],
    ["route", "{fig}", "-o", "{tmp}/ok", "--congestion", "{tmp}/" + LONG + ".png"],
    ["wavefront", "{fig}", "-o", "{tmp}/" + LONG + ".png"],
    ["view", "{fig}", "-o", "{tmp}/" + LONG + ".html"],
    ["generate", "rects", "-W", "9", "-H", "9", "-o", "{tmp}/" + LONG + ".yaml"],
    ["batch", "{fig}", "-o", "{tmp}/" + LONG],
    ["batch", "{tmp}/" + LONG + ".yaml", "-o", "{tmp}/b"],
    ["bench", "--suite", "cpu", "--size", "8", "--repeats", "1", "-o", "{tmp}/" + LONG],
    ["bench", "--suite", "cpu", "--size", "8", "--repeats", "1", "--maps", "{tmp}/" + LONG],
])
def test_a_name_too_long_is_one_line_and_exit_2(argv, tmp_path, capsys):
    """A path component longer than the file system takes (ENAMETOOLONG, raised even by
    a look-up) is a one-line error naming the path, exit 2, never a traceback."""
    argv = [a.format(fig=LAYOUTS / "fig15_5.yaml", tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert "File name too long" in line and "a" * 20 in line


def test_bench_refuses_a_negative_seed(capsys):
    assert main(["bench", "--size", "16", "--repeats", "1", "--seed", "-1"]) == 2
    assert "--seed" in _one_line(capsys.readouterr().err)


def test_an_unforeseen_os_error_is_one_line_naming_the_file(tmp_path, monkeypatch, capsys):
    """A write the file system refuses where no check could foresee it (bench's CSV on a
    full disk) is the path and the reason, exit 2."""
    import mazeroute.bench as bench

    def full(path, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(bench, "write_csv", full)
    assert main(["bench", "--size", "16", "--repeats", "1", "--engines", "cpu/grid",
                 "-o", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err            # the rows' progress lines, then the error
    assert "Traceback" not in err
    line = err.strip().splitlines()[-1]
    assert line.startswith("mazeroute: error: ") and line.endswith("No space left on device")
    assert str(tmp_path / "b") in line


def test_out_of_memory_names_the_input_and_only_options_the_command_has(tmp_path,
                                                                         monkeypatch, capsys):
    import mazeroute.cli as cli
    import mazeroute.cli_check as cli_check

    def no_memory(*a, **k):
        raise MemoryError

    monkeypatch.setattr(cli, "_load", no_memory)
    monkeypatch.setattr(cli_check, "load_one", no_memory)      # check's own loader
    fig = str(LAYOUTS / "fig15_5.yaml")
    assert main(["check", fig]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.endswith(f"{fig}: out of memory (a smaller layout may fit)")
    assert main(["route", fig, "-o", str(tmp_path / "o")]) == 2
    assert "or --no-png," in _one_line(capsys.readouterr().err)


def test_batch_gives_a_layout_named_like_a_file_in_the_output_folder_another_folder(
        tmp_path, capsys):
    """A file already in the output folder (an input kept there) takes no layout's row
    down: the layout of that name gets ``name-2``, on a first run and on --resume."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "foo.yaml").write_text(_named("foo.yaml"))
    (out / "bar").write_text("not a folder\\n")
    src = tmp_path / "in"
    src.mkdir()
    (src / "b.yaml").write_text(_named("bar"))
    for extra in ([], ["--resume"]):
        assert main(["batch", str(out / "foo.yaml"), str(src / "b.yaml"), "-o", str(out),
                     "--backend", "cpu", "--no-png", "-q", *extra]) == 0
        capsys.readouterr()
        rows = list(csv.DictReader((out / "summary.csv").open(newline="")))
        assert [r["folder"] for r in rows] == ["foo.yaml-2", "bar-2"]
        assert all(r["status"] == "ok" for r in rows)
    assert (out / "bar").read_text() == "not a folder\\n"


def test_batch_writes_no_layout_into_a_folder_of_inputs_inside_the_output_folder(
        tmp_path, capsys):
    """Inputs kept in a subfolder of the output folder: a layout named like that subfolder
    gets ``name-2``, and nothing is written among the inputs (first run and --resume)."""
    out = tmp_path / "out"
    (out / "layouts").mkdir(parents=True)
    (out / "layouts" / "a.yaml").write_text(_named("layouts"))
    (out / "layouts" / "b.yaml").write_text(_named("b"))
    for extra in ([], ["--resume"]):
        assert main(["batch", str(out / "layouts"), "-o", str(out), "--backend", "cpu",
                     "--no-png", "-q", *extra]) == 0
        capsys.readouterr()
        rows = list(csv.DictReader((out / "summary.csv").open(newline="")))
        assert sorted(r["folder"] for r in rows) == ["b", "layouts-2"]
        assert all(r["status"] == "ok" for r in rows)
        assert sorted(p.name for p in (out / "layouts").iterdir()) == ["a.yaml", "b.yaml"]
        assert (out / "layouts-2" / "routes.json").is_file()


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


def test_help_of_check_nets_and_generate_options(capsys):
    for argv, words in ((["check", "--help"], ["check this netlist", "--scen-limit N"]),
                        (["generate", "--help"], ["grid width in cells", "grid height in",
                                                  "random seed", "cannot be routed together",
                                                  "--span 40"])):
        with pytest.raises(SystemExit):
            main(argv)
        text = " ".join(capsys.readouterr().out.split())
        assert all(w in text for w in words), (words, text)


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


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_wavefront_gif_folder_made_for_a_failed_run_is_removed(good, tmp_path, capsys):
    """--gif and -o into missing folders are made as the run writes, and removed again
    when the run fails (here: a page that /proc cannot hold), as route's -o folder is."""
    png, gif = tmp_path / "pics" / "w.png", tmp_path / "new" / "deep" / "w.gif"
    assert main(["wavefront", str(good), "-o", str(png), "--gif", str(gif), "--html",
                 "/proc/self/nowhere/w.html", "-q", "--backend", "cpu"]) == 2
    _one_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.yaml"]
    assert main(["wavefront", str(good), "-o", str(png), "--gif", str(gif), "-q",
                 "--backend", "cpu"]) == 0
    assert png.is_file() and gif.is_file()


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


def test_route_prints_the_negotiation_iterations_once(tmp_path, capsys):
    """The iterations and phases are lines on stderr as they run; the printed report
    then gives their totals, not the tables again (report.txt keeps the tables)."""
    from mazeroute.layout import save_layout
    from tests.corpus import unroutable_layout
    lay = tmp_path / "stuck.yaml"
    save_layout(unroutable_layout(), lay)
    assert main(["route", str(lay), "-o", str(tmp_path / "o"), "--backend", "cpu",
                 "--no-png", "--max-iterations", "3"]) == 0
    out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in err.splitlines()
            if line.startswith("iteration ")] == ["iteration 1", "iteration 2", "iteration 3"]
    assert "iteration  overused cells" not in out and "after the loop  " not in out
    assert "negotiation: stopped after 3 iterations" in out
    assert re.search(r"^iterations [0-9.]+ m?s, after the loop [0-9.]+ m?s$", out, re.M)
    saved = (tmp_path / "o" / "report.txt").read_text()
    assert "iteration  overused cells" in saved and "after the loop  " in saved
