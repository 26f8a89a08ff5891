"""Congestion heat maps of guides: the tiny design worked by hand, read back pixel by
pixel at each GCell's centre."""

import io

import matplotlib
import numpy as np
import pytest
from PIL import Image

from mazeroute.cli import main
from mazeroute.errors import InputError
from mazeroute.evaluate import edge_usage
from mazeroute.render_gcells import (
    DPI,
    OVER_CMAP,
    OVER_RANGE,
    USE_CMAP,
    USE_RANGE,
    congestion_figure,
    gcell_ratios,
    save_congestion_png,
)
from tests.test_evaluate import GUIDES, tiny
from tests.test_lefdef import DATA, write_tiny

# The tiny design (tests/test_evaluate.py): 2 x 2 GCells, columns [0, 1500) and
# [1500, 3200), rows [0, 1500) and [1500, 3000); m1 H, m2 V, m3 H, m4 V, routed m2-m4.
# With m3 derated to one track an edge, the guides put:
#   m2 (vertical, capacities [[14, 16]]): n1's wire up column 0, demand [[1, 0]];
#       both GCells of column 0 lie on that edge: 1/14, column 1: 0/16 = 0.
#   m3 (horizontal, capacities [[1], [1]]): n1's and n2's wires along row 0, demand
#       [[2], [0]]: GCells (0, 0) and (1, 0) at 2/1 = 2, over capacity; row 1 at 0.
#   m4: nothing, 0 everywhere.
# The scale runs to the largest ratio, 2, so row 0 of m3 takes the top of the red map.


def _rgb(cmap: str, value: float) -> np.ndarray:
    return np.round(np.array(matplotlib.colormaps[cmap](value)[:3]) * 255)


def _blue(ratio: float) -> np.ndarray:
    return _rgb(USE_CMAP, USE_RANGE[0] + (USE_RANGE[1] - USE_RANGE[0]) * ratio)


def _red(pixel) -> bool:
    """The over-capacity map's hue: red well above green and blue (never a blue or grey)."""
    r, g, b = (int(v) for v in pixel[:3])
    return r - max(g, b) > 60


def _drawn(fig) -> np.ndarray:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return np.asarray(Image.open(buf).convert("RGB"))


def _centre_pixels(fig, ax, grid, dbu, img):
    """The picture's pixel at each GCell's centre of panel ``ax``, ``{(x, y): rgb}``."""
    out = {}
    for x in range(len(grid.xs) - 1):
        for y in range(len(grid.ys) - 1):
            cx = (grid.xs[x] + grid.xs[x + 1]) / 2 / dbu
            cy = (grid.ys[y] + grid.ys[y + 1]) / 2 / dbu
            px, py = ax.transData.transform((cx, cy))
            out[x, y] = img[img.shape[0] - 1 - int(round(py)), int(round(px))]
    return out


def test_ratio_is_the_fuller_of_a_gcells_two_edges():
    # a column of 4 GCells on a vertical layer: edges (0-1) 1/4, (1-2) 3/4, (2-3) 0/2
    ratio = gcell_ratios(np.array([[1], [3], [0]]), np.array([[4], [4], [2]]), False)
    assert ratio.tolist() == [[0.25], [0.75], [0.75], [0.0]]
    # demand on an edge of no capacity is over capacity; no edge at all is no capacity
    ratio = gcell_ratios(np.array([[2, 0]]), np.array([[0, 0]]), True)
    assert np.isinf(ratio[0, :2]).all() and np.isnan(ratio[0, 2])


def test_tiny_panels_and_colours_by_hand(tmp_path):
    d, g = tiny(tmp_path, adjust={"m3": 0.99})
    usage = edge_usage(d, g, GUIDES)
    assert [e.name for e in usage] == ["m1", "m2", "m3", "m4"]
    assert usage[2].demand.tolist() == [[2], [0]] and usage[2].capacity.tolist() == [[1], [1]]
    fig = congestion_figure(d, g, usage)
    img = _drawn(fig)
    panels = fig.axes[:3]
    # m1 is below the routing layers and carries no wire: no panel. Usage is demand over
    # capacity: m2 1/30 = 3.3%, m3 2/2 = 100%, m4 0/16.
    assert [ax.get_title() for ax in panels] == [
        "m2  V \u2195  3.3% used\n0 edges over capacity",
        "m3  H \u2194  100.0% used\n1 edge over capacity",
        "m4  V \u2195  0.0% used\n0 edges over capacity"]
    assert not any(ax.get_title() for ax in fig.axes[3:])      # the colour bar's
    assert fig.get_suptitle().startswith("tiny")
    seen = {ax.get_title().split()[0]: _centre_pixels(fig, ax, g, d.dbu, img)
            for ax in panels}
    over = {(name, xy) for name, cells in seen.items() for xy, px in cells.items()
            if _red(px)}
    assert over == {("m3", (0, 0)), ("m3", (1, 0))}
    top_red = _rgb(OVER_CMAP, OVER_RANGE[1])             # ratio 2 on a scale up to 2
    assert np.abs(seen["m3"][0, 0] - top_red).max() <= 2
    want = {("m2", (0, 0)): 1 / 14, ("m2", (0, 1)): 1 / 14, ("m2", (1, 0)): 0.0,
            ("m3", (0, 1)): 0.0, ("m4", (1, 1)): 0.0}
    for (name, xy), ratio in want.items():
        assert np.abs(seen[name][xy] - _blue(ratio)).max() <= 2, (name, xy)
    # the file holds the same picture, at the figure's size
    out = save_congestion_png(tmp_path / "heat.png", d, g, usage)
    saved = np.asarray(Image.open(out).convert("RGB"))
    assert saved.shape == img.shape and np.array_equal(saved, img)
    w, h = fig.get_size_inches() * DPI
    assert saved.shape[:2] == (round(h), round(w))


