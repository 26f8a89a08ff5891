"""The ``check`` command, and the command line's answers of the DA Symposium Algorithm
Design Contest (ADC): ``route --answer FILE`` writes one, ``check PROBLEM --answer FILE``
checks one.

An answer is the contest's grid of line numbers (:mod:`mazeroute.readers.adc_answer`),
written for an ADC problem only, of one layer or several. ``route`` checks the answer's
path before any work, as it checks its other outputs, and replaces the file atomically.
``check`` holds an answer to the contest's rules, its VIA columns included: exit status
0 and ``valid``, 1 and one line a broken rule, 2 for a file that is no answer.

Examples
--------
>>> import argparse
>>> args = argparse.Namespace(answer=None)
>>> answer_target(args, Path("out")) is None
True
"""

from __future__ import annotations

from pathlib import Path

from .batch import load_one
from .batch_files import OUTPUT_NAMES, refuse_inputs, same_file
from .contract import check_routes, load_routes
from .errors import InputError
from .io import OutputError, OutputSet, check_output_file
from .layout import Layout
from .readers import sniff_format
from .report import safe_text
from .router import RouteResult


def _refuse_not_adc(args, option: str) -> None:
    """Refuse ``option`` unless the command's input is an ADC problem read as one."""
    if getattr(args, "nets", None):
        raise InputError("takes an ADC problem's own lines; it cannot go with --nets",
                         field=option)
    kind = args.format if args.format != "auto" else sniff_format(Path(args.layout))
    if kind != "adc":
        raise InputError(f"is for ADC problems (SIZE, LINE_NUM, LINE#k lines); "
                         f"{safe_text(args.layout, 200, middle=True)} is {kind}",
                         field=option)


def cmd_check(args) -> int:
    """``mazeroute check``: the layout against FORMATS.md, and with ``--routes`` a routes
    file's promises about it, with ``--answer`` an ADC answer's rules; the exit status
    (0 all hold, 1 a check failed)."""
    from .cli_groute import check_def, is_def

    if args.sequential and not args.routes:
        raise InputError("checks a routes file: give --routes too", field="--sequential")
    if is_def(args):
        return check_def(args)
    layout = load_one(args.layout, args.nets, args.format, args.puzzle, args.scen_limit)
    blocked = f"{int(layout.blocked.sum())} blocked cells"
    if layout.rects:             # a Moving AI map has blocked cells and no rectangles
        blocked = f"{len(layout.rects)} blockages ({blocked})"
    layers = ("" if layout.stack is None
              else f" x {len(layout.stack.layers)} layers "
              f"({', '.join(safe_text(n, 20) for n in layout.stack.names)})")
    print(f"{safe_text(args.layout, 200, middle=True)}: ok: "
          f"{safe_text(layout.name, 80)}, {layout.width} x {layout.height} cells{layers}, "
          f"{blocked}, {len(layout.nets)} nets")
    status = check_answer(args, layout) if args.answer else 0
    if args.routes:
        routes = load_routes(args.routes)
        problems = check_routes(layout, routes, sequential=args.sequential)
        shown = safe_text(args.routes, 200, middle=True)
        for p in problems:
            print(f"{shown}: {safe_text(p)}")
        if problems:
            return 1
        print(f"{shown}: ok: every promise of docs/FORMATS.md holds"
              + (" (shortest in sequential mode too)" if args.sequential else ""))
    return status


def answer_target(args, out: Path) -> Path | None:
    """The answer file ``route --answer`` writes, checked before any work (None without
    the option): the input is an ADC problem, and the file is no input, none of the
    route's own outputs in ``out`` and not the congestion picture.

    Parameters
    ----------
    args : argparse.Namespace
        ``route``'s command line.
    out : Path
        The route's output folder.

    Returns
    -------
    Path or None
        The answer's path.

    Raises
    ------
    InputError
        Naming ``--answer``.
    """
    if not getattr(args, "answer", None):
        return None
    _refuse_not_adc(args, "--answer")
    check_output_file(args.answer)
    refuse_inputs([args.answer], [args.layout], "--answer")
    if any(same_file(args.answer, out / name) for name in OUTPUT_NAMES) or (
            args.congestion and same_file(args.answer, args.congestion)):
        raise InputError(f"{safe_text(args.answer, 200, middle=True)} is one of the "
                         "route's other outputs", field="--answer")
    return Path(args.answer)


def write_answer(path: Path, result: RouteResult) -> None:
    """Write ``result``'s routed nets as the ADC answer ``path``, atomically (an unrouted
    net's line has no cells in it).

    Parameters
    ----------
    path : Path
        The answer file.
    result : RouteResult
        The routes of an ADC problem.
    """
    from .readers.adc_answer import write_adc_answer
    cells = {n.name: n.cells for n in result.nets if n.routed}
    with OutputSet(None) as files:
        try:
            write_adc_answer(files.stage(path), result.layout, cells)
        except OSError as e:
            raise OutputError.from_os(e, path) from None


def check_answer(args, layout: Layout) -> int:
    """``check PROBLEM --answer FILE``: print ``valid``, or each broken rule of the
    contest on its own line; the exit status (0 or 1).

    Parameters
    ----------
    args : argparse.Namespace
        ``check``'s command line.
    layout : Layout
        The problem as read (its nets are the answer's lines).

    Returns
    -------
    int
        0 when the answer is valid and complete, 1 otherwise.

    Raises
    ------
    InputError
        For an input that is no ADC problem, or an answer file that is no answer.
    """
    from .readers.adc import read_adc_problem
    from .readers.adc_answer import check_adc_answer, read_adc_answer
    _refuse_not_adc(args, "--answer")
    problem = read_adc_problem(args.layout)
    answer = read_adc_answer(args.answer)
    problems = check_adc_answer(problem, answer)
    shown = safe_text(args.answer, 200, middle=True)
    for p in problems:
        print(f"{shown}: {safe_text(p)}")
    if not problems:
        print(f"{shown}: valid: every rule of the contest holds for {safe_text(layout.name, 80)}")
    return 1 if problems else 0


__all__ = ["answer_target", "check_answer", "cmd_check", "write_answer"]
