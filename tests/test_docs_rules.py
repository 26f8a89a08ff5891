"""The README and the pages under docs/ agree with the code they describe.

``docs/auto.md`` states every threshold of ``--backend auto`` (a field of
:class:`mazeroute.plan.Rules`) in rows of the form ``| `field` | `VALUE` | decides |
script |``; each must equal the field's value in ``DEFAULT_RULES``, every field must have
a row, in the section its ``evidence`` names, naming the scripts that back it, and a row
naming no rule is an error. Every relative link of the README and of the pages resolves,
and the README stays a two-minute read with the set-up commands that CI runs.
"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from mazeroute.plan.rules import DEFAULT_RULES, Rules, rule_docs

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
AUTO_PAGE = DOCS / "auto.md"
#: The contract has an owner and a test of its own.
NOT_OURS = {"FORMATS.md"}
README_MAX_LINES = 250
#: The README's two set-up commands, exactly: CI runs the second.
SETUP_COMMAND = ("python -m pip install -e . && mazeroute route layouts/fig15_5.yaml "
                 "-o outputs/fig15_5/")
TEST_COMMAND = "python -m pip install -e '.[test]' && python -m pytest -q -n auto"

RULE_ROW = re.compile(r"^\|\s*`(?P<name>[a-z][a-z0-9_]*)`\s*\|(?P<value>[^|]*)\|"
                      r"(?P<rest>.*)$", re.M)
#: A script a rule's row names: a file under benchmarks/, or a ``mazeroute bench`` suite.
SCRIPT = re.compile(r"`(?P<path>benchmarks/[\w./-]+\.py)\b[^`]*`|`mazeroute bench --suite \w+")
VALUE = re.compile(r"\s*`(?P<number>[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9]+)?)`\s*")
LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
#: Work-log references that belong in benchmarks/RESULTS.md, not in the pages.
WORK_LOG = re.compile(
    r"\bissues? \d+|\bv\d+ runs?\b|\b20\d\d-\d\d-\d\d\b"
    r"|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
    r"|twelfth) session\b", re.I)


def rules() -> dict[str, int | float]:
    """Every rule by its field name in :class:`~mazeroute.plan.Rules`, at its value in
    ``DEFAULT_RULES``: the one lookup of this file."""
    return {f.name: getattr(DEFAULT_RULES, f.name) for f in fields(Rules)}


def stated(text: str, only: set[str] | None = None) -> tuple[dict[str, int | float], list[str]]:
    """The rule rows of a page: name -> value, and the problems found reading them (a
    row whose value is not one backticked number, a name stated twice). ``only``: read
    the rows naming these rules alone (a page other than the rules' own may have tables
    of other lower-case names)."""
    values: dict[str, int | float] = {}
    problems = []
    for row in RULE_ROW.finditer(text):
        name = row["name"]
        if only is not None and name not in only:
            continue
        value = VALUE.fullmatch(row["value"])
        if value is None:
            problems.append(f"{name}: the value column is not one backticked number: "
                            f"{row['value'].strip()!r}")
            continue
        number = value["number"]
        parsed = float(number) if re.search(r"[.eE]", number) else int(number)
        if name in values:
            problems.append(f"{name}: stated twice")
        values[name] = parsed
    return values, problems


def rule_problems(text: str, known: dict[str, int | float]) -> list[str]:
    """Everything a page of rules gets wrong against ``known`` (:func:`rules`): a row
    naming no rule, a value unlike the rule's, a rule without a row, an unreadable row."""
    values, problems = stated(text)
    for name, value in values.items():
        if name not in known:
            problems.append(f"{name}: no such rule in mazeroute.plan.Rules")
        elif value != known[name]:
            problems.append(f"{name}: the page says {value}, the rule is {known[name]}")
    problems += [f"{name}: not on the page" for name in sorted(set(known) - set(values))]
    return problems


def pages() -> list[Path]:
    """The README and the pages under docs/ whose links and wording this file checks."""
    return [ROOT / "README.md"] + sorted(p for p in DOCS.glob("*.md") if p.name not in NOT_OURS)


def prose(text: str) -> str:
    """``text`` without code blocks and inline code (no links live there)."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings (a repeated one gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading is None:
            continue
        base = slug(heading[1])
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file (or heading, after ``#``) is missing."""
    broken = []
    for link in LINK.finditer(prose(page.read_text(encoding="utf-8"))):
        target = link["target"]
        if re.match(r"[a-z][a-z0-9+.-]*:", target):          # http:, mailto:, ...
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.name}")
    return broken


# -- the rules' page --------------------------------------------------------------------
def test_rules_are_found():
    known = rules()
    # a lookup that found nothing would make the page checks below pass vacuously
    assert {"min_gpu_cells", "max_gpu_corridor", "lines_balance"} <= set(known)
    assert known["min_gpu_cells"] == 1 << 16


