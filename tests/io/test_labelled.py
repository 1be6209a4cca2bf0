"""Human-labelled pairs for meta-evaluation: WiCE, AttributionBench, ExpertQA claims."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from citetrain.errors import InputError
from citetrain.io.formats import expertqa_id
from citetrain.io.labelled import LabelledPair, LabelledSet, read_labelled


def jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def wice_row(cid: str, label: str, oracle: bool = False) -> dict:
    meta = {"id": cid, "claim_title": "T"}
    if oracle:
        meta.update(chunk_idx=[0, 2], oracle_idx=[2])
    return {"label": label, "claim": f"Claim {cid}.", "evidence": ["Sentence A.", "Sentence B."],
            "supporting_sentences": [[1]], "meta": meta}


def test_wice_labels_and_premise(tmp_path):
    p = jsonl(tmp_path / "dev.jsonl", [wice_row("d1", "supported"),
                                       wice_row("d2", "partially_supported"),
                                       wice_row("d3", "not_supported")])
    pairs = read_labelled(p)
    assert isinstance(pairs, LabelledSet) and pairs.format == "wice"
    assert pairs[0] == LabelledPair("Sentence A. Sentence B.", "Claim d1.", 2, "d1", "d1")
    assert [x.label for x in pairs] == [2, 1, 0]
    assert pairs.summary() == "3 labelled pairs (wice); read 3 candidate pairs, none skipped"


def test_wice_oracle_chunks_share_the_claim_group(tmp_path):
    rows = [wice_row("d1", "supported", True), wice_row("d1", "supported", True),
            wice_row("d2", "not_supported", True)]
    pairs = read_labelled(jsonl(tmp_path / "oracle.jsonl", rows))
    assert pairs.format == "wice_oracle"
    assert [(x.group, x.id) for x in pairs] == [("d1", "d1#1"), ("d1", "d1#2"), ("d2", "d2#3")]


def test_attributionbench(tmp_path):
    rows = [{"question": "Q", "claim": "C1", "references": ["Title: A\n\nref one", "ref two"],
             "attribution_label": "attributable", "src_dataset": "LFQA", "id": "x1"},
            {"question": "Q", "claim": "C2", "references": ["r"],
             "attribution_label": "not attributable", "src_dataset": "ExpertQA", "id": "x2"}]
    pairs = read_labelled(jsonl(tmp_path / "ab.jsonl", rows))
    assert pairs.format == "attributionbench"
    assert pairs[0].premise == "Title: A\n\nref one\nref two"  # references joined by "\n"
    assert [(x.label, x.group, x.meta["src_dataset"]) for x in pairs] == [
        (2, "x1", "LFQA"), (0, "x2", "ExpertQA")]


def expertqa_line(system: str = "gpt4") -> dict:
    claims = [
        {"claim_string": "A [1].", "support": "Complete",
         "evidence": ["[1] http://a\n\npassage one", "[2] http://b\n\npassage two",
                      "[1] http://a\n\npassage one"]},
        {"claim_string": "B [2].", "support": "Partial", "evidence": ["[2] http://b\n\nb text"]},
        {"claim_string": "C.", "support": "Missing", "evidence": []},
        {"claim_string": "D [1].", "support": "Incomplete", "evidence": ["[1] http://a\n\nx"]},
        {"claim_string": "E [1].", "support": "N/A", "evidence": ["[1] http://a\n\ny"]},
        {"claim_string": "F [1].", "support": "Complete", "evidence": ["[1] http://a"]},
    ]
    return {"question": "Q?", "answers": {system: {"answer_string": "A [1]. B [2].",
                                                   "attribution": [], "claims": claims}}}


def test_expertqa_claims(tmp_path):
    pairs = read_labelled(jsonl(tmp_path / "e.jsonl", [expertqa_line()]))
    assert pairs.format == "expertqa"
    # A: Complete 2, B: Partial 1, D: Incomplete 0; C (Missing, no evidence), E (N/A) and
    # F (url without passage) are left out and counted
    assert [(x.hypothesis, x.label) for x in pairs] == [("A [1].", 2), ("B [2].", 1),
                                                        ("D [1].", 0)]
    assert pairs[0].premise == "passage one\npassage two"  # unique passages, in order
    assert pairs[0].meta == {"record": expertqa_id("Q?", "gpt4"), "system": "gpt4"}
    assert pairs[0].group == pairs[0].id and pairs[0].id.startswith(expertqa_id("Q?", "gpt4"))
    assert pairs.summary() == ("3 labelled pairs (expertqa); skipped 3 of 6 candidate pairs: "
                               "2 empty premise, 1 support N/A")


def test_expertqa_dedupes_across_files(tmp_path):
    a = jsonl(tmp_path / "rand.jsonl", [expertqa_line()])
    b = jsonl(tmp_path / "domain.jsonl", [expertqa_line(), expertqa_line("bing")])
    pairs = read_labelled([a, b])
    # 3 pairs per answer; the repeated gpt4 answer adds its 3 pairs and 3 omissions as duplicates
    assert len(pairs) == 6 and pairs.duplicates == 6 and len(pairs.skipped) == 6
    assert pairs.summary().endswith("; dropped 6 duplicate pairs")


def test_errors_name_file_line_field(tmp_path):
    bad_label = wice_row("d2", "maybe")
    no_claim = wice_row("d3", "supported")
    del no_claim["claim"]
    p = jsonl(tmp_path / "w.jsonl", [wice_row("d1", "supported"), bad_label, no_claim, "{x"])
    with pytest.raises(InputError) as info:
        read_labelled(p)
    err = info.value
    assert (err.path, err.line, err.field) == (str(p), 2, "label")  # the first bad line
    assert "unknown label 'maybe'" in str(err)
    pairs = read_labelled(p, skip_invalid=True)
    assert [x.id for x in pairs] == ["d1"]
    assert pairs.summary() == ("1 labelled pairs (wice); skipped 3 of 4 candidate pairs: "
                               "1 unknown label in 'label', 1 missing field 'claim', "
                               "1 malformed JSON")


def test_label_of_the_wrong_type(tmp_path):
    row = {"claim": "C", "references": ["r"], "attribution_label": ["attributable"]}
    err = pytest.raises(InputError, read_labelled, jsonl(tmp_path / "ab.jsonl", [row])).value
    assert (err.line, err.field) == (1, "attribution_label")


def test_evidence_not_a_list_and_empty_file(tmp_path):
    row = wice_row("d1", "supported")
    row["evidence"] = "one long string"
    err = pytest.raises(InputError, read_labelled, jsonl(tmp_path / "w.jsonl", [row])).value
    assert (err.line, err.field) == (1, "evidence")
    (tmp_path / "e.jsonl").write_text("")
    assert "empty file" in str(pytest.raises(InputError, read_labelled, tmp_path / "e.jsonl").value)


# ---- real files -------------------------------------------------------------------------------


def test_real_wice(shared_data):
    pairs = read_labelled(shared_data / "wice" / "entailment_retrieval_claim" / "dev.jsonl")
    assert pairs.format == "wice" and len(pairs) == 349 and not pairs.skipped
    # label counts of the file: 115 supported, 191 partially_supported, 43 not_supported
    assert Counter(x.label for x in pairs) == {2: 115, 1: 191, 0: 43}
    oracle = read_labelled(shared_data / "wice" / "oracle_chunks_claim" / "dev.jsonl")
    assert oracle.format == "wice_oracle" and len(oracle) == 1043
    assert len({x.group for x in oracle}) == 349  # every claim, about three chunks each
    assert {x.group for x in oracle} == {x.group for x in pairs}


def test_real_attributionbench(shared_data):
    pairs = read_labelled(shared_data / "attributionbench" / "dev_all_subset_balanced.jsonl")
    assert pairs.format == "attributionbench" and len(pairs) == 1198 and not pairs.skipped
    assert Counter(x.label for x in pairs) == {2: 599, 0: 599}  # subset-balanced


def test_real_expertqa_claims(shared_data):
    paths = sorted((shared_data / "expertqa" / "annotated_splits").glob("*.jsonl"))
    pairs = read_labelled(paths)
    # 5,137 claim rows in the four files = 2,788 unique (question, system, claim) + 2,349 repeats.
    # Of the 2,788: 123 N/A and 6 unlabelled are left out, and 971 have no evidence passage
    # (482 Missing with no evidence at all, 489 citing a url without quoting it).
    assert pairs.duplicates == 2349
    assert len(pairs) + len(pairs.skipped) == 2788
    assert Counter(s.reason for s in pairs.skipped) == {
        "empty premise": 971, "support N/A": 123, "support absent": 6}
    assert Counter(x.label for x in pairs) == {2: 1209, 1: 114, 0: 365}
