"""Atomic writes and record round trips."""
from __future__ import annotations

import json
import os
import stat

import pytest

from citetrain.errors import CitetrainError
from citetrain.io import writers
from citetrain.io.readers import read_records
from citetrain.io.writers import atomic_write_text, atomic_writer, write_records
from citetrain.records import Doc, Record


def records() -> list[Record]:
    return [
        Record(id="a", question="Qué?", docs=[Doc(title="T", text="x", score=0.5)],
               output="Answer [1].", answer="A", qa_pairs=[{"short_answers": ["A"]}]),
        Record(id="b", question="Two?", docs=[], output="", claims=["c"], extra_field={"k": 1}),
    ]


@pytest.mark.parametrize("name", ["out.jsonl", "out.json"])
def test_round_trip(tmp_path, name):
    path = write_records(records(), tmp_path / "sub" / name)  # parent folder is created
    back = read_records(path)
    assert back.format == "alce" and back.records == records()
    text = path.read_text(encoding="utf-8")
    assert "Qué" in text  # not \u-escaped
    if name.endswith(".json"):
        assert isinstance(json.loads(text), list)
    else:
        assert len(text.splitlines()) == 2
        assert "annotations" not in text  # unset optional gold fields are left out


def test_citeeval_round_trip(tmp_path):
    path = write_records(records(), tmp_path / "ce.json", fmt="citeeval")
    assert json.loads(path.read_text())[0] == {
        "id": "a", "query": "Qué?", "passages": [{"title": "T", "text": "x"}],
        "pred": "Answer [1]."}
    back = read_records(path)
    assert back.format == "citeeval" and [r.output for r in back.records] == ["Answer [1].", ""]
    with pytest.raises(CitetrainError, match="cannot write format"):
        write_records(records(), tmp_path / "x.jsonl", fmt="quotesum")


def test_atomic_write_text_replaces_and_sets_permissions(tmp_path):
    target = tmp_path / "report.txt"
    target.write_text("old")
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    expected = 0o666 & ~writers._UMASK  # not mkstemp's 0o600
    assert stat.S_IMODE(os.stat(target).st_mode) == expected
    assert os.listdir(tmp_path) == ["report.txt"]  # no temporary file left


def test_failed_write_leaves_target_untouched(tmp_path):
    target = tmp_path / "data.jsonl"
    target.write_text("original\n")
    with pytest.raises(RuntimeError):
        with atomic_writer(target) as fh:
            fh.write("half a fi")
            raise RuntimeError("crash mid-write")
    assert target.read_text() == "original\n"
    assert os.listdir(tmp_path) == ["data.jsonl"]


def test_binary_mode_and_bad_mode(tmp_path):
    with atomic_writer(tmp_path / "b.bin", "wb") as fh:
        fh.write(b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    with pytest.raises(ValueError):
        with atomic_writer(tmp_path / "c", "a"):
            pass
