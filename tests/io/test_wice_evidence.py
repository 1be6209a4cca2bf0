"""WiCE claims as evidence-finding records (format ``wice_evidence``), on hand-written lines."""
import json

import pytest

from citetrain.errors import InputError
from citetrain.io.readers import read_records

EVIDENCE = ["(meta data) TITLE: Harbour news", "The ferry line opened in 1998.",
            "It links the two islands.", "Tickets cost five euros.", "Weather was mild."]
LINES = [
    {"label": "partially_supported", "supporting_sentences": [[1, 2], [2, 3]],
     "claim": "The ferry, opened in 1998, links the islands for five euros and runs at night.",
     "evidence": EVIDENCE, "meta": {"id": "dev001", "claim_title": "Ferry"}},
    {"label": "not_supported", "supporting_sentences": [[]],
     "claim": "The ferry sank in 2001.", "evidence": EVIDENCE, "meta": {"id": "dev002"}},
    {"label": "supported", "supporting_sentences": [[1]],
     "claim": "The ferry line opened in 1998.", "evidence": EVIDENCE},
]


def write(tmp_path, lines):
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_supported_claims_become_one_statement_records(tmp_path):
    res = read_records(write(tmp_path, LINES), "wice_evidence")
    assert res.format == "wice_evidence" and res.n_items == 3 and not res.skipped
    first, third = res.records
    assert first.id == "dev001" and third.id == "3"  # meta.id, else the line number
    assert first.question == "" and first.output == LINES[0]["claim"]
    assert [d.text for d in first.docs] == EVIDENCE and all(d.title == "" for d in first.docs)
    assert first.gold == [[2, 3, 4]]  # union of {1, 2} and {2, 3}, 0-based -> 1-based
    assert third.gold == [[2]] and third.label == "supported"
    assert [line for _, line in res.origins] == [1, 3]  # line 2 (not_supported) gave no record


def test_wice_is_never_read_as_records_by_default(tmp_path):
    with pytest.raises(InputError, match="cannot tell the format"):
        read_records(write(tmp_path, LINES), "auto")


@pytest.mark.parametrize("change, field, message", [
    ({"supporting_sentences": [[1, 9]]}, "supporting_sentences[0]", "index 9 is not in 0..4"),
    ({"supporting_sentences": [["1"]]}, "supporting_sentences[0]", "must be int"),
    ({"supporting_sentences": [[]]}, "supporting_sentences", "no supporting sentence"),
    ({"label": "refuted"}, "label", "'refuted' is not one of"),
    ({"evidence": ["ok", 3]}, "evidence[1]", "must be a string"),
])
def test_bad_lines_name_file_line_and_field(tmp_path, change, field, message):
    path = write(tmp_path, [LINES[2], {**LINES[0], **change}])
    with pytest.raises(InputError, match=message) as err:
        read_records(path, "wice_evidence")
    assert (err.value.line, err.value.field) == (2, field)
    assert str(err.value).startswith(f"{path}:2: field '{field}'")


def test_real_wice_dev(shared_data):
    path = shared_data / "wice" / "entailment_retrieval_claim" / "dev.jsonl"
    res = read_records(path, "wice_evidence")
    # 349 claims: 115 supported + 191 partially supported read, 43 not supported left out
    assert (res.n_items, len(res.records)) == (349, 306)
    for rec in res.records:
        (gold,) = rec.gold
        assert gold == sorted(set(gold)) and 1 <= gold[0] and gold[-1] <= len(rec.docs)
