"""YAML configs (recipes, build specs, eval suites, distill specs) validated with pydantic, and
the relative paths written in them resolved (:func:`yaml_path`, :func:`yaml_entry`).

Every error is collected and reported at once, one per line, with the file, the key path and a
"did you mean" for unknown keys (torchtune-style).
"""
from __future__ import annotations

__all__ = ["ConfigError"]

import difflib
from pathlib import Path
from typing import Any, Literal, Sequence, TypeVar

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


Missing = Literal["folder", "written"]


def yaml_path(value: str, yaml_file: str | Path, missing: Missing = "folder") -> str:
    """A path written in the YAML file ``yaml_file``, read the one way of every YAML file
    (recipes, build specs, eval suites, distill specs). An absolute path is kept as written. A
    relative one is taken from the first of these where it exists:

    1. the working directory (kept as written): a path given from where citetrain runs, which
       also keeps a run's recorded settings unchanged when the YAML file lies there;
    2. the YAML file's folder (made absolute): a file named beside it;
    3. the parent of the YAML file's folder (made absolute): the repository's root for the
       shipped ``recipes/``, ``data_builders/``, ``eval/`` and ``distill/``, whichever folder
       citetrain runs from.

    A path that exists in none of them is taken from the YAML file's folder (``missing="folder"``:
    suites and build specs, whose files are named beside them) or kept as written
    (``missing="written"``: recipes and distill specs, whose paths may name a shipped file, e.g.
    ``launch.config_file: zero3``, or a folder a run writes, e.g. ``data.dataset``)."""
    if Path(value).is_absolute():
        return value
    folder = Path(yaml_file).resolve().parent
    if Path(value).exists():
        return value
    if (folder / value).exists():
        return str((folder / value).resolve())
    if (folder.parent / value).exists():
        return str((folder.parent / value).resolve())
    return str((folder / value).resolve()) if missing == "folder" else value


def yaml_entry(entry: str, yaml_file: str | Path, missing: Missing = "folder") -> str:
    """A ``PATH`` or ``FORMAT:PATH`` entry (``crossencoder.labelled``, ``pairs.holdout.labelled``)
    with its PATH read as :func:`yaml_path` reads it; a prefix that is not a labelled-source format
    (:func:`citetrain.io.labelled.source_formats`) is part of the path."""
    from citetrain.io.labelled import source_formats

    fmt, sep, value = entry.partition(":")
    if not sep or fmt not in source_formats():
        return yaml_path(entry, yaml_file, missing)
    return f"{fmt}:{yaml_path(value, yaml_file, missing)}"


# What each kind of YAML file is called and the command that runs it; the markers of a kind are
# top-level keys that no other kind has (checked against the shipped recipes/, data_builders/,
# eval/ and distill/): a recipe has ``train`` or ``method`` (or ``kind`` with ``model``), a build
# spec ``sources``, an eval suite ``metrics`` or a ``data`` list, a distill spec ``teacher`` or
# ``student``.
YAML_KINDS: dict[str, tuple[str, str]] = {
    "recipe": ("a training recipe", "citetrain train"),
    "spec": ("a build spec", "citetrain build"),
    "suite": ("an eval suite", "citetrain eval"),
    "distill": ("a distill spec", "citetrain distill"),
}


def _looks_like(kind: str, data: dict[str, Any]) -> bool:
    if kind == "recipe":
        return "train" in data or "method" in data or ("kind" in data and "model" in data)
    if kind == "spec":
        return "sources" in data
    if kind == "suite":
        return "metrics" in data or isinstance(data.get("data"), list)
    if kind == "distill":
        return "teacher" in data or "student" in data
    raise ValueError(f"unknown YAML kind {kind!r}")


def yaml_kind(data: dict[str, Any]) -> str | None:
    """The kind of YAML file ``data`` is (``recipe``, ``spec``, ``suite``, ``distill``, keys of
    :data:`YAML_KINDS`) told by its top-level keys; ``None`` when none or several kinds fit."""
    kinds = [k for k in YAML_KINDS if _looks_like(k, data)]
    return kinds[0] if len(kinds) == 1 else None


def check_kind(data: dict[str, Any], path: str | Path, expected: str) -> None:
    """Raise a one-line :class:`CitetrainError` when ``data`` (the YAML file ``path``) is plainly
    a file of another kind than ``expected``: what it is and the command that runs it. A file
    with the expected kind's own markers, or with none, is left to validation."""
    if _looks_like(expected, data):
        return
    kind = yaml_kind(data)
    if kind is None or kind == expected:
        return
    what, command = YAML_KINDS[kind]
    raise CitetrainError(f"{path}: this is {what}, not {YAML_KINDS[expected][0]}: run "
                         f"`{command} {path}`")


def load_yaml_of(path: str | Path, kind: str) -> dict[str, Any]:
    """:func:`load_yaml`, refusing a file of another kind than ``kind`` (:func:`check_kind`)."""
    data = load_yaml(path)
    check_kind(data, path, kind)
    return data
