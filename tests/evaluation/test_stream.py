"""``citetrain eval`` streamed in chunks (citetrain/evaluation/stream.py): the report of many small
chunks is the report of one; a run stopped after two chunks goes on from them without scoring them
again; two processes give the report of one; a partial run with other settings is refused."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from citetrain.errors import CitetrainError
from citetrain.evaluation import stream
from citetrain.evaluation.__main__ import main as evaluation_main
from citetrain.evaluation.inputs import RunOptions
from citetrain.metrics.suites import Suite, SuiteData
from citetrain.synth.records import synth_records
from tests.approx import same

REPO = Path(__file__).resolve().parents[2]
METRICS = ["alce", "lenient", "aliice", "citeeval"]


@pytest.fixture(scope="module")
def predictions(tmp_path_factory) -> Path:
    """Our five examples and nine synthetic records, one of them with an empty output."""
    path = tmp_path_factory.mktemp("preds") / "preds.jsonl"
    lines = (REPO / "examples" / "predictions.jsonl").read_text().splitlines()
    recs = synth_records(9, seed=2)
    recs[3] = recs[3].model_copy(update={"output": ""})
    lines += [json.dumps(r.to_dict()) for r in recs]
    path.write_text("\n".join(lines) + "\n")
    return path


def run(predictions: Path, out: Path, chunk: int) -> dict:
    suite = Suite(name="t", data=[SuiteData(path=str(predictions))], metrics=METRICS)
    return stream.run_streamed(suite, RunOptions(progress=False, cache=False), out, chunk)




def report(out: Path) -> dict:
    data = json.loads((out / "report.json").read_text())
    data["info"] = {k: v for k, v in data["info"].items()
                    if k not in ("seconds", "engine", "score_chunks", "processes")}
    return data


def test_many_chunks_give_the_report_of_one(predictions, tmp_path, capsys):
    got = run(predictions, tmp_path / "small", 3)
    assert got == {"scored": [0, 1, 2, 3, 4], "resumed": [], "chunks": 5}
    run(predictions, tmp_path / "one", 1000)
    a, b = tmp_path / "small", tmp_path / "one"
    assert (a / "statements.jsonl").read_bytes() == (b / "statements.jsonl").read_bytes()
    assert same(report(a), report(b), abs_=1e-12)
    assert json.loads((a / "report.json").read_text())["info"]["score_chunks"] == 5
    assert not stream.work_dir(a).exists() and sorted(p.name for p in a.iterdir()) == [
        "report.json", "statements.jsonl", "table.txt"]


def test_a_stopped_run_goes_on_from_its_finished_chunks(predictions, tmp_path, monkeypatch):
    real = stream.save_chunk

    def stop_at_two(work, k, done):
        if k == 2:
            raise KeyboardInterrupt  # killed while chunk 2 is being saved
        real(work, k, done)

    monkeypatch.setattr(stream, "save_chunk", stop_at_two)
    with pytest.raises(KeyboardInterrupt):
        run(predictions, tmp_path / "resumed", 3)
    assert not (tmp_path / "resumed" / "report.json").exists()
    monkeypatch.setattr(stream, "save_chunk", real)
    scored = []
    real_score = stream.score_chunk

    def counting(records, suite, engine):
        scored.append([r.id for r in records])
        return real_score(records, suite, engine)

    monkeypatch.setattr(stream, "score_chunk", counting)
    got = run(predictions, tmp_path / "resumed", 3)
    assert got == {"scored": [2, 3, 4], "resumed": [0, 1], "chunks": 5}
    assert len(scored) == 3 and "paris-1" not in scored[0]  # the first chunks not again
    run(predictions, tmp_path / "whole", 3)
    a, b = tmp_path / "resumed", tmp_path / "whole"
    assert (a / "statements.jsonl").read_bytes() == (b / "statements.jsonl").read_bytes()
    assert same(report(a), report(b), abs_=1e-12)


def test_a_partial_run_with_other_settings_is_refused(predictions, tmp_path, monkeypatch):
    real = stream.save_chunk

    def stopper(at):
        def stop(work, k, done):
            if k == at:
                raise KeyboardInterrupt
            real(work, k, done)
        return stop

    monkeypatch.setattr(stream, "save_chunk", stopper(0))
    with pytest.raises(KeyboardInterrupt):  # stopped in chunk 0: nothing finished
        run(predictions, tmp_path / "fresh", 3)
    monkeypatch.setattr(stream, "save_chunk", real)
    assert run(predictions, tmp_path / "fresh", 4)["resumed"] == []  # started over
    monkeypatch.setattr(stream, "save_chunk", stopper(1))
    with pytest.raises(KeyboardInterrupt):  # chunk 0 finished
        run(predictions, tmp_path / "o", 3)
    with pytest.raises(CitetrainError, match="a partial run with other score_chunk is there"):
        run(predictions, tmp_path / "o", 4)
    with pytest.raises(CitetrainError, match="--score-chunk must be at least 1"):
        run(predictions, tmp_path / "p", 0)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("accelerate") is None, reason="accelerate CLI not installed")
def test_two_processes_give_the_report_of_one(predictions, tmp_path, monkeypatch):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    args = [str(predictions), "--metrics", ",".join(METRICS), "--no-cache", "--no-progress",
            "--score-chunk", "3"]
    monkeypatch.chdir(tmp_path)  # the one-process run in this worker, the two-process one launched
    assert evaluation_main([*args, "--out", str(tmp_path / "one")]) == 0
    two = subprocess.run(["accelerate", "launch", "--main_process_port", "0", "--multi_gpu", "--num_processes", "2",
                          "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
                          "-m", "citetrain.evaluation", *args, "--out", str(tmp_path / "two")],
                         env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert two.returncode == 0, two.stderr[-3000:]
    assert two.stdout.count("wrote ") == 1  # the main process writes the report
    a, b = tmp_path / "one", tmp_path / "two"
    assert (a / "statements.jsonl").read_bytes() == (b / "statements.jsonl").read_bytes()
    assert same(report(a), report(b), abs_=1e-12)
