"""Responses written back in the input's own format, every other field kept."""
import json

import pytest

from citetrain.errors import CitetrainError
from citetrain.io.patch import write_like_input
from citetrain.io.readers import read_records


def _roundtrip(tmp_path, name, rows, as_json=False):
    src = tmp_path / name
    src.write_text(json.dumps(rows) if as_json else "".join(json.dumps(r) + "\n" for r in rows))
    res = read_records(src)
    new = [r.model_copy(update={"output": r.output.replace("[1]", "[2]")}) for r in res.records]
    out = tmp_path / ("out" + src.suffix)
    write_like_input(src, res.format, new, res.origins, out)
    return res.format, out


def test_webglm_jsonl(tmp_path):
    rows = [{"question": "q", "answer": "A [1].", "references": ["x", "y"], "extra": 1}]
    fmt, out = _roundtrip(tmp_path, "w.jsonl", rows)
    assert fmt == "webglm"
    assert json.loads(out.read_text()) == {**rows[0], "answer": "A [2]."}


def test_citeeval_json_list_keeps_shape(tmp_path):
    rows = [{"id": "a", "query": "q", "passages": [{"title": "t", "text": "x"}], "pred": "P [1]."},
            {"id": "b", "query": "q2", "passages": [], "pred": "none"}]
    fmt, out = _roundtrip(tmp_path, "c.json", rows, as_json=True)
    assert fmt == "citeeval"
    assert json.loads(out.read_text()) == [{**rows[0], "pred": "P [2]."}, rows[1]]


def test_expertqa_answer_strings_per_system(tmp_path):
    ans = lambda s: {"answer_string": s, "attribution": ["[1] http://a", "[2] http://b"],
                     "claims": [], "usefulness": "x"}
    rows = [{"question": "Q?", "answers": {"gpt4": ans("G [1]."), "bing": ans("B [2].")},
             "metadata": {"field": "f"}}]
    fmt, out = _roundtrip(tmp_path, "e.jsonl", rows)
    got = json.loads(out.read_text())
    assert fmt == "expertqa" and got["metadata"] == {"field": "f"}
    assert got["answers"]["gpt4"] == {**ans("G [2].")} and got["answers"]["bing"] == ans("B [2].")


def test_quotesum_cannot_be_written_back(tmp_path):
    with pytest.raises(CitetrainError, match="cannot write format 'quotesum' back"):
        write_like_input(tmp_path / "x.jsonl", "quotesum", [], [], tmp_path / "o.jsonl")
