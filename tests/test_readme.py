"""Every command the README shows is run here, so that it shows only commands that work.

Each command of a ```bash block (lines split at ``&&``; comments dropped) is checked by its first
words:

- ``citetrain SUB ...``: the whole line is parsed by citetrain's own parser (an unknown command or
  option fails), the repository files it names must exist, and then it runs: in full where that
  takes seconds (``validate``, ``synth``, ``eval`` / ``judge`` of ``examples/`` under the lexical
  NLI; outputs go to a temporary folder), with ``--dry-run`` appended where the command has one
  (``train``, ``quickstart``), else ``SUB --help``.
- ``accelerate launch ... -m citetrain.train RECIPE`` and ``accelerate launch ... RECIPE`` (the
  start-up hook): accelerate's parser checks the launch options, then the real launch runs with
  ``--dry-run`` appended (the recipe is checked in every process); ``-m citetrain.build`` runs with ``--help`` after citetrain's parser checks the spec line.
- ``python bench/X.py ...``: the script runs with ``--help``.
- ``pip install ...``: the extras named exist in pyproject.toml and the torch pin satisfies its range.
- ``python -m pytest``: the command CI runs (see ``test_ci_runs_the_readme_test_command``).
- Leading ``NAME=value`` words are set in the environment. Any other command fails the test.

Commands in inline code (```` `citetrain ...` ````) get the lighter check: the subcommand and every
option it names exist.

Every ```python block runs as it is, offline, in a temporary folder holding the repository's
``examples/``; the example of ``citetrain.evaluate`` must write its report.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from citetrain.cli.main import COMMANDS, build_parser, main

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())

# arguments that name files of the repository (checked to exist, except as --out values)
REPO_DIRS = ("recipes/", "data_builders/", "eval/", "launch/", "examples/", "bench/")
# commands that run in full: seconds on 2 CPU cores
FULL_RUN = {"validate", "synth"}
CHEAP_INPUTS = {"examples/predictions.jsonl", "eval/example.yaml"}
CHEAP_NLI = {"lexical", "nli:lexical"}
# where a command writes when no --out is given (redirected to a temporary folder)
DEFAULT_OUT = {"eval": "eval_results", "synth": "synth.jsonl"}


def _blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README, flags=re.S)


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def _commands() -> list[str]:
    """Every command of every bash block, comments dropped, ``a && b`` as two commands."""
    out = []
    for block in _blocks():
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if not words:
                continue
            part: list[str] = []
            for w in words + ["&&"]:
                if w == "&&":
                    out.append(shlex.join(part))
                    part = []
                else:
                    part.append(w)
    return list(dict.fromkeys(out))


def _inline_commands() -> list[str]:
    """Inline code spans in the prose that are commands of the toolkit."""
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    spans = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", prose)]
    return list(dict.fromkeys(s for s in spans if re.match(r"(citetrain|accelerate launch|pip install) ", s)))


def _subparser(sub: str):
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return parser, action.choices[sub]


def _check_repo_paths(argv: list[str]) -> None:
    for prev, word in zip([""] + argv, argv):
        if word.startswith(REPO_DIRS) and prev != "--out":
            assert (REPO / word).exists(), f"README names {word}, which is not in the repository"


def _last_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[-1]


def _exit_code(argv: list[str]) -> int:
    try:
        return int(main(argv) or 0)
    except SystemExit as e:  # --help, or argparse refusing the line
        return int(e.code or 0)


def _option_value(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv[:-1] else None


def _redirect_out(argv: list[str], tmp: Path) -> list[str]:
    argv = list(argv)
    if "--out" in argv[:-1]:
        i = argv.index("--out") + 1
        argv[i] = str(tmp / Path(argv[i]).name)
    elif argv[0] in DEFAULT_OUT:
        argv += ["--out", str(tmp / DEFAULT_OUT[argv[0]])]
    return argv


def _cheap(argv: list[str]) -> bool:
    sub = argv[0]
    if sub in FULL_RUN:
        return True
    if sub not in ("eval", "judge") or argv[1] not in CHEAP_INPUTS:
        return False
    engines = [_option_value(argv, "--nli"), _option_value(argv, "--judge")]
    return all(e is None or e in CHEAP_NLI for e in engines)


def _run_citetrain(argv: list[str], tmp: Path, capsys) -> None:
    sub = argv[0]
    assert sub in COMMANDS, f"README shows unknown command: citetrain {sub}"
    parser, subparser = _subparser(sub)
    try:
        parser.parse_args(argv)
    except SystemExit as e:
        pytest.fail(f"citetrain does not accept `citetrain {shlex.join(argv)}` "
                    f"(exit {e.code}): {_last_line(capsys.readouterr().err)}")
    _check_repo_paths(argv)
    if "--dry-run" in argv or "--emit-shell" in argv:
        run = argv
    elif "--dry-run" in subparser._option_string_actions:
        run = argv + ["--dry-run"]
    elif _cheap(argv):
        run = _redirect_out(argv, tmp)
    else:
        run = [sub, "--help"]
    code = _exit_code(run)
    out = capsys.readouterr()
    assert code == 0, f"`citetrain {shlex.join(run)}` exited {code}: {out.err.strip()}"


def _subprocess(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=REPO, env={**os.environ, "OMP_NUM_THREADS": "1", **env},
                          capture_output=True, text=True, timeout=300)


def _run_accelerate(words: list[str], env: dict[str, str], capsys) -> None:
    from accelerate.commands.launch import launch_command_parser

    try:
        args = launch_command_parser().parse_args(words[2:])
    except SystemExit as e:
        pytest.fail(f"accelerate does not accept `{shlex.join(words)}` (exit {e.code}): "
                    f"{_last_line(capsys.readouterr().err)}")
    recipe_file = not args.module and args.training_script.endswith((".yaml", ".yml"))
    assert args.module or recipe_file, f"README launches a script, not a module: {shlex.join(words)}"
    if recipe_file:  # the start-up hook runs it as -m citetrain.train (citetrain/cli/recipe_hook.py)
        _check_repo_paths([args.training_script])
    if args.config_file:
        assert (REPO / args.config_file).is_file(), f"no launch config {args.config_file}"
    script_args = list(args.training_script_args)
    _check_repo_paths(script_args)
    if args.training_script == "citetrain.train" or recipe_file:
        extra, expect = ["--dry-run"], "dry run, nothing trained"
    elif args.training_script == "citetrain.build":
        _run_citetrain(["build", *script_args], Path("unused"), capsys)  # parse only; --help
        extra, expect = ["--help"], "usage:"
    else:
        pytest.fail(f"README launches an unknown module: {args.training_script}")
    launch = [sys.executable, "-m", "accelerate.commands.launch", *words[2:], *extra]
    got = _subprocess(launch, env)
    assert got.returncode == 0 and expect in got.stdout, (
        f"`{shlex.join(words[:2] + launch[3:])}` exited {got.returncode}:\n"
        f"{got.stdout[-2000:]}\n{got.stderr[-2000:]}")


def _check_pip(words: list[str]) -> None:
    from packaging.requirements import Requirement

    assert words[:2] == ["pip", "install"], f"unknown pip command: {shlex.join(words)}"
    extras_known = set(PYPROJECT["project"]["optional-dependencies"])
    deps = {Requirement(d).name: Requirement(d) for d in PYPROJECT["project"]["dependencies"]}
    targets = [w for w in words[2:] if w != "-e"]
    assert targets, "pip install of nothing"
    for t in targets:
        if re.fullmatch(r"citetrain-\*\.whl", t):  # the wheel `pip wheel --no-deps .` wrote
            continue
        m = re.fullmatch(r"(?:\.|citetrain)(?:\[([\w,-]+)\])?", t)
        if m:
            extras = set(filter(None, (m.group(1) or "").split(",")))
            assert extras <= extras_known, f"no such extra in pyproject.toml: {extras - extras_known}"
            continue
        req = Requirement(t)
        assert req.name in deps, f"README installs {t}, which is not a dependency of citetrain"
        pins = [s.version for s in req.specifier if s.operator == "=="]
        assert pins and deps[req.name].specifier.contains(pins[0]), (
            f"README pins {t}, outside pyproject.toml's {deps[req.name]}")


def test_readme_leads_with_exactly_two_setup_commands():
    first = _blocks()[0]
    cmds = [ln for ln in first.splitlines() if ln.strip() and not ln.startswith("#")]
    assert cmds == [
        'pip install torch==2.13.0 && pip install -e ".[crossencoder]" && citetrain quickstart',
        'pip install torch==2.13.0 && pip install -e ".[test,crossencoder]" && python -m pytest -q',
    ]


def test_ci_runs_the_readme_test_command():
    test_cmd = [ln for ln in _blocks()[0].splitlines() if "pytest" in ln][0].strip()
    assert test_cmd in (REPO / ".ci" / "run").read_text()


@pytest.mark.parametrize("command", _commands())
def test_readme_command_runs(command, tmp_path, monkeypatch, capsys):
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(REPO)
    if words[0] == "citetrain":
        _run_citetrain(words[1:], tmp_path, capsys)
    elif words[:2] == ["accelerate", "launch"]:
        _run_accelerate(words, env, capsys)
    elif words[0] == "python" and len(words) > 1 and words[1].startswith("bench/"):
        assert (REPO / words[1]).is_file(), f"no benchmark {words[1]}"
        got = _subprocess([sys.executable, words[1], "--help"], env)
        assert got.returncode == 0, f"{words[1]} --help exited {got.returncode}: {got.stderr[-2000:]}"
    elif words[0] == "pip":
        _check_pip(words)
    elif words[:3] == ["python", "-m", "pytest"]:
        assert set(words[3:]) <= {"-q"}, f"unexpected pytest options: {command}"
    else:
        pytest.fail(f"README shows a command that tests/test_readme.py does not check: {command}")


@pytest.mark.parametrize("span", _inline_commands())
def test_readme_inline_command_exists(span):
    words = span.split()
    if words[0] == "pip":
        _check_pip(shlex.split(span))
    elif words[0] == "citetrain":
        while len(words) > 2 and words[1] in ("--verbose", "--debug"):  # the global options
            words = [words[0], *words[2:]]
        assert words[1] in COMMANDS, f"README names unknown command: {span}"
        _, subparser = _subparser(words[1])
        for w in words[2:]:
            if w.startswith("--"):
                assert w.split("=")[0] in subparser._option_string_actions, (
                    f"README names an option `citetrain {words[1]}` does not have: {w}")
    else:
        from accelerate.commands.launch import launch_command_parser

        known = launch_command_parser()._option_string_actions
        for w in words[2:]:
            if w.startswith("--"):
                assert w in known, f"README names an option accelerate launch does not have: {w}"
            if w in ("-m", "--module"):
                break


def test_readme_shows_a_python_example_of_evaluate():
    assert any("citetrain.evaluate(" in block for block in _python_blocks())


@pytest.mark.parametrize("block", _python_blocks())
def test_readme_python_block_runs(block, tmp_path, monkeypatch, capsys):
    import shutil

    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    exec(compile(block, "README.md", "exec"), {"__name__": "__readme__"})
    if "citetrain.evaluate(" in block:
        assert (tmp_path / "eval_results" / "example" / "report.json").is_file()
        assert "citation_rec" in capsys.readouterr().out
