"""Root pytest configuration: skip importing GPU host modules where CuPy is missing."""

import fnmatch
import importlib.util

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
