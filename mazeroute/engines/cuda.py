"""CuPy plumbing shared by the GPU engines: find ``kernels/*.cu``, compile once per device.

Kernel sources are real ``.cu`` files (``kernels/`` in a checkout, ``mazeroute/kernels``
in an installed wheel). Each is compiled by NVRTC through ``cupy.RawModule`` the first
time a device needs it and cached per device, as cuCIM does.
"""

from __future__ import annotations

from pathlib import Path

import cupy

_HERE = Path(__file__).resolve().parent


def kernel_dir() -> Path:
    """The folder holding the ``.cu`` sources."""
    for candidate in (_HERE.parent / "kernels", _HERE.parent.parent / "kernels"):
        if candidate.is_dir() and any(candidate.glob("*.cu")):
            return candidate
    raise FileNotFoundError("mazeroute's kernels/ folder with the .cu sources is missing")


def kernel_source(name: str) -> str:
    """Text of ``kernels/<name>.cu``."""
    return (kernel_dir() / f"{name}.cu").read_text()


@cupy.memoize(for_each_device=True)
def load_module(name: str, options: tuple[str, ...] = (),
                cooperative: bool = False) -> cupy.RawModule:
    """``kernels/<name>.cu`` compiled for the current device (cached per device).

    Options are NVRTC flags, e.g. ``("-DLOCAL_FRONTIER_CAPACITY=2048",)``. A
    ``cooperative`` module's kernels are launched as cooperative grids (their blocks may
    meet at ``cooperative_groups::this_grid().sync()``; a launch with more blocks than can
    be resident at once fails instead of hanging).
    """
    opts = ("--std=c++17", f"-I{kernel_dir()}", *options)
    return cupy.RawModule(code=kernel_source(name), options=opts,
                          enable_cooperative_groups=cooperative)


def get_kernel(module: str, kernel: str, options: tuple[str, ...] = (),
               cooperative: bool = False) -> cupy.RawKernel:
    """One ``extern "C"`` kernel from ``kernels/<module>.cu``."""
    return load_module(module, tuple(options), cooperative).get_function(kernel)


@cupy.memoize(for_each_device=True)
def device_attributes() -> dict:
    """The current device's attributes (``cupy.cuda.Device().attributes``), read once.

    CuPy queries every attribute from the driver on each access of that property, which
    a router would otherwise pay each time it is built.
    """
    return dict(cupy.cuda.Device().attributes)


def resident_blocks(kernel: cupy.RawKernel, threads: int, dynamic_smem: int = 0) -> int:
    """How many blocks of ``kernel`` (``threads`` each, ``dynamic_smem`` bytes of dynamic
    shared memory) one multiprocessor of the current device holds at once: the driver's
    occupancy answer, which a cooperative launch's grid must not exceed."""
    from cupy.cuda import driver
    return int(driver.occupancyMaxActiveBlocksPerMultiprocessor(
        kernel.kernel.ptr, threads, dynamic_smem))
