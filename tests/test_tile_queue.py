"""kernels/tile_queue.cuh: the work queue's hand-over is ordered.

The run ends when the pending-work counter reaches zero, so ``push`` must make its
increment visible before any consumer can take the item. Relaxed atomics on two
addresses are not ordered, so the slot must be published with release semantics (or
after a fence). This reads the source, so it runs without a GPU; the GPU stress test is
``tests/test_gpu_grid.py::test_work_queue_ends_only_when_every_tile_is_done_under_stress``.
"""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "kernels" / "tile_queue.cuh"


def _body(name: str) -> str:
    text = SOURCE.read_text()
    start = re.search(rf"\b{name}\s*\([^)]*\)\s*{{", text)
    assert start, f"{name} not found in {SOURCE}"
    depth, i = 1, start.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start.end():i - 1]


def test_push_raises_pending_before_publishing_with_release_order():
    body = _body("push")
    inc = body.index("counters[PENDING]")
    publish = re.search(r"(cas_release|atomicCAS)\s*\(\s*slot", body)
    assert publish and inc < publish.start()
    between = body[inc:publish.start()]
    released = publish.group(1) == "cas_release" or re.search(r"fence\(\)|__threadfence",
                                                               between)
    assert released, "the slot is published by a relaxed CAS with no fence after the increment"
    assert "atom.release.gpu" in _body("cas_release")


def test_every_consumer_fences_after_taking_an_item():
    for kernel in ("grid.cu", "sweep.cu"):
        text = (SOURCE.parent / kernel).read_text()
        for m in re.finditer(r"item = dequeue\(", text):
            after = text[m.end():m.end() + 400]
            assert "fence();" in after, f"{kernel}: no fence after dequeue at {m.start()}"
