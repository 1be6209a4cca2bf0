"""What the README and the site's pages show, read back for the tests that check it against the code.

- Commands: every command of every ```bash block (``\\`` continuations joined, comments dropped,
  split at ``&&``, or at every shell separator with ``split_all``), and the commands written in
  inline code (`` `citetrain eval ...` ``).
- ``citetrain SUB --opt`` (also ``python -m citetrain SUB``): the subcommand and every option it
  names exist (:func:`citetrain_problems`).
- Configuration keys: ``--set a.b=...`` of ``train`` / ``validate`` (recipes), ``eval`` (suites),
  ``build`` (build specs) and ``distill`` (distillation specs), and inline ``section.key`` of a recipe section (e.g.
  ``data.max_length``), exist in their pydantic schema (:func:`override_problems`,
  :func:`dotted_key_problems`). Below a free-form mapping (``eval.nli_options``) any key goes.
"""
from __future__ import annotations

import importlib.util
import inspect
import re
import shlex
import sys
import types
from functools import lru_cache
from importlib import import_module
from pathlib import Path
from typing import Union, get_args, get_origin

from pydantic import BaseModel

from citetrain.cli.main import COMMANDS, build_parser

REPO = Path(__file__).resolve().parents[1]
SEPARATORS = ("&&", "||", ";", "|")
GLOBAL_FLAGS = ("--verbose", "--debug")
SCHEMAS = {
    "recipe": "citetrain.train.recipe_schema:Recipe",
    "suite": "citetrain.metrics.suites:Suite",
    "build-spec": "citetrain.builders.spec:BuildSpec",
    "distill-spec": "citetrain.distill.spec:DistillSpec",
    "serve": "citetrain.serve.config:ServeConfig",
}
"""The configuration schemas the docs write keys of (``module:Model``)."""
OVERRIDES = {"train": "recipe", "validate": "recipe", "eval": "suite", "build": "build-spec",
             "distill": "distill-spec"}
"""The schema each subcommand's ``--set KEY=VALUE`` overrides."""
# a dotted span ending in one of these is a file name (`model.safetensors`), not a key
FILE_SUFFIXES = {"py", "yaml", "yml", "json", "jsonl", "md", "txt", "safetensors", "bin", "onnx",
                 "csv", "tsv", "sqlite", "xml", "gz", "pt", "log", "toml", "sh", "html"}


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def commands(text: str, split_all: bool = False) -> list[str]:
    """Every command of every bash block, comments dropped, ``a && b`` as two commands (and
    ``a | b``, ``a; b``, ``a || b`` with ``split_all``)."""
    seps = SEPARATORS if split_all else ("&&",)
    out = []
    for block in bash_blocks(text):
        for line in re.sub(r"\\\n", " ", block).splitlines():
            try:
                words = shlex.split(line, comments=True)
            except ValueError:  # an unclosed quote: the words as written
                words = line.partition(" #")[0].split()
            part: list[str] = []
            for w in words + ["&&"]:
                if w in seps:
                    if part:
                        out.append(shlex.join(part))
                    part = []
                else:
                    part.append(w)
    return list(dict.fromkeys(out))


def prose(text: str) -> str:
    """``text`` without its fenced blocks."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def inline_spans(text: str) -> list[str]:
    """Every inline code span of the prose, whitespace collapsed."""
    return list(dict.fromkeys(" ".join(s.split()) for s in re.findall(r"`([^`]+)`", prose(text))))


def inline_commands(text: str) -> list[str]:
    """Inline code spans in the prose that are commands of the toolkit."""
    return [s for s in inline_spans(text) if re.match(r"(citetrain|accelerate launch|pip install) ", s)]


@lru_cache(maxsize=1)
def _parser():
    return build_parser()


def subparser(sub: str):
    """citetrain's parser and the subparser of ``sub`` (built once; parsing does not change it)."""
    parser = _parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return parser, action.choices[sub]