def test_a_layer_outside_the_range_with_wires_gets_a_panel(tmp_path):
    # routed on m3 alone: m2 has no capacity, yet n1's wire runs up column 0 there
    d, g = tiny(tmp_path, min_layer="m3", max_layer="m3")
    fig = congestion_figure(d, g, edge_usage(d, g, GUIDES))
    img = _drawn(fig)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title().split()[0] for ax in panels] == ["m2", "m3"]
    assert panels[0].get_title().endswith("1 edge over capacity")
    m2 = _centre_pixels(fig, panels[0], g, d.dbu, img)
    # column 0's GCells lie on the overused edge; column 1's edge has neither: grey
    assert {xy for xy, px in m2.items() if _red(px)} == {(0, 0), (0, 1)}
    assert len(set(map(tuple, (m2[1, 0], m2[1, 1])))) == 1 and np.ptp(m2[1, 0]) == 0
    # many layers wrap into rows: more panels, a taller picture of the same width or more
    d2, g2 = tiny(tmp_path)
    wide = _drawn(congestion_figure(d2, g2, edge_usage(d2, g2, GUIDES)))
    assert wide.shape[1] > img.shape[1]


def test_png_name_checked_before_drawing(tmp_path):
    d, g = tiny(tmp_path)
    with pytest.raises(InputError) as e:
        save_congestion_png(tmp_path / "heat.svg", d, g, edge_usage(d, g, GUIDES))
    assert ".png" in e.value.message and e.value.file == str(tmp_path / "heat.svg")
    assert not (tmp_path / "heat.svg").exists()


def test_evaluate_writes_the_heat_map(tmp_path, capsys):
    from mazeroute.guides import write_guides
    def_path, lefs = write_tiny(tmp_path)
    guides = tmp_path / "tiny.guide"
    write_guides(guides, GUIDES)
    out = tmp_path / "maps" / "tiny.png"
    assert main(["evaluate", str(def_path), "--lef", str(lefs[0]), "--guides", str(guides),
                 "--heatmap", str(out)]) == 0
    assert f"congestion heat map {out}" in capsys.readouterr().out
    img = Image.open(out)
    assert img.format == "PNG"
    # the picture the library draws of the same guides on the command's grid (no --adjust)
    d, g = tiny(tmp_path)
    fig = congestion_figure(d, g, edge_usage(d, g, GUIDES))
    assert np.array_equal(np.asarray(img.convert("RGB")), _drawn(fig))
    # m3 keeps its 15 tracks an edge here: the two wires along row 0 fit, no panel is red
    assert [ax.get_title().splitlines()[1] for ax in fig.axes[:3]] == [
        "0 edges over capacity"] * 3


def test_gcd_heat_map(tmp_path):
    if not DATA.is_dir():
        pytest.skip(f"the shared LEF/DEF designs are absent ({DATA})")
    from mazeroute.gcells import gcell_grid
    from mazeroute.guides import read_guides
    from mazeroute.readers.lefdef import read_design
    d = read_design(DATA / "gcd" / "gcd.def", [DATA / "nangate45" / "Nangate45.lef"])
    g = gcell_grid(d)
    usage = edge_usage(d, g, read_guides(DATA / "gcd" / "gcd.fastroute.guide"))
    fig = congestion_figure(d, g, usage)
    # metal2-metal10: nine panels, four to a row
    assert len([ax for ax in fig.axes if ax.get_title()]) == 9
    assert fig.get_suptitle() == "gcd: GCell congestion, 35 x 35 GCells"
