"""Root pytest configuration: a Numba cache a test worker, and GPU host modules not
imported where CuPy is missing."""

import fnmatch
import importlib.util
import os
from pathlib import Path

# Numba's cache is not safe for processes that compile one function at once: two of them
# can give different signatures the same cache file, and a process that loads it later
# runs the wrong machine code. So each pytest-xdist worker keeps a cache of its own, in
# the checkout's build folder (set before any test imports Numba).
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER and not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = str(Path(__file__).resolve().parent / "build"
                                        / "numba-cache" / _WORKER)

GPU_MODULES = ["mazeroute/engines/gpu*.py", "mazeroute/engines/cuda*.py"]
collect_ignore_glob = []
if importlib.util.find_spec("cupy") is None:
    # Their doctests need CuPy; their behaviour is covered by tests/test_gpu*.py (marked gpu).
    collect_ignore_glob += GPU_MODULES


def pytest_collection_modifyitems(config, items):
    """Tests marked ``gpu`` skip, with the reason, where CuPy or a CUDA device is missing.

    The doctests of the GPU host modules are marked ``gpu`` too, so that the device run
    (``pytest -m gpu``) runs them instead of deselecting them.
    """
    import pytest

    from mazeroute.engines import gpu_available

    for item in items:
        path = item.path.relative_to(config.rootpath).as_posix()
        if isinstance(item, pytest.DoctestItem) and any(
                fnmatch.fnmatch(path, g) for g in GPU_MODULES):
            item.add_marker(pytest.mark.gpu)
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs CuPy and a CUDA device (none found)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
