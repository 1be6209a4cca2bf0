"""Every ```python block of the documentation (``docs/**/*.md``) runs.

:data:`BLOCKS` says how each block is checked, keyed by its page and its index among that page's
Python blocks (0-based):

- ``run``: the block runs as a script in a subprocess, in a fresh temporary folder holding the
  files it reads (:data:`FILES`), with the hub offline (``HF_HUB_OFFLINE=1``);
- ``doctest``: a ``>>>`` session, run by :mod:`doctest` (``ELLIPSIS``, ``NORMALIZE_WHITESPACE``);
- ``imports``, for a block that needs what a test cannot have (a GPU, the hub, an API key, a
  model trained for minutes), with the reason: it compiles and every name it imports exists.

A run may also check what the block ``prints`` (what its comments promise), and may ``replace`` a
string of the block first (a trained model's path by a stand-in), with the reason. A block
missing from the table, or an entry whose block is gone, fails the test.
"""
from __future__ import annotations

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
TINY_BASE = "runs/tiny-sft/base"
"""Where the blocks read a small causal LM from: a tiny model the test builds (no download)."""

BLOCKS: dict[tuple[str, int], dict] = {
    ("concepts/records.md", 0): {"how": "run", "files": ["preds.jsonl"]},
    ("concepts/statements.md", 0): {"how": "doctest"},
    ("concepts/nli.md", 0): {
        "how": "run", "slow": True,
        "replace": {"classifier:runs/judge-crossencoder/final": "lexical"},
        "reason": "the cross-encoder judge is trained first (recipes/judge-crossencoder.yaml, "
                  "the crossencoder extra); the same calls run on the lexical engine"},
    ("guides/score.md", 0): {"how": "run", "files": ["examples/predictions.jsonl"], "slow": True},
    ("guides/rl.md", 0): {"how": "run", "prints": ["[1.0, 0.0]"], "slow": True},
    ("guides/rl.md", 1): {"how": "run", "files": [TINY_BASE]},
    ("reference/api/index.md", 0): {"how": "run", "files": [TINY_BASE]},
    ("reference/api/index.md", 1): {"how": "run",
                                    "files": [TINY_BASE, "examples/predictions.jsonl"],
                                    "prints": ["{'step': 2, "]},
}

FILES = {"preds.jsonl": REPO / "examples" / "predictions.jsonl",
         "examples/predictions.jsonl": REPO / "examples" / "predictions.jsonl"}
"""A file a block reads (relative to its folder) -> the repository file copied there."""

_FENCE = re.compile(r"^([ \t]*)```python[ \t]*\n(.*?)^\1```[ \t]*$", re.M | re.S)


def python_blocks() -> dict[tuple[str, int], str]:
    """``(page, index) -> code`` of every ```python block under ``docs/``."""
    out = {}
    for page in sorted(DOCS.rglob("*.md")):
        name = page.relative_to(DOCS).as_posix()
        for i, m in enumerate(_FENCE.finditer(page.read_text(encoding="utf-8"))):
            out[(name, i)] = textwrap.dedent(m.group(2))
    return out


BLOCK_CODE = python_blocks()


def test_every_block_is_run_or_listed_with_a_reason():
    assert set(BLOCK_CODE) - set(BLOCKS) == set(), "python blocks missing from BLOCKS"
    assert set(BLOCKS) - set(BLOCK_CODE) == set(), "BLOCKS entries whose block is gone"
    for key, entry in BLOCKS.items():
        assert entry["how"] in ("run", "doctest", "imports"), key
        if entry["how"] == "imports" or entry.get("replace"):
            assert entry.get("reason"), f"{key}: say why it does not run as written"
        for old in entry.get("replace", {}):
            assert old in BLOCK_CODE[key], f"{key}: {old!r} is no longer in the block"


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory) -> Path:
    """A tiny random Llama and its tokenizer, trained on the example records' text."""
    from citetrain.models.tiny import TinySpec, make_tiny_base
    from citetrain.text.prompts import GENERATOR_INSTRUCTION

    texts = [GENERATOR_INSTRUCTION, *(REPO / "examples" / "predictions.jsonl").read_text(
        encoding="utf-8").splitlines(), "Paris is the capital of France [1]. Bananas [2]."]
    spec = TinySpec(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                    num_attention_heads=4, num_key_value_heads=2, vocab_size=300)
    return make_tiny_base(spec, texts * 3, tmp_path_factory.mktemp("tiny") / "base")


def _env() -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "WANDB_MODE": "disabled", "PYTHONPATH": str(REPO)}
    env.setdefault("OMP_NUM_THREADS", "2")
    return env


def _lay_out(folder: Path, files: list[str], request) -> None:
    for rel in files:
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel == TINY_BASE:
            shutil.copytree(request.getfixturevalue("tiny_base"), target)
        else:
            shutil.copy(FILES[rel], target)


def _check_imports(code: str) -> None:
    """The block compiles and every module and name it imports exists."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)
        elif isinstance(node, ast.ImportFrom):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{node.module} has no {alias.name}"


def _params():
    """Every entry; ``slow`` (ten seconds or more on 2 CPU cores): the ones marked so and the ones
    that load the tiny model."""
    def slow(entry):
        return entry.get("slow") or TINY_BASE in entry.get("files", [])

    return [pytest.param(k, marks=pytest.mark.slow) if slow(BLOCKS[k]) else k for k in sorted(BLOCKS)]


@pytest.mark.parametrize("key", _params(), ids=lambda k: f"{k[0]}[{k[1]}]")
def test_block_runs(key, tmp_path, request):
    entry, code = BLOCKS[key], BLOCK_CODE.get(key)
    if code is None:
        pytest.fail(f"{key}: no such block")
    for old, new in entry.get("replace", {}).items():
        code = code.replace(old, new)
    if entry["how"] == "imports":
        _check_imports(code)
        return
    _lay_out(tmp_path, entry.get("files", []), request)
    if entry["how"] == "doctest":
        (tmp_path / "block.txt").write_text(code, encoding="utf-8")
        command = [sys.executable, "-m", "doctest", "-o", "ELLIPSIS", "-o", "NORMALIZE_WHITESPACE",
                   "block.txt"]
    else:
        _check_imports(code)
        (tmp_path / "block.py").write_text(code, encoding="utf-8")
        command = [sys.executable, "block.py"]
    got = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True, text=True,
                         timeout=600)
    assert got.returncode == 0, f"{key}:\n{code}\n--- output:\n{got.stdout[-3000:]}{got.stderr[-3000:]}"
    for text in entry.get("prints", []):
        assert text in got.stdout, f"{key}: printed no {text!r}:\n{got.stdout[-3000:]}"
