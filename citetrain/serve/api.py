"""The HTTP API's bodies as pydantic models, for its OpenAPI schema (``create_app(...).openapi()``).

``/score`` reads its body itself (:mod:`citetrain.serve.bodies`: a size cap while reading, one-line
refusals), so these models describe the bodies without being used to parse them; the routes of
:mod:`citetrain.serve.app` attach them with :data:`SCORE_ROUTE` and :data:`HEALTH_ROUTE`. The limits
are named by their flags and listed under the status their fields' descriptions give
(:func:`~citetrain.serve.config.flag`, :func:`~citetrain.serve.config.refused_with`).
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citetrain.serve.config import LIMITS, flag, refused_with


def limits_refused_with(status: int) -> list[str]:
    """The flags of the limits whose requests past them get ``status``, in the config's order."""
    return [flag(name) for name in LIMITS if refused_with(name) == status]


def _either(names: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return names[-1] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


class Pair(BaseModel):
    """A (passage, statement) pair; a two-item list ``[passage, statement]`` is read the same."""

    model_config = ConfigDict(extra="forbid")
    passage: str = Field(description="the evidence text")
    statement: str = Field(description="the claim asked against the passage")


class ScoreRequest(BaseModel):
    """Exactly one of ``records`` and ``pairs``."""

    model_config = ConfigDict(extra="forbid")
    records: list[dict[str, Any]] | None = Field(
        None, description=f"records in any format citetrain reads (at most {flag('max_items')}; "
        f"at most {flag('max_passages')} passages each), converted as `citetrain judge` converts "
        "a file")
    format: str = Field("auto", description="the records' format; auto detects it per record from "
                        "its keys (records only)")
    pairs: list[Pair | list[str]] | None = Field(
        None, description="(passage, statement) pairs scored by the judge's NLI model with its own "
        f"preprocessing (at most {flag('max_items')})")


class Statement(BaseModel):
    """One statement of a scored record: its CiteEval context, edits and rating."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(description="the record's id, as the client sent it")
    statement: int = Field(description="0-based index of the statement in the response")
    text: str = Field(description="the statement without its citation marks")
    citations: list[int] = Field(description="the 1-based passage ids it cites")
    context: Literal["query", "response", "retrieval", "model"] = Field(
        description="CiteEval context; only retrieval statements are rated")
    edits: list[Any] = Field(description="the citation edits the judge makes")
    rating: float | None = Field(description="EDITDIST rating of the edits (null when not rated)")
    support: list[list[int]] | None = Field(None, description="the minimal supporting subsets found")
    full: float | None = Field(None, description="the statement's score in the Full scenario")
    cited: float | None = Field(None, description="the statement's score in the Cited scenario")


class RecordScore(BaseModel):
    """One scored record, in request order."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(description="the record's id, as the client sent it")
    citeeval_full: float | None = Field(description="CiteEval Full (null where CiteEval skipped "
                                        "the record, e.g. an empty response)")
    citeeval_cited: float | None = Field(description="CiteEval Cited (null likewise)")
    n_statements: int | None = Field(None, description="statements of the response")
    statements: list[Statement] = Field(description="its statements' rows")


class PairScore(BaseModel):
    """One scored pair, in request order."""

    expected: float = Field(description="P(full) + P(partial) / 2")
    entailed: bool = Field(description="the NLI model's decision")
    support: dict[str, float] | None = Field(
        None, description="a three-way model's probability of supported, partially_supported "
        "and not_supported")
    level: Literal["supported", "partially_supported", "not_supported"] | None = Field(
        None, description="a three-way model's most likely level")


class ScoreResponse(BaseModel):
    """The judge's name and one result per item sent (``records`` or ``pairs``, as asked)."""

    judge: str = Field(description="the judge's name and version")
    records: list[RecordScore] | None = Field(None, description="when records were sent")
    pairs: list[PairScore] | None = Field(None, description="when pairs were sent")


class Health(BaseModel):
    """The worker is up with its judge; with the bearer token, also its judge, process, batches
    scored and items waiting (without it, ``status`` alone)."""

    status: Literal["ok"]
    judge: str | None = Field(None, description="the judge's name and version (with the token)")
    pid: int | None = Field(None, description="the worker's process id (with the token)")
    uptime_s: float | None = Field(None, description="seconds since the worker started (with the "
                                   "token)")
    batches: int | None = Field(None, description="model batches scored so far (with the token)")
    queued: int | None = Field(None, description="records and pairs waiting (with the token)")


class Refusal(BaseModel):
    """Every refusal and error: one line naming the item and field (or the limit) at fault."""

    error: str


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema with its ``$defs`` references replaced by the definitions (no cycles here)."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/"):
                return walk(defs[ref.removeprefix("#/$defs/")])
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


_REFUSALS = {400: "body is not UTF-8 JSON this server reads (nested too deeply, an integer past "
                  "the digit limit, NaN, a lone surrogate), or malformed HTTP",
             401: "missing or wrong bearer token (when a token is set)",
             408: "request head or body not received within "
                  f"{' / '.join(limits_refused_with(408))}",
             413: f"body over {_either(limits_refused_with(413))}",
             415: "Content-Type is not application/json",
             421: "the Host header names neither this server nor an --allow-host name",
             422: "a body, record or pair that cannot be scored, or more work than "
                  f"{_either(limits_refused_with(422))} allow",
             500: "internal error: the judge failed on this request (the log has the detail; "
                  "the server goes on)",
             503: f"queue full ({flag('max_queue')}) or too many connections "
                  f"({flag('max_connections')}), with Retry-After; or shutting down",
             504: f"not scored within {_either(limits_refused_with(504))} seconds (its work is "
                  "dropped at the next batch)"}

SCORE_ROUTE: dict[str, Any] = {
    "summary": "Score records or pairs with the judge",
    "responses": {200: {"model": ScoreResponse, "description": "one result per item, in order"},
                  **{code: {"model": Refusal, "description": why} for code, why in _REFUSALS.items()}},
    "openapi_extra": {"requestBody": {"required": True, "content": {"application/json": {
        "schema": _inline(ScoreRequest.model_json_schema())}}}},
}
HEALTH_ROUTE: dict[str, Any] = {
    "summary": "Whether the judge is loaded (no token needed; with it, more)",
    "response_model": None,
    "responses": {200: {"model": Health, "description": "the worker is up with its judge"},
                  503: {"model": Refusal, "description": "the server is shutting down, or its "
                        "judge's batcher has stopped (the server then exits)"}},
}
