"""The layers suite of ``mazeroute bench``: its rows, checks, options and files, on tiny
stacks (no timings are judged)."""

from __future__ import annotations

import argparse
import csv
import math
import sys
import types
from dataclasses import fields, replace

import numpy as np
import pytest

import mazeroute.bench as bench
import mazeroute.bench.layers as layers
from mazeroute.errors import InputError

#: Routing sides of 64 (the wave's 128), 16 and 31 nets, spans of 4.
SCALE = 1 / 16
HAS_GPU = layers.engines.gpu_available()


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(list(argv))


def _tiny(*argv: str) -> argparse.Namespace:
    return _args("--suite", "layers", "--route-scale", str(SCALE), "--repeats", "1", "-q",
                 *argv)


@pytest.fixture(scope="module")
def tiny_rows() -> list[layers.LayersRow]:
    return layers.layers_suite(seeds=2, repeats=1, scale=SCALE)


def test_every_part_has_a_row_a_seed_and_a_median(tiny_rows):
    assert [(r.part, r.seed) for r in tiny_rows] == [
        (p, s) for p in ("wave", "sequential", "negotiate") for s in ("0", "1", "median")]
    sizes = {r.part: (r.size, r.nets) for r in tiny_rows}
    assert sizes == {"wave": ("8x128x128", 0), "sequential": ("4x64x64", 16),
                     "negotiate": ("4x64x64", 31)}


def test_cpu_columns_are_measured_and_the_routes_are_valid(tiny_rows):
    for r in tiny_rows:
        assert r.cpu_s > 0 and r.note == "", r
        if r.part == "wave":
            assert r.levels > 0 and r.cpu_routed is None
        else:
            assert 0 < r.cpu_routed <= r.nets and r.cpu_contract == 0
            assert len(r.cpu_digest) == (0 if r.seed == "median" else 16)
    # two seeds, two different stacks
    seeds = [r for r in tiny_rows if r.part == "negotiate" and r.seed != "median"]
    assert seeds[0].cpu_digest != seeds[1].cpu_digest


def test_median_rows_are_the_medians_of_the_seeds(tiny_rows):
    for part in ("wave", "sequential", "negotiate"):
        a, b, mid = [r for r in tiny_rows if r.part == part]
        assert mid.cpu_s == pytest.approx((a.cpu_s + b.cpu_s) / 2)
        if part != "wave":
            assert mid.cpu_contract == a.cpu_contract + b.cpu_contract == 0


@pytest.mark.skipif(HAS_GPU, reason="checks the machine without a GPU")
def test_gpu_columns_are_na_without_a_gpu(tiny_rows):
    for r in tiny_rows:
        assert math.isnan(r.gpu_s) and math.isnan(r.ratio)
        assert math.isnan(r.gpu_bytes_per_cell)
        assert r.gpu_routed is None and r.gpu_contract is None and r.gpu_digest == ""
        # without a GPU the wave compares nothing, the routes only meet the contract
        assert r.check == ("-" if r.part == "wave" else "ok")
    text = layers.format_layers(tiny_rows)
    assert "| sequential | 0 | 4x64x64 | 16 |" in text and "n/a" in text
    assert text.startswith("## multi-layer engines, CPU against GPU: wave 8x128x128; "
                           "sequential 4x64x64, 16 nets; negotiate 4x64x64, 31 nets")


def test_the_check_of_a_seed():
    assert layers.route_check("0123", "0123", 0, 0) == "ok"
    assert layers.route_check("0123", "4567", 0, 0) == "DIFFERENT"
    assert layers.route_check("0123", "0123", 0, 2) == "INVALID"
    assert layers.route_check("0123", "4567", 1, 0) == "INVALID"
    assert layers.route_check("0123", None, 0) == "ok"          # no GPU: the contract only
    assert layers.route_check("0123", None, 3) == "INVALID"


def test_a_part_checks_as_its_worst_seed():
    row = layers.LayersRow("sequential", "0", "4x64x64", 16, 1.0, 0.5, 2.0, cpu_routed=16,
                           gpu_routed=16, cpu_contract=0, gpu_contract=0, check="ok")
    bad = replace(row, seed="1", cpu_s=3.0, gpu_s=1.5, check="DIFFERENT", note="x")
    mid = layers.median_row([row, bad])
    assert (mid.seed, mid.check, mid.cpu_s, mid.gpu_s, mid.ratio) == (
        "median", "DIFFERENT", 2.0, 1.0, 2.0)
    assert mid.note == "seed 1: x"


def test_parts_are_parsed_in_the_suites_order():
    assert layers.parse_parts(None) == layers.parse_parts("all") == [
        "wave", "sequential", "negotiate"]
    assert layers.parse_parts("negotiate, wave,wave") == ["wave", "negotiate"]
    for bad in ("nope", "wave,nope", ","):
        with pytest.raises(InputError) as e:
            layers.parse_parts(bad)
        assert e.value.field == "--parts"


