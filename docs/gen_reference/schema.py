"""Configuration-file references (recipes, build specs, suites, the judge server), read from
their pydantic schemas: every key with its type, default and the description the code gives it,
and per section a YAML example cut from a file citetrain ships (``citetrain ls``)."""
from __future__ import annotations

import inspect
import re
import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .markdown import cell, code, rst, table, value

SHIPPED_KIND = {
    "citetrain.train.recipe_schema:Recipe": "recipe",
    "citetrain.builders.spec:BuildSpec": "spec",
    "citetrain.metrics.suites:Suite": "suite",
    "citetrain.distill.spec:DistillSpec": "distill",
}
"""``module:Model`` -> the kind of shipped file (:data:`citetrain.io.assets.KINDS`) its examples
are cut from."""
EXAMPLE_FROM = "# from "
"""The first line of every example block: ``# from recipes/refiner.yaml``."""

_BOUNDS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"), ("min_length", "length ≥"))


@dataclass
class Key:
    """One documented key: its dotted path, type, default, range and description."""

    path: str
    type: str
    default: str
    bounds: str
    description: str


def model_of(annotation: Any) -> tuple[type[BaseModel] | None, str]:
    """The pydantic section an annotation holds, and the suffix its keys get: ``X``, ``X | None``
    (suffix ``""``) or ``list[X]`` (suffix ``"[]"``); ``(None, "")`` for a plain value."""
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return annotation, ""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        models = [model_of(a) for a in args if a is not type(None)]
        if len(models) == 1:
            return models[0]
    if origin is list and args:
        model, _ = model_of(args[0])
        if model is not None:
            return model, "[]"
    return None, ""


def type_name(annotation: Any) -> str:
    """A readable type: ``int``, ``str | null``, ``"auto" | "bf16"``, ``list[str]``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is type(None):
        return "null"
    if origin is Literal:
        return " | ".join(value(a) for a in args)
    if origin in (Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(type_name(a) for a in args)}]"
    if annotation is Any:
        return "any"
    return getattr(annotation, "__name__", str(annotation))


def default_of(field: FieldInfo) -> str:
    """The default as YAML writes it, or ``required``."""
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        made = field.default_factory()
        return "{}" if isinstance(made, BaseModel) else value(made)
    return "{}" if isinstance(field.default, BaseModel) else value(field.default)


def bounds_of(field: FieldInfo) -> str:
    """The field's range, e.g. ``≥ 0, < 1``."""
    out = []
    for meta in field.metadata:
        for attr, sign in _BOUNDS:
            bound = getattr(meta, attr, None)
            if bound is not None:
                out.append(f"{sign} {bound}")
    return ", ".join(out)


def keys(model: type[BaseModel], prefix: str = "") -> list[Key]:
    """Every key of ``model``, sections walked depth first (a section's own key comes first)."""
    out = []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        sub, suffix = model_of(field.annotation)
        kind = type_name(field.annotation) if sub is None else f"section{' list' if suffix else ''}"
        out.append(Key(path, kind, default_of(field), bounds_of(field), field.description or ""))
        if sub is not None:
            out += keys(sub, f"{path}{suffix}.")
    return out


def sections(model: type[BaseModel], prefix: str = "") -> list[tuple[str, type[BaseModel]]]:
    """``(dotted path, section model)`` for ``model`` and every section under it."""
    out = [(prefix.rstrip("."), model)]
    for name, field in model.model_fields.items():
        sub, suffix = model_of(field.annotation)
        if sub is not None:
            out += sections(sub, f"{prefix}{name}{suffix}.")
    return out


def _doc(model: type[BaseModel]) -> str:
    doc = model.__doc__
    if not doc or doc == BaseModel.__doc__:
        return ""
    return rst(inspect.cleandoc(doc)) + "\n"


_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][\w-]*)\s*:(?:\s|$)")
_DASH = re.compile(r"^(\s*)-(?:\s|$)")


@dataclass
class _Line:
    indent: int  # spaces before the text
    col: int | None  # the key's column (after a "- "), None when the line holds no key
    key: str | None
    dash: bool  # a list item starts here
    inline: bool  # the key's value is on its own line (``k: v``, ``k: {a: 1}``)
    skip: bool  # blank or comment


def _parse(text: str) -> list[_Line]:
    out = []
    for raw in text.splitlines():
        body = raw.strip()
        indent = len(raw) - len(raw.lstrip(" "))
        if not body or body.startswith("#"):
            out.append(_Line(indent, None, None, False, False, True))
            continue
        m = _KEY.match(raw)
        dash = bool(_DASH.match(raw))
        if m:
            rest = raw[m.end():].split(" #")[0].strip()
            col = indent + (len(m.group(2)) if m.group(2) else 0)
            out.append(_Line(indent, col, m.group(3), dash, bool(rest) and not rest.startswith("#"),
                             False))
        else:
            out.append(_Line(indent, None, None, dash, True, False))
    return out


