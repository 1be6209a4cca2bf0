"""Partial files of a generation run: a torn last line dropped, another run's files refused, the
chunks of every process's file read back."""
from __future__ import annotations

import json

import pytest

from citetrain.errors import CitetrainError
from citetrain.io.chunks import ChunkStore

HEADER = {"inputs": [{"path": "q.jsonl", "sha256": "ab"}], "settings": {"chunk": 2}}


def test_chunks_are_saved_and_read_back_from_every_process(tmp_path):
    target = tmp_path / "predictions.jsonl"
    zero, one = ChunkStore(target, HEADER, 0), ChunkStore(target, HEADER, 1)
    zero.prepare()
    one.prepare()
    zero.append(0, ["a", "b"], ["x", "y"])
    one.append(1, ["c"], ["z"])
    assert zero.path.name == "predictions.rank-0.partial.jsonl"
    assert [p.name for p in zero.files()] == ["predictions.rank-0.partial.jsonl",
                                              "predictions.rank-1.partial.jsonl"]
    done = ChunkStore(target, HEADER, 0).finished()
    assert {k: v["outputs"] for k, v in done.items()} == {0: ["x", "y"], 1: ["z"]}
    zero.finish()
    assert zero.files() == []


def test_a_torn_last_line_is_dropped(tmp_path):
    store = ChunkStore(tmp_path / "predictions.jsonl", HEADER)
    store.prepare()
    store.append(0, ["a"], ["x"])
    with open(store.path, "a") as fh:
        fh.write('{"chunk": 1, "ids": ["b"], "outp')
    assert list(store.finished()) == [0]
    store.prepare()
    assert store.path.read_text() == json.dumps(HEADER) + "\n" + json.dumps(
        {"chunk": 0, "ids": ["a"], "outputs": ["x"]}) + "\n"
    store.append(1, ["b"], ["y"])
    assert sorted(store.finished()) == [0, 1]


def test_a_bad_line_and_everything_after_it_is_redone(tmp_path):
    store = ChunkStore(tmp_path / "predictions.jsonl", HEADER)
    store.path.write_text(json.dumps(HEADER) + "\n" + '{"chunk": "zero"}\n'
                          + json.dumps({"chunk": 1, "ids": ["b"], "outputs": ["y"]}) + "\n")
    assert store.finished() == {}
    store.prepare()
    assert store.path.read_text() == json.dumps(HEADER) + "\n"


def test_a_partial_file_of_another_run_is_refused(tmp_path):
    target = tmp_path / "predictions.jsonl"
    ChunkStore(target, HEADER, 1).prepare()  # left by another run's second process
    other = ChunkStore(target, {**HEADER, "settings": {"chunk": 3}}, 0)
    with pytest.raises(CitetrainError, match=r"predictions.rank-1.partial.jsonl: a partial run of "
                                             "another input, checkpoint or setting"):
        other.prepare()
    assert other.finished() == {}
