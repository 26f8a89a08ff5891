"""Backtracing: shortest, deterministic, straight where it can be."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.backtrace import backtrace, bends, bends_many
from mazeroute.engines import UNREACHED, bfs
from mazeroute.generate import maze_mask


def _is_path(path):
    steps = np.abs(np.diff(path, axis=0)).sum(axis=1)
    return bool((steps == 1).all())


@pytest.mark.parametrize("seed", range(6))
def test_path_descends_one_level_per_step_to_the_root(seed):
    rng = np.random.default_rng(seed)
    free = rng.random((30, 40)) > 0.3
    free[0, 0] = True
    lv = bfs(free, (0, 0), backend="cpu")
    reached = np.argwhere(lv != UNREACHED)
    y, x = reached[rng.integers(len(reached))]
    path = backtrace(lv, (int(x), int(y)))
    assert len(path) == lv[y, x] + 1
    assert _is_path(path)
    assert path[-1].tolist() == [0, 0]
    assert [lv[cy, cx] for cx, cy in path] == list(range(lv[y, x], -1, -1))


def test_keeps_direction_on_an_open_grid():
    lv = bfs(np.ones((20, 20), bool), (0, 0), backend="cpu")
    path = backtrace(lv, (19, 19))
    assert bends(path) == 1       # one L, the fewest possible


def test_window_with_origin_gives_the_same_path():
    free = ~maze_mask(41, 31, seed=5)
    lv = bfs(free, (0, 0), backend="cpu")
    full = backtrace(lv, (40, 30))
    ys, xs = full[:, 1], full[:, 0]
    y0, x0 = ys.min(), xs.min()
    win = lv[y0:ys.max() + 1, x0:xs.max() + 1]
    assert backtrace(win, (40, 30), origin=(int(x0), int(y0))).tolist() == full.tolist()


def test_unreached_target_is_an_error():
    free = np.ones((3, 3), bool)
    free[:, 1] = False
    lv = bfs(free, (0, 0), backend="cpu")
    with pytest.raises(ValueError, match="not reached"):
        backtrace(lv, (2, 2))


def test_bends_counts_direction_changes():
    assert bends(np.array([[0, 0], [1, 0], [2, 0]])) == 0
    assert bends(np.array([[0, 0], [1, 0], [1, 1], [2, 1]])) == 2


def _turns_oracle(path: np.ndarray) -> int:
    """Direction changes along ``path``, by NumPy differences (an independent statement)."""
    if len(path) < 3:
        return 0
    step = np.diff(np.asarray(path), axis=0)
    return int(np.any(step[1:] != step[:-1], axis=1).sum())


def _walk(rng, n: int) -> np.ndarray:
    """A random walk of ``n`` cells, one unit step at a time."""
    steps = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]])[rng.integers(0, 4, max(0, n - 1))]
    return np.concatenate([np.zeros((min(n, 1), 2), np.int64), np.cumsum(steps, axis=0)])


@pytest.mark.parametrize("seed", range(5))
def test_bends_of_many_paths_at_once_equal_one_at_a_time(seed):
    rng = np.random.default_rng(seed)
    paths = [_walk(rng, int(n)) + rng.integers(0, 50, 2)
             for n in rng.integers(0, 12, 60)]
    want = [_turns_oracle(p) for p in paths]
    assert bends_many(paths).tolist() == want
    assert [bends(p) for p in paths] == want
    assert bends_many([]).tolist() == []