def _end(lines: list[_Line], start: int, col: int, items_here: bool) -> int:
    """The end of the node whose first line is ``start``: the lines indented past ``col`` (and,
    with ``items_here``, list items at ``col``), trailing blank and comment lines left out."""
    j, last = start + 1, start + 1
    while j < len(lines):
        ln = lines[j]
        if not ln.skip:
            if not (ln.indent > col or (items_here and ln.dash and ln.indent == col)):
                break
            last = j + 1
        j += 1
    return last


def _children(lines: list[_Line], lo: int, hi: int) -> dict[str, int]:
    """The keys of the mapping on lines ``lo:hi`` -> their line."""
    keyed = [i for i in range(lo, hi) if lines[i].key is not None]
    if not keyed:
        return {}
    col = min(lines[i].col for i in keyed)
    return {lines[i].key: i for i in keyed if lines[i].col == col}


def _items(lines: list[_Line], lo: int, hi: int) -> list[tuple[int, int]]:
    """The list items on lines ``lo:hi``: (first line, end)."""
    dashes = [i for i in range(lo, hi) if lines[i].dash]
    if not dashes:
        return []
    k = min(lines[i].indent for i in dashes)
    return [(i, _end(lines, i, k, False)) for i in dashes if lines[i].indent == k]


def _candidates(lines, parts, lo, hi, above):
    """(lines above, first, end, flow) of every node the dotted ``parts`` reach from lines lo:hi;
    ``flow``: a flow mapping on lines first:end (``lora: {r: 16, ...}``)."""
    if not parts:
        yield above, lo, hi, False
        return
    name, many = parts[0].removesuffix("[]"), parts[0].endswith("[]")
    i = _children(lines, lo, hi).get(name)
    if i is None:
        return
    if lines[i].inline:
        if len(parts) == 1 and not many:
            yield above, i, _end(lines, i, lines[i].col, False), True
        return
    end = _end(lines, i, lines[i].col, True)
    if many:
        for first, stop in _items(lines, i + 1, end):
            yield from _candidates(lines, parts[1:], first, stop, [*above, i, first])
    else:
        yield from _candidates(lines, parts[1:], i + 1, end, [*above, i])


def _own(section: type[BaseModel]) -> set[str]:
    """The section's keys that are not sections themselves."""
    return {n for n, f in section.model_fields.items() if model_of(f.annotation)[0] is None}


def _cut(lines, raw, section, above, lo, hi, flow) -> tuple[int, list[int]]:
    """How many of the section's own keys the node sets, and the lines of its excerpt: the lines
    above it, then each own key (a subsection left to its own example)."""
    import yaml

    keep = set(above)
    if flow:
        text = " ".join([raw[lo][_KEY.match(raw[lo]).end():], *raw[lo + 1:hi]])
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return 0, []
        return (len(_own(section) & set(data)) if isinstance(data, dict) else 0,
                sorted(keep | set(range(lo, hi))))
    found = 0
    for key, i in _children(lines, lo, hi).items():
        if key in _own(section):
            found += 1
            keep.update(range(i, _end(lines, i, lines[i].col, not lines[i].inline)))
    return found, sorted(keep)


def example(kind: str, path: str, section: type[BaseModel]) -> tuple[str, str] | None:
    """``(file, YAML)``: the shipped file of ``kind`` (and, in a list, the entry) that sets the
    most own keys of the section at ``path``, cut down to them and the lines above them;
    None when no shipped file has the section."""
    from citetrain.io.assets import asset_root, shipped

    root = asset_root()
    best: tuple[int, str, str] | None = None
    for file in shipped(kind):
        text = file.read_text(encoding="utf-8")
        raw = text.splitlines()
        lines = _parse(text)
        parts = path.split(".") if path else []
        for above, lo, hi, flow in _candidates(lines, parts, 0, len(lines), []):
            found, keep = _cut(lines, raw, section, above, lo, hi, flow)
            if found and (best is None or found > best[0]):
                best = (found, file.relative_to(root).as_posix(),
                        "\n".join(raw[i].rstrip() for i in keep if not lines[i].skip))
    return None if best is None else (best[1], best[2])


def render(model: type[BaseModel], title: str, intro: str) -> str:
    """A page: ``intro``, then one table per section (top-level keys first), each followed by an
    example cut from a shipped file where one sets the section."""
    parts = [f"# {title}\n", intro.strip() + "\n"]
    by_path = {k.path: k for k in keys(model)}
    kind = SHIPPED_KIND.get(f"{model.__module__}:{model.__name__}")
    for path, section in sections(model):
        rows = []
        for name in section.model_fields:
            k = by_path[f"{path}.{name}" if path else name]
            default = code(k.default) if k.default != "required" else "required"
            rows.append([code(k.path), cell(k.type), default, cell(k.bounds),
                         cell(rst(k.description))])
        heading = f"## `{path}`" if path else "## Top level"
        parts += [heading + "\n", _doc(section),
                  table(["Key", "Type", "Default", "Range", "Description"], rows)]
        found = example(kind, path, section) if kind else None
        if found:
            file, text = found
            parts.append(f"Example, from the shipped `{file}`:\n\n```yaml\n{EXAMPLE_FROM}{file}\n"
                         f"{text}\n```\n")
    return "\n".join(p for p in parts if p)
