"""The host's limits: the memory available (machine, control groups, address space), and
the sizes an input may have."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mazeroute import limits
from mazeroute.errors import InputError
from mazeroute.readers import load_layouts


# -- memory available: the machine, control groups, the address-space limit ---------------
def _groups(tmp_path: Path, own: str, files: dict[str, str]) -> tuple[Path, Path]:
    root = tmp_path / "cgroup"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (tmp_path / "self").write_text(own)
    return root, tmp_path / "self"


def test_cgroup_v2_room_is_the_tightest_limit_up_the_tree(tmp_path):
    root, own = _groups(tmp_path, "0::/jobs/run7\n", {
        "jobs/memory.max": str(6 << 30), "jobs/memory.current": str(1 << 30),
        "jobs/run7/memory.max": str(2 << 30), "jobs/run7/memory.current": str(512 << 20),
        "memory.max": "max"})
    assert limits._cgroup_room(root, own) == (2 << 30) - (512 << 20)


def test_cgroup_v1_room_and_no_limit(tmp_path):
    root, own = _groups(tmp_path, "4:memory:/box\n3:cpuset:/\n", {
        "memory/box/memory.limit_in_bytes": str(3 << 30),
        "memory/box/memory.usage_in_bytes": str(1 << 30),
        "memory/memory.limit_in_bytes": "9223372036854771712",
        "memory/memory.usage_in_bytes": str(5 << 30)})
    assert limits._cgroup_room(root, own) == 2 << 30
    root, own = _groups(tmp_path / "free", "0::/\n", {"memory.max": "max",
                                                         "memory.current": "123"})
    assert limits._cgroup_room(root, own) is None


def test_a_cgroup_limit_bounds_available_memory(monkeypatch):
    monkeypatch.setattr(limits, "_machine_memory", lambda: 64 << 30)
    monkeypatch.setattr(limits, "_cgroup_room", lambda: 1 << 30)
    monkeypatch.setattr(limits, "_address_room", lambda: None)
    assert limits.available_memory() == 1 << 30
    with pytest.raises(InputError, match="more than the 1.0 GiB"):
        limits.check_size(20000, 20000, "big.yaml")
    monkeypatch.setattr(limits, "_address_room", lambda: -5)   # over the limit
    assert limits.available_memory() == 1                      # known: no room


def test_address_space_limit_is_read_in_a_child():
    code = ("import resource; from mazeroute import limits as L; "
            "resource.setrlimit(resource.RLIMIT_AS, (6 << 30, resource.RLIM_INFINITY)); "
            "r = L._address_room(); print(0 < r < 6 << 30, L.available_memory() <= r)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "True"]


def test_one_size_bound_and_one_wording_for_every_input_file(tmp_path, monkeypatch):
    """Every input file is read through one bounded reader: a layout, a netlist, a puzzle
    and a routes file over :data:`~mazeroute.limits.MAX_INPUT_BYTES` are refused in the
    same words (the YAML loader and the puzzle readers once had two bounds and two
    wordings)."""
    from mazeroute.contract import load_routes
    from mazeroute.readers import load_layout, load_netlist, read_numberlink
    yaml_file = tmp_path / "chip.yaml"
    yaml_file.write_text("width: 4\nheight: 4\nnets: []\n" + "# padding\n" * 20)
    puzzle = tmp_path / "p.txt"
    puzzle.write_text("3 1\na.a\n" + "# padding\n" * 20)
    routes = tmp_path / "routes.json"
    routes.write_text("{}" + " " * 300)
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 100)
    calls = [(load_layout, yaml_file), (load_netlist, yaml_file), (load_layouts, yaml_file),
             (read_numberlink, puzzle), (load_layouts, puzzle), (load_routes, routes)]
    words = set()
    for call, path in calls:
        with pytest.raises(InputError) as e:
            call(path)
        assert str(e.value).startswith(f"{path}: ")
        words.add(str(e.value)[len(f"{path}: "):])
    assert words == {"is larger than the 9.53674e-05 MiB an input file may be"}


def test_the_batch_precheck_names_special_files_as_the_reader_does(tmp_path):
    """The batch's check before reading (:func:`~mazeroute.readers.regular_input`) and
    the reader use the same words for a broken link and a device."""
    from mazeroute.readers import read_text, regular_input
    link = tmp_path / "gone.yaml"
    link.symlink_to(tmp_path / "nowhere.yaml")
    for path in (link, "/dev/null"):
        with pytest.raises(InputError) as pre:
            regular_input(path)
        with pytest.raises(InputError) as read:
            read_text(path)
        assert str(pre.value) == str(read.value)
    regular_input(tmp_path)                      # a folder passes: a batch walks it
    regular_input(tmp_path / "missing.yaml")     # left to the loader, which names it


@pytest.mark.parametrize("data, words", [(b"width: 4\x00\n", "is a binary file, not text"),
                                         (b"width: \xff\n", "not UTF-8 text (bad byte at "
                                                            "offset 7)")])
def test_the_yaml_loader_and_the_format_readers_refuse_odd_bytes_alike(tmp_path, data, words):
    from mazeroute.readers import load_layout
    p = tmp_path / "odd.yaml"
    p.write_bytes(data)
    for call in (load_layout, load_layouts):
        with pytest.raises(InputError) as e:
            call(p)
        assert str(e.value) == f"{p}: {words}"
