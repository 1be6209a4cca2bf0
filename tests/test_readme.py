"""README.md runs as written: every command it shows, on this machine, offline.

Each ```bash block pairs the command a user with a GPU and a model hub runs with its offline CPU
variant. A comment line starting ``# CPU`` begins commands that run here in full; one starting
``# GPU`` begins commands that are checked without a GPU or a hub; a block with neither is checked.

- **Run in full** (``test_readme_cpu_commands_run_in_order``): the CPU commands of every block, in
  README order, with ``HF_HUB_OFFLINE=1``, as a few independent chains (:data:`CHAINS`: a later
  block uses what an earlier one of its chain trained), each in a temporary copy of the shipped
  folders (a command in :data:`RUN_BY_TESTS` is left to the test named there, which runs it with
  its own checks). Trainings get ``--set train.max_steps=2 --set eval.subset=8 --set
  data.max_train_examples=64`` appended (the tiny settings: the recipe's own step count is what a
  user runs, the path is the same);
  ``citetrain SUB ...`` runs through citetrain's ``main`` in the worker (tests/test_wheel.py runs
  the console script itself), ``accelerate launch`` as a process; ``citetrain serve`` is started,
  asked ``GET /health`` and ``POST /score``, and stopped.
- **Checked** (``test_readme_command_is_checked``): ``citetrain SUB ...`` is parsed by citetrain's
  own parser, the repository files it names exist, and it runs with ``--dry-run`` where the
  command has one (else ``SUB --help``); ``accelerate launch ... RECIPE`` goes through accelerate's
  parser and then a real launch with ``--dry-run`` (the recipe checked in every process);
  ``sbatch launch/slurm.sbatch RECIPE`` runs the recipe's ``citetrain train --emit-shell``, which
  the script reads; ``pip install`` names extras and pins that pyproject.toml has.
- Inline commands (`` `citetrain ...` ``) name existing subcommands and options
  (:mod:`tests.doc_commands`, shared with the site's test); every ```python block runs.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from citetrain.cli.main import COMMANDS, main
from tests import doc_commands
from tests.conftest import worker_threads

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SHIPPED = ("recipes", "data_builders", "eval", "launch", "examples", "distill")
REPO_DIRS = tuple(f"{d}/" for d in SHIPPED)
TINY_STEPS = ["--set", "train.max_steps=2", "--set", "eval.subset=8",
              "--set", "data.max_train_examples=64"]
FREE_PORT = ["--main_process_port", "0"]  # accelerate picks a free port: launches run side by side
MAX_LINES = 250


def _commands_by_mode() -> list[tuple[str, str, str]]:
    """(section, mode, command) for every command of every bash block: ``cpu`` after a ``# CPU``
    comment line, ``check`` otherwise; ``a && b`` as two commands; section is the ``## `` heading
    above the block."""
    out = []
    for section, body in re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", README, flags=re.S | re.M):
        for block in doc_commands.bash_blocks(body):
            mode = "check"
            for line in block.splitlines():
                if line.startswith("# CPU"):
                    mode = "cpu"
                elif line.startswith("# GPU"):
                    mode = "check"
                out += [(section, mode, c) for c in doc_commands.commands(f"```bash\n{line}\n```")]
    return out


CPU = [(section, c) for section, mode, c in _commands_by_mode() if mode == "cpu"]
CHECKED = list(dict.fromkeys(c for _, mode, c in _commands_by_mode() if mode == "check"))
# The CPU commands run as independent chains, each in its own folder and on its own test worker;
# a chain holds the README sections whose commands use what an earlier one made, in README order.
CHAINS = {
    "score": ["Score a file of answers"],
    "refiner": ["Build training data", "Train a refiner", "Score a checkpoint, during and after training",
                "Refine answers"],
    "judge": ["Distill, export and serve a judge"],
    "rl": ["Build training data", "Preference and RL training"],
}


# CPU commands that a dedicated test runs in full with its own checks (the command's
# distinguishing word: that test), left out of the chains so that no command runs twice
RUN_BY_TESTS = {
    "launch/cpu-2proc.yaml": "tests/train/test_distributed.py::test_two_processes_over_gloo",
}


def readme_cpu_command(word: str) -> str:
    """The one ``# CPU`` command of the README that holds ``word``."""
    found = [c for _, c in CPU if word in c.split()]
    assert len(found) == 1, f"README CPU commands holding {word}: {found}"
    return found[0]


