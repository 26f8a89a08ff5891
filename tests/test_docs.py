"""Every relative link of the README and of the pages under docs/ names a file of the
repository: a Markdown link, or a relative path written as code (``../x/y.md``), which a
reader follows just the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: Code that reads as a path from the page's folder: ``./x`` or ``../x``.
CODE_PATH = re.compile(r"`(?P<target>\.\.?/[^`\s]+)`")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def broken_links(text: str, folder: Path) -> list[str]:
    """The relative links of ``text`` (a page lying in ``folder``; fenced code left out)
    whose file is missing or lies outside the repository."""
    text = FENCE.sub("", text)
    targets = [m["target"] for m in LINK.finditer(text)]
    targets += [m["target"] for m in CODE_PATH.finditer(text)]
    bad = []
    for target in targets:
        path = target.split("#", 1)[0]
        if not path or SCHEME.match(path) or path.startswith("/"):
            continue                      # an anchor of the page itself, or a web address
        where = (folder / path).resolve()
        if ROOT not in where.parents or not where.exists():
            bad.append(target)
    return bad


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves_in_the_repository(page):
    assert broken_links(page.read_text(encoding="utf-8"), page.parent) == []


def test_a_link_outside_the_repository_is_caught():
    text = ("[a](FORMATS.md) `../data/SOURCES.md` [b](https://example.org/x) `./gone.md`\n"
            "```\n[c](in-a-fence.md)\n```\n[d](#a-heading) [e](../README.md#setup) "
            "[f](../../outside.md) [g](missing.md)\n")
    assert broken_links(text, ROOT / "docs") == ["../../outside.md", "missing.md",
                                                 "../data/SOURCES.md", "./gone.md"]
