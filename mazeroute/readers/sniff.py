"""Recognising an input's format by its content, never its file name."""

from __future__ import annotations

import os
import re

from .adc import ADC_SIZE
from .movingai import MOVINGAI_CHARS
from .numberlink import NL_SIZE
from .text import read_text

#: How much of a file :func:`sniff_format` reads to decide.
SNIFF_BYTES = 64 * 2**10
#: A Moving AI scenario's first line, any version (sniffing).
_SCEN_HEAD = re.compile(r"version\s+[0-9.]+", re.ASCII)
#: A DEF file's header statements, and the one only a DEF holds (LEF has no DESIGN).
_DEF_HEAD = re.compile(r"(VERSION|NAMESCASESENSITIVE|DIVIDERCHAR|BUSBITCHARS|DESIGN)\b")
_DEF_DESIGN = re.compile(r"^\s*DESIGN\s+\S+\s*;", re.MULTILINE)


def sniff_format(path_or_text: str | os.PathLike) -> str:
    r"""The format of an input, recognised by its content (never its file name).

    A :class:`~pathlib.Path` (or any path-like) is read; a ``str`` is read as a path when
    it holds no line break and names an existing file, and is taken as the text itself
    otherwise. The first line that is not blank or a ``#`` comment decides: ``W H``
    (two integers) is ``"numberlink"``, ``SIZE WxH...`` is ``"adc"``, a Moving AI header
    (``type octile``) is ``"movingai"``, as are lines made only of map characters
    (``. G S @ O T W``); ``version 1`` is ``"scen"`` (a Moving AI scenario: nets, no
    grid); a DEF design's header (``VERSION``, ``DIVIDERCHAR``, ... and a ``DESIGN name ;``
    statement) is ``"def"``, which :mod:`mazeroute.cli_groute` routes; anything else is
    ``"yaml"``.

    Examples
    --------
    >>> sniff_format("# puzzles\n3 2\na.a\nb.b\n")
    'numberlink'
    >>> sniff_format("SIZE 10X10X2\nLINE_NUM 7\n")
    'adc'
    >>> sniff_format("type octile\nheight 2\nwidth 3\nmap\n..@\n.T.\n"), sniff_format("..@\n")
    ('movingai', 'movingai')
    >>> sniff_format("width: 4\nheight: 3\nnets: []\n"), sniff_format("version 1\n")
    ('yaml', 'scen')
    >>> sniff_format("VERSION 5.8 ;\nDESIGN gcd ;\nUNITS DISTANCE MICRONS 1000 ;\n")
    'def'
    """
    if isinstance(path_or_text, os.PathLike) or (
            "\n" not in path_or_text and os.path.exists(path_or_text)):
        text = read_text(path_or_text, head=SNIFF_BYTES).removeprefix("\ufeff")
    else:
        text = str(path_or_text).removeprefix("\ufeff")
    return sniff_text(text)



def sniff_text(text: str) -> str:
    """The format of ``text``, as :func:`sniff_format` tells it."""
    if len(text) > SNIFF_BYTES:                 # the head decides; drop its cut last line
        text = text[:text.rfind("\n", 0, SNIFF_BYTES) + 1] or text[:SNIFF_BYTES]
    lines = [s.strip() for s in text.splitlines()]
    body = [s for s in lines if s and not s.startswith("#")]
    if not body:
        return "yaml"
    first = body[0]
    if _DEF_HEAD.match(first) and _DEF_DESIGN.search(text):
        return "def"
    if NL_SIZE.fullmatch(first):
        return "numberlink"
    if ADC_SIZE.match(first):
        return "adc"
    if re.fullmatch(r"type\s+\w+", first):
        return "movingai"
    if _SCEN_HEAD.fullmatch(first):
        return "scen"
    rows = [s for s in lines if s][:64]
    if all(set(s) <= MOVINGAI_CHARS for s in rows):
        return "movingai"
    return "yaml"