def test_commands_run_by_tests_are_in_the_readme_and_their_tests_exist():
    for word, test in RUN_BY_TESTS.items():
        readme_cpu_command(word)
        path, name = test.split("::")
        assert f"def {name}(" in (REPO / path).read_text(), test


def test_readme_is_short():
    assert len(README.splitlines()) <= MAX_LINES


def test_every_job_has_a_cpu_variant_that_runs_here():
    blocks = [b for b in doc_commands.bash_blocks(README) if "# GPU" in b]
    assert len(blocks) >= 7  # score, build, train, checkpoints, refine, judge, RL
    assert all("# CPU" in b for b in blocks), "a GPU block without its offline CPU variant"


def development_lines() -> list[str]:
    """The README's Development block: venv, install, test, fast subset (one line each)."""
    body = re.search(r"^## Development\n(.*?)(?=^## |\Z)", README, flags=re.S | re.M).group(1)
    return [ln.strip() for ln in doc_commands.bash_blocks(body)[0].splitlines() if ln.strip()]


def test_ci_runs_the_readme_development_lines_in_a_fresh_venv():
    """.ci/run reads the README's Development block and runs its first three lines (a new venv,
    the install, the test command) in order, after removing any venv left there."""
    venv, install, test, fast = development_lines()
    assert venv.startswith("python3 -m venv .venv") and ". .venv/bin/activate" in venv
    assert install.startswith("pip install torch==") and test == "python -m pytest -q"
    assert fast == 'python -m pytest -q -m "not slow"'
    ci = (REPO / ".ci" / "run").read_text()
    assert "rm -rf .venv" in ci and "## Development" in ci and "line 1" in ci and "line 3" in ci
    assert ci.index("line 1") < ci.index("line 2") < ci.index("line 3")


# -- run in full ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    """Start ``citetrain serve ...`` on a free port, ask it once for each route, stop it."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "citetrain", *argv, "--port", str(port)],
                            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            assert proc.poll() is None, f"`citetrain {shlex.join(argv)}` exited: {proc.stdout.read()}"
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        body = json.dumps({"pairs": [{"passage": "Paris is the capital of France.",
                                      "statement": "Paris is in France."}]}).encode()
        req = urllib.request.Request(f"{base}/score", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            assert r.status == 200 and json.loads(r.read())
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _run_cpu(command: str, cwd: Path, env: dict[str, str], monkeypatch) -> None:
    """One ``# CPU`` command: ``citetrain SUB ...`` through citetrain's own ``main`` in this worker
    (the console script's code path, without a second import of torch and transformers: the wheel
    test runs the console script itself), ``accelerate launch`` and ``citetrain serve`` as
    processes."""
    words = shlex.split(command)
    if words[:2] == ["citetrain", "serve"]:
        return _serve(words[1:], cwd, env)
    if words[0] == "citetrain":
        argv = words[1:] + (TINY_STEPS if words[1] == "train" else [])
        with monkeypatch.context() as m:
            m.chdir(cwd)
            for name, value in env.items():
                m.setenv(name, value)
            code = _exit_code(argv)
        assert code == 0, f"`{command}` exited {code}"
        return
    if words[:2] != ["accelerate", "launch"]:
        pytest.fail(f"README shows a CPU command that this test cannot run: {command}")
    argv = [sys.executable, "-m", "accelerate.commands.launch", *FREE_PORT, *words[2:], *TINY_STEPS]
    got = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert got.returncode == 0, (f"`{command}` exited {got.returncode}:\n{got.stdout[-3000:]}\n"
                                 f"{got.stderr[-3000:]}")


def test_every_cpu_command_runs_in_a_chain():
    chained = {section for sections in CHAINS.values() for section in sections}
    missing = sorted({section for section, _ in CPU} - chained)
    assert CPU and not missing, f"README sections whose CPU commands no chain runs: {missing}"


@pytest.mark.slow
@pytest.mark.timeout(900)  # the longest chain (build, two trainings, scoring, refining): 2-4 min
@pytest.mark.parametrize("chain", [pytest.param(name, marks=pytest.mark.xdist_group(f"readme-{name}"))
                                   for name in CHAINS])
def test_readme_cpu_commands_run_in_order(tmp_path, chain, monkeypatch):
    """The ``# CPU`` commands of the chain's sections, in README order, in one folder holding the
    shipped files."""
    for folder in SHIPPED:
        shutil.copytree(REPO / folder, tmp_path / folder)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": str(worker_threads()),
           "CITETRAIN_CACHE": str(tmp_path / "nli-cache.sqlite")}
    commands = [c for section, c in CPU if section in CHAINS[chain]]
    assert commands, f"README shows no CPU commands in {CHAINS[chain]}"
    for command in commands:
        if not RUN_BY_TESTS.keys() & set(command.split()):
            _run_cpu(command, tmp_path, env, monkeypatch)


