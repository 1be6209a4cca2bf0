"""An NLI judge in worker processes: balanced shards, one merged result equal to one process's."""
from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from citetrain.errors import CitetrainError
from citetrain.io.readers import read_records
from citetrain.judges.registry import make_judge
from citetrain.judges.workers import WorkerJudge, shard_records
from citetrain.records import Doc, Record

REPO = Path(__file__).resolve().parents[2]


def _record(rid: str, statements: int, docs: int) -> Record:
    out = " ".join(f"Fact number {k} holds [1]." for k in range(statements))
    return Record(id=rid, question="q?", output=out,
                  docs=[Doc(title="", text=f"passage {d}") for d in range(docs)])


def test_shards_are_balanced_by_statements_times_passages():
    """Weights s × (d + 1): 6, 4, 3, 3, 2. Largest first, each to the lighter shard: 6 -> A,
    4 -> B, 3 -> B (7), 3 -> A (9), 2 -> B (9): A = {0, 3}, B = {1, 2, 4}."""
    records = [_record("a", 3, 1), _record("b", 2, 1), _record("c", 1, 2), _record("d", 1, 2),
               _record("e", 1, 1)]
    assert shard_records(records, 2) == [[0, 3], [1, 2, 4]]
    assert shard_records(records[:1], 3) == [[0], [], []]


@pytest.fixture(scope="module")
def records():
    got = read_records(REPO / "examples" / "predictions.jsonl", "auto").records
    twice = got + [r.model_copy(update={"docs": r.docs[::-1]}) for r in got]  # same ids, other docs
    return twice


@pytest.mark.slow
def test_workers_give_one_process_result(records):
    """Two workers (records under private ids, so the repeated ids do not mix) give exactly the
    one-process result of the lexical judge: scores, every row in order, counts and settings."""
    one = make_judge("nli:lexical").score(records, progress=False).result
    judge = make_judge("nli:lexical", workers=2)
    try:
        assert isinstance(judge, WorkerJudge) and judge.threads >= 1
        assert judge.name.endswith(" x2")
        got = judge.score(records, progress=False)
        again = judge.score(records[:3], progress=False)  # the workers stay up between calls
    finally:
        judge.close()
    with pytest.raises(CitetrainError, match="workers are stopped"):
        judge.score(records, progress=False)
    res = got.result
    assert res.scores == pytest.approx(one.scores)
    assert res.per_statement == one.per_statement and res.per_record == one.per_record
    assert res.info == one.info and res.info["skipped_ids"] == ["moon-2", "moon-2"]
    assert got.statements == len(one.per_statement) and got.seconds > 0
    three = make_judge("nli:lexical").score(records[:3], progress=False).result
    assert again.result.per_statement == three.per_statement


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_worker_errors_are_one_line_and_options_are_checked(tmp_path):
    with pytest.raises(CitetrainError, match="judge worker: .*no-such-model"):
        make_judge(f"crossencoder:{tmp_path / 'no-such-model'}", workers=2)
    with pytest.raises(CitetrainError, match="workers are for nli: and crossencoder:"):
        make_judge("generative:whatever", workers=2)
    with pytest.raises(CitetrainError, match="workers must be 2 or more"):
        WorkerJudge(partial(make_judge, "nli:lexical"), workers=1)


@pytest.mark.slow
def test_the_command_line_passes_workers(capsys):
    from citetrain.cli.main import main

    path = str(REPO / "examples" / "predictions.jsonl")
    assert main(["judge", path, "--judge", "nli:lexical", "--workers", "2", "--no-progress"]) == 0
    two = capsys.readouterr().out
    assert main(["judge", path, "--judge", "nli:lexical", "--no-progress"]) == 0
    one = capsys.readouterr().out
    assert "x2 on 5 records" in two
    for key in ("citeeval_full", "citeeval_cited"):
        assert next(x for x in two.splitlines() if key in x) == next(x for x in one.splitlines() if key in x)
