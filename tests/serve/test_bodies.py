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


@pytest.mark.parametrize("raw, message", [
    (b"[" * 100_000 + b"]" * 100_000, "body is not JSON this server reads: nested too deeply"),
    (b'{"pairs": [["p", "s"]], "n": ' + b"9" * 5000 + b"}",
     "body is not JSON this server reads: an integer has more than 4300 digits"),
    (b'{"pairs": [["p", "s"]], "n": 1e999}', "body is not JSON this server reads: number 1e999 is out of range"),
    (b'{"pairs": [["p", "s"]], "n": NaN}', "body is not JSON this server reads: NaN is not a JSON number"),
    (b'{"pairs": [["p", "s"]], "n": -Infinity}', "body is not JSON this server reads: -Infinity is not"),
    (b'{"pairs": [["p\\ud800", "s"]]}', "body is not valid Unicode: a lone surrogate in pairs[0][0]"),
    (b'{"records": [{"id": "\\udfff", "question": "q", "docs": []}]}',
     "body is not valid Unicode: a lone surrogate in records[0].id"),
    (b'{"pairs": [["p", "s"]], "\\ud800": 1}', "body is not valid Unicode: a lone surrogate in a key of body"),
    (b'{"pairs": [["p\xed\xa0\x80", "s"]]}', "body is not UTF-8 JSON: invalid continuation byte"),
    (b'\xef\xbb\xbf{"pairs": [["p", "s"]]}', "body is not JSON: Unexpected UTF-8 BOM"),
])
def test_hostile_json_is_a_400_in_one_line(raw, message):
    """Deep nesting, numbers past Python's digit limit or float range, NaN, lone surrogates
    (escaped or as bytes): each a 400 naming the problem, none an exception of the parser's."""
    with pytest.raises(RequestError) as err:
        parse_body(raw, CONFIG)
    assert err.value.status == 400
    assert err.value.message.startswith(message), err.value.message
    assert "\n" not in err.value.message


def test_escaped_backslashes_and_surrogate_pairs_are_fine():
    kind, got = parse_body(b'{"pairs": [["a \\\\ud800 b", "\\ud83d\\ude00"]]}', CONFIG)
    assert got == [("a \\ud800 b", "\U0001F600")]


def test_a_number_past_the_digit_limit_inside_a_record_is_a_422():
    item = {"question": "q", "summary": "x", "source" + "1" * 5000: "text"}
    with pytest.raises(RequestError) as err:
        parse_body(body({"records": [item], "format": "quotesum"}), CONFIG)
    assert err.value.status == 422
    assert err.value.message == "records[0]: an integer has more than 4300 digits"
