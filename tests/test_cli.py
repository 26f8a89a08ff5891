"""The command line: every command works, and every bad input is one line, exit 2."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mazeroute.cli import main
from mazeroute.contract import check_routes
from mazeroute.layout import load_layout

LAYOUTS = Path(__file__).resolve().parent.parent / "layouts"
EXAMPLES = sorted(p for p in LAYOUTS.glob("*.yaml") if "large" not in p.name)

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
    "binary junk": (b"\xff\xfe\x00bad", "cannot read"),
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


def run(*argv: str, cwd=None) -> subprocess.CompletedProcess:
    """The real console entry, as a user runs it (python -m mazeroute)."""
    return subprocess.run([sys.executable, "-m", "mazeroute", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


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
    assert main(["route", str(good), "-o", str(out), "--backend", "cpu"]) == 0
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


def test_route_orders_and_unrouted_exit_status(tmp_path, capsys):
    lay = tmp_path / "cross.yaml"       # two crossing nets on one layer: one cannot route
    lay.write_text("width: 5\nheight: 5\nnets:\n  - {name: h, pins: [[0, 2], [4, 2]]}\n"
                   "  - {name: v, pins: [[2, 0], [2, 4]]}\n")
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--no-png", "--backend", "cpu"]) == 0
    routes = json.loads((out / "routes.json").read_text())
    assert [n["routed"] for n in routes["nets"]] == [True, False]
    assert "NO" in capsys.readouterr().out
    assert main(["route", str(lay), "-o", str(out), "--no-png", "--fail-unrouted",
                 "--order", "hpwl", "--backend", "cpu"]) == 1


def test_route_default_output_folder(good, tmp_path):
    r = run("route", str(good), "--no-png", "-q", "--backend", "cpu", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""
    assert (tmp_path / "outputs" / "demo" / "routes.json").exists()


@pytest.mark.parametrize("layout", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_routes_completely(layout, tmp_path):
    out = tmp_path / layout.stem
    assert main(["route", str(layout), "-o", str(out), "-q", "--backend", "cpu"]) == 0
    routes = json.loads((out / "routes.json").read_text())
    assert all(n["routed"] for n in routes["nets"])
    assert check_routes(load_layout(layout), routes, sequential=True) == []


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
    (["route", "{good}", "--strategy", "teleport"], "unknown strategy 'teleport'"),
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


def test_failed_picture_leaves_no_half_written_file(good, tmp_path, monkeypatch):
    import mazeroute.render as render

    def broken(img, fp, *a, **k):
        Path(fp).write_bytes(b"\x89PNG half")
        raise OSError("disk full")
    monkeypatch.setattr(render.Image.Image, "save", broken)
    out = tmp_path / "o"
    with pytest.raises(OSError):
        main(["route", str(good), "-o", str(out), "--backend", "cpu"])
    assert sorted(p.name for p in out.iterdir()) == ["report.txt", "routes.json"]


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


def test_wavefront_of_a_later_net_sees_earlier_wires(good, tmp_path, capsys):
    for flag in ([], ["--alone"]):
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
def test_check_layout_and_routes(good, tmp_path, capsys):
    assert main(["check", str(good)]) == 0
    assert "ok: demo, 8 x 6 cells, 3 blockages" in capsys.readouterr().out
    out = tmp_path / "o"
    main(["route", str(good), "-o", str(out), "-q", "--no-png", "--backend", "cpu"])
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
