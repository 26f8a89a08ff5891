"""``mazeroute gcells``: the grid and table printed, bad input in one line, exit 2."""

import subprocess
import sys

import pytest

from mazeroute.cli import main
from tests.test_lefdef import DATA, write_tiny


def test_gcells_prints_grid_and_table(tmp_path, capsys):
    def_path, lefs = write_tiny(tmp_path)
    assert main(["gcells", str(def_path), "--lef", str(lefs[0]),
                 "--adjust", "m3=0.5"]) == 0
    out = capsys.readouterr().out
    assert "GCell grid 2 x 2, GCell 1.5 x 1.5 um" in out
    assert "m3         Horizontal         30            14          53.33%" in out


def test_gcells_help_names_the_command_that_routes(capsys):
    with pytest.raises(SystemExit):
        main(["gcells", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "mazeroute groute" in text and "--max-layer" in text


def test_gcells_bad_input_is_one_line_exit_2(tmp_path):
    def_path, lefs = write_tiny(tmp_path)
    def_path.write_text(def_path.read_text().replace("- u2 INV", "- u2 NOPE"))
    done = subprocess.run([sys.executable, "-m", "mazeroute", "gcells", str(def_path),
                           "--lef", str(lefs[0])], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "COMPONENTS u2" in lines[0] and str(def_path) in lines[0]


def test_gcells_on_gcd(capsys):
    if not DATA.is_dir():
        pytest.skip(f"the shared LEF/DEF designs are absent ({DATA})")
    assert main(["gcells", str(DATA / "gcd" / "gcd.def"),
                 "--lef", str(DATA / "nangate45" / "Nangate45.lef")]) == 0
    out = capsys.readouterr().out
    assert "GCell grid 35 x 35" in out and "layers metal2-metal10" in out


# -- mazeroute evaluate -------------------------------------------------------------------
def _tiny_guides(tmp_path, guides=None):
    from mazeroute.guides import write_guides
    from tests.test_evaluate import GUIDES
    path = tmp_path / "tiny.guide"
    write_guides(path, GUIDES if guides is None else guides)
    return path


def test_evaluate_prints_table_and_totals_exit_0(tmp_path, capsys):
    def_path, lefs = write_tiny(tmp_path)
    guides = _tiny_guides(tmp_path)
    assert main(["evaluate", str(def_path), "--lef", str(lefs[0]),
                 "--guides", str(guides)]) == 0
    out = capsys.readouterr().out
    # tests/test_evaluate.py works these out: 9000 DBU of wire, 5 vias; m3 keeps its
    # 15 tracks an edge here, so the two wires along row 0 fit
    assert "Max H / Max V / Total Overflow" in out
    assert "m3 30 2 6.67% 0 / 0 / 0" in " ".join(out.split())
    assert "wirelength 9 um" in out and "vias 5 (5 without" in out
    assert "nets connected 2 / 2" in out and "contest cost" in out


def test_evaluate_exits_1_naming_the_net_that_fails(tmp_path, capsys):
    def_path, lefs = write_tiny(tmp_path)
    from tests.test_evaluate import GUIDES
    guides = _tiny_guides(tmp_path, {"n2": GUIDES["n2"]})
    assert main(["evaluate", str(def_path), "--lef", str(lefs[0]),
                 "--guides", str(guides)]) == 1
    out = capsys.readouterr().out
    assert "nets connected 1 / 2" in out and "net n1: no guides" in out


@pytest.mark.parametrize("text, says", [
    ("n1\n(\n0 0 1500 1500\n)\n", "line 3: a rectangle without its layer name"),
    ("zz\n(\n0 0 1500 1500 m2\n)\n", "net zz: not a net of design tiny"),
])
def test_evaluate_bad_guides_one_line_exit_2(tmp_path, text, says):
    def_path, lefs = write_tiny(tmp_path)
    guides = tmp_path / "bad.guide"
    guides.write_text(text)
    done = subprocess.run([sys.executable, "-m", "mazeroute", "evaluate", str(def_path),
                           "--lef", str(lefs[0]), "--guides", str(guides)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(guides) in lines[0] and says in lines[0], lines


def test_evaluate_on_gcd_matches_openroads_wirelength(capsys):
    if not DATA.is_dir():
        pytest.skip(f"the shared LEF/DEF designs are absent ({DATA})")
    assert main(["evaluate", str(DATA / "gcd" / "gcd.def"),
                 "--lef", str(DATA / "nangate45" / "Nangate45.lef"),
                 "--guides", str(DATA / "gcd" / "gcd.fastroute.guide")]) == 0
    out = capsys.readouterr().out
    log = (DATA / "gcd" / "gcd.fastroute.log").read_text()
    wl = log.split("Total wirelength: ")[1].split()[0]
    assert f"wirelength {wl} um" in out and "nets connected 563 / 563" in out


# -- mazeroute evaluate --heatmap ---------------------------------------------------------
@pytest.mark.parametrize("name", ["heat.jpg", "heat"])
def test_evaluate_heatmap_other_than_png_is_one_line_exit_2(tmp_path, name):
    def_path, lefs = write_tiny(tmp_path)
    guides = _tiny_guides(tmp_path)
    out = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "mazeroute", "evaluate", str(def_path),
                           "--lef", str(lefs[0]), "--guides", str(guides),
                           "--heatmap", str(out)], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(out) in lines[0] and "--heatmap" in lines[0], lines
    assert ".png" in lines[0] and not out.exists()
    # refused before anything is judged: no table was printed
    assert done.stdout == ""


def test_evaluate_heatmap_is_written(tmp_path, capsys):
    def_path, lefs = write_tiny(tmp_path)
    out = tmp_path / "heat.png"
    assert main(["evaluate", str(def_path), "--lef", str(lefs[0]),
                 "--guides", str(_tiny_guides(tmp_path)), "--heatmap", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"congestion heat map {out}" in capsys.readouterr().out
