"""The GPU weighted engine's uploads (:mod:`.gpu_weighted`): the device's copy of the
costs, kept in step with the caller's array through the ``changed`` hints, and a call's
one workspace (every part of a call's input in one transfer).

:class:`DeviceUploads` is a mixin of :class:`~.gpu_weighted.GPUNetSearch`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DeviceUploads"]


class DeviceUploads:
    """Uploads of the costs and of a call's input (a mixin of
    :class:`~.gpu_weighted.GPUNetSearch`, which supplies ``_xp``, ``_cost``, ``_loaded``,
    ``_least``, ``launches`` and the kernel ``_set_costs``)."""

    def _cost_update(self, flat: np.ndarray,
                     changed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
        """Check the costs to send. At the first call or without hints, all of them are
        uploaded here; else the ``changed`` cells' indices and costs (int32) are returned,
        to travel with the call's one upload (cells not listed keep their last upload)."""
        if changed is None or not self._loaded:
            least = int(flat.min()) if flat.size else 1
            if least < 1:
                raise ValueError("cell costs must be at least 1")
            self._cost.set(flat)
            self._loaded = True
            self._least = least
            return None
        ch = np.asarray(changed, dtype=np.int64).ravel()
        if not ch.size:
            return None
        if int(ch.min()) < 0 or int(ch.max()) >= flat.size:
            raise ValueError(f"changed holds a cell index outside the {flat.size} cells")
        values = flat[ch]
        least = int(values.min())
        if least < 1:
            raise ValueError("cell costs must be at least 1")
        self._least = min(self._least, least)
        return ch.astype(np.int32), values.astype(np.int32)

    def _upload(self, parts: list[np.ndarray], extra: int):
        """``parts`` (int32) copied, in one transfer, to the start of the workspace, which
        holds ``extra`` more int32 after them. Returns it and the parts' offsets."""
        sizes = [p.size for p in parts]
        offsets = np.zeros(len(parts) + 1, np.int64)
        np.cumsum(sizes, out=offsets[1:])
        n = int(offsets[-1])
        ws = self._buffer("_ws", n + extra, self._xp.int32)
        ws[:n].set(np.concatenate(parts).astype(np.int32, copy=False))
        return ws, offsets.tolist()

    def _scatter(self, ws, at: int, n: int) -> None:
        """``cost[idx] = val`` for the ``n`` pairs at ``ws[at:]`` (indices, then costs)."""
        blocks = min(-(-n // 256), 1024)
        self._set_costs((blocks,), (256,), (ws[at:at + n], ws[at + n:at + 2 * n],
                                            np.int32(n), self._cost))
        self.launches += 1

    def _send_update(self, update) -> None:
        if update is not None:
            ws, off = self._upload(list(update), 0)
            self._scatter(ws, off[0], update[0].size)

    def _buffer(self, name: str, size: int, dtype) -> object:
        buf = getattr(self, name)
        if buf.size < size:
            buf = self._xp.empty(size, dtype=dtype)
            setattr(self, name, buf)
        return buf
