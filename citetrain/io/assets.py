"""The files citetrain ships beside its code: training recipes, build specs, eval suites, launch
configs and the example predictions, found by name.

In a clone they are the repository's top-level ``recipes/``, ``data_builders/``, ``eval/``,
``launch/`` and ``examples/``; an installed wheel carries copies in ``citetrain/_shipped/`` (made
by ``setup.py`` at build time). Wherever a recipe, spec, suite or launch config is expected, an
existing path wins and a bare name (``refiner``, ``quickstart``, ``zero3``) is the shipped file of
that kind (``citetrain ls`` lists them, ``citetrain cp NAME`` copies one out to edit).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from citetrain.errors import CitetrainError

# kind -> (folder, what it holds, file suffixes)
KINDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "recipe": ("recipes", "training recipes (citetrain train NAME)", (".yaml",)),
    "spec": ("data_builders", "build specs (citetrain build NAME)", (".yaml",)),
    "suite": ("eval", "eval suites (citetrain eval NAME)", (".yaml",)),
    "launch": ("launch", "launch configs (accelerate launch --config_file, slurm)",
               (".yaml", ".sbatch")),
    "example": ("examples", "example predictions", (".jsonl",)),
    "distill": ("distill", "distillation chains (citetrain distill NAME)", (".yaml",)),
}
FOLDERS = tuple(folder for folder, _, _ in KINDS.values())
PACKAGE = Path(__file__).resolve().parents[1]  # the citetrain package folder
SHIPPED = PACKAGE / "_shipped"


def asset_root() -> Path:
    """Where the shipped folders are: the clone's root, else the wheel's ``_shipped``."""
    clone = PACKAGE.parent
    if (clone / "recipes").is_dir() and (clone / "pyproject.toml").is_file():
        return clone
    return SHIPPED


def shipped(kind: str) -> list[Path]:
    """The shipped files of a kind, sorted by name."""
    folder, _, suffixes = KINDS[kind]
    base = asset_root() / folder
    return sorted(p for p in base.glob("*") if p.is_file() and p.suffix in suffixes)


def header(path: Path) -> str:
    """The first comment line of a file, without ``#``: its one-line description."""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("#!"):
            continue
        if line.startswith("#"):
            return line.lstrip("#").strip()
        if line.strip():
            break
    return ""


def find(name: str, kinds: tuple[str, ...] | None = None) -> Path | None:
    """The shipped file called ``name`` (with or without its suffix) among ``kinds``, in the
    order of :data:`KINDS` (a recipe before a spec of the same name); ``FOLDER/NAME``
    (``data_builders/refiner``) picks the kind by its folder."""
    folder, _, rest = name.rpartition("/")
    if folder:
        kinds = tuple(k for k in (kinds or KINDS) if KINDS[k][0] == folder)
        name = rest
    for kind in kinds if kinds is not None else tuple(KINDS):
        for path in shipped(kind):
            if name in (path.name, path.stem):
                return path
    return None


def resolve(value: str | Path, kind: str) -> Path:
    """``value`` when it exists as a path; else the shipped ``kind`` file of that bare name (or
    of ``FOLDER/NAME`` with the kind's own folder, as the README writes them, e.g.
    ``recipes/refiner.yaml`` outside a clone); else ``value`` unchanged (the caller reports it
    as not found)."""
    path = Path(value)
    if path.exists() or path.is_absolute():
        return path
    if len(path.parts) == 1 or (len(path.parts) == 2 and path.parts[0] == KINDS[kind][0]):
        return find(path.name, (kind,)) or path
    return path


def copy_out(name: str, dest: str | Path | None = None) -> Path:
    """Copy the shipped file ``name`` (:func:`find`) to ``dest`` (a folder, or a file path;
    default: the current folder under its own name); an existing file is never overwritten."""
    src = find(name)
    if src is None:
        raise CitetrainError(f"no shipped file called {name!r}: citetrain ls lists them "
                             f"(FOLDER/NAME picks one of a kind, e.g. data_builders/refiner)")
    target = Path(dest) if dest is not None else Path(src.name)
    if target.is_dir() or str(dest).endswith(("/", "\\")):
        target = target / src.name
    if target.exists():
        raise CitetrainError(f"{target} exists: give another destination or remove it")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, target)
    return target
