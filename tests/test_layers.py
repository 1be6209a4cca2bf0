"""The package's layering: every import (module level or inside a function) points down the flow

    core (records, errors, config, io, text, llm, synth) → nli → analysis → metrics → builders / rewards
    → models → train → refine / judges → evaluation (checkpoints scored) / serve (a judge over HTTP)
    / distill (a judge distilled end to end)
    → cli / quickstart

and no module imports, directly or through others, itself. Checked over ``citetrain/`` with
``ast``, so an upward import fails here even where it is only reached at run time.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "citetrain"
LAYERS = [
    ("records", "errors", "config", "io", "text", "llm", "synth"),
    ("nli",),
    ("analysis",),
    ("metrics",),
    ("builders", "rewards"),
    ("models",),
    ("train",),
    ("refine", "judges", "judge_training"),
    ("evaluation", "serve", "distill", "runner"),
    ("cli", "quickstart"),
]
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}
# Entry points: run as programs (``python -m``), imported by nothing; they may import anything.
# The package's own ``__init__`` is one too (its lazy ``citetrain.evaluate``); importing the bare
# package from anywhere reads only ``__version__`` and the record types.
ENTRY_POINTS = {"citetrain", "citetrain.__main__", "citetrain.build", "citetrain.train.__main__"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every ``citetrain`` module ``path`` imports, at any depth of its code."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "citetrain":
                out.add(node.module)
        elif isinstance(node, ast.ImportFrom):
            raise AssertionError(f"{path}: relative import; write the full citetrain path")
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "citetrain")
    return out


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def part(module: str) -> str:
    """The top-level part of ``citetrain`` a module belongs to (``citetrain.io.readers`` -> io)."""
    bits = module.split(".")
    return bits[1] if len(bits) > 1 else "citetrain"


def test_every_part_has_a_layer():
    parts = {part(m) for m in graph() if m not in ENTRY_POINTS}
    assert parts <= set(RANK), f"parts of citetrain with no layer in this test: {parts - set(RANK)}"


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    bad = []
    for importer, targets in edges.items():
        if importer in ENTRY_POINTS:
            continue
        for target in targets:
            if target == "citetrain":
                continue
            if part(target) == "cli" and part(importer) != "cli":  # cli shares its own helpers
                bad.append(f"{importer} -> {target} (only entry points import the command line)")
            elif RANK[part(target)] > RANK[part(importer)]:
                bad.append(f"{importer} -> {target}")
    return sorted(bad)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    edges = {m: {t for t in ts if t in edges and t not in ENTRY_POINTS}
             for m, ts in edges.items() if m not in ENTRY_POINTS}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_upward_import():
    assert upward_imports(graph()) == []


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_the_checks_catch_what_they_name():
    edges = {"citetrain.metrics.a": {"citetrain.builders.b"}, "citetrain.builders.b": set(),
             "citetrain.train.c": {"citetrain.cli.main"}, "citetrain.cli.main": set()}
    assert upward_imports(edges) == ["citetrain.metrics.a -> citetrain.builders.b",
                                     "citetrain.train.c -> citetrain.cli.main (only entry points "
                                     "import the command line)"]
    loop = {"citetrain.nli.x": {"citetrain.nli.y"}, "citetrain.nli.y": {"citetrain.nli.x"}}
    assert cycles(loop) == [["citetrain.nli.x", "citetrain.nli.y"]]


def test_layer_table_matches_the_tree():
    on_disk = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    on_disk |= {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__", "build"}
    assert on_disk == set(RANK), defaultdict(set, {"missing": set(RANK) - on_disk,
                                                   "extra": on_disk - set(RANK)})
