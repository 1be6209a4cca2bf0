"""The HTTP API reference of ``citetrain serve``, read from the app's OpenAPI schema (built with
the lexical judge named and never loaded: the schema does not depend on the judge)."""
from __future__ import annotations

from typing import Any

from .markdown import cell, code, rst, table, value


def openapi() -> dict[str, Any]:
    """The server's OpenAPI document."""
    from citetrain.serve.app import create_app
    from citetrain.serve.config import ServeConfig

    return create_app(ServeConfig(judge="nli:lexical")).openapi()


def schema_type(node: dict[str, Any]) -> str:
    """A JSON schema's type in a few words: ``string``, ``array of Pair``, ``integer | null``."""
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in node:
        return " | ".join(schema_type(n) for n in node["anyOf"])
    if "enum" in node:
        return " | ".join(value(v) for v in node["enum"])
    if "const" in node:
        return value(node["const"])
    kind = node.get("type", "any")
    if kind == "array":
        return f"array of {schema_type(node.get('items', {}))}"
    if kind == "object" and "properties" not in node:
        extra = node.get("additionalProperties")
        return f"object of {schema_type(extra)}" if isinstance(extra, dict) else "object"
    return node.get("title", kind) if kind == "object" else kind


def field_rows(node: dict[str, Any], prefix: str = "") -> list[list[str]]:
    """One row per property (nested inline objects flattened as ``a[].b``)."""
    rows = []
    required = set(node.get("required", ()))
    for name, prop in node.get("properties", {}).items():
        path = f"{prefix}{name}"
        default = code(value(prop["default"])) if "default" in prop else ""
        rows.append([code(path), cell(schema_type(prop)), "yes" if name in required else "",
                     default, cell(rst(prop.get("description", "")))])
        for inner, suffix in _inline_objects(prop):
            rows += field_rows(inner, f"{path}{suffix}.")
    return rows


def _inline_objects(prop: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Objects with their own properties written inside ``prop`` (not referenced by name)."""
    out = []
    for option in prop.get("anyOf", [prop]):
        if "properties" in option:
            out.append((option, ""))
        items = option.get("items", {})
        for item in items.get("anyOf", [items]):
            if "properties" in item:
                out.append((item, "[]"))
    return out


def operation_section(path: str, method: str, op: dict[str, Any]) -> str:
    """One route: summary, request body fields and responses."""
    parts = [f"## {method.upper()} {path}\n", f"{op.get('summary', '')}\n"]
    if op.get("description"):
        parts.append(rst(op["description"]) + "\n")
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body:
        parts += ["### Request body\n", rst(body.get("description", "")) + "\n",
                  table(["Field", "Type", "Required", "Default", "Description"], field_rows(body))]
    rows = []
    for status, resp in op.get("responses", {}).items():
        schema = resp.get("content", {}).get("application/json", {}).get("schema", {})
        shape = f"[{schema_type(schema)}](#{schema_type(schema).lower()})" if "$ref" in schema else ""
        rows.append([status, cell(resp.get("description", "")), shape])
    parts += ["### Responses\n", table(["Status", "When", "Body"], rows)]
    return "\n".join(parts)


def component_section(name: str, node: dict[str, Any]) -> str:
    """One named body: its description and fields."""
    return "\n".join([f"### {name}\n", rst(node.get("description", "")) + "\n",
                      table(["Field", "Type", "Required", "Default", "Description"],
                            field_rows(node))])


def render() -> str:
    """The page: every route, then every named body, from the OpenAPI document."""
    doc = openapi()
    header = (f"# HTTP API\n\n`citetrain serve` serves a judge over HTTP ({doc['info']['title']} "
              f"{doc['info']['version']}, OpenAPI {doc['openapi']}). This page is generated from "
              "the app's OpenAPI schema (`citetrain.serve.app.create_app(...).openapi()`). With a "
              "token (`--token-file`, `$CITETRAIN_SERVE_TOKEN` or `--token`), `POST /score` needs "
              "`Authorization: Bearer TOKEN`. Bodies are `application/json`; the Host header must "
              "name the server (`--allow-host`). Every refusal is `{\"error\": \"<one line>\"}` "
              "with a 4xx status; 503 (overload, shutting down) and 504 (`--timeout`) too.\n")
    ops = [operation_section(path, method, op) for path, methods in doc["paths"].items()
           for method, op in methods.items()]
    comps = [component_section(n, s) for n, s in doc.get("components", {}).get("schemas", {}).items()]
    return "\n".join([header, *ops, "## Bodies\n", *comps])
