"""Configuration-file references (recipes, build specs, suites, the judge server), read from
their pydantic schemas: every key with its type, default and the description the code gives it."""
from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .markdown import cell, code, rst, table, value

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


def render(model: type[BaseModel], title: str, intro: str) -> str:
    """A page: ``intro``, then one table per section (top-level keys first)."""
    parts = [f"# {title}\n", intro.strip() + "\n"]
    by_path = {k.path: k for k in keys(model)}
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
    return "\n".join(p for p in parts if p)
