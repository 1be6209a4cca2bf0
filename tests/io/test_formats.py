"""Each published format converted to the canonical Record, on hand-written fixtures and on the
real files in ../shared/data."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from citetrain.errors import InputError
from citetrain.io.formats import (RecordError, attach_marks, convert_alce, convert_citeeval,
                                  convert_expertqa, convert_longcite, convert_quotesum,
                                  convert_webglm, detect_format, expertqa_id, quotesum_to_marks)
from citetrain.io.readers import read_many, read_records
from citetrain.text.marks import parse_marks


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ---- ALCE, WebGLM, CiteEval ---------------------------------------------------------------


def test_alce_keeps_gold_and_extra_fields():
    item = {"question": "Q?", "docs": [{"title": "T", "text": "x", "score": 0.5}],
            "output": "A [1].", "answer": "A", "qa_pairs": [{"short_answers": ["A"]}],
            "claims": ["c1"], "sample_id": 7}
    (rec,) = convert_alce(item, "12")
    assert rec.id == "12" and rec.output == "A [1]."  # no id: the line number given
    assert rec.docs[0].model_extra == {"score": 0.5}
    assert rec.qa_pairs == [{"short_answers": ["A"]}] and rec.claims == ["c1"]
    assert rec.to_dict()["sample_id"] == 7


def test_alce_without_output_and_with_numeric_id():
    (rec,) = convert_alce({"id": -5, "question": "Q", "docs": []}, "1")
    assert (rec.id, rec.output) == ("-5", "")


def test_alce_bad_gold_field_is_named():
    with pytest.raises(RecordError) as info:
        convert_alce({"question": "Q", "docs": [], "qa_pairs": "oops"}, "1")
    assert info.value.field == "qa_pairs"


def test_webglm():
    item = {"question": "Why?", "answer": "Because [1][2].", "references": ["first", "second"]}
    (rec,) = convert_webglm(item, "3")
    assert (rec.id, rec.question, rec.output) == ("3", "Why?", "Because [1][2].")
    assert [(d.title, d.text) for d in rec.docs] == [("", "first"), ("", "second")]
    with pytest.raises(RecordError) as info:
        convert_webglm({**item, "references": ["ok", 3]}, "1")
    assert info.value.field == "references[1]"


def test_citeeval():
    item = {"id": "example_1", "query": "can use hkd?",
            "passages": [{"title": "", "text": "Shops take HKD."}, {"title": "B", "text": "No."}],
            "pred": "Sometimes [1]."}
    (rec,) = convert_citeeval(item, "9")
    assert (rec.id, rec.question, rec.output) == ("example_1", "can use hkd?", "Sometimes [1].")
    assert [d.title for d in rec.docs] == ["", "B"]
    with pytest.raises(RecordError) as info:
        convert_citeeval({**item, "passages": [{"title": "x"}]}, "1")
    assert info.value.field == "passages[0].text"


# ---- ExpertQA --------------------------------------------------------------------------------


def expertqa_line(systems=("gpt4", "bing_chat")) -> dict:
    answer = {
        "answer_string": "Water boils at 100 C [1]. It freezes at 0 C [3].",
        "attribution": ["[1] http://a.org", "[2] http://b.org", "[3] http://c.org"],
        "claims": [
            {"claim_string": "Water boils at 100 C [1].", "support": "Complete",
             "worthiness": "Yes",
             "evidence": ["[1] http://a.org\n\nWater boils at 100 C.",
                          "[1] http://a.org\n\nAt sea level.",
                          "[1] http://a.org\n\nWater boils at 100 C."]},
            {"claim_string": "It freezes at 0 C [3].", "support": "Partial",
             "evidence": ["[3] http://c.org"]},  # url only: no passage
        ],
        "usefulness": "Helpful",
    }
    return {"question": "How does water behave?", "answers": {s: answer for s in systems},
            "metadata": {"field": "Physics"}}


def test_expertqa_one_record_per_system():
    recs = convert_expertqa(expertqa_line(), "1")
    sha = hashlib.sha1(b"How does water behave?").hexdigest()[:10]
    assert [r.id for r in recs] == [f"{sha}:gpt4", f"{sha}:bing_chat"]
    assert expertqa_id("How does water behave?", "gpt4") == f"{sha}:gpt4"
    rec = recs[0]
    assert rec.output == "Water boils at 100 C [1]. It freezes at 0 C [3]."
    # doc n = attribution [n]; text = the unique passages quoted for [n], joined by "\n"
    assert [(d.title, d.text) for d in rec.docs] == [
        ("http://a.org", "Water boils at 100 C.\nAt sea level."),
        ("http://b.org", ""), ("http://c.org", "")]
    assert rec.claims == ["Water boils at 100 C [1].", "It freezes at 0 C [3]."]
    assert rec.annotations[0] == {"claim": "Water boils at 100 C [1].", "support": "Complete",
                                  "worthiness": "Yes", "evidence_ids": [1, 1, 1]}
    assert rec.annotations[1]["support"] == "Partial"
    assert rec.model_extra["system"] == "gpt4" and rec.model_extra["usefulness"] == "Helpful"


def test_expertqa_attribution_gap_keeps_numbering():
    line = expertqa_line(("s",))
    line["answers"]["s"]["attribution"] = ["[1] http://a.org", "[3] http://c.org"]
    (rec,) = convert_expertqa(line, "1")
    assert [d.title for d in rec.docs] == ["http://a.org", "", "http://c.org"]


def test_expertqa_errors_name_nested_field(tmp_path):
    line = expertqa_line(("s",))
    line["answers"]["s"]["claims"][1]["evidence"] = ["no number here"]
    with pytest.raises(RecordError) as info:
        convert_expertqa(line, "1")
    assert info.value.field == "answers.s.claims[1].evidence[0]"
    del line["answers"]["s"]["answer_string"]
    err = pytest.raises(InputError, read_records, jsonl(tmp_path / "e.jsonl", [line])).value
    assert (err.line, err.field) == (1, "answers.s.answer_string")


def test_expertqa_read_many_dedupes(tmp_path):
    a = jsonl(tmp_path / "rand.jsonl", [expertqa_line(("gpt4",))])
    b = jsonl(tmp_path / "domain.jsonl", [expertqa_line(("gpt4",)), expertqa_line(("bing",))])
    res = read_many([a, b])
    assert res.format == "expertqa"
    assert len(res.records) == 2 and res.duplicates == 1 and res.conflicting == 0


# ---- QuoteSum ---------------------------------------------------------------------------------


def quotesum_line(summary: str, sources: dict[int, str]) -> dict:
    item = {"qid": "Q1", "unique_id": "Q1_0", "question": "What?", "summary": summary}
    for k in range(1, 9):
        item[f"title{k}"] = f"Title {k}" if k in sources else ""
        item[f"source{k}"] = sources.get(k, "")
        item[f"short_ans_{k}"] = ""
    return item


def test_quotesum_marks_follow_their_span():
    summary = "[ 2 Denitrification ] is the process. It [ 2 can lead to fractionation. ]"
    out = quotesum_to_marks(summary)
    assert out == "Denitrification [2] is the process. It can lead to fractionation [2]."


def test_quotesum_multi_id_and_non_quote_brackets():
    assert quotesum_to_marks("[1,2 both say so] and [citation needed] [3]") == \
        "both say so [1][2] and [citation needed] [3]"


def test_quotesum_remaps_after_empty_sources():
    # sources 1 and 3 present, 2 empty: source3 becomes doc 2
    item = quotesum_line("[ 1 Alpha ] and [ 3 Gamma. ]", {1: "alpha text", 3: "gamma text"})
    (rec,) = convert_quotesum(item, "5")
    assert (rec.id, rec.model_extra["qid"]) == ("Q1_0", "Q1")
    assert [(d.title, d.text) for d in rec.docs] == [("Title 1", "alpha text"),
                                                   ("Title 3", "gamma text")]
    assert rec.output == "Alpha [1] and Gamma [2]."


def test_quotesum_mark_on_empty_source_is_an_error():
    item = quotesum_line("[ 2 Beta ]", {1: "alpha text"})
    with pytest.raises(RecordError) as info:
        convert_quotesum(item, "1")
    assert info.value.field == "summary" and "source2" in info.value.message


def test_attach_marks_before_trailing_punctuation():
    assert attach_marks("in the soil.", "[2]") == "in the soil [2]."
    assert attach_marks("plain", "[1][3]") == "plain [1][3]"
    assert attach_marks("?!", "[1]") == "[1]?!"


# ---- LongCite ---------------------------------------------------------------------------------


def test_longcite_statements_become_marks():
    item = {"idx": 4, "dataset": "hotpotqa", "query": "Who?", "answer": "gold",
            "prediction": "...",
            "statements": [
                {"statement": "Intro sentence.", "citation": []},
                {"statement": " Alice wrote it.", "citation": [
                    {"start_sentence_idx": 3, "end_sentence_idx": 4, "cite": "Alice wrote."},
                    {"start_sentence_idx": 9, "end_sentence_idx": 9, "cite": "In 1990."}]},
                {"statement": "Again Alice", "citation": [
                    {"start_sentence_idx": 3, "end_sentence_idx": 4, "cite": "Alice wrote."}]},
            ]}
    (rec,) = convert_longcite(item, "1")
    assert (rec.id, rec.question, rec.answer) == ("4", "Who?", "gold")
    assert [(d.title, d.text) for d in rec.docs] == [("sentences 3-4", "Alice wrote."),
                                                   ("sentences 9-9", "In 1990.")]
    assert rec.output == "Intro sentence. Alice wrote it [1][2]. Again Alice [1]"


# ---- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize("keys, fmt", [
    (("question", "answers", "metadata"), "expertqa"),
    (("question", "summary", "source1"), "quotesum"),
    (("id", "query", "passages", "pred"), "citeeval"),
    (("idx", "query", "statements"), "longcite"),
    (("question", "docs", "output"), "alce"),
    (("question", "answer", "references"), "webglm"),
    (("claim", "label"), None),
])
def test_detect_format(keys, fmt):
    assert detect_format(dict.fromkeys(keys, "")) == fmt


# ---- real files ---------------------------------------------------------------------------------


def test_real_expertqa_unique_answers(shared_data):
    paths = sorted((shared_data / "expertqa" / "annotated_splits").glob("*.jsonl"))
    assert len(paths) == 4
    res = read_many(paths)
    # 885 lines (217 + 219 + 206 + 243) over the two partitions; 479 unique (question, system),
    # the pool size the data README gives; the 406 repeats are identical copies
    assert (res.n_items, len(res.records), res.duplicates, res.conflicting) == (885, 479, 406, 0)
    assert not res.skipped
    assert sum(len(r.claims) for r in res.records) == 2788  # the README's unique claims
    for r in res.records:
        assert all(1 <= i for i in parse_marks(r.output).citations)
        assert all(d.title.startswith("http") for d in r.docs if d.title)


def test_real_quotesum(shared_data):
    path = shared_data / "quotesum" / "dev.jsonl"
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    res = read_records(path)
    assert res.format == "quotesum" and len(res.records) == 265 and not res.skipped
    n_quotes = sum(len(re.findall(r"\[\s*\d+\s", r["summary"])) for r in raw)
    n_marks = 0
    for rec in res.records:
        st = parse_marks(rec.output)
        assert st.citations and all(1 <= i <= len(rec.docs) for i in st.citations)
        assert "[ " not in rec.output  # every "[ k span ]" quote was rewritten
        n_marks += len(st.groups)
    assert n_marks == n_quotes == 1130  # one mark per quote, none lost


def test_real_citeeval(shared_data):
    res = read_records(shared_data / "citeeval" / "system_eval_examples.json")
    assert res.format == "citeeval" and [r.id for r in res.records] == ["example_1", "example_2"]
    assert all(r.docs and r.output for r in res.records)
