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


# -- pointers from the code to benchmarks/RESULTS.md -----------------------------------
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
#: A pointer: ``RESULTS.md, "Heading"``, the heading's text quoted exactly.
POINTER = re.compile(r'RESULTS\.md(?P<rest>,\s*"(?P<heading>[^"]+)")?')
#: A line break inside a comment or docstring, with the next line's indent and comment mark.
BREAK = re.compile(r"\s*\n\s*(?:#:?\s*|//\s*|\*\s*)?")


def code_files() -> list[Path]:
    """The package's Python modules and the CUDA sources: where the pointers live."""
    return sorted(ROOT.glob("mazeroute/**/*.py")) + sorted(
        p for p in (ROOT / "kernels").iterdir() if p.suffix in {".cu", ".cuh", ".py"})


def results_headings() -> set[str]:
    """The text of every heading of RESULTS.md (fenced code left out)."""
    text = FENCE.sub("", RESULTS.read_text(encoding="utf-8"))
    return {m[1].strip() for m in re.finditer(r"^#{1,6}\s+(.*)$", text, re.M)}


def bad_pointers(text: str, headings: set[str]) -> list[str]:
    """The pointers to RESULTS.md in ``text`` that name no heading of ``headings``, or
    name none in the quoted form."""
    bad = []
    for m in POINTER.finditer(BREAK.sub(" ", text)):
        if m["heading"] is None:
            bad.append(f"RESULTS.md without a quoted heading: {m.group(0)!r}")
        elif m["heading"] not in headings:
            bad.append(f"no heading {m['heading']!r}")
    return bad


def test_every_pointer_to_results_names_a_heading_there():
    headings = results_headings()
    assert "Figures behind code comments" in headings      # the lookup found headings
    bad = [f"{p.relative_to(ROOT)}: {b}" for p in code_files()
           for b in bad_pointers(p.read_text(encoding="utf-8"), headings)]
    assert bad == []


def test_bad_pointers_are_caught():
    headings = {"Quality and speed", "Routing: mazes"}
    text = ('x = 1  # (benchmarks/RESULTS.md, "Quality\n    # and speed") fine\n'
            '"""(RESULTS.md, "Routing:\n    mazes")"""\n'
            '#: see RESULTS.md, "Gone heading"\n'
            '#: see benchmarks/RESULTS.md for the figures\n')
    assert bad_pointers(text, headings) == [
        "no heading 'Gone heading'",
        "RESULTS.md without a quoted heading: 'RESULTS.md'"]


def test_code_page_lists_every_module_once():
    # docs/code.md is the map of the package: a module added, moved or removed shows here
    listed = re.findall(r"^\* `([\w/]+\.py)`", (ROOT / "docs" / "code.md").read_text(
        encoding="utf-8"), re.M)
    modules = {p.relative_to(ROOT / "mazeroute").as_posix()
               for p in (ROOT / "mazeroute").rglob("*.py")}
    assert "plan/rules.py" in modules                       # the walk found the package
    assert sorted(listed) == sorted(modules)
