"""Every GPU strategy equals the oracle (the same corpus as the CPU engines) and routes
files that keep the contract. Marked ``gpu``: skipped with a reason where no device is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mazeroute.contract import check_routes
from mazeroute.engines import UNREACHED, make_problem
from mazeroute.generate import random_layout, random_rects
from mazeroute.graph import GridGraph, fig15_1_graph
from mazeroute.layout import paint
from mazeroute.router import Router
from tests.corpus import engines, hand_cases, random_cases, runs

pytestmark = pytest.mark.gpu

GPU = engines("gpu")
CASES = hand_cases() + random_cases(200, max_side=1024, seed=7)


def _by_level(lv):
    return {k: np.flatnonzero(lv == k).tolist() for k in range(int(lv[lv != UNREACHED].max()) + 1)}


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_fig15_1_levels_from_book(key):
    if not runs(hand_cases()[0], key):
        pytest.skip("grid-only engine")
    p = make_problem(fig15_1_graph(), *key)
    assert _by_level(p.wavefront([0]).levels()) == {0: [0], 1: [1, 2], 2: [3, 4, 5, 6, 7],
                                                    3: [8]}
    assert _by_level(p.wavefront([2]).levels()) == {0: [2], 1: [5, 6, 7], 2: [0, 8], 3: [1],
                                                    4: [3, 4]}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_strategy_equals_the_oracle(case):
    expected = case.expected()
    for key in GPU:
        if not runs(case, key):
            continue
        p = make_problem(case.graph, *key)
        wave = p.wavefront(list(case.sources))
        got = wave.levels()
        np.testing.assert_array_equal(got, expected, err_msg="/".join(key))
        assert wave.num_levels == int(expected[expected != UNREACHED].max()) + 1, key


def _big(side: int, seed: int) -> GridGraph:
    rng = np.random.default_rng(seed)
    return GridGraph(~paint(side, side, random_rects(side, side, 0.25, rng)))


@pytest.mark.parametrize("side", [1024, 4096])
def test_large_grids_equal_the_cpu_engine(side):
    g = _big(side, side)
    root = int(np.flatnonzero(g.free.ravel())[0])
    ref = make_problem(g, "cpu", "grid").wavefront([root]).levels()
    for key in GPU:
        got = make_problem(g, *key).wavefront([root]).levels()
        np.testing.assert_array_equal(got, ref, err_msg="/".join(key))


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_early_exit_multi_source_and_blockage_reuse(key):
    g = _big(96, 3)
    cells = np.flatnonzero(g.free.ravel())
    rng = np.random.default_rng(1)
    cpu, gpu = make_problem(g, "cpu", "grid"), make_problem(g, *key)
    for _ in range(4):
        src = rng.choice(cells, 2, replace=False)
        tgt = rng.choice(cells, 3, replace=False)
        a, b = cpu.wavefront(src, tgt), gpu.wavefront(src, tgt)
        assert (a.target, a.target_level) == (b.target, b.target_level)
        if a.target is not None:
            la, lb = a.levels(), b.levels()
            low = la <= a.target_level
            np.testing.assert_array_equal(lb[low], la[low])
        wire = rng.choice(np.setdiff1d(cells, np.concatenate([src, tgt])), 40, replace=False)
        cpu.set_blocked(wire)
        gpu.set_blocked(wire)
        np.testing.assert_array_equal(gpu.wavefront(src[:1]).levels(),
                                      cpu.wavefront(src[:1]).levels())


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_routes_from_every_strategy_keep_the_contract(key):
    for seed in range(3):
        lay = random_layout(48, 40, density=0.2, nets=8, pins=2 + seed % 2, seed=seed)
        res = Router(lay, *key).run()
        assert check_routes(lay, res.to_json(), sequential=True) == []
        cpu = Router(lay, "cpu").run()
        assert [n.length for n in res.nets] == [n.length for n in cpu.nets]


def _cli(args, env_extra, tmp_path):
    import os
    import subprocess
    import sys
    env = {**os.environ, **env_extra, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "mazeroute", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)


def test_gpu_out_of_memory_is_one_line_or_a_cpu_fallback(tmp_path):
    """On a real device: CuPy's allocator capped at 64 kB."""
    lay = str(Path(__file__).resolve().parents[1] / "layouts" / "large_2048.yaml")
    cap = {"CUPY_GPU_MEMORY_LIMIT": "65536"}
    gpu = _cli(["route", lay, "--backend", "gpu", "-o", "g", "--no-png", "-q"], cap, tmp_path)
    assert gpu.returncode == 2, gpu.stderr
    assert gpu.stderr.count("\n") == 1 and "Traceback" not in gpu.stderr
    assert "memory" in gpu.stderr.lower()
    auto = _cli(["route", lay, "-o", "a", "--no-png"], cap, tmp_path)
    assert auto.returncode == 0, auto.stderr
    said = auto.stdout + auto.stderr                  # the notice is in the report
    assert "failed" in said and "CPU" in said and "Traceback" not in said
    cpu = _cli(["route", lay, "--backend", "cpu", "-o", "c", "--no-png", "-q"], {}, tmp_path)
    assert cpu.returncode == 0
    import json
    a = json.loads((tmp_path / "a" / "routes.json").read_text())
    c = json.loads((tmp_path / "c" / "routes.json").read_text())
    assert [n["cells"] for n in a["nets"]] == [n["cells"] for n in c["nets"]]


def test_cuda_error_mid_run_falls_back_under_auto(monkeypatch):
    """A CUDA runtime error from a batched launch: auto redoes the run on the CPU."""
    import cupy

    from mazeroute.engines import gpu_batch
    from mazeroute.errors import EngineUnavailable
    lay = random_layout(300, 300, density=0.2, nets=60, seed=4, span=40)
    want = Router(lay, "cpu").run()

    def broken(self, *a, **k):
        raise cupy.cuda.runtime.CUDARuntimeError(700)       # cudaErrorIllegalAddress
    monkeypatch.setattr(gpu_batch.GridBatch, "finish", broken)    # where a fault surfaces
    router = Router(lay, "gpu", "grid")
    with pytest.raises(EngineUnavailable, match="GPU"):
        router.run()
    monkeypatch.setattr("mazeroute.plan.wavefront_prefers_cpu", lambda m: (False, None))
    monkeypatch.setattr("mazeroute.plan.routing_prefers_cpu",
                        lambda m, counts, spans: False)
    router = Router(lay, "auto")
    assert router.engine == "gpu/grid"
    res = router.run()
    assert res.engine.startswith("cpu") and "failed" in res.notice
    assert [n.cells for n in res.nets] == [n.cells for n in want.nets]