def test_cli_reports_a_bad_part_in_one_line(capsys):
    cli = pytest.importorskip("mazeroute.cli")
    assert cli.main(["bench", "--suite", "layers", "--parts", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--parts" in err and "nope" in err


def test_seeds_default_to_three_for_layers_and_five_for_classes(monkeypatch):
    seen = {}

    def suite(parts, seed, seeds, *rest):
        seen.update(parts=parts, seed=seed, seeds=seeds)
        return []

    monkeypatch.setattr(bench, "layers_suite", suite)
    assert bench.run(_tiny("--parts", "negotiate", "--seed", "4")) == 0
    assert seen == {"parts": ["negotiate"], "seed": 4, "seeds": 3}
    args = _args("--suite", "classes")
    assert args.seeds is None
    bench._check_args(args)
    assert args.seeds == bench.routing.ROUTING_SEEDS


def test_run_prints_the_table_and_writes_layers_csv_and_the_log(tmp_path, capsys):
    log = tmp_path / "layers.md"
    assert bench.run(_tiny("--parts", "sequential", "--seeds", "1", "-o", str(tmp_path),
                           "--log", str(log))) == 0
    out = capsys.readouterr().out
    assert "| part | seed | size | nets | cpu s | gpu s |" in out
    with open(tmp_path / "layers.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == [f.name for f in fields(layers.LayersRow)]
    assert [(r["part"], r["seed"], r["check"]) for r in rows] == [
        ("sequential", "0", "ok"), ("sequential", "median", "ok")]
    assert float(rows[0]["cpu_s"]) > 0 and int(rows[0]["cpu_routed"]) > 0
    assert rows[0]["cpu_contract"] == "0"
    assert "| sequential | median |" in log.read_text(encoding="utf-8")


# -- the GPU's columns, with the CPU standing in for it -----------------------------------
@pytest.fixture
def fake_gpu(monkeypatch):
    """A pretend GPU: its wavefront and routes are the CPU's, its pool holds 1 MiB."""
    import mazeroute.compiled as compiled
    import mazeroute.engines as engines_pkg
    import mazeroute.router.layered as layered
    from mazeroute.engines import grid3d

    pool = types.SimpleNamespace(free_all_blocks=lambda: None, total_bytes=lambda: 1 << 20)
    dev = types.SimpleNamespace(synchronize=lambda: None, id=0)
    runtime = types.SimpleNamespace(getDeviceProperties=lambda i: {"name": b"Fake GPU"})
    cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(Device=lambda *a: dev,
                                                            runtime=runtime),
                                 get_default_memory_pool=lambda: pool, __version__="fake")
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    fake = types.SimpleNamespace(bfs3d=grid3d.bfs3d)
    monkeypatch.setitem(sys.modules, "mazeroute.engines.gpu_grid3d", fake)
    monkeypatch.setattr(engines_pkg, "gpu_grid3d", fake, raising=False)
    monkeypatch.setattr(engines_pkg, "gpu_available", lambda: True)
    warmed = []
    monkeypatch.setattr(compiled, "layers_warmup", warmed.append)
    real = layered.route_layered

    def route(lay, mode, backend="cpu"):
        res = real(lay, mode, backend="cpu")
        res.engine = backend + "/stand-in"
        return res

    monkeypatch.setattr(layered, "route_layered", route)
    return types.SimpleNamespace(fake=fake, warmed=warmed, bfs3d=grid3d.bfs3d)


def test_with_a_gpu_every_column_is_measured_and_checked(fake_gpu):
    rows = layers.layers_suite(seeds=1, repeats=2, scale=SCALE)
    assert fake_gpu.warmed == [True]
    for r in rows:
        assert r.gpu_s > 0 and r.ratio == pytest.approx(r.cpu_s / r.gpu_s)
        assert r.check == "ok", r
        if r.part != "wave":
            assert r.gpu_routed == r.cpu_routed and r.gpu_contract == 0
            assert r.gpu_bytes_per_cell == (1 << 20) / (4 * 64 * 64)
            assert r.seed == "median" or r.gpu_digest == r.cpu_digest


def test_different_routes_and_wrong_levels_fail_the_run(fake_gpu, monkeypatch, capsys):
    real = layers.digest
    monkeypatch.setattr(layers, "digest", lambda res: real(res)[::-1]
                        if res.engine.startswith("gpu") else real(res))
    fake_gpu.fake.bfs3d = lambda *a, **k: fake_gpu.bfs3d(*a, **k) + np.uint32(1)
    assert bench.run(_tiny("--seeds", "1", "--parts", "wave,sequential")) == 1
    out = capsys.readouterr().out
    assert "| wave | 0 |" in out and "| WRONG |" in out
    assert "| sequential | median |" in out and "| DIFFERENT |" in out
