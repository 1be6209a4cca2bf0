"""Request bodies of POST /score: read with citetrain's converters, every refusal one line with
its status, before anything is scored."""
import json

import pytest

from citetrain.serve.bodies import RequestError, parse_body
from citetrain.serve.config import ServeConfig

CONFIG = ServeConfig(judge="nli:lexical", max_items=3, max_passages=2)
DOC = {"title": "Paris", "text": "Paris is the capital of France."}


def body(obj) -> bytes:
    return json.dumps(obj).encode()


def test_records_in_any_format_become_records():
    kind, got = parse_body(body({"records": [
        {"id": "a", "question": "q", "docs": [DOC], "output": "Paris is in France [1]."},
        {"query": "q", "passages": [DOC], "pred": "Paris is in France [1]."}]}), CONFIG)
    assert kind == "records" and [r.id for r in got] == ["a", "1"]
    assert got[0].docs[0].text == DOC["text"] and got[1].output == "Paris is in France [1]."


def test_pairs_as_objects_or_lists():
    kind, got = parse_body(body({"pairs": [{"passage": "p", "statement": "s"}, ["p2", "s2"]]}), CONFIG)
    assert kind == "pairs" and got == [("p", "s"), ("p2", "s2")]


@pytest.mark.parametrize("raw, status, message", [
    (b"{", 400, "body is not JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
    (b"\xff\xfe\xfa", 400, "body is not UTF-8 JSON"),
    (body([1]), 422, "body must be a JSON object with 'records' or 'pairs', got list"),
    (body({"record": []}), 422, "unknown key 'record'"),
    (body({}), 422, "a body has exactly one of 'records' and 'pairs'"),
    (body({"records": [], "pairs": []}), 422, "a body has exactly one of 'records' and 'pairs'"),
    (body({"records": "x"}), 422, "'records' must be a list, got str"),
    (body({"pairs": []}), 422, "'pairs' is empty"),
    (body({"pairs": [["p", "s"]] * 4}), 422, "4 pairs in one request; at most 3 (--max-items)"),
    (body({"pairs": [{"passage": 1, "statement": "s"}]}), 422, "pairs[0].passage: must be a string, got int"),
    (body({"pairs": [{"passage": "p"}]}), 422, "pairs[0].statement: required field is missing"),
    (body({"pairs": ["p"]}), 422, "pairs[0]: must be an object {passage, statement}, got str"),
    (body({"pairs": [{"passage": "p", "statement": "s", "x": 1}]}), 422, "pairs[0]: unknown field 'x'"),
    (body({"records": [7]}), 422, "records[0]: must be an object, got int"),
    (body({"records": [{"question": "q"}]}), 422, "records[0]: cannot tell the format from keys ['question']"),
    (body({"records": [{"question": "q", "docs": "x"}]}), 422, "records[0].docs: must be a list, got str"),
    (body({"records": [{"question": 3, "docs": []}]}), 422, "records[0].question: must be a string, got int"),
    (body({"records": [{"question": "q", "docs": [DOC] * 3, "output": "a [1]."}]}), 422,
     "records[0]: 3 passages; at most 2 per record (--max-passages)"),
    (body({"records": [{"question": "q", "docs": []}], "format": "poem"}), 422, "format 'poem' unknown"),
])
def test_every_refusal_is_one_line_with_its_status(raw, status, message):
    with pytest.raises(RequestError) as err:
        parse_body(raw, CONFIG)
    assert err.value.status == status
    assert err.value.message.startswith(message), err.value.message
    assert "\n" not in err.value.message
