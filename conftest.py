"""Root pytest configuration: skip importing GPU host modules where CuPy is missing."""

import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("cupy") is None:
    # Their doctests need CuPy; their behaviour is covered by tests/test_gpu*.py (marked gpu).
    collect_ignore_glob += ["mazeroute/engines/gpu*.py", "mazeroute/engines/cuda*.py"]


def pytest_collection_modifyitems(config, items):
    """Tests marked ``gpu`` skip, with the reason, where CuPy or a CUDA device is missing."""
    import pytest

    from mazeroute.engines import gpu_available

    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs CuPy and a CUDA device (none found)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