def citetrain_words(command: str) -> list[str] | None:
    """``[SUB, ARGS...]`` of a ``citetrain ...`` / ``python -m citetrain ...`` command (leading
    ``NAME=value`` words and citetrain's global flags dropped), else None."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        words = words[1:]
    if words[:3] in (["python", "-m", "citetrain"], ["python3", "-m", "citetrain"]):
        words = ["citetrain", *words[3:]]
    if not words or words[0] != "citetrain":
        return None
    words = words[1:]
    while words and words[0] in GLOBAL_FLAGS:
        words = words[1:]
    if words and words[0].endswith(":"):  # a message citetrain prints (`citetrain eval: error: ...`)
        return None
    return words


def citetrain_problems(words: list[str]) -> list[str]:
    """The lighter check of ``citetrain SUB ARGS...`` (``words`` from :func:`citetrain_words`):
    the subcommand exists and so does every ``--option`` it names (exact spelling)."""
    if not words or words[0] in ("-h", "--help", "--version"):
        return []
    sub = words[0]
    if sub not in COMMANDS:
        return [f"unknown command `citetrain {sub}`"]
    known = subparser(sub)[1]._option_string_actions
    return [f"`citetrain {sub}` has no option {w.split('=')[0]}" for w in words[1:]
            if w.startswith("--") and w.split("=")[0] not in known]


@lru_cache(maxsize=None)
def schema(name: str) -> type[BaseModel]:
    module, _, attr = SCHEMAS[name].partition(":")
    return getattr(import_module(module), attr)


def _section(annotation) -> type[BaseModel] | None:
    """The pydantic model of a field (``X``, ``X | None``, ``list[X]``), else None."""
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return annotation
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, types.UnionType, list) and len(args) == 1:
        return _section(args[0])
    return None


def _free(annotation) -> bool:
    """A free-form mapping (``dict[...]``, optionally ``| None``): any key below it goes."""
    if get_origin(annotation) is dict or annotation is dict:
        return True
    return get_origin(annotation) in (Union, types.UnionType) and any(
        _free(a) for a in get_args(annotation))


def schema_keys(model: type[BaseModel], prefix: str = "") -> dict[str, bool]:
    """Every dotted key of ``model``, walked recursively -> whether it is a free-form mapping."""
    out: dict[str, bool] = {}
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        out[path] = _free(field.annotation)
        sub = _section(field.annotation)
        if sub is not None:
            out.update(schema_keys(sub, f"{path}."))
    return out


def has_key(model: type[BaseModel], key: str) -> bool:
    """Whether ``key`` (dotted) is a key of ``model``, or lies below a free-form mapping of it."""
    keys = schema_keys(model)
    parts = key.split(".")
    return any(".".join(parts[:i]) in keys and (i == len(parts) or keys[".".join(parts[:i])])
               for i in range(1, len(parts) + 1))


def override_problems(words: list[str]) -> list[str]:
    """``--set KEY=VALUE`` of ``words`` (``[SUB, ARGS...]``) whose key is not in the schema the
    subcommand overrides."""
    if not words or words[0] not in OVERRIDES:
        return []
    model = schema(OVERRIDES[words[0]])
    sets = [b for a, b in zip(words, words[1:]) if a == "--set"]
    sets += [w.removeprefix("--set=") for w in words if w.startswith("--set=")]
    return [f"`--set {s}`: no key {s.partition('=')[0]} in {model.__name__}" for s in sets
            if not has_key(model, s.partition("=")[0])]


def dotted_key_problems(text: str) -> list[str]:
    """Inline spans ``section.key`` (or ``section.key=value``) of a recipe section that name no
    recipe key (and no key of another configuration schema, which shares some section names)."""
    recipe = schema("recipe")
    sections = {n for n, f in recipe.model_fields.items() if _section(f.annotation)}
    problems = []
    for span in inline_spans(text):
        key = span.removeprefix("--set ").partition("=")[0].partition(":")[0].strip()
        parts = key.split(".")
        if (len(parts) < 2 or parts[0] not in sections or parts[-1] in FILE_SUFFIXES
                or not re.fullmatch(r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)+", key)):
            continue
        if not any(has_key(schema(name), key) for name in SCHEMAS):
            problems.append(f"`{span}`: no recipe key {key}")
    return problems


def load_generator() -> types.ModuleType:
    """``docs/gen_reference`` (the site's generator, not part of the package), loaded as MkDocs
    loads it, once per process (its submodules ``gen_reference.cli`` etc. come with it)."""
    if "gen_reference" in sys.modules:
        return sys.modules["gen_reference"]
    init = REPO / "docs" / "gen_reference" / "__init__.py"
    spec = importlib.util.spec_from_file_location("gen_reference", init,
                                                  submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_reference"] = module
    spec.loader.exec_module(module)
    return module
