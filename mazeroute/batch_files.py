"""The files and folders of a batch: the inputs it finds, and the output folders it names
and cleans.

:func:`collect` finds a batch's input files (each once, however it is named),
:func:`assign_folders` names its layouts' output folders in input order, and
:func:`remove_parts` sweeps what a killed run left behind. The command line's one-line
messages (:func:`say`) live here too, as every step of a batch may print one.

Examples
--------
>>> assign_folders(["chip", "chip", "a/b"], set())
['chip', 'chip-2', 'a_b']
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import InputError
from .io import safe_folder_name
from .readers import sniff_format
from .report import safe_text

PROG = "mazeroute"
#: Longest message line printed (longer ones keep their start and end).
MESSAGE_WIDTH = 280
#: Suffixes of the layout files a batch finds in a folder (compared without case).
LAYOUT_SUFFIXES = (".yaml", ".yml")
#: Suffixes of files a batch takes from a folder when their content is a puzzle or a map
#: (a README.txt beside them is not a layout).
PUZZLE_SUFFIXES = (".txt", ".map")
#: Suffix of the Moving AI scenarios a batch with a base layout takes from a folder.
SCEN_SUFFIX = ".scen"
#: What a batch takes from a folder, for the message when it finds nothing.
FOLDER_KINDS = (".yaml/.yml layouts, and .txt/.map files holding numberlink or ADC puzzles "
                "or Moving AI maps")
#: What one run writes into its folder (a file not written this time is removed).
OUTPUT_FILES = ("routes.json", "report.txt", "layout.png", "view.html")


#: The files that routing one layout writes (or removes, when this run makes none) in
#: its folder.
OUTPUT_NAMES = ("routes.json", "report.txt", "layout.png", "view.html")


def say(kind: str, message: str) -> None:
    """One line on stderr: ``mazeroute: KIND: MESSAGE``, control characters escaped."""
    print(f"{PROG}: {kind}: {safe_text(message, MESSAGE_WIDTH, middle=True)}",
          file=sys.stderr)


# -- the inputs -----------------------------------------------------------------------
def _is_puzzle(path: Path) -> bool:
    try:
        return path.is_file() and sniff_format(path) != "yaml"
    except (InputError, OSError):
        return False


def _layout_files(folder: Path, scen: bool = False) -> list[Path]:
    """Every ``.yaml``/``.yml`` entry under ``folder`` that is not a folder, and every
    ``.txt``/``.map`` file whose content is a puzzle or a map (and with ``scen``, every
    ``.scen`` file: netlists, when the batch has a base layout).

    FIFOs, devices and broken links of layout names are included, so that the batch
    reports them in their rows rather than skipping them unseen; links to folders are
    not followed (a link loop cannot trap the search).
    """
    found = []

    def unreadable(e: OSError) -> None:
        say("warning", f"{e.filename}: cannot search: {e.strerror}")

    for dirpath, _dirs, names in os.walk(folder, onerror=unreadable):
        for n in names:
            suffix = os.path.splitext(n)[1].lower()
            if suffix in LAYOUT_SUFFIXES or (scen and suffix == SCEN_SUFFIX) or (
                    suffix in PUZZLE_SUFFIXES and _is_puzzle(Path(dirpath) / n)):
                found.append(Path(dirpath) / n)
    return sorted(found)


def collect(inputs: Sequence[str], scen: bool = False) -> list[Path]:
    """The layout files of a batch, each once however it is named (by resolved path);
    ``scen``: take the ``.scen`` files of folders too (netlists of a base layout)."""
    files: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = _layout_files(p, scen)
            if not found:
                say("warning", f"{p}: nothing to route in this folder (batch takes "
                    f"{FOLDER_KINDS}{', and .scen scenarios' if scen else ''})")
            files += found
        else:
            files.append(p)       # a missing file is reported in its row
    seen, unique = set(), []
    for f in files:
        try:
            key = f.resolve()
        except (OSError, RuntimeError):          # a link loop: its own spelling
            key = f.absolute()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def refuse_inputs(targets: Iterable[str | Path], keep: Sequence[str | Path],
                  field: str = "-o") -> None:
    """Refuse (an :class:`InputError` naming ``field``) to write or remove any of
    ``targets`` that is one of the command's input files ``keep``: a layout file named
    ``routes.json`` in the output folder would be replaced by its own routes."""
    for target in targets:
        if any(same_file(target, given) for given in keep):
            raise InputError(f"{safe_text(target, 200, middle=True)} is an input file of "
                             "this command; writing it would destroy it", field=field)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file (links resolved; False when either cannot be
    resolved)."""
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError):
        return False


# -- the output folders ---------------------------------------------------------------
def occupied(out: str | Path, inputs: Iterable[str | Path] = ()) -> set[str]:
    """Names in the output folder ``out`` that no layout's folder can have: entries that
    are not folders (an input file kept there, say), and the folders there that hold
    any of the ``inputs`` (a layout's outputs must not land among the input files).
    Seeding a run's taken names with them gives a layout of such a name the folder
    ``name-2`` instead of a failed row or a folder of inputs; the same entries and
    inputs give the same folders again on ``--resume``."""
    names = set()
    root = os.path.realpath(out)             # realpath: a link loop is no error here
    for f in inputs:
        try:
            inside = Path(os.path.relpath(os.path.realpath(f), root)).parts
        except ValueError:                   # another drive
            continue
        if len(inside) > 1 and inside[0] != os.pardir:
            names.add(inside[0])
    try:
        with os.scandir(out) as entries:
            for entry in entries:
                try:
                    if not entry.is_dir():
                        names.add(entry.name)
                except OSError:
                    names.add(entry.name)
    except OSError:
        pass                          # not there yet: nothing in the way
    return names


def assign_folders(names: Iterable[str], taken: set[str]) -> list[str]:
    """The output folders of one file's layouts, given the folders of the files before it
    (``taken``, which grows): the order of the calls decides, so call in input order."""
    return [safe_folder_name(name, taken) for name in names]


def sweep_temporaries(out: Path, folders: Iterable[str]) -> None:
    """Remove what a killed worker may have left in these output folders: temporary
    outputs (``.routes.*.json.part`` ...), and the folder itself when that leaves it
    empty."""
    for name in folders:
        folder = out / name
        remove_parts(folder)
        with contextlib.suppress(OSError):
            folder.rmdir()                         # only when empty


def remove_parts(folder: Path) -> None:
    """Remove the temporary outputs (``.routes.*.json.part`` ...) that a killed run left
    in ``folder``: the caller is the folder's only writer now (it holds its lock, or its
    run is over)."""
    for output in OUTPUT_FILES:
        stem, suffix = os.path.splitext(output)
        for part in folder.glob(f".{stem}.*{suffix}.part"):
            with contextlib.suppress(OSError):
                part.unlink()
