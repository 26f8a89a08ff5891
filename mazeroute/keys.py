"""The keys each mapping of a layout or netlist file may hold (``FORMATS.md``).

A key that is not one of them is an error, not a field passed over: a misspelt
``blockage:`` would otherwise route the layout without its blockages, and a per-net
``width:`` would look honoured when it is not.

Examples
--------
>>> check_keys({"width": 4, "blockage": []}, LAYOUT_KEYS, "a.yaml")
Traceback (most recent call last):
...
mazeroute.errors.InputError: a.yaml: unknown key 'blockage' (did you mean 'blockages'?)
>>> check_keys({"width": 4, "layer": 2}, LAYOUT_KEYS, "a.yaml")
Traceback (most recent call last):
...
mazeroute.errors.InputError: a.yaml: unknown key 'layer' (did you mean 'layers'?)
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from pathlib import Path

from .errors import InputError, quote

#: A layout file's top level (``version``: the layout format's, 1 when given; ``layers``,
#: ``via_cost`` and ``via_sites``: a multi-layer layout's).
LAYOUT_KEYS = ("name", "width", "height", "blockages", "nets", "version",
               "layers", "via_cost", "via_sites")
#: A netlist file's top level (``--nets``, and ``batch --layout``'s netlists).
NETLIST_KEYS = ("nets",)
#: Each entry of ``nets``.
NET_KEYS = ("name", "pins")
#: A blockage written as a mapping: ``{rect: [...]}`` or ``{cell: [x, y]}``, and the
#: layer it blocks (every layer without one).
BLOCKAGE_KEYS = ("rect", "cell", "layer")
#: Each entry of ``layers``.
LAYER_KEYS = ("name", "direction")


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
        Naming the key and, when one is close, the known key it was likely meant to be.
    """
    for key in data:
        if key in known:
            continue
        close = difflib.get_close_matches(key, known, n=1) if isinstance(key, str) else []
        hint = f" (did you mean {quote(close[0])}?)" if close else ""
        raise InputError(f"unknown key {quote(key)}{hint}", file=file, field=field)
