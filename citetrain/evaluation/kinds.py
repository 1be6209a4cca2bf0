"""What a checkpoint named in ``model:`` is, read from its own config, and what identifies it
for a resumed run."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from citetrain.errors import CitetrainError
from citetrain.metrics.suites import SuiteModel
from citetrain.refine.load import Kind, refiner_kind

Role = Literal["generator", "refiner", "judge"]
WEIGHTS = ("*.safetensors", "*.bin", "*.pt")


def checkpoint_kind(path: str) -> Kind:
    """``generative`` (a causal LM: an adapter of task CAUSAL_LM, or ``*ForCausalLM``) or
    ``pair`` (a sequence classifier whose labels read as support); one line otherwise."""
    from citetrain.io.writers import restore_old_dir

    folder = Path(path)
    restore_old_dir(folder.resolve())  # a save killed between its two renames
    if not folder.is_dir():
        raise CitetrainError(f"model.path: {folder} is not a folder (a checkpoint: an adapter "
                             "or a model folder)")
    try:
        return refiner_kind(path)
    except CitetrainError as exc:
        raise CitetrainError(f"model.path: {str(exc).removeprefix('--refiner: ')}") from None


def resolve_kind(spec: SuiteModel) -> Role:
    """The spec's kind, ``auto`` read from the checkpoint: a causal LM is a generator, a support
    classifier a (pair) refiner. A judge is named with ``kind: judge``."""
    if spec.kind == "judge":
        return "judge"
    found = checkpoint_kind(spec.path)
    if spec.kind == "auto":
        return "generator" if found == "generative" else "refiner"
    if spec.kind == "generator" and found != "generative":
        raise CitetrainError(f"model.path: {spec.path} is a (passage, statement) support "
                             "classifier, not a generator; use kind: refiner or kind: judge")
    return spec.kind


def checkpoint_identity(path: str) -> dict[str, Any]:
    """The resolved folder and the size and modification time of its weight files: a partial
    run is resumed only with the very checkpoint that began it."""
    folder = Path(path).resolve()
    files = sorted({p for pattern in WEIGHTS for p in folder.glob(pattern)})
    return {"path": str(folder),
            "weights": {p.name: [p.stat().st_size, p.stat().st_mtime_ns] for p in files}}
