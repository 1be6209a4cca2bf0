"""Every citetrain command the site's pages (``docs/**/*.md``) show in a ```bash block is checked
here, as tests/test_readme.py checks the README's, and every repository path a page names exists.

:data:`HOW` says how each command is checked (a command in no entry, or an entry no command uses,
fails :func:`test_every_docs_command_is_classified`):

- ``run``: run as written (``python -m citetrain ...``, a process of its own, at most
  :data:`LIMIT_S` seconds, ``HF_HUB_OFFLINE=1``), in a module-wide temporary folder holding a copy
  of the shipped folders (:data:`SHIPPED`) and, beside it, ``../shared/data`` when this checkout has
  it. A command that reads what an earlier docs command writes (``--out``) gets it made first.
  Tiny settings: ``synth --n N`` makes at most :data:`TINY_SYNTH` records. A command that reads
  ``../shared/data`` is only parsed where that folder is absent (skipped after the parse).
- ``dry-run``: commands that train, distill, or need a GPU, a hub model or an API key, of a
  subcommand with ``--dry-run`` (``train``, ``distill``, ``eval``, ``quickstart``): run with
  ``--dry-run`` appended (nothing trained, nothing downloaded), in the same folder, through
  citetrain's ``main`` in the test's process (the console script's code path, without a process
  and an import of torch each; the "run" commands are processes of their own). ``sbatch
  launch/slurm.sbatch RECIPE ARGS`` runs ``citetrain train RECIPE ARGS --emit-shell``, which the
  script reads.
- ``parse``: the rest (files a user brings, trained checkpoints, servers, hub models in
  subcommands without ``--dry-run``): citetrain's parser accepts it (``accelerate launch`` through
  accelerate's parser, then citetrain's for the module's arguments).

For every mode the repository files the command names (``recipes/``, ``data_builders/``,
``eval/``, ``distill/``, ``launch/``, ``examples/``, also in ``--set KEY=PATH``) exist, outputs
(``--out``) and the files a page writes itself (a fenced block starting ``# PATH``) aside.

The "run" commands that score, build or synthesize (seconds each) are marked slow; the default
part (parse, dry-runs, the sub-second runs, the paths) stays under a minute on 2 cores.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citetrain.cli.main import COMMANDS, build_parser, main
from tests import doc_commands as dc

REPO = dc.REPO
DOCS = REPO / "docs"
SHARED = REPO.parent / "shared"
SHIPPED = ("recipes", "data_builders", "eval", "launch", "examples", "distill")
REPO_DIRS = tuple(f"{d}/" for d in SHIPPED)
LIMIT_S = 60
TINY_SYNTH = 20
MODULES = {"citetrain.train": "train", "citetrain.build": "build", "citetrain.evaluation": "eval"}
"""``accelerate launch -m MODULE`` -> the citetrain subcommand whose arguments the module takes."""

PAGES = {str(p.relative_to(DOCS)): p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md"))}

_SHARED = "reads ../shared/data (run when present, else parsed)"
_TRAINS = "trains (a GPU, a hub model): --dry-run checks the recipe and the launch"
_USER_FILE = "reads a file the user brings (answers.jsonl and the like), not in the repository"
_CHECKPOINT = "needs a trained checkpoint under runs/, which a training makes"

HOW: dict[tuple[str, str], tuple[str, str]] = {
    # -- getting-started.md
    ("getting-started.md", "citetrain --version"): ("run", "prints the version"),
    ("getting-started.md", "citetrain --help"): ("run", "prints the help"),
    ("getting-started.md", "citetrain quickstart"): (
        "dry-run", "builds and trains for minutes (--fast too): --dry-run plans it"),
    ("getting-started.md", "citetrain quickstart --dry-run"): ("run", "a dry run as written"),
    ("getting-started.md", "citetrain refine answers.jsonl"): (
        "parse", _USER_FILE + "; the quickstart's checkpoint"),
    ("getting-started.md", "citetrain ls"): ("run", "lists the shipped files"),
    ("getting-started.md", "citetrain cp "): ("run", "copies a shipped file into the folder"),
    ("getting-started.md", "citetrain validate refiner"): ("run", "checks a shipped recipe"),
    ("getting-started.md", "citetrain train tiny-cpu"): (
        "dry-run", "a real training (tests/test_readme.py runs tiny-cpu in full)"),
    ("getting-started.md", "citetrain build quickstart"): ("run", "builds the quickstart's data (~10 s)"),
    ("getting-started.md", "citetrain synth "): ("run", f"synthetic records (at most {TINY_SYNTH})"),
    ("getting-started.md", "citetrain eval data/synth.jsonl"): ("run", "lexical NLI scores the synth file"),
    ("getting-started.md", "citetrain train refiner --set model.name_or_path=/models/"): (
        "dry-run", "a dry run as written (a local model folder not here)"),
    ("getting-started.md", "citetrain eval examples/predictions.jsonl --nli classifier:/models/"): (
        "dry-run", "a local NLI model not here"),
    # -- index.md
    ("index.md", "citetrain quickstart"): ("dry-run", "builds and trains for minutes"),
    ("index.md", "citetrain eval eval/example.yaml"): ("run", "the shipped example suite, lexical NLI"),
    # -- guides/build.md
    ("guides/build.md", "citetrain build data_builders/refiner.yaml --set nli=lexical --set max_subset=2"): (
        "run", _SHARED + "; two records a subset (~15 s)"),
    ("guides/build.md", "citetrain build data_builders/refiner.yaml"): (
        "parse", "the full build (hub NLI model, every record); build has no --dry-run"),
    ("guides/build.md", "citetrain build data_builders/tiny.yaml"): ("run", "the tiny build (~8 s)"),
    ("guides/build.md", "accelerate launch --multi_gpu"): ("parse", "several GPUs"),
    ("guides/build.md", "citetrain synth "): ("run", f"synthetic records (at most {TINY_SYNTH})"),
    ("guides/build.md", "citetrain merge "): ("parse", _CHECKPOINT + "; merge has no --dry-run"),
    # -- guides/checkpoints.md
    ("guides/checkpoints.md", "citetrain train "): ("dry-run", _TRAINS),
    ("guides/checkpoints.md", "citetrain eval eval/generator-checkpoint.yaml"): (
        "dry-run", _CHECKPOINT + " and generation on a GPU"),
    ("guides/checkpoints.md", "citetrain synth "): ("run", f"synthetic records (at most {TINY_SYNTH})"),
    ("guides/checkpoints.md", "citetrain eval data/synth-test.jsonl --model runs/"): (
        "dry-run", _CHECKPOINT),
    ("guides/checkpoints.md", "accelerate launch "): ("parse", "several GPUs and a trained checkpoint"),
    # -- guides/judge.md
    ("guides/judge.md", "citetrain judge answers.jsonl"): ("parse", _USER_FILE + "; " + _CHECKPOINT),
    ("guides/judge.md", "citetrain judge examples/predictions.jsonl --judge nli:lexical"): (
        "run", "the example predictions, lexical NLI"),
    ("guides/judge.md", "citetrain train "): ("dry-run", _TRAINS),
    ("guides/judge.md", "citetrain distill "): (
        "dry-run", "distills from hub teachers for hours: --dry-run plans it (as written where shown)"),
    ("guides/judge.md", "citetrain prune "): ("parse", _CHECKPOINT + "; prune has no --dry-run"),
    ("guides/judge.md", "citetrain export "): ("parse", _CHECKPOINT + "; export has no --dry-run"),
    ("guides/judge.md", "citetrain serve nli:mean:classifier:judge-ov"): (
        "parse", "serves an exported judge (not here); a server"),
    ("guides/judge.md", "citetrain serve nli:lexical"): (
        "parse", "a server (tests/serve starts and asks one); --calibrate measures for minutes"),
    ("guides/judge.md", "citetrain meta-eval aggrefact-"): (
        "parse", "LLM-AggreFact files the page downloads from the hub; " + _CHECKPOINT),
    # -- guides/refine.md
    ("guides/refine.md", "citetrain refine answers.jsonl"): ("parse", _USER_FILE),
    ("guides/refine.md", "citetrain refine examples/predictions.jsonl --refiner lexical"): (
        "run", "the example predictions, lexical refiner and NLI"),
    ("guides/refine.md", "citetrain refine-eval ../shared/data/quotesum/dev.jsonl --format quotesum "
                         "--inputs removed,half --refiner"): ("parse", _CHECKPOINT),
    ("guides/refine.md", "citetrain refine-eval ../shared/data/quotesum/dev.jsonl --format quotesum "
                         "--inputs removed,half --limit 50"): ("run", _SHARED),
    ("guides/refine.md", "citetrain fit-ranker "): ("run", _SHARED),
    ("guides/refine.md", "citetrain refine-eval ../shared/data/wice/"): (
        "run", _SHARED + "; the ranker fit-ranker writes"),
    # -- guides/rl.md
    ("guides/rl.md", "citetrain train "): ("dry-run", _TRAINS),
    ("guides/rl.md", "citetrain refine answers.jsonl"): ("parse", _USER_FILE + "; " + _CHECKPOINT),
    # -- guides/scale.md
    ("guides/scale.md", "citetrain train "): ("dry-run", _TRAINS + " (DeepSpeed, FSDP, several processes)"),
    ("guides/scale.md", "accelerate launch "): ("parse", "eight GPUs"),
    ("guides/scale.md", "sbatch "): ("dry-run", "a Slurm cluster: the script's train --emit-shell"),
    # -- guides/score.md
    ("guides/score.md", "citetrain eval answers.jsonl"): ("parse", _USER_FILE),
    ("guides/score.md", "citetrain eval examples/predictions.jsonl --metrics alce,lenient --nli lexical"): (
        "run", "the example predictions, lexical NLI"),
    ("guides/score.md", "citetrain eval preds/"): ("parse", "LongCite's generations, which the user brings"),
    ("guides/score.md", "citetrain eval eval/longbench-cite.yaml"): (
        "parse", "a suite the page writes, over LongCite's generations (not here)"),
    ("guides/score.md", "citetrain eval eval/expertqa-true.yaml"): (
        "parse", "a suite the page writes (a hub NLI model; its data path is relative to the file)"),
    ("guides/score.md", "citetrain eval eval/expertqa-lexical.yaml"): (
        "dry-run", "the shipped suite over ../shared/data (its path relative to the suite file)"),
    ("guides/score.md", "citetrain eval predictions-1m.jsonl"): ("parse", _USER_FILE),
    ("guides/score.md", "accelerate launch "): ("parse", "several processes; " + _USER_FILE),
    ("guides/score.md", "citetrain meta-eval ../shared/data/wice/entailment_retrieval_claim/dev.jsonl "
                        "--nli lexical,true"): ("parse", "a hub NLI model and " + _CHECKPOINT),
    ("guides/score.md", "citetrain meta-eval ../shared/data/wice/entailment_retrieval_claim/dev.jsonl "
                        "--nli lexical --split"): ("run", _SHARED),
    # -- guides/train.md
    ("guides/train.md", "citetrain train "): ("dry-run", _TRAINS),
    ("guides/train.md", "citetrain validate recipes/refiner.yaml"): ("run", "checks a shipped recipe"),
    ("guides/train.md", "accelerate launch "): ("parse", "eight GPUs"),
    ("guides/train.md", "sbatch "): ("dry-run", "a Slurm cluster: the script's train --emit-shell"),
    ("guides/train.md", "citetrain merge "): ("parse", _CHECKPOINT + "; merge has no --dry-run"),
}
"""(page under docs/, the command or its start) -> (how it is checked, why). The longest start
that matches a command is its entry."""

SLOW_RUNS = ("citetrain synth", "citetrain eval", "citetrain build", "citetrain judge",
             "citetrain refine", "citetrain refine-eval", "citetrain fit-ranker", "citetrain meta-eval")
""""run" commands that score, build or synthesize: seconds each (the rest are sub-second)."""


def _is_citetrain(command: str) -> bool:
    words = command.split()
    return (dc.citetrain_words(command) is not None
            or (words[:2] == ["accelerate", "launch"]  # a citetrain module, or a recipe (the hook)
                and any(w.startswith(("citetrain", "recipes/")) for w in words))
            or (words[:1] == ["sbatch"] and "launch/slurm.sbatch" in words))


def docs_commands() -> list[tuple[str, int, str]]:
    """(page, index among the page's commands, command) of every citetrain command of the pages'
    ```bash blocks (tests/doc_commands.py's ``commands``)."""
    return [(page, i, c) for page, text in PAGES.items()
            for i, c in enumerate(dc.commands(text)) if _is_citetrain(c)]


COMMANDS_SHOWN = docs_commands()


def entry(page: str, command: str) -> tuple[str, str] | None:
    """The :data:`HOW` key of a command: the longest start of it listed for its page."""
    keys = [k for k in HOW if k[0] == page and (command == k[1] or command.startswith(k[1]))]
    return max(keys, key=lambda k: len(k[1]), default=None)


def how(page: str, command: str) -> str:
    key = entry(page, command)
    return HOW[key][0] if key else "unclassified"


def _id(item) -> str:
    page, i, command = item
    return f"{page}#{i}"


def _params(mode: str) -> list:
    out = []
    for item in COMMANDS_SHOWN:
        if how(item[0], item[2]) != mode:
            continue
        marks = [pytest.mark.slow] if mode == "run" and item[2].startswith(SLOW_RUNS) else []
        out.append(pytest.param(item, marks=marks, id=_id(item)))
    return out


# -- the table -----------------------------------------------------------------------------------


def test_every_docs_command_is_classified():
    assert COMMANDS_SHOWN, "no citetrain command found in docs/"
    missing = [f"{page}#{i}: {c}" for page, i, c in COMMANDS_SHOWN if entry(page, c) is None]
    used = {entry(page, c) for page, _, c in COMMANDS_SHOWN}
    stale = [f"{k}" for k in HOW if k not in used]
    bad = [f"{k}: {v}" for k, v in HOW.items() if v[0] not in ("run", "dry-run", "parse") or not v[1]]
    assert not (missing or stale or bad), (
        "docs commands in no HOW entry (say how each is checked):\n" + "\n".join(missing)
        + "\nHOW entries that match no docs command (stale):\n" + "\n".join(stale)
        + "\nHOW entries without a mode or a reason:\n" + "\n".join(bad))


def test_how_lists_what_runs_and_how(capsys):
    """The table, printed (``pytest -s``): each command, how it is checked and why."""
    by_mode = {"run": 0, "dry-run": 0, "parse": 0}
    for page, i, c in COMMANDS_SHOWN:
        key = entry(page, c)
        by_mode[HOW[key][0]] += 1
        print(f"{HOW[key][0]:8} {page}#{i}: {c}  -- {HOW[key][1]}")
    assert all(by_mode.values()), by_mode


# -- checks shared by the modes -------------------------------------------------------------------


def page_written_files(text: str) -> set[str]:
    """Files a page writes itself: a fenced block whose first line is ``# PATH`` (a suite, a spec)."""
    return set(re.findall(r"^```\w*\n#\s*([\w./-]+\.(?:ya?ml|json|jsonl|txt))\s*$", text, flags=re.M))


def _exists(path: str) -> bool:
    """A repository path, or a shipped file named without its ``.yaml`` (``data_builders/refiner``,
    as ``citetrain cp`` takes it)."""
    return (REPO / path).exists() or (REPO / f"{path}.yaml").exists()


def _repo_path_problems(page: str, argv: list[str]) -> list[str]:
    """Repository paths the command names (not ``--out`` targets, not files the page writes) that
    are not in the repository; ``../shared/data`` ones only where that folder is here."""
    written = page_written_files(PAGES[page])
    problems = []
    for prev, word in zip([""] + argv, argv):
        if prev == "--out":
            continue
        for value in {word, word.partition("=")[2]} if prev == "--set" else {word}:
            if value.startswith(REPO_DIRS) and value not in written and not _exists(value):
                problems.append(f"{value} is not in the repository")
            if value.startswith("../shared/data/") and SHARED.is_dir() and not (REPO / value).exists():
                problems.append(f"{value} is not in ../shared/data")
    return problems


def _split_env(command: str) -> tuple[dict[str, str], list[str]]:
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    return env, words


def _citetrain_argv(command: str) -> list[str]:
    """``[SUB, ARGS...]`` (or ``[--version]``) of a citetrain command; for ``accelerate launch``
    the module's subcommand and arguments, for ``sbatch launch/slurm.sbatch`` the training."""
    words = dc.citetrain_words(command)
    if words is not None:
        return words
    _, words = _split_env(command)
    if words[0] == "sbatch":
        i = words.index("launch/slurm.sbatch")
        return ["train", *words[i + 1:]]
    from accelerate.commands.launch import launch_command_parser

    try:
        args = launch_command_parser().parse_args(words[2:])
    except SystemExit as e:
        pytest.fail(f"accelerate does not accept `{command}` (exit {e.code})")
    if args.config_file:
        assert (REPO / args.config_file).is_file(), f"no launch config {args.config_file}"
    if args.module:
        assert args.training_script in MODULES, f"launches an unknown module: {args.training_script}"
        return [MODULES[args.training_script], *args.training_script_args]
    assert args.training_script.endswith((".yaml", ".yml")), f"launches a script: {command}"
    return ["train", args.training_script, *args.training_script_args]


def _parse(page: str, command: str, capsys) -> list[str]:
    argv = _citetrain_argv(command)
    if argv and argv[0] not in ("--version", "--help", "-h"):
        assert argv[0] in COMMANDS, f"{page}: unknown command `citetrain {argv[0]}`"
        try:
            build_parser().parse_args(argv)
        except SystemExit as e:
            pytest.fail(f"{page}: citetrain does not accept `{command}` (exit {e.code}): "
                        f"{capsys.readouterr().err.strip()}")
    problems = dc.override_problems(argv) + _repo_path_problems(page, argv)
    if command.startswith("accelerate launch"):
        _, words = _split_env(command)
        problems += _repo_path_problems(page, words[2:])
    assert not problems, f"{page}: `{command}`: " + "; ".join(problems)
    return argv


# -- running ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A folder holding a copy of the shipped folders, with ``../shared`` beside it when here."""
    root = tmp_path_factory.mktemp("docs-commands")
    work = root / "citetrain"
    for folder in SHIPPED:
        shutil.copytree(REPO / folder, work / folder)
    if SHARED.is_dir():
        (root / "shared").symlink_to(SHARED, target_is_directory=True)
    return work


def _tiny(argv: list[str]) -> list[str]:
    """The tiny settings of a command that runs: ``synth --n N`` at most TINY_SYNTH records."""
    if argv[:1] == ["synth"] and "--n" in argv:
        i = argv.index("--n") + 1
        argv = [*argv[:i], str(min(int(argv[i]), TINY_SYNTH)), *argv[i + 1:]]
    return argv


def _run(argv: list[str], work: Path, env: dict[str, str]) -> None:
    got = subprocess.run([sys.executable, "-m", "citetrain", *argv], cwd=work, capture_output=True,
                         text=True, timeout=LIMIT_S,
                         env={**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
                              "CITETRAIN_CACHE": str(work / "nli-cache.sqlite"), **env})
    assert got.returncode == 0, (f"`citetrain {shlex.join(argv)}` exited {got.returncode}:\n"
                                 f"{got.stdout[-2000:]}\n{got.stderr[-3000:]}")


def _outputs_first(argv: list[str], work: Path, env: dict[str, str]) -> None:
    """Make what the command reads that an earlier "run" docs command writes (its ``--out``)."""
    for page, _, command in COMMANDS_SHOWN:
        if how(page, command) != "run":
            continue
        producer = dc.citetrain_words(command) or []
        if "--out" not in producer or producer == argv:
            continue
        out = producer[producer.index("--out") + 1]
        if not (work / out).exists() and any(w == out or w.endswith(f":{out}") for w in argv):
            _run(_tiny(producer), work, env)


def _skip_without_shared(page: str, command: str, argv: list[str]) -> None:
    """Parsed only where ``../shared/data`` is absent and the command reads it (named in its words,
    or, for a suite that names it, in the reason of its :data:`HOW` entry)."""
    reads = any(w.startswith("../shared/data/") for w in argv)
    if (reads or "../shared/data" in HOW[entry(page, command)][1]) and not SHARED.is_dir():
        pytest.skip("../shared/data is not here: parsed only")


@pytest.mark.parametrize("item", _params("run"))
def test_docs_command_runs(item, workspace, capsys):
    page, _, command = item
    argv = _parse(page, command, capsys)
    _skip_without_shared(page, command, argv)
    env, _ = _split_env(command)
    _outputs_first(argv, workspace, env)
    _run(_tiny(argv), workspace, env)


@pytest.mark.parametrize("item", _params("dry-run"))
def test_docs_command_dry_runs(item, workspace, monkeypatch, capsys):
    page, _, command = item
    argv = _parse(page, command, capsys)
    _skip_without_shared(page, command, argv)
    env, words = _split_env(command)
    if words[0] == "sbatch":
        run = [*argv, "--emit-shell"]
    else:
        sub = argv[0]
        assert "--dry-run" in dc.subparser(sub)[1]._option_string_actions, (
            f"{page}: `{command}` is classified dry-run, but citetrain {sub} has no --dry-run")
        run = argv if "--dry-run" in argv else [*argv, "--dry-run"]
    with monkeypatch.context() as m:  # citetrain's main in this process: one import of torch
        m.chdir(workspace)
        for name, value in {"HF_HUB_OFFLINE": "1", **env}.items():
            m.setenv(name, value)
        m.setenv("CITETRAIN_CACHE", str(workspace / "nli-cache.sqlite"))
        try:
            code = int(main(run) or 0)
        except SystemExit as e:
            code = int(e.code or 0)
    err = capsys.readouterr().err[-3000:]
    assert code == 0, f"{page}: `citetrain {shlex.join(run)}` exited {code}: {err}"


@pytest.mark.parametrize("item", _params("parse"))
def test_docs_command_parses(item, capsys):
    page, _, command = item
    _parse(page, command, capsys)


# -- paths -----------------------------------------------------------------------------------------


PATH = re.compile(r"(?<![\w./~:-])(?:\.\./shared/data|recipes|data_builders|eval|distill|launch|examples"
                  r"|docs|bench)/[\w.*{}<>/-]*")
OUTPUTS = ("runs/", "data/", "quickstart/")


def named_paths(text: str) -> list[str]:
    """Repository paths a page names, in prose and blocks (trailing punctuation dropped)."""
    out = []
    for m in PATH.finditer(text):
        path = m.group(0).rstrip(".,:;")
        if path.endswith("/") or not re.search(r"[*{}<>]", path):
            out.append(path)
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_path_a_page_names_exists(page):
    text = PAGES[page]
    written = page_written_files(text)
    missing = []
    for path in named_paths(text):
        if path.startswith(OUTPUTS) or path in written:
            continue
        if path.startswith("../shared/data"):
            if SHARED.is_dir() and not (REPO / path).exists():
                missing.append(path)
            continue
        if not _exists(path.rstrip("/")):
            missing.append(path)
    generated = set(dc.load_generator().pages())
    for link in re.findall(r"\]\(([^)\s]+)\)", dc.prose(text)):
        target = link.split("#")[0]
        if not target or re.match(r"[a-z]+:", target):
            continue
        resolved = os.path.normpath(Path(page).parent / target)
        if not (DOCS / resolved).exists() and resolved not in generated:
            missing.append(f"link {link}")
    assert not missing, f"docs/{page} names what is not in the repository: {missing}"
