"""Loading Hugging Face NLI models: local directory or hub id, revision, device and dtype.

Shared by :mod:`citetrain.nli.seq2seq` and :mod:`citetrain.nli.classifier`. Nothing here downloads
unless the user names a hub id that is not in the local cache (and ``HF_HUB_OFFLINE`` is unset);
``trust_remote_code`` stays ``False`` unless the caller passes ``True``.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.nli.base import Pair

_CHUNK = 1 << 20  # 1 MiB read from each end of a file for the fingerprint
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SKIP_DIRS = {".git", ".cache", "__pycache__"}
_DTYPES = {
    "fp32": "float32", "float32": "float32", "float": "float32",
    "bf16": "bfloat16", "bfloat16": "bfloat16",
    "fp16": "float16", "float16": "float16", "half": "float16",
}


@dataclass(frozen=True)
class ModelSource:
    """Where a model comes from: ``model_id`` and ``revision`` key the NLI cache.

    For a local directory ``model_id`` is the directory's name and ``revision`` a content
    fingerprint (so moving the directory keeps the cache, changing the weights invalidates it);
    for a hub id ``model_id`` is the id and ``revision`` the snapshot commit when it can be
    resolved offline, else the revision requested (``"main"`` by default).
    """

    location: str  # what to hand to ``from_pretrained``
    model_id: str
    revision: str
    hub_revision: str | None  # passed to ``from_pretrained`` for hub ids only
    local: bool


def fingerprint(directory: str | os.PathLike[str]) -> str:
    """``local-<16 hex>``: SHA-256 over every file's relative name and size and its first and last
    MiB (whole small files). Cheap on multi-GB checkpoints and changes when the weights change."""
    root = Path(directory)
    digest = hashlib.sha256()
    files = sorted(
        p for p in root.rglob("*")
        if p.is_file() and not any(part in _SKIP_DIRS for part in p.relative_to(root).parts)
    )
    for path in files:
        size = path.stat().st_size
        digest.update(f"{path.relative_to(root).as_posix()}\0{size}\0".encode())
        with open(path, "rb") as fh:
            digest.update(fh.read(_CHUNK))
            if size > 2 * _CHUNK:
                fh.seek(size - _CHUNK)
                digest.update(fh.read(_CHUNK))
            elif size > _CHUNK:
                digest.update(fh.read())
    return "local-" + digest.hexdigest()[:16]


def snapshot_commit(
    repo_id: str, revision: str | None = None, cache_dir: str | os.PathLike[str] | None = None
) -> str | None:
    """The commit hash of a hub model's snapshot in the local cache, or ``None``."""
    if revision and _COMMIT.match(revision):
        return revision
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - installed with transformers
        return None
    try:
        found = try_to_load_from_cache(repo_id, "config.json", cache_dir=cache_dir,
                                       revision=revision or "main")
    except Exception:  # malformed ids and the like: nothing to resolve offline
        return None
    if not isinstance(found, str):
        return None
    parent = Path(found).parent.name
    return parent if _COMMIT.match(parent) else None


def resolve_source(name_or_path: str | os.PathLike[str], revision: str | None = None) -> ModelSource:
    """Decide whether ``name_or_path`` is a local directory or a hub id and compute its revision."""
    from citetrain.io.writers import restore_old_dir

    text = str(name_or_path)
    path = Path(text).expanduser()
    restore_old_dir(path)  # a save killed between its two renames
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise CitetrainError(f"{path}: not a model directory (no config.json)")
        name = path.resolve().name
        return ModelSource(str(path), name, fingerprint(path), None, True)
    if path.exists() or text.startswith((".", "/", "~")) or text.count("/") > 1:
        raise CitetrainError(f"{text}: no such model directory")
    commit = snapshot_commit(text, revision)
    return ModelSource(text, text, commit or revision or "main", revision, False)


def choose_device(device: str | None = None) -> str:
    """``"auto"``/``None``: ``cuda`` when available, else ``cpu``; anything else as given."""
    import torch

    if device in (None, "", "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return str(device)


INT8 = {"int8", "qint8"}


def quantize_int8(model: Any) -> Any:
    """``model`` with every ``nn.Linear`` replaced by torch's dynamically quantized int8 Linear
    (weights int8 with a scale per output channel, activations quantized with one scale per input
    tensor, fp32 elsewhere): a CPU serving format. The activation scale is the whole tensor's, so
    the backends feed such a model one pair at a time (``rows_alone``): a pair's
    answer then does not depend on the pairs batched with it."""
    import warnings

    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig

    with warnings.catch_warnings():  # torch.ao's notice that torchao will take this over
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)
        return torch.ao.quantization.quantize_dynamic(
            model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)


