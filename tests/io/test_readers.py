"""read_records / read_many: file kinds, format detection, every error case, skip accounting."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from citetrain.errors import CitetrainError, InputError
from citetrain.io.readers import read_many, read_records


def alce(i: int, **over) -> dict:
    rec = {"id": f"q{i}", "question": f"Question {i}?",
           "docs": [{"title": "T1", "text": "Passage one."}, {"title": "T2", "text": "Two."}],
           "output": "An answer [1][2]."}
    rec.update(over)
    return rec


def jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def error_of(path: Path, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        read_records(path, **kw)
    return info.value


# ---- reading good files ------------------------------------------------------------------


def test_jsonl_and_blank_lines(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps(alce(1)) + "\n\n   \n" + json.dumps(alce(2)) + "\n", encoding="utf-8")
    res = read_records(p)
    assert res.format == "alce"
    assert [r.id for r in res.records] == ["q1", "q2"]
    assert res.records[0].docs[1].text == "Two."
    assert res.n_items == 2  # blank lines are not records
    assert res.summary() == "read 2 records, none skipped"


def test_json_list_and_alce_data_wrapper(tmp_path):
    a = tmp_path / "list.json"
    a.write_text(json.dumps([alce(1), alce(2)]), encoding="utf-8")
    b = tmp_path / "result.json"  # ALCE's result files: {"args": ..., "data": [...]}
    b.write_text(json.dumps({"args": {"model": "x"}, "data": [alce(1), alce(2)]}), encoding="utf-8")
    assert [r.id for r in read_records(a).records] == ["q1", "q2"]
    assert [r.id for r in read_records(b).records] == ["q1", "q2"]


def test_default_id_is_line_or_item_number(tmp_path):
    rows = [{k: v for k, v in alce(i).items() if k != "id"} for i in (1, 2)]
    p = tmp_path / "a.jsonl"
    p.write_text("\n" + "\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    assert [r.id for r in read_records(p).records] == ["2", "3"]  # lines 2 and 3 (line 1 blank)
    q = tmp_path / "a.json"
    q.write_text(json.dumps(rows), encoding="utf-8")
    assert [r.id for r in read_records(q).records] == ["1", "2"]  # 1-based item numbers


def test_sniffs_unknown_suffix(tmp_path):
    p = tmp_path / "records.txt"
    p.write_text(json.dumps([alce(1)]), encoding="utf-8")
    q = jsonl(tmp_path / "records.data", [alce(2)])
    assert read_records(p).records[0].id == "q1"
    assert read_records(q).records[0].id == "q2"


def test_format_override_and_unknown(tmp_path):
    p = jsonl(tmp_path / "w.jsonl", [{"question": "Q?", "answer": "A [1].", "references": ["r"],
                                      "docs": []}])
    assert read_records(p).format == "alce"  # question + docs wins the detection
    assert read_records(p, "webglm").records[0].docs[0].text == "r"
    with pytest.raises(CitetrainError, match="unknown format 'nope'"):
        read_records(p, "nope")
    q = jsonl(tmp_path / "odd.jsonl", [{"foo": 1}])
    err = error_of(q)
    assert err.line == 1 and "cannot tell the format from keys ['foo']" in str(err)


def test_alce_human_eval_nesting_is_not_a_record_file(tmp_path):
    p = tmp_path / "human_eval.json"
    p.write_text(json.dumps({"asqa": {"run.json": {"q1": {"question": "Q", "output": "o"}}}}))
    err = error_of(p)
    assert "not a record file" in str(err) and err.path == str(p)


# ---- errors: file, line and field are named ----------------------------------------------


def test_malformed_json_names_line(tmp_path):
    p = jsonl(tmp_path / "bad.jsonl", [alce(1), '{"id": "q2", "question": ', alce(3)])
    err = error_of(p)
    assert (err.path, err.line, err.field) == (str(p), 2, None)
    assert str(err).startswith(f"{p}:2:") and "malformed JSON" in str(err)


def test_malformed_json_list_names_text_line(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('[\n{"id": 1},\n{"id": 2,,}\n]', encoding="utf-8")
    err = error_of(p, skip_invalid=True)  # a broken JSON document cannot be skipped around
    assert err.line == 3 and "malformed JSON at line 3" in str(err)


def test_missing_field(tmp_path):
    rec = alce(2)
    del rec["question"]
    p = jsonl(tmp_path / "m.jsonl", [alce(1), rec])
    err = error_of(p)
    assert (err.line, err.field) == (2, "question")
    assert str(err) == f"{p}:2: field 'question' required field is missing"


def test_missing_field_in_json_list_says_item(tmp_path):
    rec = alce(2)
    del rec["question"]
    p = tmp_path / "m.json"
    p.write_text(json.dumps([alce(1), alce(3), rec]), encoding="utf-8")
    err = error_of(p)
    assert (err.line, err.field) == (3, "question")
    assert "(item 3 of the JSON list)" in str(err)


def test_docs_not_a_list(tmp_path):
    p = jsonl(tmp_path / "d.jsonl", [alce(1, docs="Passage one.")])
    err = error_of(p)
    assert (err.line, err.field) == (1, "docs")
    assert "must be a list, got str" in str(err) and str(p) in str(err)


def test_doc_without_text(tmp_path):
    p = jsonl(tmp_path / "d.jsonl", [alce(1), alce(2, docs=[{"title": "T"}, {"title": "U"}])])
    err = error_of(p)
    assert (err.line, err.field) == (2, "docs[0].text")
    assert "passage has no 'text'" in str(err)


def test_doc_not_an_object_and_item_not_an_object(tmp_path):
    p = jsonl(tmp_path / "d.jsonl", [alce(1, docs=["just a string"]), "[1, 2]"])
    assert error_of(p).field == "docs[0]"
    res = read_records(p, skip_invalid=True)
    assert [s.reason for s in res.skipped] == ["'docs[0]' not an object", "not a JSON object"]


def test_non_utf8_names_line(tmp_path):
    p = tmp_path / "u.jsonl"
    good = json.dumps(alce(1)).encode()
    bad = json.dumps(alce(2, question="caf_")).encode().replace(b"caf_", b"caf\xe9")
    p.write_bytes(good + b"\n" + bad + b"\n")
    err = error_of(p)
    assert err.line == 2 and "byte 0xe9" in str(err) and "UTF-8" in str(err)
    res = read_records(p, skip_invalid=True)
    assert [r.id for r in res.records] == ["q1"]
    assert res.summary() == "skipped 1 of 2 records: 1 not valid UTF-8"


def test_non_utf8_in_json_list(tmp_path):
    p = tmp_path / "u.json"
    p.write_bytes(b'[\n{"question": "caf\xe9"}\n]')
    err = error_of(p)
    assert err.line == 2 and "(line 2)" in str(err)


@pytest.mark.parametrize("content", [b"", b"\n  \n", b"[]"])
def test_empty_file(tmp_path, content):
    p = tmp_path / ("e.json" if content == b"[]" else "e.jsonl")
    p.write_bytes(content)
    err = error_of(p, skip_invalid=True)
    assert err.path == str(p) and "empty file" in str(err)


def test_missing_file(tmp_path):
    assert "file not found" in str(error_of(tmp_path / "nope.jsonl"))


# ---- skip_invalid: nothing dropped silently ---------------------------------------------


def test_skip_invalid_counts_and_summary(tmp_path):
    no_q = alce(3)
    del no_q["question"]
    no_q2 = alce(5)
    del no_q2["question"]
    rows = [alce(1), "{oops", no_q, alce(4), no_q2, alce(6, docs={"a": 1})]
    p = jsonl(tmp_path / "s.jsonl", rows)
    res = read_records(p, skip_invalid=True)
    assert [r.id for r in res.records] == ["q1", "q4"]
    assert [(s.line, s.field) for s in res.skipped] == [(2, None), (3, "question"),
                                                        (5, "question"), (6, "docs")]
    assert all(s.path == str(p) for s in res.skipped)
    # 6 input lines, 4 skipped: 2 without question, 1 broken line, 1 docs object
    assert res.summary() == ("skipped 4 of 6 records: 2 missing field 'question', "
                             "1 malformed JSON, 1 'docs' not a list")


def test_read_many_dedupes_by_id(tmp_path):
    a = jsonl(tmp_path / "a.jsonl", [alce(1), alce(2)])
    b = jsonl(tmp_path / "b.jsonl", [alce(2), alce(3), alce(1, output="Other [1].")])
    res = read_many([a, b])
    assert [r.id for r in res.records] == ["q1", "q2", "q3"]
    assert res.records[0].output == "An answer [1][2]."  # first kept
    assert (res.duplicates, res.conflicting, res.n_items) == (2, 1, 5)
    assert res.summary() == ("read 5 records, none skipped; dropped 2 duplicate ids "
                             "(1 with different content, first kept)")


def test_json_rows_numbers_lines_and_names_the_bad_one(tmp_path):
    from citetrain.io.readers import LineProblem, json_rows

    def parse(row):
        if row["n"] < 0:
            raise LineProblem(f"n is {row['n']}, below 0")
        return row["n"] * 2

    path = tmp_path / "rows.jsonl"
    path.write_text('{"n": 1}\n\n  \n{"n": 3}\n')
    assert list(json_rows(path, parse, "a row")) == [(1, 2), (4, 6)]  # blank lines keep numbering
    path.write_text('{"n": 1}\n\n{"n": 2\n')
    with pytest.raises(CitetrainError, match=r"^data.x: .*rows.jsonl:3: not a row \("):
        list(json_rows(path, parse, "a row", setting="data.x"))
    path.write_text('{"n": 1}\n{"m": 2}\n')
    with pytest.raises(CitetrainError, match=r"rows.jsonl:2: not a row \('n'\)$"):
        list(json_rows(path, parse, "a row"))
    path.write_text('{"n": -1}\n')
    with pytest.raises(CitetrainError, match=r"rows.jsonl:1: n is -1, below 0$"):
        list(json_rows(path, parse, "a row"))
