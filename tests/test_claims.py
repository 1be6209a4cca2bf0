"""What README.md and the getting-started page claim about the install, the extras, the quickstart
and the commands is what pyproject.toml and the code say, and the two pages say it alike.

- The install line (``pip install -e ".[...]"``) of the README's Install block is the CPU line of
  getting-started, and names extras that pyproject.toml has.
- The extras tables of the two pages are one table, with one row per extra of
  ``[project.optional-dependencies]``; what the ``test`` and ``all`` rows say they hold is what
  they hold.
- The missing-extra message quoted is the one a command prints.
- The quickstart's time is given in one place (the README, with its load); the docs pages and
  ``citetrain quickstart --help`` refer to it without a figure.
- ``citetrain distill``'s closing judge command is the README's; no page shows ``serve --judge``;
  no page claims a metric option, a recipe default or a GPU size the code or Results lack.
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
GETTING_STARTED = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
INDEX = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
EXTRAS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
PAGES = {"README.md": README, "docs/getting-started.md": GETTING_STARTED, "docs/index.md": INDEX}
USER_PAGES = {"README.md": README,
              **{str(p.relative_to(REPO)): p.read_text(encoding="utf-8")
                 for p in sorted((REPO / "docs").rglob("*.md"))}}
# a time figure: "5½ minutes", "~3 min", "about 4 minutes", "90 s"
TIME = re.compile(r"(?:~\s*)?\d[\d.,½]*\s*(?:-\s*\d[\d.,]*\s*)?(?:min\b|mins\b|minutes?\b|s\b|seconds?\b)|½")


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end != -1 else len(text)]


def _install_lines(text: str) -> list[str]:
    return re.findall(r'^pip install -e "\.\[[^\]]*\]"', text, flags=re.M)


def _extras_table(text: str) -> list[list[str]]:
    """The rows (cells stripped) of the first table whose header starts with ``| extra |``."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| extra |"))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        rows.append([c.strip() for c in ln.strip().strip("|").split("|")])
    return rows


def _names(cell: str) -> list[str]:
    return re.findall(r"`([\w-]+)`", cell)


def _requirements(extra: str) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in EXTRAS[extra]}


# -- install line ----------------------------------------------------------------------------------


def test_readme_and_getting_started_give_one_cpu_install_line():
    readme = _install_lines(_section(README, "## Install"))
    started = _install_lines(_section(GETTING_STARTED, "## Install"))
    assert readme, "README's Install section shows no pip install -e line"
    assert started and started[0] == readme[0], (readme, started)
    # the docs' home page shows the same first install
    assert _install_lines(INDEX)[:1] == readme[:1]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_install_lines_name_existing_extras(page):
    for line in _install_lines(PAGES[page]):
        names = re.search(r"\[([^\]]*)\]", line).group(1).split(",")
        assert set(names) <= set(EXTRAS), f"{page}: {line}"


# -- extras table ----------------------------------------------------------------------------------


def test_the_two_extras_tables_are_one():
    assert _extras_table(README) == _extras_table(GETTING_STARTED)


def test_extras_table_has_one_row_per_extra_of_pyproject():
    named = [n for row in _extras_table(README) for n in _names(row[0])]
    assert sorted(named) == sorted(EXTRAS), named
    assert len(named) == len(set(named))


def test_test_and_all_rows_say_what_they_hold():
    rows = {n: row for row in _extras_table(README) for n in _names(row[0])}
    plain = [e for e in EXTRAS if e not in ("test", "all")]
    said = rows["test"][1]
    assert "every extra above" in said or "every optional package above" in said, said
    but = _names(said.split(" but ", 1)[1]) if " but " in said else []
    held = [e for e in plain if _requirements(e) <= _requirements("test")]
    assert sorted(held) == sorted(set(plain) - set(but)), (
        f"the test row says every extra above but {but}; pyproject's test holds {held}")
    assert "every extra" in rows["all"][1]
    inside = re.search(r"\[([^\]]*)\]", " ".join(EXTRAS["all"])).group(1).split(",")
    assert sorted(inside) == sorted(set(EXTRAS) - {"all"})


def test_missing_extra_message_quoted_is_the_printed_one():
    from citetrain.errors import error_line, extra_for

    if extra_for("fastapi") != "serve":
        pytest.skip("citetrain's metadata is not installed")
    printed = f"citetrain serve: {error_line(ModuleNotFoundError('x', name='fastapi'))[1]}"
    for page in ("README.md", "docs/getting-started.md"):
        assert f"`{printed}`" in PAGES[page], f"{page} does not quote: {printed}"
        quoted = re.findall(r"`([^`]*this needs the optional package[^`]*)`", PAGES[page])
        assert quoted == [printed], (page, quoted)


