"""A killed ``citetrain eval`` resumes from the NLI cache: the rerun asks the model no pair that
the killed run had answered and writes the same report as an uninterrupted run."""
import json
from pathlib import Path

import pytest

from .conftest import REPO, child_env, kill_at_marker, logged_pairs, run_child

EXAMPLE = REPO / "examples" / "predictions.jsonl"


def eval_args(tmp: Path, name: str) -> list[str]:
    return ["eval", str(EXAMPLE), "--metrics", "alce,lenient", "--nli", "lexical",
            "--cache", str(tmp / f"{name}.sqlite"), "--out", str(tmp / name), "--no-progress"]


def without_run_details(report: dict) -> dict:
    """The report less what differs between any two runs: timings and engine counters."""
    info = {k: v for k, v in report["info"].items() if k not in ("seconds", "engine")}
    return {**report, "info": info}


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_killed_eval_resumes_without_asking_a_finished_pair_again(tmp_path):
    whole_log, first_log, second_log = (tmp_path / f"{n}.log" for n in ("whole", "first", "second"))
    done = run_child("cli", eval_args(tmp_path, "whole"),
                     child_env(tmp_path, CT_PAIRS_LOG=whole_log, CT_BATCH=4))
    assert done.returncode == 0, done.stderr
    whole = logged_pairs(whole_log)
    assert len(whole) > 16  # enough work that stopping after 3 batches is half-way

    kill_at_marker("cli", eval_args(tmp_path, "resumed"),
                   child_env(tmp_path, CT_PAIRS_LOG=first_log, CT_BATCH=4, CT_STOP_AFTER=3))
    first = logged_pairs(first_log)
    assert len(first) == 12  # three full batches answered (and cached) before the kill
    assert not (tmp_path / "resumed" / "report.json").exists()

    again = run_child("cli", eval_args(tmp_path, "resumed"),
                      child_env(tmp_path, CT_PAIRS_LOG=second_log, CT_BATCH=4))
    assert again.returncode == 0, again.stderr
    second = logged_pairs(second_log)
    assert not set(first) & set(second), "a pair answered before the kill went to the model again"
    assert sorted(first + second) == sorted(whole)  # nothing lost, nothing repeated

    a, b = tmp_path / "whole", tmp_path / "resumed"
    for name in ("statements.jsonl", "table.txt"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    ra, rb = (json.loads((d / "report.json").read_text()) for d in (a, b))
    assert without_run_details(ra) == without_run_details(rb)
    assert rb["info"]["engine"]["cache_hits"] == len(first)
    assert rb["info"]["engine"]["model_pairs"] == len(second) == len(whole) - len(first)


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_killed_streamed_eval_goes_on_from_its_finished_chunks(tmp_path):
    """SIGKILL a chunked eval without an NLI cache part-way: the rerun asks the model only the
    pairs of the chunks that had not finished, and writes the report of an uninterrupted run."""
    from citetrain.evaluation.stream import work_dir

    def args(name):
        return ["eval", str(EXAMPLE), "--metrics", "alce,lenient", "--nli", "lexical", "--no-cache",
                "--score-chunk", "1", "--out", str(tmp_path / name), "--no-progress"]

    whole_log, first_log, second_log = (tmp_path / f"{n}.log" for n in ("whole", "first", "second"))
    done = run_child("cli", args("whole"), child_env(tmp_path, CT_PAIRS_LOG=whole_log, CT_BATCH=2))
    assert done.returncode == 0, done.stderr
    whole = logged_pairs(whole_log)
    kill_at_marker("cli", args("resumed"),
                   child_env(tmp_path, CT_PAIRS_LOG=first_log, CT_BATCH=2, CT_STOP_AFTER=10))
    finished = sorted(p.name for p in work_dir(tmp_path / "resumed").glob("chunk-*.json"))
    assert finished and len(finished) < 5, finished  # killed after some chunks, before the last
    again = run_child("cli", args("resumed"), child_env(tmp_path, CT_PAIRS_LOG=second_log, CT_BATCH=2))
    assert again.returncode == 0, again.stderr
    second = logged_pairs(second_log)
    assert len(second) < len(whole)  # the finished chunks were not scored again
    assert set(second) <= set(whole)
    a, b = tmp_path / "whole", tmp_path / "resumed"
    assert (a / "statements.jsonl").read_bytes() == (b / "statements.jsonl").read_bytes()
    ra, rb = (json.loads((d / "report.json").read_text()) for d in (a, b))
    assert without_run_details(ra) == without_run_details(rb)
