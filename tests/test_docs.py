"""The documentation site (``mkdocs.yml``, ``docs/``) against the code.

- The site builds with ``--strict`` (every nav page exists, every link resolves).
- The generated reference (``docs/gen_reference``, added to the build by ``docs/hooks.py``) lists
  every subcommand and option of the CLI and every key of each configuration schema, walked here
  independently of the generator; every recipe key has a description in the code.
- Every ``citetrain SUB --option``, ``--set KEY=VALUE`` and inline recipe key (`` `data.max_length` ``)
  that README.md or a page shows exists (:mod:`tests.doc_commands`).
- Nothing mentions the internal design notes, and README / guides run no ``bench/`` scripts.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from citetrain.cli.main import COMMANDS
from tests import doc_commands as dc

REPO = dc.REPO
DOCS = REPO / "docs"


gen_reference = dc.load_generator()

PAGES = sorted(DOCS.rglob("*.md"))
TEXTS = {"README.md": (REPO / "README.md").read_text(encoding="utf-8"),
         **{str(p.relative_to(REPO)): p.read_text(encoding="utf-8") for p in PAGES}}
SCHEMA_PAGES = {"recipe": "reference/recipe.md", "suite": "reference/suite.md",
                "build-spec": "reference/build-spec.md", "serve": "reference/serve-config.md",
                "distill-spec": "reference/distill-spec.md"}
FORBIDDEN = "DES" + "IGN"  # the internal design notes are not part of the published docs


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return {path: render() for path, render in gen_reference.pages().items()}


def test_the_site_builds_strict(tmp_path):
    got = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                          str(tmp_path / "site")], cwd=REPO, capture_output=True, text=True,
                         timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]
    for page in gen_reference.pages():
        assert (tmp_path / "site" / page.removesuffix(".md") / "index.html").is_file(), page


def test_the_nav_lists_every_generated_page():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    for page in gen_reference.pages():
        assert f": {page}" in nav, f"mkdocs.yml's nav does not list {page}"


def _sections(page: str) -> dict[str, str]:
    """``## citetrain SUB`` sections of the CLI page by subcommand."""
    parts = re.split(r"^## citetrain (\S+)\n", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_cli_reference_lists_every_command_and_option(generated):
    sections = _sections(generated["reference/cli.md"])
    assert list(sections) == list(COMMANDS)
    for sub in COMMANDS:
        for action in dc.subparser(sub)[1]._actions:
            if "--help" in action.option_strings:
                continue
            names = action.option_strings or [action.metavar or action.dest]
            for name in names:
                assert f"`{name}" in sections[sub] or f", {name}" in sections[sub], (
                    f"reference/cli.md: citetrain {sub} lacks {name}")


@pytest.mark.parametrize("name", sorted(SCHEMA_PAGES))
def test_schema_reference_lists_every_key_and_no_other(generated, name):
    page = generated[SCHEMA_PAGES[name]]
    documented = set(re.findall(r"^\| `([^`]+)` \|", page, flags=re.M))
    keys = {k.replace("[].", ".") for k in documented}
    assert keys == set(dc.schema_keys(dc.schema(name)))


def test_every_recipe_key_has_a_description():
    def missing(model, prefix=""):
        for key, field in model.model_fields.items():
            if not (field.description or "").strip():
                yield prefix + key
            sub = dc._section(field.annotation)
            if sub is not None:
                yield from missing(sub, f"{prefix}{key}.")

    keys = list(missing(dc.schema("recipe")))
    assert not keys, "recipe keys without a description: " + ", ".join(keys)


def test_metrics_reference_states_each_formula_and_source(generated):
    from citetrain.metrics.registry import METRICS

    page = generated["reference/metrics.md"]
    parts = re.split(r"^## (\S+)\n", page, flags=re.M)
    sections = dict(zip(parts[1::2], parts[2::2]))
    assert list(sections) == list(METRICS)
    for name, text in sections.items():
        assert " = " in text, f"{name}: no formula in its docstrings"
        assert re.search(r"et al\.|section \d|§\s?\d", text), f"{name}: no paper named"


def test_http_reference_documents_both_routes(generated):
    page = generated["reference/http.md"]
    for heading in ("## POST /score", "## GET /health", "### ScoreResponse", "### Refusal"):
        assert heading in page
    assert "`pairs[].statement`" in page and "| 413 |" in page


def _citetrain_commands() -> list[tuple[str, list[str]]]:
    """``(file, [SUB, ARGS...])`` of every citetrain command in README.md and docs/."""
    out = []
    for name, text in TEXTS.items():
        for command in dc.commands(text, split_all=True) + dc.inline_commands(text):
            words = dc.citetrain_words(command)
            if words is None:
                words = _launched_training(command)
            if words:
                out.append((name, words))
    return out


def _launched_training(command: str) -> list[str] | None:
    """``accelerate launch ... -m citetrain.train RECIPE ARGS`` as ``[train, RECIPE, ARGS]``."""
    words = command.split()
    if words[:2] == ["accelerate", "launch"] and "citetrain.train" in words:
        return ["train", *words[words.index("citetrain.train") + 1:]]
    return None


@pytest.mark.parametrize("where,words", _citetrain_commands(),
                         ids=lambda v: shlex.join(v)[:80] if isinstance(v, list) else v)
def test_documented_command_exists(where, words):
    problems = dc.citetrain_problems(words) + dc.override_problems(words)
    assert not problems, f"{where}: citetrain {shlex.join(words)}: {'; '.join(problems)}"


@pytest.mark.parametrize("where", sorted(TEXTS))
def test_documented_recipe_keys_exist(where):
    problems = dc.dotted_key_problems(TEXTS[where])
    assert not problems, f"{where}:\n" + "\n".join(problems)


def test_no_mention_of_the_design_notes(generated):
    files = [REPO / "README.md", *(p for p in DOCS.rglob("*") if p.is_file()
                                   and "__pycache__" not in p.parts)]
    found = [str(p.relative_to(REPO)) for p in files
             if FORBIDDEN in p.read_text(encoding="utf-8", errors="replace")]
    found += [path for path, text in generated.items() if FORBIDDEN in text]
    assert not found, f"{FORBIDDEN} is named in: " + ", ".join(found)


def test_readme_and_guides_run_no_bench_scripts():
    files = [REPO / "README.md", *sorted((DOCS / "guides").glob("**/*.md"))]
    found = [f"{p.relative_to(REPO)}: {m.group(0)}" for p in files
             for m in re.finditer(r"\b(?:python3?|bash) bench/\S*", p.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)