# -- the quickstart's time -------------------------------------------------------------------------


def test_quickstart_time_is_given_once_with_its_load():
    section = _section(README, "## Quickstart")
    prose = re.sub(r"```.*?```", "", section, flags=re.S)
    prose = "\n".join(ln for ln in prose.splitlines() if not ln.startswith("|"))
    figures = TIME.findall(prose)
    assert len(figures) >= 1, "README's Quickstart gives no measured time"
    assert "load" in prose, "README's Quickstart time gives no load"


@pytest.mark.parametrize("page", ["docs/index.md", "docs/getting-started.md"])
def test_docs_refer_to_the_quickstart_time_without_a_figure(page):
    text = PAGES[page]
    for line in text.splitlines():
        if "quickstart" in line.lower():
            assert not TIME.search(line), f"{page}: {line}"
    assert not TIME.search(_section(GETTING_STARTED, "## Your first run")), page


def test_quickstart_help_gives_no_time_figure():
    import argparse

    from citetrain.cli import quickstart_cmd

    parser = argparse.ArgumentParser()
    quickstart_cmd.add_parser(parser.add_subparsers(), "quickstart")
    sub = parser._subparsers._group_actions[0]
    texts = [a.help for a in sub._choices_actions] + [sub.choices["quickstart"].format_help()]
    for text in texts:
        assert not TIME.search(" ".join(text.split())), text


# -- commands and claims ---------------------------------------------------------------------------


def test_readme_judge_line_is_what_distill_prints(capsys, monkeypatch):
    from citetrain.cli.main import main

    monkeypatch.chdir(REPO)
    assert main(["distill", "distill/tiny.yaml", "--dry-run"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("then judge with it: "))
    printed = line.removeprefix("then judge with it: ").replace(f"{REPO}/", "")
    judge = re.search(r"--judge (\S+)", printed).group(1)
    shown = [ln for ln in README.splitlines() if ln.startswith("citetrain judge ") and "distill-tiny" in ln]
    assert shown, "README shows no judge command for distill/tiny.yaml's judge"
    for ln in shown:
        assert f"--judge {judge}" in ln and "--union-first" in ln, (ln, printed)
        assert ln.replace("examples/predictions.jsonl", "PREDICTIONS.jsonl").startswith(printed), (ln, printed)


def test_no_page_shows_serve_with_a_judge_option():
    found = [f"{name}: {m.group(0)}" for name, text in USER_PAGES.items()
             for m in re.finditer(r"citetrain serve[^\n`]*--judge\b", text)]
    assert not found, found


def test_longbench_cite_options_named_exist():
    from citetrain.metrics.longbench_cite import longbench_cite

    params = set(inspect.signature(longbench_cite).parameters)
    for name, text in USER_PAGES.items():
        for m in re.finditer(r"metric option `(\w+)`", text):
            assert m.group(1) in params, f"{name}: {m.group(0)}"


def test_results_calls_packing_the_default_only_if_it_is():
    from citetrain.train.recipe_schema import DataSection

    results = (REPO / "docs" / "results" / "index.md").read_text(encoding="utf-8")
    default = DataSection.model_fields["packing"].default
    for line in results.splitlines():
        if re.search(r"\bpack(ed|ing)\b", line) and "the default" in line:
            assert default, f"packing defaults to {default}, Results: {line[:120]}"


def test_no_page_claims_a_gpu_size_results_does_not_measure():
    pages = {**USER_PAGES, **{str(p.relative_to(REPO)): p.read_text()
                              for p in sorted((REPO / "recipes").glob("*.yaml"))}}
    found = [f"{name}: {m.group(0)}" for name, text in pages.items()
             for m in re.finditer(r"\b\d+ ?GB GPU", text)]
    assert not found, found


def test_the_quickstart_figures_getting_started_points_to_are_on_results():
    section = _section(GETTING_STARTED, "## Your first run")
    assert "results/index.md#quickstart" in section
    results = (REPO / "docs" / "results" / "index.md").read_text(encoding="utf-8")
    quick = _section(results, "## Quickstart")
    assert "58.41" in quick and "| 0 (" in quick  # the figures, with their seed
