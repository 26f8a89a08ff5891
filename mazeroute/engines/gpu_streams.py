"""Launches of one call side by side on the device (:mod:`.gpu_weighted`).

A call's boxes go out in several launches (:func:`~.weighted_launch.plan_launches`): one
a class of shared memory and one of boxes searched in tiles. They read the same costs
and write apart (each request its own scratch and header row; the output's offsets are
taken by atomics), so no launch waits for another. On one stream they run one after
another, and a launch of a few large boxes keeps most of the device idle until its
slowest box is done; on streams of their own they overlap, and the call takes about as
long as its slowest launch. The results are the same cells either way.

:class:`SideStreams` is a mixin of :class:`~.gpu_weighted.GPUNetSearch`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["SideStreams"]


class SideStreams:
    """Jobs of launches run side by side (a mixin of
    :class:`~.gpu_weighted.GPUNetSearch`, which supplies ``_xp``)."""

    _side: list | None = None           # streams, made at the first call that needs one
    _joins: list | None = None          # one event a side stream, re-recorded each call
    _start = None                       # the current stream's event the jobs start after

    def _side_by_side(self, apart: Sequence[Callable[[], None]],
                      in_turn: Sequence[Callable[[], None]] = ()) -> None:
        """Run the jobs ``apart`` (each enqueues launches on the current stream), each on
        a stream of its own after everything enqueued so far, then the jobs ``in_turn``
        (launches that share a work space: the tiled ones) one after another on one more,
        and make the current stream wait for all of them. Off a device, or with one job,
        they run in turn where they are. A job that waits for the device itself (a
        tree's pins left, in the tiled search) holds back only the jobs after it, so
        those go last."""
        jobs = list(apart)
        if in_turn:
            jobs.append(lambda: _each(in_turn))
        cuda = getattr(self._xp, "cuda", None)
        if cuda is None or len(jobs) < 2:
            _each(jobs)
            return
        if self._side is None:
            self._side, self._joins = [], []
            self._start = cuda.Event(disable_timing=True)
        while len(self._side) < len(jobs):
            self._side.append(cuda.Stream(non_blocking=True))
            self._joins.append(cuda.Event(disable_timing=True))
        main = cuda.get_current_stream()
        self._start.record(main)
        for job, stream, done in zip(jobs, self._side, self._joins):
            stream.wait_event(self._start)
            with stream:
                job()
            done.record(stream)
        for done in self._joins[:len(jobs)]:
            main.wait_event(done)


def _each(jobs: Sequence[Callable[[], None]]) -> None:
    for job in jobs:
        job()
