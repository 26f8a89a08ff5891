"""Whether this machine can run the GPU engines, and what a failing GPU raises.

Examples
--------
>>> ok, why = gpu_status()
>>> ok or why != ""
True
>>> first_line(ValueError("one\\ntwo"))
'one'
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable

__all__ = ["MIN_COMPUTE_CAPABILITY", "gpu_status", "gpu_available", "open_device",
           "device_scope", "device_errors", "first_line"]


#: Oldest GPU the kernels run on: they use ``__reduce_*_sync`` (sm_80) and DPX (sm_90,
#: emulated by NVRTC below that).
MIN_COMPUTE_CAPABILITY = (8, 0)


@functools.cache
def gpu_status() -> tuple[bool, str]:
    """Whether the GPU engines can run here, and if not, why (one line).

    >>> ok, why = gpu_status()
    >>> ok or why != ""
    True
    """
    try:
        import cupy
    except Exception:
        return False, "CuPy is not installed"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return False, f"no usable CUDA device ({first_line(e)})"
    if count < 1:
        return False, "no CUDA device found"
    try:
        cc = cupy.cuda.Device().compute_capability          # e.g. "90"
    except Exception as e:
        return False, f"the CUDA device cannot be queried ({first_line(e)})"
    major, minor = divmod(int(cc), 10)
    if (major, minor) < MIN_COMPUTE_CAPABILITY:
        need = ".".join(map(str, MIN_COMPUTE_CAPABILITY))
        return False, (f"the GPU has compute capability {major}.{minor}; mazeroute's kernels "
                       f"need {need} or newer")
    return True, ""


def gpu_available() -> bool:
    """True when CuPy imports and sees a CUDA device new enough for the kernels."""
    return gpu_status()[0]


def open_device() -> None:
    """Make the device's context and CuPy's memory pool now (CuPy makes them at the first
    allocation), so that a caller can have it done beside other work."""
    import cupy

    cupy.empty(1, cupy.uint8)


def device_scope() -> Callable[[], contextlib.AbstractContextManager]:
    """What makes the caller's current CUDA device current again: for work handed to
    another thread, which starts on CuPy's default device. A null context without a
    usable GPU.

    >>> with device_scope()():
    ...     pass
    """
    if not gpu_available():
        return contextlib.nullcontext
    import cupy

    device = cupy.cuda.Device().id
    return lambda: cupy.cuda.Device(device)


def device_errors() -> tuple[type[BaseException], ...]:
    """The exception types of a failing GPU: out of memory, CUDA runtime and driver errors,
    kernel compilation. Empty without CuPy (``except ()`` catches nothing)."""
    try:
        import cupy
        from cupy.cuda import compiler, driver, memory, runtime
    except Exception:
        return ()
    kinds = [memory.OutOfMemoryError, runtime.CUDARuntimeError, driver.CUDADriverError,
             compiler.CompileException]
    cuda_error = getattr(getattr(cupy, "cuda", None), "CUDAError", None)
    if isinstance(cuda_error, type):
        kinds.append(cuda_error)
    return tuple(kinds)


def first_line(e: BaseException, limit: int = 160) -> str:
    """An exception as one short line (CUDA compile errors span pages)."""
    text = str(e).strip().splitlines()
    line = text[0] if text else type(e).__name__
    return line if len(line) <= limit else line[:limit - 1] + "…"