# -- checked --------------------------------------------------------------------------------------


def _check_repo_paths(argv: list[str]) -> None:
    for prev, word in zip([""] + argv, argv):
        if word.startswith(REPO_DIRS) and prev != "--out":
            assert (REPO / word).exists(), f"README names {word}, which is not in the repository"


def _exit_code(argv: list[str]) -> int:
    try:
        return int(main(argv) or 0)
    except SystemExit as e:  # --help, or argparse refusing the line
        return int(e.code or 0)


def _check_citetrain(argv: list[str], capsys) -> None:
    sub = argv[0]
    assert sub in COMMANDS, f"README shows unknown command: citetrain {sub}"
    parser, subparser = doc_commands.subparser(sub)
    try:
        parser.parse_args(argv)
    except SystemExit as e:
        pytest.fail(f"citetrain does not accept `citetrain {shlex.join(argv)}` (exit {e.code}): "
                    f"{capsys.readouterr().err.strip()}")
    problems = doc_commands.override_problems(argv)
    assert not problems, "; ".join(problems)
    _check_repo_paths(argv)
    if "--dry-run" in argv or "--emit-shell" in argv:
        run = argv
    elif "--dry-run" in subparser._option_string_actions:
        run = argv + ["--dry-run"]
    else:
        run = [sub, "--help"]
    code = _exit_code(run)
    out = capsys.readouterr()
    assert code == 0, f"`citetrain {shlex.join(run)}` exited {code}: {out.err.strip()}"


def _subprocess(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=REPO, env={**os.environ, "OMP_NUM_THREADS": "1", **env},
                          capture_output=True, text=True, timeout=300)


def _check_accelerate(words: list[str], env: dict[str, str], capsys) -> None:
    from accelerate.commands.launch import launch_command_parser

    try:
        args = launch_command_parser().parse_args(words[2:])
    except SystemExit as e:
        pytest.fail(f"accelerate does not accept `{shlex.join(words)}` (exit {e.code}): "
                    f"{capsys.readouterr().err.strip()}")
    recipe_file = not args.module and args.training_script.endswith((".yaml", ".yml"))
    assert args.module or recipe_file, f"README launches a script, not a module: {shlex.join(words)}"
    if recipe_file:  # the start-up hook runs it as -m citetrain.train (citetrain/cli/recipe_hook.py)
        _check_repo_paths([args.training_script])
    if args.config_file:
        assert (REPO / args.config_file).is_file(), f"no launch config {args.config_file}"
    _check_repo_paths(list(args.training_script_args))
    assert args.training_script == "citetrain.train" or recipe_file, (
        f"README launches an unknown module: {args.training_script}")
    launch = [sys.executable, "-m", "accelerate.commands.launch", *FREE_PORT, *words[2:], "--dry-run"]
    got = _subprocess(launch, env)
    assert got.returncode == 0 and "dry run, nothing trained" in got.stdout, (
        f"`{shlex.join(words)} --dry-run` exited {got.returncode}:\n{got.stdout[-2000:]}\n"
        f"{got.stderr[-2000:]}")


