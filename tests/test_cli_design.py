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


def test_gcells_help_says_it_does_not_route(capsys):
    with pytest.raises(SystemExit):
        main(["gcells", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "does not route" in text and "--max-layer" in text


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
