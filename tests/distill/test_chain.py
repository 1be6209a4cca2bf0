"""``citetrain distill SPEC`` end to end at toy size: two fold teachers side by side, their
teacher file, the student, prune and teach-back (the export's own tests are
tests/judges/test_export*.py: here its step is checked with a stand-in); killed (the whole
process group) once a teacher has finished, then run again, it keeps that teacher and goes on."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citetrain.cli.main import main
from tests.distill.conftest import write_spec

REPO = Path(__file__).resolve().parents[2]


def _first_teacher(done: Path, proc: subprocess.Popen, seconds: float = 300) -> list[Path]:
    """The records of the teachers finished once the first one is (the chain still running)."""
    end = time.time() + seconds
    while not (found := [p for p in sorted(done.glob("teacher-f*.json"))
                         if json.loads(p.read_text()).get("state") == "done"]):
        if proc.poll() is not None:
            raise AssertionError(f"the chain ended (exit {proc.returncode}) before a teacher")
        if time.time() > end:
            raise AssertionError(f"no teacher finished in {seconds} s")
        time.sleep(0.1)
    return found


def _fake_export(calls: list[dict]):
    def export(model, out, **kw):
        calls.append({"model": Path(model), **kw})
        Path(out).mkdir(parents=True)
        (Path(out) / "config.json").write_text("{}")
        return {"max_abs_diff_prob": 0.0, "max_abs_diff_expected": 0.0, "check_pairs": 8,
                "last_layer": "whole", "premise": "select", "hint": "none", "max_length": 48}
    return export


@pytest.mark.slow
def test_a_killed_chain_keeps_its_finished_teacher_and_goes_on(toy, tmp_path, capsys,
                                                                monkeypatch):
    spec = write_spec(tmp_path, toy, parallel=2,
                      prune={"widths": 32, "token_pairs": 16, "head_pairs": 32},
                      teach_back={"epochs": 1}, export={"runtime": "onnx", "int8": False})
    out = tmp_path / "out"
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "citetrain", "distill", str(spec)], cwd=REPO,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        finished = _first_teacher(out / "done", proc)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
    first = proc.communicate()[0].decode()
    assert "2 training runs, 2 at a time, 1 thread each" in first
    kept = [p.stem for p in finished]  # done by its file (the kill may come before its line)
    scores = {n: out / "teachers" / n.removeprefix("teacher-") / "fold_scores.jsonl" for n in kept}
    stamps = {n: p.stat().st_mtime_ns for n, p in scores.items()}

    calls: list[dict] = []
    monkeypatch.setattr("citetrain.judges.export.export_judge", _fake_export(calls))
    assert main(["distill", str(spec)]) == 0
    said = capsys.readouterr().out
    assert "[distill] human: kept" in said
    for name in kept:  # not trained again, its fold scores untouched
        assert f"[distill] {name}: kept" in said and f"{name}: started" not in said
        assert scores[name].stat().st_mtime_ns == stamps[name]
    ran = [n for n in ("teacher-f0-s42", "teacher-f1-s42") if n not in kept]
    for step in ran + ["teacher-file", "student", "prune", "teach-back-file", "teach-back",
                       "export"]:
        assert f"[distill] {step}: done in" in said, step
    assert f"done: {len(ran) + 6} steps run, {len(kept) + 1} kept" in said
    teacher = [json.loads(x) for x in (out / "teacher.jsonl").read_text().splitlines()]
    assert {r.get("weight") for r in teacher} == {None, 1.0}  # fold scores, then built pairs
    student = json.loads((out / "student" / "train_summary.json").read_text())
    assert student["teacher"]["weight"] == 0.5 and student["teacher"]["transfer_pairs"] > 0
    from transformers import AutoConfig

    assert AutoConfig.from_pretrained(out / "pruned").intermediate_size == 32
    back = json.loads((out / "teach-back" / "train_summary.json").read_text())
    assert back["base_model"] == str(out / "pruned") and back["teacher"]["weight"] == 1.0
    assert calls == [{"model": out / "teach-back" / "final", "runtime": "onnx", "int8": False,
                      "calibration": None, "calibration_size": 300, "calibration_seed": 0,
                      "first_token": True}]
    assert f"nli:mean:classifier:{out / 'export'}+lexical" in said

    assert main(["distill", str(spec)]) == 0  # all kept now
    assert "done: 0 steps run, 9 kept" in capsys.readouterr().out
    assert main(["distill", str(spec), "--set", "student.teacher_weight=0.8", "--dry-run"]) == 0
    plan = capsys.readouterr().out
    assert "teacher-f1-s42 [kept]" in plan
    assert "student [to run again: its settings changed]" in plan
    assert "export [to run again: its settings changed]" in plan  # what follows the student too
