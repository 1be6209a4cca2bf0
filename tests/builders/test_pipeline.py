"""End-to-end builds: dataset + manifest, resume after a kill, bad input reported by file and line."""
import json
from pathlib import Path

import datasets
import pytest

from citetrain.builders.pipeline import build
from citetrain.builders.spec import BuildSpec
from citetrain.cli.main import main
from citetrain.errors import CitetrainError
from citetrain.nli.cache import NLICache
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record

from .hand import DOCS, OUTPUT, variant, variants_nli


def write_records(path: Path, n: int = 6) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps(variant(i)[0].to_dict()) + "\n")
    return path


def spec_for(tmp_path: Path, src: Path, kind: str = "refiner", **kw) -> BuildSpec:
    return BuildSpec.model_validate({"name": "t", "kind": kind, "sources": [{"path": str(src)}],
                                     "out": str(tmp_path / "out"), "shard_size": 1, **kw})


def engine(tmp_path: Path, backend=None) -> NLIEngine:
    return NLIEngine(backend or variants_nli(6), cache=NLICache(str(tmp_path / "nli.sqlite")),
                     batch_size=4, progress=False)


def snapshot(out: Path) -> dict[str, bytes]:
    files = [p for p in out.rglob("*") if p.is_file() and "work" not in p.relative_to(out).parts]
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(files)}


@pytest.mark.parametrize("kind", ["refiner", "generator", "judge"])
def test_build_writes_dataset_and_manifest(tmp_path, kind):
    src = write_records(tmp_path / "in.jsonl")
    manifest = build(spec_for(tmp_path, src, kind), engine=engine(tmp_path), progress=False,
                     log=lambda s: None)
    dd = datasets.load_from_disk(str(tmp_path / "out" / "dataset"))
    assert set(dd) == {"train", "validation"}
    n = {"refiner": 24, "generator": 6, "judge": 6}[kind]
    assert len(dd["train"]) + len(dd["validation"]) == n
    assert {"prompt", "completion", "id", "question"} <= set(dd["train"].column_names)
    on_disk = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert on_disk == manifest
    assert manifest["sources"][0]["sha256"] and manifest["nli"]["model_id"] == "table"
    st = manifest["statements"]
    assert (st["statements"], st["supported_by_single_doc"], st["supported_by_set_only"],
            st["supported_by_none"]) == (24, 12, 6, 6)
    assert st["nli_calls"] < st["nli_calls_exhaustive"] == 24 * 14
    assert st["actions"] == {"add-evidence": 18, "delete-misleading": 18, "delete-redundant": 6,
                             "keep": 6}
    # no question on both sides of the split
    q = {s: set(dd[s]["question"]) for s in dd}
    assert not q["train"] & q["validation"]


class Killer:
    """A backend that dies after ``limit`` batches and logs every pair it answers."""

    def __init__(self, inner, limit, seen):
        self.inner, self.limit, self.seen = inner, limit, seen
        for k in ("model_id", "revision", "batch_size", "is_baseline"):
            setattr(self, k, getattr(inner, k))

    def cost(self, pair):
        return self.inner.cost(pair)

    def predict(self, pairs):
        if self.limit is not None and self.limit <= 0:
            raise KeyboardInterrupt
        if self.limit is not None:
            self.limit -= 1
        self.seen.extend(pairs)
        return self.inner.predict(pairs)


def test_killed_build_resumes_identically_without_asking_twice(tmp_path):
    src = write_records(tmp_path / "in.jsonl")
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    ref = engine(ref_dir)
    build(spec_for(ref_dir, src), engine=ref, progress=False, log=lambda s: None)
    want = snapshot(ref_dir / "out")
    half = ref.stats.batches // 2  # die half-way through the model's work

    seen: list = []
    with pytest.raises(KeyboardInterrupt):
        build(spec_for(tmp_path, src), engine=engine(tmp_path, Killer(variants_nli(6), half, seen)),
              progress=False, log=lambda s: None)
    done = sorted((tmp_path / "out" / "work").glob("shard-*.jsonl"))
    assert 0 < len(done) < 6 and not (tmp_path / "out" / "manifest.json").exists()
    build(spec_for(tmp_path, src), engine=engine(tmp_path, Killer(variants_nli(6), None, seen)),
          progress=False, log=lambda s: None)
    assert snapshot(tmp_path / "out") == want
    assert len(seen) == len(set(seen)), "a pair went to the model twice"


def test_resume_refuses_other_settings(tmp_path):
    src = write_records(tmp_path / "in.jsonl")
    build(spec_for(tmp_path, src), engine=engine(tmp_path), progress=False, log=lambda s: None)
    with pytest.raises(CitetrainError, match="other settings"):
        build(spec_for(tmp_path, src, max_subset=2), engine=engine(tmp_path), progress=False,
              log=lambda s: None)


def test_bad_input_is_reported_with_file_line_and_counted(tmp_path):
    src = tmp_path / "in.jsonl"
    good = Record(id="ok", question="Q?", docs=DOCS, output=OUTPUT).to_dict()
    lines = [
        good,
        {**good, "id": "nodocs", "docs": []},
        {**good, "id": "beyond", "output": "Pair only is true [9]."},
        good,                                               # duplicate id
        {**good, "id": "empty", "output": "[1][2]. Pair only is true [1]."},
    ]
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    logs: list[str] = []
    m = build(spec_for(tmp_path, src), engine=engine(tmp_path), progress=False, log=logs.append)
    problems = [json.loads(x) for x in (tmp_path / "out" / "problems.jsonl").read_text().splitlines()]
    where = {(p["line"], p["field"], p["reason"], p["action"]) for p in problems}
    assert where == {(2, "docs", "record without docs", "dropped"),
                     (3, "output", "citation ids beyond the docs", "kept"),
                     (4, "id", "duplicate record id", "dropped")}
    assert any(f"{src}:2: docs: record without docs" in line for line in logs)
    assert m["dropped"] == {"duplicate record id": 1, "record without docs": 1, "empty statement": 1}
    assert m["records"] == {"read": 5, "kept": 3, "warnings": {"citation ids beyond the docs": 1}}


def test_cli_build_with_overrides(tmp_path, capsys):
    src = write_records(tmp_path / "in.jsonl", 3)
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: t\nkind: refiner\nsources:\n  - path: {src.name}\nnli: lexical\n")
    assert main(["build", str(spec), "--out", str(tmp_path / "o"), "--set", "max_subset=2",
                 "--no-progress"]) == 0
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert m["settings"]["max_subset"] == 2 and m["nli"]["model_id"] == "lexical"
    assert "statements" in capsys.readouterr().out
    spec.write_text(f"name: t\nkind: refiner\nsources:\n  - path: {src.name}\nmax_subsets: 2\n")
    assert main(["build", str(spec)]) == 2
    assert "did you mean 'max_subset'" in capsys.readouterr().err
