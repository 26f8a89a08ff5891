"""Root pytest configuration: skip importing GPU host modules where CuPy is missing."""

import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("cupy") is None:
    # Their doctests need CuPy; their behaviour is covered by tests/test_gpu*.py (marked gpu).
    collect_ignore_glob += ["mazeroute/engines/gpu*.py", "mazeroute/engines/cuda*.py"]
