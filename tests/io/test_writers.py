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


def test_full_disk_error_names_the_target(tmp_path, monkeypatch):
    import errno

    target = tmp_path / "r.json"
    target.write_text("good\n")
    with pytest.raises(OSError) as e:
        with atomic_writer(target) as fh:
            fh.write("par")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert (e.value.errno, e.value.filename) == (errno.ENOSPC, str(target))
    assert target.read_text() == "good\n" and os.listdir(tmp_path) == ["r.json"]


def test_a_file_in_the_way_of_the_folder_is_named(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(CitetrainError, match=f"{tmp_path / 'f' / 'sub' / 'o.txt'}: cannot create "
                                             f"its folder, {tmp_path / 'f'} is a file"):
        atomic_write_text(tmp_path / "f" / "sub" / "o.txt", "y")


def test_atomic_dir_replaces_a_folder_only_when_the_block_succeeds(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "w.bin").write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with writers.atomic_dir(target) as tmp:
            assert tmp.parent == tmp_path and tmp.is_dir() and not any(tmp.iterdir())
            (tmp / "w.bin").write_bytes(b"ne")
            raise RuntimeError("crash mid-save")
    assert (target / "w.bin").read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["model"]  # the temporary folder is gone
    with writers.atomic_dir(target) as tmp:
        (tmp / "w.bin").write_bytes(b"new")
    assert os.listdir(target) == ["w.bin"] and (target / "w.bin").read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["model"]  # neither model.old nor the temporary folder
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o777 & ~writers._UMASK


def test_atomic_dir_without_replace_refuses_an_existing_folder(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(CitetrainError, match="exists: choose a new folder"):
        with writers.atomic_dir(tmp_path / "out", replace=False) as tmp:
            (tmp / "x").write_text("x")
    assert os.listdir(tmp_path) == ["out"] and not any((tmp_path / "out").iterdir())
    with writers.atomic_dir(tmp_path / "new", replace=False) as tmp:
        (tmp / "x").write_text("x")
    assert (tmp_path / "new" / "x").read_text() == "x"


def test_replace_dir_moves_a_leftover_old_folder_out_of_the_way(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d.old").mkdir()  # left by a run killed between the two renames
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a").write_text("new")
    writers.replace_dir(tmp_path / "t", tmp_path / "d")
    assert sorted(os.listdir(tmp_path)) == ["d"] and (tmp_path / "d" / "a").read_text() == "new"


def test_a_folder_left_at_old_by_a_kill_between_the_renames_is_put_back(tmp_path):
    from citetrain.models.package_paths import resolve_model_path

    (tmp_path / "final.old").mkdir()  # killed after the first rename, before the second
    (tmp_path / "final.old" / "config.json").write_text("{}")
    assert resolve_model_path(str(tmp_path / "final")) == str(tmp_path / "final")
    assert os.listdir(tmp_path) == ["final"] and (tmp_path / "final" / "config.json").is_file()
    (tmp_path / "final.old").mkdir()
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a").write_text("new")
    os.rmdir(tmp_path / "final.old")
    os.replace(tmp_path / "final", tmp_path / "final.old")  # the same crash, then a new save
    writers.replace_dir(tmp_path / "t", tmp_path / "final")
    assert os.listdir(tmp_path) == ["final"] and (tmp_path / "final" / "a").read_text() == "new"
