"""``citetrain distill --dry-run`` prints the command lines the chain runs, exactly: each step's
``argv`` is the one source of both (training runs as processes, ``citetrain`` commands through
the command line's own entry point)."""
from __future__ import annotations

import shlex

from citetrain.cli.main import main
from tests.distill.conftest import write_spec


def _printed(out: str) -> list[list[str]]:
    """The ``$ ...`` lines of a dry run that are command lines (not in-process steps' words)."""
    lines = [line.strip()[2:] for line in out.splitlines() if line.strip().startswith("$ ")]
    return [shlex.split(line) for line in lines if not line.startswith("(")]


def test_the_dry_run_prints_exactly_the_argv_lists_that_run(toy, tmp_path, capsys, monkeypatch):
    spec = write_spec(tmp_path, toy, prune={"widths": 32, "token_pairs": 16, "head_pairs": 32,
                                            "seed": 3},
                      export={"runtime": "openvino", "int8": True, "calibration_pairs": 64})
    assert main(["distill", str(spec), "--dry-run"]) == 0
    printed = _printed(capsys.readouterr().out)
    assert len(printed) == 6  # two fold teachers, their file, the student, prune, export

    ran: list[list[str]] = []

    def run_all(runs, slots, say):  # the training processes, recorded instead of started
        for run in runs:
            ran.append(list(run.argv))
            if run.before is not None:
                run.before()
            if run.after is not None:
                run.after(0.0)

    def cli(argv):  # the citetrain entry point the other steps run through, recorded
        ran.append(["citetrain", *argv])
        return 0

    monkeypatch.setattr("citetrain.distill.chain.run_all", run_all)
    monkeypatch.setattr("citetrain.cli.main.main", cli)
    assert main(["distill", str(spec)]) == 0
    assert ran == printed
    prune = next(a for a in ran if a[1] == "prune")
    assert prune[prune.index("--token-pairs") + 1] == "16"  # once left out of the printed line
    assert prune[prune.index("--head-pairs") + 1] == "32"
    assert prune[prune.index("--seed") + 1] == "3"


def test_a_failed_command_stops_the_chain_in_one_line(toy, tmp_path, capsys, monkeypatch):
    import pytest

    from citetrain.errors import CitetrainError

    spec = write_spec(tmp_path, toy, prune={"widths": 32})
    monkeypatch.setattr("citetrain.distill.chain.run_all", lambda runs, slots, say: [
        (r.before and r.before(), r.after and r.after(0.0)) for r in runs])
    monkeypatch.setattr("citetrain.cli.main.main", lambda argv: 2 if argv[0] == "teacher" else 0)
    from citetrain.distill.pipeline import distill
    from citetrain.distill.spec import load_spec

    with pytest.raises(CitetrainError, match=r"^`citetrain teacher .+` failed \(exit 2; its "
                                             r"error is above\)$"):
        from citetrain.cli import main as cli_main

        distill(load_spec(str(spec)), say=lambda line: None, cli=cli_main.main)
