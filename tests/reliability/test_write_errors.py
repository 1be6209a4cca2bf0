"""A write that fails part-way (a full disk) leaves the previous output byte-identical, no
temporary file behind, and the command exits 2 with one line naming the file."""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from citetrain.cli.main import main

from .conftest import REPO

EXAMPLE = REPO / "examples" / "predictions.jsonl"
ENOSPC = os.strerror(errno.ENOSPC)


class FillsUp:
    """A file object that takes ``room`` characters, writes part of the next chunk, then
    raises ``OSError(ENOSPC)`` as a full disk does."""

    def __init__(self, fh, room: int) -> None:
        self.fh, self.room = fh, room

    def write(self, data):
        if len(data) > self.room:
            self.fh.write(data[: self.room])
            self.fh.flush()
            self.room = 0
            raise OSError(errno.ENOSPC, ENOSPC)
        self.room -= len(data)
        return self.fh.write(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.fh.__exit__(*exc)


def disk_fills_while_writing(monkeypatch, name: str, room: int = 40) -> None:
    """Make the atomic writer's temporary file for ``name`` fail after ``room`` characters."""
    from citetrain.io import writers

    real = os.fdopen

    def fdopen(fd, *args, **kwargs):
        fh = real(fd, *args, **kwargs)
        opened = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        return FillsUp(fh, room) if opened.startswith(f".{name}.") else fh

    monkeypatch.setattr(writers.os, "fdopen", fdopen)


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err, err
    return err.strip()


@pytest.mark.parametrize("failing", ["statements.jsonl", "table.txt", "report.json"])
def test_eval_report_keeps_the_previous_report(tmp_path, monkeypatch, capsys, failing):
    out = tmp_path / "out"
    args = ["eval", str(EXAMPLE), "--nli", "lexical", "--out", str(out), "--no-progress"]
    assert main([*args, "--metrics", "alce"]) == 0
    before = files(out)
    assert set(before) == {"report.json", "statements.jsonl", "table.txt"}
    capsys.readouterr()
    disk_fills_while_writing(monkeypatch, failing)
    assert main([*args, "--metrics", "alce,lenient"]) == 2
    assert one_error_line(capsys) == f"citetrain eval: error: {out / failing}: {ENOSPC}"
    after = files(out)
    assert set(after) == set(before)  # no temporary file left
    assert after[failing] == before[failing] and after["report.json"] == before["report.json"]
    assert set(json.loads(after["report.json"])["scores"]) == {"alce"}


@pytest.mark.parametrize("name", ["synth.jsonl", "synth.json"])
def test_records_file_keeps_the_previous_file(tmp_path, monkeypatch, capsys, name):
    target = tmp_path / name
    assert main(["synth", "--n", "3", "--seed", "1", "--out", str(target)]) == 0
    before = target.read_bytes()
    capsys.readouterr()
    disk_fills_while_writing(monkeypatch, name, room=500)
    assert main(["synth", "--n", "5", "--seed", "2", "--out", str(target)]) == 2
    assert one_error_line(capsys) == f"citetrain synth: error: {target}: {ENOSPC}"
    assert target.read_bytes() == before and os.listdir(tmp_path) == [name]


def test_build_keeps_the_previous_dataset_folder_and_files(tmp_path, monkeypatch, capsys):
    import datasets

    spec = tmp_path / "spec.yaml"
    spec.write_text("name: t\nkind: refiner\nsources:\n  - synthetic: {n: 6, seed: 1}\n"
                    f"nli: lexical\nmax_subset: 2\nout: {tmp_path / 'out'}\n")
    out = tmp_path / "out"
    assert main(["build", str(spec), "--no-progress"]) == 0
    before = {k: v for k, v in files(out).items() if not k.startswith("work")}
    assert "dataset/dataset_dict.json" in before and "manifest.json" in before
    capsys.readouterr()
    real = datasets.DatasetDict.save_to_disk

    def save_then_fill_up(self, path, **kwargs):
        real(self, path, **kwargs)
        arrow = sorted(Path(path).rglob("*.arrow"))[0]
        arrow.write_bytes(arrow.read_bytes()[:100])  # the disk filled up mid-file
        raise OSError(errno.ENOSPC, ENOSPC)

    monkeypatch.setattr(datasets.DatasetDict, "save_to_disk", save_then_fill_up)
    assert main(["build", str(spec), "--no-progress", "--fresh",
                 "--set", "refiner.perturb=0.5"]) == 2
    assert one_error_line(capsys) == f"citetrain build: error: {out / 'dataset'}: {ENOSPC}"
    after = {k: v for k, v in files(out).items() if not k.startswith("work")}
    assert after == before
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["dataset", "manifest.json", "problems.jsonl", "records.jsonl", "statements.jsonl",
         "summary.txt", "work"])  # no temporary or .old folder
