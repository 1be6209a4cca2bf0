"""The generated references (``docs/gen_reference``) say what the code does.

- CLI (``reference/cli.md``): every option of every subcommand has help, a type and a default
  cell; the cell is the parser's default, or, where the parser's default is None because the
  command fills it in later (from the suite, recipe or spec, or the model's own), the default
  the help states.
- Configuration files (recipe, build spec, suite, distillation spec): each section's YAML
  example is an excerpt of a shipped file that its loader accepts; a section with no example
  is listed in :data:`NO_EXAMPLE` with the reason.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.doc_commands import load_generator

REPO = Path(__file__).resolve().parents[1]


gen_reference = load_generator()
cli = sys.modules["gen_reference.cli"]
schema = sys.modules["gen_reference.schema"]

TYPES = re.compile(r"^(flag|int|float|str|choice|list\[.+\]|tuple\[.+\]|int \| list\[int\])$")


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    from citetrain.cli.main import build_parser

    top = build_parser()
    return [("citetrain", top)] + [(f"citetrain {name}", sub)
                                   for name, (_, sub) in cli.subparsers(top).items()]


def _options():
    for name, parser in _parsers():
        for action in cli.arguments(parser):
            label = f"{name} {'/'.join(action.option_strings) or action.dest}"
            yield label, parser, action


def test_every_option_has_help():
    missing = [label for label, _, action in _options()
               if not (action.help or "").strip() or action.help == argparse.SUPPRESS]
    assert not missing, "options without help: " + ", ".join(missing)


def test_every_option_has_a_type():
    wrong = [f"{label}: {cli.argument_type(action)!r}" for label, _, action in _options()
             if not TYPES.match(cli.argument_type(action))]
    assert not wrong, "options of no known type: " + ", ".join(wrong)


def test_no_blank_default_where_one_exists():
    """A row's Default is blank only for --version; a parser default that is not None / False
    is printed as it is; a None default is one the help states (the code fills it in)."""
    problems = []
    for label, parser, action in _options():
        if isinstance(action, argparse._VersionAction):
            continue
        shown = cli.default_text(parser, action)
        if not shown:
            problems.append(f"{label}: blank default")
        elif action.required:
            assert shown == "required", label
        elif cli.has_default(action) and action.nargs != 0:
            d = action.default
            want = d if isinstance(d, str) else cli.value(d)
            if want not in shown:
                problems.append(f"{label}: shows {shown!r}, the parser's default is {d!r}")
        elif action.default is None and not cli.stated_default(parser, action):
            problems.append(f"{label}: default None and the help states none")
    assert not problems, "\n".join(problems)


def test_rows_have_the_columns_of_the_header():
    page = cli.render()
    for line in page.splitlines():
        if line.startswith("| `-") or line.startswith("| `--"):
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            assert len(cells) == len(cli.HEADER), line


def test_export_calibration_pairs_shows_300():
    from citetrain.judges.openvino_ir import CALIBRATION_PAIRS

    assert CALIBRATION_PAIRS == 300
    parser = dict(_parsers())["citetrain export"]
    action = next(a for a in parser._actions if "--calibration-pairs" in a.option_strings)
    assert action.default == CALIBRATION_PAIRS
    assert cli.argument_type(action) == "int"
    assert cli.default_text(parser, action) == "`300`"
    row = next(line for line in cli.render().splitlines()
               if line.startswith("| `--calibration-pairs N`"))
    assert "| int |" in row and "| `300` |" in row


def test_suite_filled_defaults_are_stated():
    """eval's checkpoint options stay None (the suite's model: fills them); the help says so."""
    parser = dict(_parsers())["citetrain eval"]
    by_flag = {a.option_strings[0]: a for a in parser._actions if a.option_strings}
    assert by_flag["--batch-size"].default is None
    assert cli.default_text(parser, by_flag["--batch-size"]) == "8"
    assert "suite" in cli.default_text(parser, by_flag["--limit"])


# ---- configuration references: one YAML example per section, cut from a shipped file ----------

PAGES = {"reference/recipe.md": "recipe", "reference/build-spec.md": "spec",
         "reference/suite.md": "suite", "reference/distill-spec.md": "distill"}


def _loader(kind: str):
    if kind == "recipe":
        from citetrain.train.recipe import load_recipe as load
    elif kind == "spec":
        from citetrain.builders.spec import load_spec as load
    elif kind == "suite":
        from citetrain.metrics.suites import load_suite as load
    else:
        from citetrain.distill.spec import load_spec as load
    return load


NO_EXAMPLE = {
    ("recipe", "distill"): "set per run by `citetrain distill` (--set distill.folds=...); no "
                           "shipped recipe is a fold teacher or a student by itself",
    ("recipe", "hub"): "pushing to the hub needs an account and a token; no shipped recipe pushes",
    ("spec", "judge"): "data_builders/judge.yaml keeps every default of the section",
    ("spec", "judge.teacher"): "teacher labels need an OpenAI-compatible endpoint and its key",
    ("distill", "teacher.llm"): "an LLM teacher needs an OpenAI-compatible endpoint and its key; "
                                "the shipped chains use fold or NLI teachers",
}
"""(kind, section) -> why no shipped file gives the section an example."""


def _page_sections(page: str) -> dict[str, str]:
    """``## Top level`` / ``## `path` `` sections of a schema page by dotted path."""
    parts = re.split(r"^## (?:Top level|`([^`]+)`)\n", page, flags=re.M)
    return {(parts[i] or ""): parts[i + 1] for i in range(1, len(parts), 2)}


