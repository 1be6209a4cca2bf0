"""Each serve limit has one source, its :class:`ServeConfig` field: ``citetrain serve --help``, the
HTTP API reference and every refusal that names the limit read its flag, description, type and
default from the field (:func:`flag`, :func:`description`, :func:`refused_with`), and no module of
the server writes a limit's flag by hand. The ``{"error": ...}`` body has one encoder,
:func:`citetrain.serve.bodies.error_body`, and every refusal goes through it."""
from __future__ import annotations

import argparse
import ast
import asyncio
import json
import logging
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("fastapi", reason="the server stack: pip install -e '.[serve]'")
pytest.importorskip("uvicorn", reason="the server stack: pip install -e '.[serve]'")

from citetrain.serve.config import (  # noqa: E402
    LIMITS,
    ServeConfig,
    description,
    flag,
    refused_with,
)

ROOT = Path(__file__).resolve().parents[2]
SERVE_SOURCES = sorted((ROOT / "citetrain" / "serve").glob("*.py")) + [
    ROOT / "citetrain" / "cli" / "serve_cmd.py"]
REFUSING = [name for name in LIMITS if refused_with(name) is not None]


def test_the_limits_flags_are_the_ones_serve_has_always_taken():
    assert [flag(name) for name in LIMITS] == [
        "--max-body-bytes", "--max-passages", "--max-items", "--max-statements", "--max-marks",
        "--max-nli-calls", "--max-work", "--max-batch", "--batch-work", "--wait-ms", "--max-queue",
        "--timeout", "--header-timeout", "--body-timeout", "--send-timeout", "--keep-alive",
        "--max-connections", "--grace", "--threads"]
    assert all(description(name) for name in LIMITS)
    assert {name: refused_with(name) for name in REFUSING} == {
        "max_body_bytes": 413, "max_passages": 422, "max_items": 422, "max_statements": 422,
        "max_marks": 422, "max_nli_calls": 422, "max_work": 422, "max_queue": 503,
        "timeout_s": 504, "header_timeout_s": 408, "body_timeout_s": 408, "max_connections": 503}
    with pytest.raises(KeyError):
        flag("max_nothing")


def _serve_parser() -> argparse.ArgumentParser:
    from citetrain.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["serve"]


@pytest.mark.parametrize("name", LIMITS)
def test_the_help_of_each_limit_is_its_field(name):
    field = ServeConfig.model_fields[name]
    action = next(a for a in _serve_parser()._actions if flag(name) in a.option_strings)
    assert action.dest == name and action.default == field.default
    assert action.help.startswith(description(name) + " (default ")
    kind = float if field.annotation is float else int
    assert action.type is kind and isinstance(action.type("1"), kind)


def test_the_api_reference_names_each_limit_under_its_status():
    from citetrain.serve.app import create_app

    doc = create_app(ServeConfig(judge="nli:lexical")).openapi()
    responses = doc["paths"]["/score"]["post"]["responses"]
    for name in LIMITS:
        pattern = re.compile(rf"{re.escape(flag(name))}(?![\w-])")
        named = {int(status) for status, r in responses.items() if pattern.search(r["description"])}
        status = refused_with(name)
        assert named == ({status} if status else set()), (name, named)
    fields = doc["paths"]["/score"]["post"]["requestBody"]["content"]["application/json"]
    described = json.dumps(fields["schema"]["properties"])
    assert flag("max_items") in described and flag("max_passages") in described


