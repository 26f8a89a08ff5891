"""`mazeroute groute`: a LEF/DEF design routed into guides, a report, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from mazeroute.cli import main
from mazeroute.guides import read_guides

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lefdef"
GCD = DATA / "gcd" / "gcd.def"
LEF = DATA / "nangate45" / "Nangate45.lef"
needs_gcd = pytest.mark.skipif(not GCD.exists(), reason="the shared LEF/DEF designs are absent")


@needs_gcd
def test_groute_writes_guides_of_every_net_and_a_report(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["groute", str(GCD), "--lef", str(LEF), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "overflow 0" in text and f"wrote {out / 'gcd.guide'}" in text
    guides = read_guides(out / "gcd.guide")
    report = (out / "groute.txt").read_text()
    routed = int(report.split("routed ")[1].split(" of ")[0])
    assert len(guides) == routed > 500
    layers = {g[4] for rects in guides.values() for g in rects}
    assert "metal1" in layers and "metal2" in layers       # pins' GCells and the access
    assert sorted(p.name for p in out.iterdir()) == ["gcd.guide", "groute.txt"]
    # the evaluator (OpenROAD's measures, on edges) finds every net connected, no overflow
    from mazeroute.evaluate import evaluate
    from mazeroute.gcells import gcell_grid
    from mazeroute.readers.lefdef import read_design
    design = read_design(GCD, [LEF])
    ev = evaluate(design, gcell_grid(design), guides)
    assert ev.connected == ev.routable == len(guides)
    assert sum(layer.overflow for layer in ev.layers) == 0


@needs_gcd
@pytest.mark.parametrize("argv, field", [
    (["--via-cost", "0"], "--via-cost"),
    (["--max-iterations", "0"], "--max-iterations"),
    (["--min-layer", "metal99"], "metal99"),
])
def test_groute_bad_options_get_one_line(tmp_path, capsys, argv, field):
    code = main(["groute", str(GCD), "--lef", str(LEF), "-o", str(tmp_path / "o"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and field in err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


def test_groute_on_a_file_that_is_not_def_gets_one_line(tmp_path, capsys):
    bad = tmp_path / "x.def"
    bad.write_text("this is not a DEF file\n")
    lef = tmp_path / "t.lef"
    lef.write_text("VERSION 5.8 ;\nEND LIBRARY\n")
    code = main(["groute", str(bad), "--lef", str(lef), "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@needs_gcd
@pytest.mark.parametrize("argv, field", [
    ([], "--lef"),                                   # a DEF still needs its LEF files
    (["--lef", str(LEF), "--net", str(GCD)], "--net"),
])
def test_groute_def_without_lef_or_with_net_gets_one_line(tmp_path, capsys, argv, field):
    code = main(["groute", str(GCD), *argv, "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and field in err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


@needs_gcd
def test_groute_html_shows_the_gcell_layers_and_the_trees(tmp_path, capsys):
    from mazeroute.view import decode_blob, read_view_data
    out = tmp_path / "out"
    assert main(["groute", str(GCD), "--lef", str(LEF), "-o", str(out), "--html"]) == 0
    data = read_view_data(out / "view.html")
    assert [la["name"] for la in data["layers"]][:3] == ["metal1", "metal2", "metal3"]
    assert (data["width"], data["height"]) == (35, 35)
    routed = decode_blob(data["nets"]["routed"])
    assert len(routed) == len(read_guides(out / "gcd.guide")) and routed.all()
    assert "congestion" in data
