"""``mazeroute wavefront`` on multi-layer layouts: a panel per layer whose colours are the
levels of the 3-D BFS, the GIF's counter ending at the last level, and the refusals."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pytest
from PIL import Image

from mazeroute.batch import load_one
from mazeroute.cli import main
from mazeroute.engines import UNREACHED
from mazeroute.engines.grid3d import bfs3d
from mazeroute.render import OTHER
from mazeroute.render_layers import panel_origin, stack_scale
from mazeroute.render_wavefront import GIF_BAR, _gif_palette, _gif_strip
from mazeroute.router.layered import route_layered

STACK_YAML = """\
name: three-layers
width: 6
height: 4
layers:
  - {name: M1, direction: horizontal}
  - {name: M2, direction: vertical}
  - {name: M3, direction: any}
via_cost: 2
blockages:
  - {rect: [0, 3, 2, 3], layer: M1}
  - {rect: [3, 0, 3, 2], layer: M2}
nets:
  - {name: a, pins: [[0, 1, M1], [5, 1, M1]]}
  - {name: b, pins: [[1, 0, M2], [4, 3, M2]]}
"""


@pytest.fixture
def stack_file(tmp_path: Path) -> Path:
    p = tmp_path / "stack.yaml"
    p.write_text(STACK_YAML)
    return p


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _expected(layout, net: int, wires) -> tuple[np.ndarray, np.ndarray]:
    """The net's levels from its root, with other nets' pins and ``wires`` blocked, and
    the free mask."""
    free = ~layout.blocked
    for i, n in enumerate(layout.nets):
        if i != net:
            for x, y, z in list(n.pins) + list(wires.get(i, [])):
                free[z, y, x] = False
    st = layout.stack
    levels = bfs3d(free, [layout.nets[net].pins[0]], directions=st.directions,
                   via_cost=st.via_cost, via_sites=st.via_sites)
    return levels, free


def _check_panels(png: Path, layout, levels: np.ndarray, free: np.ndarray) -> None:
    """Every cell's top-left pixel on its layer's panel is the colour of its level."""
    img = np.asarray(Image.open(png).convert("RGB"))
    s = stack_scale(layout)
    top = int(levels[levels != UNREACHED].max())
    lut = np.round(matplotlib.colormaps["viridis"](np.linspace(0, 1, 248))[:, :3] * 255)
    for z in range(levels.shape[0]):
        ox, oy = panel_origin(layout, z)
        for y in range(layout.height):
            for x in range(layout.width):
                got = tuple(img[oy + y * s, ox + x * s])
                v = int(levels[z, y, x])
                if layout.blocked[z, y, x]:
                    want = (64, 64, 64)
                elif not free[z, y, x]:
                    want = tuple(OTHER)
                elif v == UNREACHED:
                    want = (255, 255, 255)
                else:
                    want = tuple(lut[round(v / top * 247)].astype(int))
                assert got == want, (z, x, y, v)


@pytest.mark.parametrize("mode", ["sequential", "negotiate"])
def test_png_panels_show_bfs3d_levels(tmp_path, capsys, stack_file, mode):
    png = tmp_path / "w.png"
    code, out, err = _run(capsys, "wavefront", stack_file, "--net", "b", "--mode", mode,
                          "--backend", "cpu", "-o", png)
    assert code == 0, err
    layout = load_one(stack_file)
    result = route_layered(layout, mode)
    wires = {0: result.nets[0].cells}                  # a is before b, and the other net
    levels, free = _expected(layout, 1, wires)
    root = layout.nets[1].pins[0]
    assert levels[root[2], root[1], root[0]] == 0
    assert (levels[2] != UNREACHED).any()              # the third panel has levels too
    _check_panels(png, layout, levels, free)
    ox, oy = panel_origin(layout, root[2])
    s = stack_scale(layout)
    lut0 = np.round(np.array(matplotlib.colormaps["viridis"](0.0)[:3]) * 255).astype(int)
    assert tuple(np.asarray(Image.open(png).convert("RGB"))[oy + root[1] * s,
                                                             ox + root[0] * s]) == tuple(lut0)
    assert f"{int((levels != UNREACHED).sum())} cells reached" in out


def test_first_net_alone_and_jpeg(tmp_path, capsys, stack_file):
    jpg = tmp_path / "w.jpg"
    code, _, err = _run(capsys, "wavefront", stack_file, "--mode", "sequential",
                        "--backend", "cpu", "-o", jpg, "-q")
    assert code == 0, err
    assert jpg.read_bytes()[:3] == b"\xff\xd8\xff"
    png = tmp_path / "w.png"
    assert _run(capsys, "wavefront", stack_file, "--mode", "sequential", "--backend",
                "cpu", "-o", png, "-q")[0] == 0
    layout = load_one(stack_file)
    levels, free = _expected(layout, 0, {})
    _check_panels(png, layout, levels, free)


def test_gif_frames_end_at_last_level(tmp_path, capsys, stack_file):
    gif = tmp_path / "w.gif"
    code, _, err = _run(capsys, "wavefront", stack_file, "--net", "b", "--mode",
                        "sequential", "--backend", "cpu", "-o", tmp_path / "w.png",
                        "--gif", gif, "-q")
    assert code == 0, err
    layout = load_one(stack_file)
    result = route_layered(layout, "sequential")
    levels, _ = _expected(layout, 1, {0: result.nets[0].cells})
    top = int(levels[levels != UNREACHED].max())
    im = Image.open(gif)
    assert im.n_frames == top + 2                      # one per level, then the path
    palette = _gif_palette(248)
    strip = _gif_strip(im.width, top, 248, 248, 254)
    for k, with_path in ((top, False), (top + 1, True)):
        im.seek(k)
        got = np.asarray(im.convert("RGB"))[-GIF_BAR:]
        assert (got == palette[strip(top, with_path)]).all(), k
    im.seek(0)
    assert not (np.asarray(im.convert("RGB"))[-GIF_BAR:] == palette[strip(top, False)]).all()


def test_stack_refuses_a_2d_strategy_in_one_line(tmp_path, capsys, stack_file):
    png = tmp_path / "w.png"
    code, _, err = _run(capsys, "wavefront", stack_file, "-o", png, "--strategy", "sweep")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--strategy" in err and "Traceback" not in err and not png.exists()


def test_stack_wavefront_on_the_gpu_or_one_line_why(tmp_path, capsys, stack_file):
    from mazeroute.engines import gpu_available
    png = tmp_path / "w.png"
    code, _, err = _run(capsys, "wavefront", stack_file, "-o", png, "--backend", "gpu")
    if gpu_available():
        assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert code != 0 and len(err.strip().splitlines()) == 1 and not png.exists()
        assert "backend 'gpu' needs CuPy" in err