def _examples(text: str) -> list[tuple[str, list[str]]]:
    out = []
    for block in re.findall(r"^```yaml\n(.*?)^```", text, flags=re.M | re.S):
        first, *lines = block.splitlines()
        assert first.startswith(schema.EXAMPLE_FROM), first
        out.append((first.removeprefix(schema.EXAMPLE_FROM), lines))
    return out


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    made = gen_reference.pages()
    return {path: made[path]() for path in PAGES}


@pytest.mark.parametrize("path", sorted(PAGES))
def test_every_section_has_an_example_or_a_reason(pages, path):
    kind = PAGES[path]
    sections = _page_sections(pages[path])
    assert "" in sections and len(sections) > 1
    without = {s for s, text in sections.items() if not _examples(text)}
    listed = {s for k, s in NO_EXAMPLE if k == kind}
    assert without == listed, (f"{path}: sections without an example {sorted(without)}, "
                               f"listed in NO_EXAMPLE {sorted(listed)}")
    for s, text in sections.items():
        assert len(_examples(text)) <= 1, f"{path} {s!r}: several examples"


@pytest.mark.parametrize("path", sorted(PAGES))
def test_examples_are_excerpts_of_shipped_files_that_load(pages, path):
    from citetrain.io.assets import KINDS, asset_root

    kind = PAGES[path]
    folder = KINDS[kind][0]
    load = _loader(kind)
    loaded: set[str] = set()
    for section, text in _page_sections(pages[path]).items():
        for file, lines in _examples(text):
            assert file.startswith(f"{folder}/"), f"{path} {section!r}: {file} is not a {kind}"
            source = asset_root() / file
            assert source.is_file(), f"{path} {section!r}: {file} is not shipped"
            shipped = [line.rstrip() for line in source.read_text(encoding="utf-8").splitlines()]
            at = 0
            for line in lines:  # every line of the example is a line of the file, in order
                assert line in shipped[at:], f"{path} {section!r}: {line!r} is not in {file}"
                at = shipped.index(line, at) + 1
            data = yaml.safe_load("\n".join(lines))
            assert isinstance(data, dict) and data, f"{path} {section!r}: not a YAML mapping"
            node = data
            for part in filter(None, section.split(".")):  # the example holds its section
                node = node[part.removesuffix("[]")]
                if part.endswith("[]"):
                    assert isinstance(node, list) and len(node) == 1, (path, section)
                    node = node[0]
            assert isinstance(node, dict) and node, (path, section)
            if file not in loaded:
                load(source)
                loaded.add(file)
    assert loaded, f"{path}: no example"