def test_auto_page_states_every_rule_with_its_value():
    problems = rule_problems(AUTO_PAGE.read_text(encoding="utf-8"), rules())
    assert problems == [], "docs/auto.md disagrees with mazeroute/plan/rules.py:\n" + \
        "\n".join(problems)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_page_states_rules_at_their_values(page):
    # a threshold quoted on another page is held to the rule as well
    known = rules()
    values, problems = stated(page.read_text(encoding="utf-8"), set(known))
    problems += [f"{n}: {v} != {known[n]}" for n, v in values.items() if v != known[n]]
    assert problems == []


@pytest.mark.parametrize("text, found", [
    ("| `no_such_rule` | `3` | x |\n", "no_such_rule: no such rule"),
    ("| `min_gpu_cells` | `65_537` | x |\n", "min_gpu_cells: the page says 65537"),
    ("| `max_gpu_corridor` | 0.6 | x |\n", "max_gpu_corridor: the value column is not"),
    ("| `max_gpu_corridor` | `0.6` | x |\n", "min_gpu_cells: not on the page"),
    ("| `patch` | `128` | x |\n| `patch` | `128` | y |\n", "patch: stated twice"),
])
def test_rule_problems_are_caught(text, found):
    assert any(p.startswith(found) for p in rule_problems(text, rules()))


def test_rule_problems_accept_a_right_page():
    known = {"a_rule": 65536, "b": 0.0002}
    assert rule_problems("| `a_rule` | `65_536` | x |\n| `b` | `0.0002` | y |\n",
                         known) == []


def test_other_pages_hold_only_the_rows_that_name_a_rule():
    text = "| `route` | the command | x |\n| `min_gpu_cells` | `1` | x |\n"
    values, problems = stated(text, set(rules()))
    assert values == {"min_gpu_cells": 1} and problems == []


def sections(text: str) -> dict[str, str]:
    """The rule rows of a page: name -> the anchor of the ``##`` section it is in."""
    where, section = {}, ""
    for line in FENCE.sub("", text).splitlines():
        heading = re.match(r"##\s+(.*)", line)
        if heading is not None:
            section = slug(heading[1])
        row = RULE_ROW.match(line)
        if row is not None:
            where[row["name"]] = section
    return where


def test_every_rule_is_stated_in_the_section_its_evidence_names():
    where = sections(AUTO_PAGE.read_text(encoding="utf-8"))
    wrong = []
    for name, doc in rule_docs().items():
        page, _, anchor = doc["evidence"].partition("#")
        if (ROOT / page).resolve() != AUTO_PAGE.resolve() or where.get(name) != anchor:
            wrong.append(f"{name}: evidence {doc['evidence']}, row in #{where.get(name)}")
    assert wrong == []


def test_every_rule_row_names_the_scripts_that_back_it():
    rows = {row["name"]: row["rest"]
            for row in RULE_ROW.finditer(AUTO_PAGE.read_text(encoding="utf-8"))}
    problems = []
    for name, rest in rows.items():
        same = re.search(r"\bas `(\w+)`", rest)           # "as `other_rule`": its scripts
        scripts = list(SCRIPT.finditer(rows.get(same[1], "") if same else rest))
        if not scripts:
            problems.append(f"{name}: names no script")
        problems += [f"{name}: {s['path']} does not exist" for s in scripts
                     if s["path"] and not (ROOT / s["path"]).is_file()]
    assert problems == []


# -- links ------------------------------------------------------------------------------
@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_relative_links_resolve(page):
    assert broken_links(page) == []


def test_broken_links_are_caught(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# A heading\n")
    page.write_text("[ok](there.md#a-heading) [gone](missing.md) [bad](there.md#nope) "
                    "[web](https://example.org/x) `[code](missing2.md)`\n")
    assert broken_links(page) == ["missing.md: no such file",
                                  "there.md#nope: no heading #nope in there.md"]


# -- the README -------------------------------------------------------------------------
def test_readme_is_short_and_keeps_the_setup_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < README_MAX_LINES
    blocks = [b.strip("`\n").removeprefix("sh\n").strip() for b in FENCE.findall(readme)]
    assert SETUP_COMMAND in blocks and TEST_COMMAND in blocks
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert TEST_COMMAND in ci, ".ci/run no longer runs the README's test command"
    assert "docs/fig15_5_wavefront.png" in readme


def test_readme_generates_local_nets():
    # without --span the nets cross the whole grid and most cannot be routed together
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    generate = [line for block in FENCE.findall(readme) for line in block.splitlines()
                if line.startswith("mazeroute generate")]
    assert generate and all("--span" in line for line in generate)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_pages_cite_no_work_log(page):
    assert WORK_LOG.findall(page.read_text(encoding="utf-8")) == []


def test_code_cites_no_work_log():
    """Comments, docstrings and --help carry no issue numbers or dated work-log
    references (figures and their history live in benchmarks/RESULTS.md and git)."""
    root = Path(__file__).resolve().parent.parent
    files = [*sorted((root / "mazeroute").rglob("*.py")),
             *sorted((root / "kernels").glob("*.cu*"))]
    found = [f"{p.relative_to(root)}: {m}" for p in files
             for m in WORK_LOG.findall(p.read_text(encoding="utf-8"))]
    assert found == []