def compile_for_inference(model: Any) -> Any:
    """``model`` compiled for reading: ``torch.compile`` (inductor) with shapes left dynamic, so
    one graph serves every batch and length, and its weights frozen as constants, so a CPU runs
    the Linear layers as oneDNN's prepacked products fused with their bias and activation. The
    first call compiles (tens of seconds; inductor keeps the code on disk for later processes);
    answers equal the eager model's up to float rounding. Needs a C++ compiler on a CPU."""
    import torch

    return torch.compile(model, dynamic=True, options={"freezing": True})


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bf16 natively (AVX512-BF16 or AMX tiles, e.g. Intel Sapphire
    Rapids and later): there a bf16 model reads pairs several times faster than fp32; elsewhere
    torch emulates bf16, slower than fp32."""
    import torch

    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    try:
        return any(getattr(torch.cpu, name, lambda: False)() for name in probes)
    except RuntimeError:  # no answer from this build: assume emulation
        return False


def cpu_dtypes() -> tuple[str, ...]:
    """The dtypes a judge serves in on this CPU, fp32 first: int8, and bf16 where native."""
    return ("fp32", "int8", "bf16") if cpu_has_bf16() else ("fp32", "int8")


DTYPE_TAGS = {"bfloat16": "+bf16", "float16": "+fp16"}  # cache revision per weight dtype


def choose_dtype(dtype: Any = None, device: str = "cpu"):
    """``"auto"``/``None``: bfloat16 on a CUDA device that supports it, else float32.

    Explicit names (``fp32``, ``bf16``, ``fp16``, ``float32`` ...) or ``torch.dtype`` are honoured.
    """
    import torch

    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype in (None, "", "auto"):
        if device.startswith("cuda") and torch.cuda.is_available() and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    key = str(dtype).lower().removeprefix("torch.")
    if key not in _DTYPES:
        raise CitetrainError(f"unknown dtype '{dtype}': use auto, fp32, bf16 or fp16")
    return getattr(torch, _DTYPES[key])


def load_pretrained(
    auto_class: Any,
    source: ModelSource,
    *,
    device: str,
    dtype: Any,
    trust_remote_code: bool = False,
):
    """(model, tokenizer) from ``source`` in eval mode on ``device``; errors as one clear line."""
    from transformers import AutoTokenizer

    from citetrain.nli.ffn_units import drop_dead_units
    from citetrain.nli.onnx import OnnxClassifier, is_onnx_folder
    from citetrain.nli.openvino import OpenVinoClassifier, is_openvino_folder

    kwargs: dict[str, Any] = {"trust_remote_code": bool(trust_remote_code)}
    if source.hub_revision:
        kwargs["revision"] = source.hub_revision
    openvino = source.local and is_openvino_folder(source.location)
    onnx = source.local and not openvino and is_onnx_folder(source.location)
    classifier = getattr(auto_class, "__name__", "") == "AutoModelForSequenceClassification"
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.location, **kwargs)
        if onnx or openvino:  # an exported classifier (citetrain export): its own runtime
            import torch

            if not classifier:
                raise CitetrainError(f"{source.location} is an exported sequence classifier: "
                                     "read it with classifier:PATH")
            threads = torch.get_num_threads()
            model = (OpenVinoClassifier(source.location, threads=threads,
                                        precision="bf16" if dtype == torch.bfloat16 else "f32")
                     if openvino else OnnxClassifier(source.location, threads=threads))
        else:
            model = auto_class.from_pretrained(source.location, dtype=dtype, **kwargs)
            if classifier:
                drop_dead_units(model)  # a pruned judge's padding (citetrain prune N,N,...)
    except (OSError, ValueError) as exc:
        where = "directory" if source.local else "hub id (offline: is it in the local cache?)"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CitetrainError(f"cannot load model {source.location} ({where}): {first}") from exc
    model.to(device)
    model.eval()
    return model, tokenizer


def hub_commit(model: Any) -> str | None:
    """The commit hash transformers recorded while loading from the hub, if any."""
    commit = getattr(getattr(model, "config", None), "_commit_hash", None)
    return commit if isinstance(commit, str) and _COMMIT.match(commit) else None


def revision_tag(base: str, *, max_length: int, default_max_length: int,
                 threshold: float | None) -> str:
    """The cache revision: the model's revision plus any option that changes its answers."""
    tag = base
    if max_length != default_max_length:
        tag += f"+len{max_length}"
    if threshold is not None:
        tag += f"+t{threshold:g}"
    return tag


def reject_unknown(kind: str, unused: dict[str, Any]) -> None:
    """Options meant for another backend are an error, not silently ignored."""
    if unused:
        raise CitetrainError(f"{kind} NLI: unknown option(s) {', '.join(sorted(unused))}")