def _check_sbatch(words: list[str], capsys) -> None:
    i = next(i for i, w in enumerate(words) if w.endswith(".sbatch"))
    assert all(w.startswith("--") for w in words[1:i]), f"unexpected sbatch words: {words}"
    script, recipe, *rest = words[i:]
    assert script == "launch/slurm.sbatch" and (REPO / script).is_file(), f"no {script}"
    _check_citetrain(["train", recipe, *rest, "--emit-shell"], capsys)


def _check_pip(words: list[str]) -> None:
    from packaging.requirements import Requirement

    assert words[:2] == ["pip", "install"], f"unknown pip command: {shlex.join(words)}"
    extras_known = set(PYPROJECT["project"]["optional-dependencies"])
    deps = {Requirement(d).name: Requirement(d) for d in PYPROJECT["project"]["dependencies"]}
    targets = [w for w in words[2:] if w != "-e"]
    assert targets, "pip install of nothing"
    for t in targets:
        m = re.fullmatch(r"(?:\.|citetrain)(?:\[([\w,-]+)\])?", t)
        if m:
            extras = set(filter(None, (m.group(1) or "").split(",")))
            assert extras <= extras_known, f"no such extra in pyproject.toml: {extras - extras_known}"
            continue
        req = Requirement(t)
        assert req.name in deps, f"README installs {t}, which is not a dependency of citetrain"
        pins = [s.version for s in req.specifier if s.operator == "=="]
        assert all(deps[req.name].specifier.contains(p) for p in pins), (
            f"README pins {t}, outside pyproject.toml's {deps[req.name]}")


# a real launch (--dry-run, the recipe checked in every process) takes ten seconds or more
@pytest.mark.parametrize("command", [
    pytest.param(c, marks=pytest.mark.slow) if c.startswith("accelerate launch") else c for c in CHECKED])
def test_readme_command_is_checked(command, monkeypatch, capsys):
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(REPO)
    if words[0] == "citetrain":
        _check_citetrain(words[1:], capsys)
    elif words[:2] == ["accelerate", "launch"]:
        _check_accelerate(words, env, capsys)
    elif words[0] == "sbatch":
        _check_sbatch(words, capsys)
    elif words[0] == "pip":
        _check_pip(words)
    elif words[:4] == ["python3", "-m", "venv", ".venv"] or words == [".", ".venv/bin/activate"]:
        assert command in development_lines()[0], f"a venv other than the Development one: {command}"
    elif words[:3] == ["python", "-m", "pytest"]:
        assert words[3:] in (["-q"], ["-q", "-m", "not slow"]), f"unexpected pytest options: {command}"
    else:
        pytest.fail(f"README shows a command that tests/test_readme.py does not check: {command}")


@pytest.mark.parametrize("span", doc_commands.inline_commands(README))
def test_readme_inline_command_exists(span):
    words = shlex.split(span)
    if words[0] == "pip":
        _check_pip(words)
    elif words[0] == "citetrain":
        problems = doc_commands.citetrain_problems(doc_commands.citetrain_words(span))
        assert not problems, f"README: {span}: {'; '.join(problems)}"
    else:
        from accelerate.commands.launch import launch_command_parser

        known = launch_command_parser()._option_string_actions
        for w in words[2:]:
            if w.startswith("--"):
                assert w in known, f"README names an option accelerate launch does not have: {w}"
            if w in ("-m", "--module"):
                break


def test_readme_shows_a_python_example_of_evaluate():
    assert any("citetrain.evaluate(" in block for block in doc_commands.python_blocks(README))


@pytest.mark.parametrize("block", doc_commands.python_blocks(README))
def test_readme_python_block_runs(block, tmp_path, monkeypatch, capsys):
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    exec(compile(block, "README.md", "exec"), {"__name__": "__readme__"})
    if "citetrain.evaluate(" in block:
        assert "citation_rec" in capsys.readouterr().out
