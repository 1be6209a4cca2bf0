"""YAML configs (eval suites now, recipes and build specs later) validated with pydantic.

Every error is collected and reported at once, one per line, with the file, the key path and a
"did you mean" for unknown keys (torchtune-style).
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Sequence, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from citetrain.errors import CitetrainError

M = TypeVar("M", bound=BaseModel)


class ConfigError(CitetrainError):
    """Invalid config: ``errors`` holds one message per problem; one problem reads as one
    line, several as a list under a count."""

    def __init__(self, path: str, errors: list[str]) -> None:
        self.path, self.errors = path, errors
        if len(errors) == 1:  # one problem, one line
            super().__init__(f"{path}: {errors[0]}")
        else:
            super().__init__(f"{path}: {len(errors)} errors" + "".join(f"\n  - {e}" for e in errors))


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the (nested) model that ``loc`` points into."""
    current: Any = model
    for part in loc:
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            break
        ann = fields[part].annotation
        current = next((a for a in getattr(ann, "__args__", (ann,)) if hasattr(a, "model_fields")), ann)
    return list(getattr(current, "model_fields", {}))


def did_you_mean(word: str, known: Sequence[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``known``, or ``""``."""
    close = difflib.get_close_matches(str(word), list(known), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def format_errors(model: type[BaseModel], exc: ValidationError) -> list[str]:
    """One readable line per pydantic error, with suggestions for unknown keys."""
    out = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        where = ".".join(str(p) for p in loc) or "(top level)"
        if err["type"] == "extra_forbidden":
            known = _fields_at(model, loc[:-1])
            hint = did_you_mean(str(loc[-1]), known) or f"; known keys: {', '.join(known)}"
            out.append(f"{where}: unknown key{hint}")
        else:
            out.append(f"{where}: {err['msg']}")
    return out


def load_yaml(path: str | Path) -> dict[str, Any]:
    """A YAML mapping from a file, with one-line errors for a missing file or bad YAML."""
    p = Path(path)
    if p.is_dir():
        raise CitetrainError(f"{p}: is a folder, not a YAML file")
    if not p.is_file():
        raise CitetrainError(f"{p}: no such file")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        mark = getattr(e, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise CitetrainError(f"{p}{line}: invalid YAML: {getattr(e, 'problem', e)}") from None
    if not isinstance(data, dict):
        raise CitetrainError(f"{p}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``section.key=value`` overrides (values parsed as YAML scalars)."""
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise CitetrainError(f"override '{item}': expected section.key=value")
        node = data
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise CitetrainError(f"override '{item}': '{part}' is not a section")
        node[parts[-1]] = yaml.safe_load(raw)
    return data


def validate(model: type[M], data: dict[str, Any], path: str) -> M:
    """``model`` from ``data``, or a :class:`ConfigError` listing every problem."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ConfigError(path, format_errors(model, e)) from None


def load_config(model: type[M], path: str | Path, overrides: list[str] | None = None) -> M:
    """Load, override and validate a YAML config."""
    data = apply_overrides(load_yaml(path), overrides or [])
    return validate(model, data, str(path))