class HFBackend:
    """What the Hugging Face backends share: options, loading, cache identity, ``cost``.

    Subclasses set ``kind`` and ``auto_class`` (a ``transformers`` Auto class name) and finish
    their set-up in ``_setup``. Options: ``revision`` (hub only), ``device`` (``"auto"``: CUDA when
    available), ``dtype`` (``"auto"``: bf16 on CUDA with bf16, else fp32; ``"int8"``: fp32
    weights quantized to int8 for CPU serving, see :func:`quantize_int8`; such a model reads one
    pair per forward pass, ``rows_alone``), ``batch_size``,
    ``max_length`` (input tokens), ``threshold`` (decide by ``prob >= threshold``),
    ``trust_remote_code`` (off unless asked for). Unknown options are an error. Weights in bf16
    or fp16 give other answers than fp32, so they key the cache apart (``+bf16``, ``+fp16``);
    bf16 serves on a CPU that multiplies it natively (:func:`cpu_has_bf16`), else it warns.
    """

    is_baseline = False
    rows_alone = False  # one pair per forward pass (int8 weights)
    kind = "hf"
    auto_class = "AutoModel"
    default_max_length = 512

    def __init__(
        self,
        model: str,
        *,
        revision: str | None = None,
        device: str | None = "auto",
        dtype: Any = "auto",
        batch_size: int = 16,
        max_length: int | None = None,
        threshold: float | None = None,
        trust_remote_code: bool = False,
        **unused: Any,
    ) -> None:
        import transformers

        reject_unknown(self.kind, unused)
        max_length = self.default_max_length if max_length is None else int(max_length)
        if max_length < 8:
            raise CitetrainError(f"{self.kind} NLI: max_length must be at least 8, got {max_length}")
        source = resolve_source(model, revision)
        self.device = choose_device(device)
        int8 = str(dtype).lower() in INT8
        if int8 and self.device != "cpu":
            raise CitetrainError(f"{self.kind} NLI: dtype int8 (dynamic quantization) runs on "
                                 f"the CPU only, not on {self.device}")
        self.dtype = choose_dtype("fp32" if int8 else dtype, self.device)
        self.model, self.tokenizer = load_pretrained(
            getattr(transformers, self.auto_class), source, device=self.device, dtype=self.dtype,
            trust_remote_code=trust_remote_code,
        )
        if int8:
            from citetrain.nli.onnx import ExportedClassifier

            if isinstance(self.model, ExportedClassifier):
                raise CitetrainError(f"{model} is an exported model: export it with --int8 "
                                     "instead of reading it with dtype int8")
            self.model = quantize_int8(self.model)
        self.rows_alone = int8  # int8: one pair per forward pass, unpadded (quantize_int8)
        base = source.revision if source.local else (hub_commit(self.model) or source.revision)
        base += "+int8pc" if int8 else ""  # per-channel weights, one pair at a time
        weights = str(getattr(self.model, "dtype", "")).removeprefix("torch.")  # none: ONNX
        base += DTYPE_TAGS.get(weights, "")
        if weights == "bfloat16" and self.device == "cpu" and not cpu_has_bf16():
            import warnings

            warnings.warn(f"{model}: this CPU has no native bf16 (AVX512-BF16 or AMX), so torch "
                          "emulates it: bf16 reads slower than fp32 here", stacklevel=2)
        self.model_id = source.model_id
        self.revision = revision_tag(base, max_length=max_length,
                                     default_max_length=self.default_max_length, threshold=threshold)
        self.batch_size = int(batch_size)
        self.max_length = max_length
        self.threshold = threshold
        from citetrain.nli.tokens import TokenCounts

        self.token_counts = TokenCounts(self.tokenizer)
        self._setup(str(model))

    def _setup(self, model: str) -> None:
        """Model-specific checks after loading (a hook for subclasses)."""

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.model_id!r}, revision={self.revision!r}, "
                f"device={self.device!r})")

    def cost(self, pair: Pair) -> int:
        """Approximate token count (characters / 4 plus the template, at most ``max_length``)."""
        return min(self.max_length, (len(pair[0]) + len(pair[1])) // 4 + 8)

    def input_lengths(self, pairs: Sequence[Pair]) -> list[int]:
        """Untruncated input length in tokens per pair (premise and hypothesis as a text pair),
        each distinct text tokenized once per backend (:attr:`token_counts`)."""
        return self.token_counts.pair_lengths([p for p, _ in pairs], [h for _, h in pairs])

    def truncates(self, pairs: Sequence[Pair]) -> list[bool]:
        """Whether each pair is longer than ``max_length`` tokens (its premise gets cut)."""
        return [n > self.max_length for n in self.input_lengths(pairs)] if pairs else []
