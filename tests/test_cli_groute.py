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
def test_groute_first_pass_maze_connects_every_net_too(tmp_path, capsys):
    from mazeroute.evaluate import evaluate
    from mazeroute.gcells import gcell_grid
    from mazeroute.readers.lefdef import read_design

    guides = {}
    for first in ("pattern", "maze"):
        out = tmp_path / first
        assert main(["groute", str(GCD), "--lef", str(LEF), "-o", str(out),
                     "--first-pass", first]) == 0
        guides[first] = read_guides(out / "gcd.guide")
    capsys.readouterr()
    design = read_design(GCD, [LEF])
    for g in guides.values():
        ev = evaluate(design, gcell_grid(design), g)
        assert ev.connected == ev.routable == len(g)
    assert guides["pattern"] != guides["maze"]             # two different routers


@needs_gcd
def test_gcd_guides_beat_cugrs_log_counted_as_cugr_counts(tmp_path, capsys):
    # CUGR's log counts its trees' vias: the guides' vias but for the stacks of the nets
    # inside one GCell (tests/test_evaluate.py checks this on CUGR's own guides); its
    # wirelength is the evaluator's. Refinement is what brings the vias under; without
    # it the same route has more of them.
    import re

    from mazeroute.evaluate import evaluate
    from mazeroute.gcells import gcell_grid
    from mazeroute.readers.lefdef import read_design

    log = (DATA / "gcd" / "gcd.cugr.log").read_text()
    cugr_vias = int(re.search(r"Total via count:\s+(\d+)", log).group(1))
    cugr_wl = int(re.search(r"Total wirelength: (\d+) um", log).group(1))
    design = read_design(GCD, [LEF])
    counted = {}
    for flag in ("--refine", "--no-refine"):
        out = tmp_path / flag
        assert main(["groute", str(GCD), "--lef", str(LEF), "-o", str(out), flag]) == 0
        ev = evaluate(design, gcell_grid(design), read_guides(out / "gcd.guide"))
        assert ev.connected == ev.routable
        counted[flag] = (ev.wirelength_um, ev.tree_vias)
        report = (out / "groute.txt").read_text()
        assert f"vias {ev.vias} ({ev.tree_vias} without those of the nets inside" in report
        took = re.search(r"refinement: (\d+) of (\d+) nets", report)
        if flag == "--refine":
            assert 0 < int(took.group(1)) < int(took.group(2))
        else:
            assert took is None and "refinement: off" in report
    capsys.readouterr()
    wl, vias = counted["--refine"]
    assert wl <= cugr_wl and vias <= cugr_vias
    assert vias < counted["--no-refine"][1]


@needs_gcd
@pytest.mark.parametrize("argv, field", [
    (["--via-cost", "0"], "--via-cost"),
    (["--max-iterations", "0"], "--max-iterations"),
    (["--pattern-rounds", "0"], "--pattern-rounds"),
    (["--min-layer", "metal99"], "metal99"),
])
def test_groute_bad_options_get_one_line(tmp_path, capsys, argv, field):
    code = main(["groute", str(GCD), "--lef", str(LEF), "-o", str(tmp_path / "o"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and field in err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


@needs_gcd
def test_groute_on_the_gpu_without_one_gets_one_line(tmp_path, capsys):
    # the device is checked in a thread beside the reading; its refusal still comes as
    # the command's one line, and nothing is written
    from mazeroute.plan.device import gpu_available
    if gpu_available():
        pytest.skip("a usable GPU is here")
    code = main(["groute", str(GCD), "--lef", str(LEF), "-o", str(tmp_path / "o"),
                 "--backend", "gpu"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "gpu" in err
    assert not (tmp_path / "o").exists()


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


# -- route, view and check recognise a DEF design by its content ---------------------------
@needs_gcd
def test_route_view_and_check_take_a_def_design_by_its_content(tmp_path, capsys):
    design = tmp_path / "design.txt"                  # the name says nothing
    design.write_bytes(GCD.read_bytes())
    out = tmp_path / "r"
    assert main(["route", str(design), "--lef", str(LEF), "-o", str(out)]) == 0
    guides = out / "gcd.guide"                        # named after the DESIGN statement
    assert len(read_guides(guides)) > 500 and (out / "groute.txt").exists()
    capsys.readouterr()
    assert main(["check", str(design), "--lef", str(LEF), "--routes", str(guides)]) == 0
    assert "nets connected 563 / 563" in capsys.readouterr().out
    assert main(["check", str(design), "--lef", str(LEF)]) == 0
    assert "metal2" in capsys.readouterr().out
    page = tmp_path / "v" / "page.html"
    page.parent.mkdir()
    assert main(["view", str(design), "--lef", str(LEF), "-o", str(page)]) == 0
    assert sorted(p.name for p in page.parent.iterdir()) == ["page.html"]
    assert "<html" in page.read_text()[:2000].lower()


@needs_gcd
@pytest.mark.parametrize("command", ["route", "view", "check"])
def test_a_def_without_lef_and_lef_without_a_def_get_one_line(tmp_path, capsys, command):
    out = ["-o", str(tmp_path / "o.html" if command == "view" else tmp_path / "o")]
    out = [] if command == "check" else out
    assert main([command, str(GCD), *out]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--lef" in err and "Traceback" not in err
    layout = Path(__file__).resolve().parents[1] / "layouts" / "multinet.yaml"
    assert main([command, str(layout), "--lef", str(LEF), *out]) == 2
    err = capsys.readouterr().err
    assert "applies to a DEF design only" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_a_layout_reader_given_a_def_says_how_to_route_it(tmp_path):
    from mazeroute.errors import InputError
    from mazeroute.readers import load_layouts
    p = tmp_path / "d.def"
    p.write_text("VERSION 5.8 ;\nDIVIDERCHAR \"/\" ;\nDESIGN d ;\nEND DESIGN\n")
    with pytest.raises(InputError, match="groute"):
        load_layouts(p)
