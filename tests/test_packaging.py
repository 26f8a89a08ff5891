"""The wheel ships every package of the source tree."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")     # Python 3.11 on

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_of_the_tree_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "mazeroute").rglob("__init__.py")}
    assert found <= listed, f"not shipped by pip install: {sorted(found - listed)}"
    assert "mazeroute.kernels" in listed