def _code_strings(path: Path):
    """The string constants of a module's code, docstrings and bare string statements left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    notes = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in notes:
            yield node


@pytest.mark.parametrize("path", SERVE_SOURCES, ids=lambda p: p.name)
def test_no_server_module_writes_a_limits_flag_by_hand(path):
    flags = {flag(name): re.compile(rf"{re.escape(flag(name))}(?![\w-])") for name in LIMITS}
    for node in _code_strings(path):
        for shown, pattern in flags.items():
            assert not pattern.search(node.value), \
                f"{path.name}:{node.lineno} writes {shown}; use citetrain.serve.config.flag"


# -- each refusal that names a limit: its status and flag, as the field says --------------------

RECORD = {"id": "r", "question": "Where is Paris?",
          "docs": [{"title": "Paris", "text": "Paris is the capital of France."},
                   {"title": "Seine", "text": "The Seine flows through Paris."}],
          "output": "Paris is the capital of France [1][2]. The Seine flows through it [2]. "
                    "It is big [1]."}


def _request_error(call):
    from citetrain.serve.bodies import RequestError

    with pytest.raises(RequestError) as err:
        call()
    return err.value.status, err.value.message


def _planned(deadline=None, **limits):
    from citetrain.judges.registry import make_judge
    from citetrain.records import Record
    from citetrain.serve.cost import plan_records

    judge = make_judge("nli:lexical", progress=False, cache=False)
    config = ServeConfig(judge="nli:lexical", **limits)
    return _request_error(lambda: plan_records([Record(**RECORD)], config, judge, deadline))


def _parsed(body, **limits):
    from citetrain.serve.bodies import parse_body

    config = ServeConfig(judge="nli:lexical", **limits)
    return _request_error(lambda: parse_body(json.dumps(body).encode(), config))


class _Request:
    def __init__(self, headers):
        self.headers = headers

    async def stream(self):
        await asyncio.sleep(10)
        yield b""  # pragma: no cover - never reached


def _read(headers, cap, timeout_s):
    from citetrain.serve.guards import read_body

    return _request_error(lambda: asyncio.run(read_body(_Request(headers), cap, timeout_s)))


def _queue_full():
    from concurrent.futures import ThreadPoolExecutor

    from citetrain.serve.app import _scored
    from citetrain.serve.batcher import Batcher
    from citetrain.serve.cost import Plan

    with ThreadPoolExecutor(1) as pool:
        batcher = Batcher({"pairs": list}, max_batch=1, wait_s=0, executor=pool, max_queue=1)
        state = SimpleNamespace(batcher=batcher, judge=None)
        answer = asyncio.run(_scored(state, "pairs", Plan([], [1, 2], [1, 1])))
    return answer.status_code, json.loads(answer.body)["error"]


def _head_timeout():
    import h11

    from citetrain.serve.protocol import GuardedH11Protocol

    sent = []
    fake = SimpleNamespace(transport=SimpleNamespace(is_closing=lambda: False),
                           conn=SimpleNamespace(their_state=h11.IDLE), cycle=None,
                           _config=ServeConfig(judge="nli:lexical", header_timeout_s=2),
                           _close_with=lambda status, message, headers=None: sent.append(
                               (status, message)))
    GuardedH11Protocol._head_timeout(fake)
    return sent[0]


def _too_many_connections():
    from citetrain.serve.protocol import GuardedH11Protocol

    fake = SimpleNamespace(_config=ServeConfig(judge="nli:lexical", max_connections=1),
                           connections={1, 2}, logger=logging.getLogger("test"))
    status, message, _ = GuardedH11Protocol._refusal(fake, {"headers": []})
    return status, message


REFUSALS = {
    "max_body_bytes": lambda: _read({"content-length": "100"}, 10, 1.0),
    "max_passages": lambda: _parsed({"records": [RECORD]}, max_passages=1),
    "max_items": lambda: _parsed({"pairs": [["p", "s"]] * 2}, max_items=1),
    "max_statements": lambda: _planned(max_statements=1),
    "max_marks": lambda: _planned(max_marks=1),
    "max_nli_calls": lambda: _planned(max_nli_calls=1),
    "max_work": lambda: _planned(max_work=1),
    "max_queue": _queue_full,
    "timeout_s": lambda: _planned(deadline=0.0),
    "header_timeout_s": _head_timeout,
    "body_timeout_s": lambda: _read({}, 10, 0.01),
    "max_connections": _too_many_connections,
}


def test_every_refusing_limit_is_tried_here():
    assert sorted(REFUSALS) == sorted(REFUSING)


@pytest.mark.parametrize("name", REFUSING)
def test_a_refusal_names_its_limit_by_its_flag_with_the_fields_status(name):
    status, message = REFUSALS[name]()
    assert status == refused_with(name), message
    assert flag(name) in message, message


# -- the error body: one encoder ---------------------------------------------------------------

def test_one_function_encodes_the_error_body():
    """No dict with an ``error`` key is written anywhere in citetrain but in ``error_body``."""
    import inspect

    from citetrain.serve import bodies

    found = []
    for path in sorted((ROOT / "citetrain").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            keys = ([k.value for k in node.keys if isinstance(k, ast.Constant)]
                    if isinstance(node, ast.Dict) else
                    [k.arg for k in node.keywords] if isinstance(node, ast.Call) else [])
            if "error" in keys:
                found.append((path.relative_to(ROOT).as_posix(), node.lineno))
    lines, start = inspect.getsourcelines(bodies.error_body)
    assert len(found) == 1, found
    where, line = found[0]
    assert where == "citetrain/serve/bodies.py" and start <= line < start + len(lines), found


def test_every_way_of_refusing_sends_that_body():
    from citetrain.serve.app import refusal
    from citetrain.serve.bodies import error_body
    from citetrain.serve.guards import error_response
    from citetrain.serve.protocol import _send_error, raw_response

    message = "a refusal — in one line"
    assert error_body(message) == json.dumps({"error": message}, ensure_ascii=False).encode()
    assert error_response(422, message).body == error_body(message)
    assert refusal(422, message).body == error_body(message)
    assert raw_response(408, message).endswith(b"\r\n\r\n" + error_body(message))
    sent = []

    async def send(event):
        sent.append(event)

    asyncio.run(_send_error(send, 503, message))
    assert sent[-1]["body"] == error_body(message)
