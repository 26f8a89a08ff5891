"""SideStreams (mazeroute/engines/gpu_streams.py): a call's launches side by side.

The order of streams, events and jobs is checked on the CPU against a stand-in of CuPy's
``cuda``; on the device (marked ``gpu``), a call whose boxes need launches of several
kinds gives the Dijkstra oracle's wires, its launches on streams of their own.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from mazeroute.engines.gpu_streams import SideStreams
from tests.corpus import boxes_of_sizes_case


class _Log:
    """A stand-in of ``cupy.cuda``: streams and events that write what is done to them,
    in order, to one log."""

    def __init__(self):
        self.log: list[tuple] = []
        self.current = self.main = self.Stream("main")
        self.streams = 0
        self.events = 0

    def Stream(self, name=None, non_blocking=False):       # noqa: N802 (CuPy's name)
        cuda = self
        if name is None:
            self.streams += 1
            name = f"s{self.streams}"

        class _Stream:
            def wait_event(self, event):
                cuda.log.append(("wait", name, event.name))

            def __enter__(self):
                cuda.current, self.before = self, cuda.current

            def __exit__(self, *exc):
                cuda.current = self.before

        stream = _Stream()
        stream.name = name
        return stream

    def Event(self, disable_timing=False):                 # noqa: N802 (CuPy's name)
        cuda = self
        self.events += 1

        class _Event:
            name = f"e{self.events}"

            def record(self, stream):
                cuda.log.append(("record", stream.name, self.name))
        return _Event()

    def get_current_stream(self):
        return self.current


class _Engine(SideStreams):
    def __init__(self, cuda):
        self._xp = types.SimpleNamespace(cuda=cuda)


def _job(cuda, name):
    return lambda: cuda.log.append(("run", cuda.current.name, name))


def test_jobs_run_apart_after_the_current_stream_and_it_waits_for_all():
    cuda = _Log()
    engine = _Engine(cuda)
    engine._side_by_side([_job(cuda, "a"), _job(cuda, "b")],
                         [_job(cuda, "t1"), _job(cuda, "t2")])
    log = cuda.log
    start = log[0]
    assert start[:2] == ("record", "main")
    runs = {name: stream for kind, stream, name in log if kind == "run"}
    # each apart job on a stream of its own; the in-turn jobs together, last, in order
    assert runs["a"] != runs["b"] and runs["t1"] == runs["t2"] not in (runs["a"], runs["b"])
    assert "main" not in runs.values()
    assert [e[2] for e in log if e[0] == "run"] == ["a", "b", "t1", "t2"]
    for stream in set(runs.values()):
        mine = [e for e in log if e[1] == stream]
        # every side stream waits for the current stream's work before its jobs ...
        assert mine[0] == ("wait", stream, start[2])
        # ... and records its end, which the current stream then waits for
        done = mine[-1]
        assert done[0] == "record"
        assert log.index(("wait", "main", done[2])) > log.index(done)
    assert cuda.current is cuda.main
    # a second call of no more jobs makes no stream or event
    assert cuda.streams == 3
    events = cuda.events
    engine._side_by_side([_job(cuda, "c"), _job(cuda, "d"), _job(cuda, "e")])
    assert cuda.streams == 3 and cuda.events == events


@pytest.mark.parametrize("cuda", [None, "one"])
def test_one_job_or_no_device_runs_in_turn_where_it_is(cuda):
    log = _Log()
    engine = _Engine(log)
    if cuda is None:
        engine._xp = types.SimpleNamespace()
        jobs = [_job(log, "a"), _job(log, "b")]
    else:
        jobs = [_job(log, "a")]
    engine._side_by_side(jobs)
    assert log.log == [("run", "main", name) for name in ("a", "b")[:len(jobs)]]
    assert log.streams == 0


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [0, 1])
def test_launches_side_by_side_give_the_oracles_wires(seed):
    pytest.importorskip("cupy")
    from mazeroute.engines.gpu_weighted import GPUNetSearch
    from mazeroute.engines.weighted_launch import plan_launches
    case = boxes_of_sizes_case(np.random.default_rng(seed), (9, 30, 50, 80, 120, 260))
    search = GPUNetSearch(case.free, case.owner)
    boxes = np.array([r.box for r in case.requests])
    launches = plan_launches(boxes, search.smem_limit)[1]
    assert len(launches) >= 3 and (launches[:, 2] == 0).any()     # tiled too
    got = search.route(case.cost, list(case.requests))
    tiled = int((launches[:, 2] == 0).sum())
    assert len(search._side) == len(launches) - tiled + 1
    for a, b in zip(got, case.expected()):
        assert (a is None) == (b is None) and (a is None or np.array_equal(a, b))
