"""The public API is documented in numpydoc, and the package's modules keep to the data
flow that ``mazeroute/__init__.py`` states and to their size limits."""

import ast
import inspect
from pathlib import Path

import pytest

import mazeroute

ROOT = Path(mazeroute.__file__).resolve().parent
CALLABLES = [n for n in mazeroute.__all__ if callable(getattr(mazeroute, n))]


def _section(doc: str, name: str) -> bool:
    """Whether ``doc`` has the numpydoc section ``name`` (its title underlined)."""
    lines = doc.splitlines()
    return any(a.strip() == name and b.strip() == "-" * len(name)
               for a, b in zip(lines, lines[1:]))


def _takes_parameters(obj) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    params = list(inspect.signature(target).parameters.values())
    if inspect.isclass(obj):
        params = params[1:]                            # self
    return any(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def test_every_export_is_a_name_of_the_package():
    assert {"bfs", "make_problem", "Layout", "Net", "load_layout", "parse_layout",
            "save_layout", "Router", "route", "GridGraph", "CSRGraph", "fig15_1_graph",
            "InputError"} <= set(CALLABLES)


@pytest.mark.parametrize("name", CALLABLES)
def test_export_has_a_numpydoc_docstring_with_a_runnable_example(name):
    obj = getattr(mazeroute, name)
    doc = inspect.getdoc(obj) or ""
    if _takes_parameters(obj):
        assert _section(doc, "Parameters"), f"{name}: no Parameters section"
    if inspect.isfunction(obj):
        assert _section(doc, "Returns"), f"{name}: no Returns section"
    assert _section(doc, "Examples"), f"{name}: no Examples section"
    examples = doc[doc.index("Examples\n--------"):]
    assert any(line.lstrip().startswith(">>> ") for line in examples.splitlines()), name


def test_exports_that_raise_say_so():
    for name in ("bfs", "make_problem", "load_layout", "parse_layout", "route", "Router",
                 "CSRGraph", "GridGraph"):
        assert _section(inspect.getdoc(getattr(mazeroute, name)), "Raises"), name


def test_the_package_docstring_states_the_data_flow():
    flow = ("readers -> layout -> plan -> engines -> router -> "
            "(contract, report, render, view) -> batch -> distributed -> cli")
    assert flow in " ".join(mazeroute.__doc__.split())


#: Stages of the data flow, left to right, for the modules this test watches.
STAGE = {
    "readers": 0, "layout": 1, "plan": 2, "engines": 3, "backtrace": 4, "router": 4,
    "contract": 5, "report": 5, "render": 5, "render_congestion": 5, "render_wavefront": 5,
    "view": 5, "view_template": 5, "view_pages": 5, "generate": 5, "generate3d": 5,
    "render_layers": 5, "render_wavefront_layers": 5,
    "batch": 6, "batch_files": 6, "batch_layers": 6, "cli_check": 8,
    "batch_memory": 6, "distributed": 7, "cli": 8, "cli_options": 8, "cli_signals": 8,
    "gcells": 1, "cli_design": 8, "cli_groute": 8,
    "guides": 5, "evaluate": 5,
    "render_gcells": 5,
}
#: Helpers that every stage may use.
SHARED = {"errors", "io", "keys", "limits", "compiled", "graph", "layout", "layers"}
WATCHED = ["view", "view_template", "view_pages", "render", "render_congestion",
           "render_wavefront", "contract", "report", "generate", "batch", "batch_files",
           "batch_memory", "distributed", "cli", "cli_options", "cli_signals", "backtrace"]


def _imported(path: Path) -> set[str]:
    """The package's top modules that ``path`` imports (anywhere in it)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                names.add(node.module.split(".")[0])
            else:
                names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize("module", WATCHED)
def test_a_module_imports_only_from_its_left(module):
    stage = STAGE[module]
    for name in _imported(ROOT / f"{module}.py") - SHARED - {"__version__"}:
        if name == "bench":                       # the command line runs the benchmark
            assert module == "cli"
            continue
        assert name in STAGE, f"{module} imports {name}, of no known stage"
        assert STAGE[name] <= stage, f"{module} imports {name}, to its right"


@pytest.mark.parametrize("module", WATCHED + ["io", "graph", "__init__"])
def test_modules_functions_and_classes_keep_their_size(module):
    text = (ROOT / f"{module}.py").read_text()
    assert len(text.splitlines()) <= 800
    for node in ast.walk(ast.parse(text)):
        size = getattr(node, "end_lineno", 0) - getattr(node, "lineno", 0) + 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert size <= 80, f"{module}.{node.name}: {size} lines"
        elif isinstance(node, ast.ClassDef):
            assert size <= 300, f"{module}.{node.name}: {size} lines"


def test_help_states_no_measured_times():
    from mazeroute.cli import build_parser
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for command in ("route", "batch"):
        text = sub.choices[command].format_help()
        assert "--fill-steps" in text and "one core" not in text
