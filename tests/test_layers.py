"""The package's layering, written once as import-linter contracts in ``pyproject.toml``
(``[tool.importlinter]``) and checked here by running ``lint-imports`` on them:

    core (records, errors, config, io, text, llm, synth) → nli → analysis → metrics
    → builders / rewards → models → train → refine / judges / judge_training
    → evaluation / serve / distill / runner → cli / quickstart

with ``train`` importing neither ``builders`` nor ``judge_training``, ``rewards`` not importing
``builders``, and only entry points importing ``cli``. import-linter follows imports inside
functions too, and indirect ones. What it does not check is checked here with ``ast``: no
module imports, directly or through others, itself; no relative imports; every part of the
package is in a layer, and the docs' layer picture is the contract's.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "citetrain"
ENTRY_POINTS = {"citetrain", "citetrain.__main__", "citetrain.build", "citetrain.train.__main__",
                "citetrain.evaluation.__main__"}


def contracts() -> list[dict]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def layers() -> list[tuple[str, ...]]:
    """The layers contract's layers, lowest first, each a tuple of its parts."""
    (contract,) = [c for c in contracts() if c["type"] == "layers"]
    return [tuple(p.strip() for p in re.split(r"[:|]", layer)) for layer in reversed(contract["layers"])]


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


def test_import_contracts_are_kept():
    """``lint-imports`` (the contracts in pyproject.toml) passes on the package."""
    run = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import "
                          "lint_imports_command; sys.exit(lint_imports_command())", "--no-cache"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_the_contracts_forbid_what_the_layering_promises():
    by_name = {c["name"]: c for c in contracts()}
    forbidden = {(src, bad) for c in by_name.values() if c["type"] == "forbidden"
                 for src in c["source_modules"] for bad in c["forbidden_modules"]}
    assert {("citetrain.train", "citetrain.builders"), ("citetrain.train", "citetrain.judge_training"),
            ("citetrain.rewards", "citetrain.builders"),
            ("citetrain.quickstart", "citetrain.cli")} <= forbidden
    assert [p for layer in layers() for p in layer][:3] == ["records", "errors", "config"]
    assert layers()[-1] == ("cli", "quickstart")


def test_docs_draw_the_contract_layers():
    """docs/concepts/layers.md's table lists the contract's layers, in order, part for part."""
    text = (ROOT / "docs" / "concepts" / "layers.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| [a-z /,_]+ \| ((?:`[a-z_]+`(?:, )?)+) \|", text, flags=re.M)
    assert [tuple(re.findall(r"`([a-z_]+)`", r)) for r in rows] == layers()


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


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_the_cycle_check_catches_a_cycle():
    loop = {"citetrain.nli.x": {"citetrain.nli.y"}, "citetrain.nli.y": {"citetrain.nli.x"}}
    assert cycles(loop) == [["citetrain.nli.x", "citetrain.nli.y"]]


def test_layer_table_matches_the_tree():
    on_disk = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    on_disk |= {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__", "build"}
    parts = {p for layer in layers() for p in layer}
    assert on_disk == parts, defaultdict(set, {"missing": parts - on_disk,
                                               "extra": on_disk - parts})
