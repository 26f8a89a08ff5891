"""The keys each mapping of a layout or netlist file may hold (``FORMATS.md``).

A key that is not one of them is an error, not a field passed over: a misspelt
``blockage:`` would otherwise route the layout without its blockages, and a per-net
``width:`` would look honoured when it is not. The keys that a planned multi-layer format
adds are refused in words of their own, so that a user learns the feature is missing
rather than that the key is misspelt.

Examples
--------
>>> check_keys({"width": 4, "blockage": []}, LAYOUT_KEYS, "a.yaml")
Traceback (most recent call last):
...
mazeroute.errors.InputError: a.yaml: unknown key 'blockage' (did you mean 'blockages'?)
>>> check_keys({"width": 4, "layers": 2}, LAYOUT_KEYS, "a.yaml")
Traceback (most recent call last):
...
mazeroute.errors.InputError: a.yaml: multi-layer layouts are not supported yet (key 'layers')
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from pathlib import Path

from .errors import InputError, quote

#: A layout file's top level (``version``: the layout format's, 1 when given).
LAYOUT_KEYS = ("name", "width", "height", "blockages", "nets", "version")
#: A netlist file's top level (``--nets``, and ``batch --layout``'s netlists).
NETLIST_KEYS = ("nets",)
#: Each entry of ``nets``.
NET_KEYS = ("name", "pins")
#: A blockage written as a mapping: ``{rect: [...]}`` or ``{cell: [x, y]}``.
BLOCKAGE_KEYS = ("rect", "cell")
#: Keys of the planned multi-layer format, at any level.
MULTILAYER_KEYS = frozenset({"layers", "via_cost", "via_sites", "layer"})


def check_keys(data: Mapping, known: Collection[str], file: str | Path | None,
               field: str | None = None) -> None:
    """Refuse the first key of ``data`` (in the file's order) that is not in ``known``.

    Parameters
    ----------
    data : Mapping
        One mapping of the parsed file.
    known : Collection[str]
        The keys it may hold.
    file : str or Path or None
        The file, for the message.
    field : str or None
        Where ``data`` lies in the file, as the other errors name it (``nets[2] 'a'``,
        ``blockages[0]``); None at the top level.

    Raises
    ------
    InputError
        Naming the key and, when one is close, the known key it was likely meant to be;
        for a key of the multi-layer format, saying that it is not supported yet.
    """
    for key in data:
        if key in known:
            continue
        refuse_layers({key: None}, file, field)
        close = difflib.get_close_matches(key, known, n=1) if isinstance(key, str) else []
        hint = f" (did you mean {quote(close[0])}?)" if close else ""
        raise InputError(f"unknown key {quote(key)}{hint}", file=file, field=field)


def refuse_layers(data: Mapping, file: str | Path | None, field: str | None) -> None:
    """Refuse ``data`` when it holds a key of the planned multi-layer format.

    Parameters
    ----------
    data : Mapping
        One mapping of the parsed file (a net, a blockage, a pin written as a mapping).
    file : str or Path or None
        The file, for the message.
    field : str or None
        Where ``data`` lies in the file, as :func:`check_keys` takes it.

    Raises
    ------
    InputError
        Naming the first key of :data:`MULTILAYER_KEYS` that ``data`` holds.
    """
    for key in data:
        if isinstance(key, str) and key in MULTILAYER_KEYS:
            raise InputError(f"multi-layer layouts are not supported yet (key {quote(key)})",
                             file=file, field=field)
