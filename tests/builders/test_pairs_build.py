"""``kind: pairs`` builds: output layout, determinism, resume, the lexical baseline near chance
on the hard negatives, the command line, and the holdout on the real WiCE data."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from citetrain.builders.pairs_build import build_pairs
from citetrain.builders.spec import load_spec
from citetrain.builders.transforms import LABELS
from citetrain.errors import CitetrainError

from .pairs_corpus import write_text

REPO = Path(__file__).resolve().parents[2]
PAIRS = {"per_passage": 12, "weights": {"unrelated": 1.0}}


def make_spec(tmp: Path, name: str = "out", sources=None, **over) -> Path:
    if sources is None:
        sources = [{"path": str(write_text(tmp / "corpus.txt")), "format": "text"}]
    pairs = {"per_passage": 6, **over.pop("pairs", {})}
    data = {"name": "t", "kind": "pairs", "sources": sources, "shard_size": 4,
            "split": {"validation": 0.3}, "pairs": pairs, "out": str(tmp / name), **over}
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def build(path: Path, **kw):
    return build_pairs(load_spec(path), progress=False, log=lambda _: None, **kw)


def rows(out: Path) -> dict[str, list[dict]]:
    import datasets

    dd = datasets.load_from_disk(str(out / "dataset"))
    return {s: dd[s].to_list() for s in dd}


def snapshot(out: Path) -> dict[str, bytes]:
    files = [p for p in out.rglob("*") if p.is_file() and "work" not in p.relative_to(out).parts]
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(files)}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pairs")
    manifest = build(make_spec(tmp, pairs=PAIRS))
    return tmp, manifest


def test_dataset_columns_labels_and_manifest(built):
    import datasets

    tmp, manifest = built
    out = tmp / "out"
    dd = datasets.load_from_disk(str(out / "dataset"))
    assert set(dd) == {"train", "validation"}
    assert dd["train"].column_names == ["premise", "hypothesis", "label", "group", "source",
                                        "transform"]
    assert dd["train"].features["label"].dtype == "int64"
    data = rows(out)
    for split in data.values():
        for r in split:
            assert r["label"] == LABELS[r["transform"]]
            assert len(r["premise"].split(". ")) <= 6 + r["premise"].count("e.g. ")
    groups = {s: {r["group"] for r in v} for s, v in data.items()}
    assert not groups["train"] & groups["validation"]  # split by passage
    assert set(manifest["labels"].values()) == {"not_supported", "partially_supported",
                                                "supported"}
    assert {s: sum(c.values()) for s, c in manifest["counts"].items()} == \
        {s: len(v) for s, v in data.items()}
    made = {t for split in manifest["by_transform"].values() for t in split}
    assert made >= set(LABELS) - {"swap_roles", "pronoun"}
    assert manifest["sources"][0]["passages"] == 12 and manifest["kind"] == "pairs"
    assert "nli" not in manifest["settings"] and "refused" in manifest
    assert json.loads((out / "manifest.json").read_text()) == manifest
    assert "copy" in (out / "summary.txt").read_text()
    listed = [json.loads(line) for line in (out / "passages.jsonl").read_text().splitlines()]
    assert len(listed) == 12 and listed[0]["origin"].endswith("corpus.txt:1")
    assert {r["group"] for v in data.values() for r in v} <= {p["id"] for p in listed}


def test_lexical_baseline_is_near_chance_on_hard_negatives_only(built):
    from sklearn.metrics import roc_auc_score

    from citetrain.nli.lexical import LexicalNLI

    tmp, _ = built
    all_rows = [r for split in rows(tmp / "out").values() for r in split]
    probs = [x.prob for x in LexicalNLI().predict([(r["premise"], r["hypothesis"])
                                                   for r in all_rows])]
    supported = [p for p, r in zip(probs, all_rows) if r["label"] == 2]

    def auc(kinds: set[str]) -> float:
        neg = [p for p, r in zip(probs, all_rows) if r["transform"] in kinds]
        assert len(neg) >= 5
        return roc_auc_score([1] * len(supported) + [0] * len(neg), supported + neg)

    assert 0.35 <= auc({"swap_entity", "negate", "swap_roles"}) <= 0.65
    assert auc({"unrelated"}) > 0.8


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_same_seed_same_bytes_other_shards_and_processes_same_rows(built, tmp_path):
    tmp, _ = built
    build(make_spec(tmp_path, "again", sources=[{"path": str(tmp / "corpus.txt"),
                                                 "format": "text"}],
                    pairs=PAIRS))
    assert snapshot(tmp_path / "again") == snapshot(tmp / "out")
    build(make_spec(tmp_path, "other", sources=[{"path": str(tmp / "corpus.txt"),
                                                 "format": "text"}],
                    shard_size=5, pairs={**PAIRS, "processes": 2}))
    assert rows(tmp_path / "other") == rows(tmp / "out")
    build(make_spec(tmp_path, "seed1", sources=[{"path": str(tmp / "corpus.txt"),
                                                 "format": "text"}],
                    seed=1, pairs=PAIRS))
    assert rows(tmp_path / "seed1") != rows(tmp / "out")


def test_resume_after_a_lost_shard_and_refusal_of_other_settings(tmp_path):
    spec = make_spec(tmp_path)
    build(spec)
    out = tmp_path / "out"
    want = snapshot(out)
    shards = sorted((out / "work").glob("pairs-*.jsonl"))
    assert len(shards) == 3
    kept = shards[0].stat().st_mtime_ns
    pool_made = (out / "work" / "pool" / "pool.json").stat().st_mtime_ns
    shards[1].unlink()  # as if the build had been killed before writing it
    (out / "manifest.json").unlink()
    build(spec)
    assert snapshot(out) == want and shards[0].stat().st_mtime_ns == kept
    assert (out / "work" / "pool" / "pool.json").stat().st_mtime_ns == pool_made  # reused
    data = yaml.safe_load(spec.read_text())
    data["pairs"]["window"] = 4
    spec.write_text(yaml.safe_dump(data))
    with pytest.raises(CitetrainError, match="other settings.*--fresh"):
        build(spec)
    build(spec, fresh=True)
    assert snapshot(out) != want


def test_max_pairs_caps_in_passage_order(built, tmp_path):
    tmp, manifest = built
    build(make_spec(tmp_path, "cap", sources=[{"path": str(tmp / "corpus.txt"),
                                               "format": "text"}],
                    pairs={**PAIRS, "max_pairs": 30}))
    capped = json.loads((tmp_path / "cap" / "manifest.json").read_text())
    assert sum(capped["pairs"].values()) == 30
    assert len(list((tmp_path / "cap" / "work").glob("pairs-*.jsonl"))) < 3


def test_a_text_source_with_bad_bytes_names_its_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"Kowal moved to Brenfield in 1998.\n\nShe founded a \xff school.\n")
    with pytest.raises(CitetrainError, match=rf"{path}:3: .*not valid UTF-8"):
        build(make_spec(tmp_path, sources=[{"path": str(path), "format": "text"}]))


def test_spec_paths_resolve_from_the_spec_folder(shared_data):
    spec = load_spec(REPO / "data_builders" / "pairs.yaml")
    assert spec.kind == "pairs" and spec.pairs.holdout.fraction == 0.3
    for src in spec.sources:
        assert Path(src.path).is_file() and Path(src.path).is_relative_to(shared_data)
    for entry in spec.pairs.holdout.labelled:
        fmt, _, path = entry.partition(":")
        assert fmt in ("wice_oracle", "expertqa") and Path(path).is_file()


def test_unknown_transformation_weights_are_rejected(tmp_path):
    spec = make_spec(tmp_path, pairs={"weights": {"negation": 1.0}})
    with pytest.raises(Exception, match="unknown transformation.*negation.*known: copy"):
        load_spec(spec)


def citetrain(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "citetrain", *argv], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_cli_builds_and_reports_a_bad_source_line_in_one_line(tmp_path):
    wice = tmp_path / "wice.jsonl"
    good = {"label": "supported", "claim": "Kowal moved to Brenfield in 1998.",
            "evidence": ["Marta Kowal was born in Lodz in 1961.",
                         "In 1998, Kowal moved to the small town of Brenfield."],
            "meta": {"id": "w1"}}
    wice.write_text(json.dumps(good) + "\n")
    sources = [{"path": str(write_text(tmp_path / "c.txt")), "format": "text"},
               {"path": str(wice), "format": "wice"}]
    done = citetrain(["build", str(make_spec(tmp_path, sources=sources)), "--no-progress"],
                     tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "dataset" / "dataset_dict.json").is_file()
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["sources"][1][
        "format"] == "wice"
    wice.write_text(json.dumps(good) + "\n" + json.dumps({**good, "evidence": "oops"}) + "\n")
    bad = citetrain(["build", str(make_spec(tmp_path, "bad", sources=sources)), "--no-progress"],
                    tmp_path)
    assert bad.returncode == 2  # the CLI's exit status for bad input
    lines = bad.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{wice}:2: field 'evidence'" in lines[0], bad.stderr


@pytest.mark.slow
def test_holdout_leaves_out_the_passages_of_held_out_wice_claims(shared_data, tmp_path):
    from citetrain.builders.edits import norm
    from citetrain.builders.sets import split_of
    from citetrain.io.labelled import read_labelled, split_key

    path = shared_data / "wice" / "entailment_retrieval_claim" / "dev.jsonl"
    pairs = read_labelled(path, "wice")
    held = [norm(p.premise) for p in pairs if split_of(split_key(p), 0.3, 0) == "validation"]
    assert held
    sources = [{"path": str(path), "format": "wice", "limit": 60}]

    def used_held_out(name: str, **pairs_opts) -> tuple[int, dict]:
        build(make_spec(tmp_path, name, sources=sources, shard_size=64,
                        pairs={"per_passage": 2, **pairs_opts}))
        got = [r["premise"] for split in rows(tmp_path / name).values() for r in split]
        manifest = json.loads((tmp_path / name / "manifest.json").read_text())
        return sum(any(norm(p) in h for h in held) for p in got), manifest

    n, manifest = used_held_out("open")
    assert n > 0  # without a holdout, held-out claims' pages are used
    n, manifest = used_held_out("held", holdout={"fraction": 0.3, "seed": 0})
    assert n == 0 and manifest["sources"][0]["held_out"] > 0
    assert manifest["passages"]["held_out_claims"] == len(held)
