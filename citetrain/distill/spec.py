"""Distillation specs: YAML files in the top-level ``distill/`` (``citetrain distill SPEC``).

One spec names the whole chain that makes a cheap judge: the built pairs (``pairs``), the
teachers (``teacher``: fold teachers trained here, an NLI model, or an LLM judge), the student
(``student``) and, optionally, ``prune``, ``teach_back`` and ``export``. Unknown keys are refused
with a "did you mean" and every problem is reported at once
(:class:`~citetrain.config.ConfigError`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from citetrain.config import (ConfigError, apply_overrides, load_yaml_of, validate,
                              yaml_path)
from citetrain.nli.clauses import READS


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _d(text: str, **kw: Any) -> Any:
    """A field with its description (the reference docs show it)."""
    return Field(description=text, **kw)


class PairsSection(_Section):
    """The built pairs: a ``citetrain build`` spec of kind pairs (built here, resumable) or the
    folder of a finished build."""

    spec: str | None = _d("a build spec of kind pairs (a path or a shipped name) to build",
                          default=None)
    folder: str | None = _d("or the folder of a finished pairs build", default=None)
    set: list[str] = _d("KEY=VALUE overrides of the build spec", default_factory=list)


class FoldTeachers(_Section):
    """``folds`` × ``seeds`` teacher runs of the recipe, each leaving one fold of the human
    training claims out and scoring it (read ``read``); together they read the built pairs in
    ``dtype``."""

    folds: int = _d("the human training claims cut into this many folds", default=4, ge=2)
    seeds: list[int] = _d("a teacher run per fold for each of these train.seed values",
                          default_factory=lambda: [42], min_length=1)
    read: Literal[READS] = _d("how a teacher reads its fold and the built pairs: the statement "
                              "whole, or clause by clause", default="whole")
    set: list[str] = _d("KEY=VALUE recipe overrides of the teacher runs only",
                        default_factory=list)
    dtype: Literal["auto", "bf16", "fp16"] = _d(
        "the teachers' weights as they read the built pairs (bf16: about 3x faster on a CPU "
        "with AVX512-BF16 / AMX)", default="auto")


class NLITeacher(_Section):
    """An NLI engine (``classifier:HUB_ID_OR_PATH``, ``seq2seq:...``, ``clauses:...``; see
    :mod:`citetrain.nli.registry`) scoring the training and built pairs."""

    engine: str = _d("an NLI engine spec, e.g. classifier:MoritzLaurer/DeBERTa-v3-base-mnli-"
                     "fever-anli (a hub id or a local folder)")
    options: dict[str, Any] = _d("the engine's options (device, dtype, ...)",
                                 default_factory=dict)
    batch_size: int | None = _d("pairs per model call (default: the engine's)", default=None,
                                ge=1)


class LLMTeacher(_Section):
    """An LLM judge over an OpenAI-compatible endpoint (``llm:MODEL``, AttrScore's prompt)."""

    model: str = _d("the model name the endpoint serves")
    base_url: str | None = _d("the endpoint root ending in /v1 (default $OPENAI_BASE_URL or "
                              "OpenAI's)", default=None)
    api_key_env: str = _d("the environment variable holding the API key (read per request, "
                          "never stored)", default="OPENAI_API_KEY")
    concurrency: int = _d("requests in flight at once", default=4, ge=1)
    options: dict[str, Any] = _d("more llm: engine options (logprobs, max_tokens, tries, ...)",
                                 default_factory=dict)


class TeacherSection(_Section):
    """Exactly one of ``folds``, ``nli`` or ``llm``; ``transfer_weight``: the built pairs' own
    teacher weight; ``drawn``: the teachers read only the built pairs the student draws
    (``student.built_max`` of them)."""

    folds: FoldTeachers | None = _d("fold teachers trained here", default=None)
    nli: NLITeacher | None = _d("or an NLI model as the teacher", default=None)
    llm: LLMTeacher | None = _d("or an LLM judge as the teacher", default=None)
    transfer_weight: float = _d("the built pairs' own teacher weight (1: the teachers' reading "
                                "alone)", default=1.0, ge=0.0, le=1.0)
    drawn: bool = _d("the teachers read only the built pairs the student draws",
                     default=True)

    def kind(self) -> str:
        """``folds``, ``nli`` or ``llm``: the teacher given."""
        return next(k for k in ("folds", "nli", "llm") if getattr(self, k) is not None)


class StudentSection(_Section):
    """The student: the recipe trained on the teacher file (``teacher_weight``·teacher +
    the rest label on the human pairs) and ``built_max`` built pairs (``None``: all of them)."""

    seed: int = _d("the student's train.seed", default=42)
    teacher_weight: float = _d("the teacher's part of a human pair's target (the rest: its "
                               "label)", default=0.5, ge=0.0, le=1.0)
    built_max: int | None = _d("built pairs the student trains on, a seeded sample (null: all)",
                               default=4000, ge=1)
    set: list[str] = _d("KEY=VALUE recipe overrides of the student only", default_factory=list)


class PruneSection(_Section):
    """``citetrain prune``: the student's feed-forward blocks cut to ``widths`` (one width, or
    one per layer), fitted on the human and built pairs."""

    widths: int | list[int] = _d("feed-forward units kept in each layer, or one width per layer")
    token_pairs: int = _d("pairs whose every token fits the blocks before the last",
                          default=1024, ge=1)
    head_pairs: int = _d("pairs whose first token fits the last block", default=4096, ge=1)
    seed: int = _d("the seed of the calibration pairs' draw", default=0)


class TeachBackSection(_Section):
    """One epoch (``epochs``) of the student's own reading for the pruned judge, at
    ``learning_rate``; the student reads the pairs in ``dtype``."""

    epochs: float = _d("train.epochs of the pruned judge's run", default=1.0, gt=0)
    learning_rate: float = _d("its train.learning_rate", default=2e-5, gt=0)
    dtype: Literal["auto", "bf16", "fp16"] = _d("the student's weights as it reads the pairs",
                                                default="auto")
    set: list[str] = _d("KEY=VALUE recipe overrides of this run only", default_factory=list)


class ExportSection(_Section):
    """``citetrain export`` of the last judge of the chain; an OpenVINO int8 export is
    calibrated on the human pairs."""

    runtime: Literal["onnx", "openvino"] = _d("the runtime to export for", default="openvino")
    int8: bool = _d("int8 weights (OpenVINO: calibrated on the human pairs)", default=True)
    calibration_pairs: int | None = _d("OpenVINO int8: calibration pairs (default 300)",
                                       default=None, ge=1)


class DistillSpec(_Section):
    """A distillation chain (module docstring). ``recipe``: the crossencoder recipe every run
    starts from (a path or a shipped name); ``set``: its overrides for every run; ``parallel``:
    teacher runs at once (``auto``: one per GPU, else one per core as memory allows)."""

    name: str = _d("the chain's name")
    out: str = _d("the folder every output of the chain goes to")
    recipe: str = _d("the crossencoder recipe every run starts from (a path or a shipped name)",
                     default="judge-crossencoder")
    set: list[str] = _d("KEY=VALUE recipe overrides of every run", default_factory=list)
    parallel: Literal["auto"] | int = _d(
        "teacher runs at once: auto (one per GPU; on a CPU one per core as memory allows) or N "
        "(on GPUs, N runs shared round-robin over the devices)", default="auto")
    pairs: PairsSection = _d("the built pairs")
    teacher: TeacherSection = _d("the teachers")
    student: StudentSection = _d("the student", default_factory=StudentSection)
    prune: PruneSection | None = _d("narrow the student's feed-forward blocks (no training)",
                                    default=None)
    teach_back: TeachBackSection | None = _d("train the pruned judge on the student's reading",
                                             default=None)
    export: ExportSection | None = _d("export the chain's last judge", default=None)

    @field_validator("parallel", mode="before")
    @classmethod
    def _parallel(cls, value: Any) -> Any:
        """``auto`` or a whole number from 1, said in one message."""
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool)
                               and value >= 1):
            return value
        raise ValueError(f"{value!r} is not auto or a number of runs from 1")


def cross_field_errors(spec: DistillSpec) -> list[str]:
    """The rules that involve several keys, each broken one as a line."""
    errs = []
    if (spec.pairs.spec is None) == (spec.pairs.folder is None):
        errs.append("pairs: give exactly one of spec (a build spec of kind pairs) or folder "
                    "(a finished build)")
    if spec.pairs.set and spec.pairs.spec is None:
        errs.append("pairs.set overrides a build spec: give pairs.spec")
    given = [k for k in ("folds", "nli", "llm") if getattr(spec.teacher, k) is not None]
    if len(given) != 1:
        errs.append("teacher: give exactly one of folds, nli or llm"
                    + (f" (got {', '.join(given)})" if given else ""))
    if spec.teach_back is not None and spec.prune is None:
        errs.append("teach_back teaches the pruned judge its student's reading: give prune too")
    if spec.prune is not None and isinstance(spec.prune.widths, list) and (
            not spec.prune.widths or min(spec.prune.widths) < 1):
        errs.append("prune.widths: one width from 1, or one per layer")
    lists = {"set": spec.set, "pairs.set": spec.pairs.set, "student.set": spec.student.set}
    if spec.teacher.folds is not None:
        lists["teacher.folds.set"] = spec.teacher.folds.set
    if spec.teach_back is not None:
        lists["teach_back.set"] = spec.teach_back.set
    for where, items in lists.items():
        bad = [x for x in items if "=" not in x or not x.partition("=")[0]]
        if bad:
            errs.append(f"{where}: not KEY=VALUE: {', '.join(bad)}")
    return errs


def _resolve(spec: DistillSpec, path: Path) -> DistillSpec:
    """The recipe, build spec and pairs folder read as every YAML file's paths
    (:func:`~citetrain.config.yaml_path`); a recipe or build spec found nowhere by path is the
    shipped one of that name."""
    from citetrain.io.assets import resolve

    spec.recipe = str(resolve(yaml_path(spec.recipe, path, "written"), "recipe"))
    if spec.pairs.spec is not None:
        spec.pairs.spec = str(resolve(yaml_path(spec.pairs.spec, path, "written"), "spec"))
    if spec.pairs.folder is not None:
        spec.pairs.folder = yaml_path(spec.pairs.folder, path, "written")
    return spec


def validate_spec(data: dict[str, Any], path: str | Path = "<distill spec>") -> DistillSpec:
    """A :class:`DistillSpec` from plain data: the schema's errors (all of them), then every
    cross-field rule that is broken."""
    spec = validate(DistillSpec, data, str(path))
    errors = cross_field_errors(spec)
    if errors:
        raise ConfigError(str(path), errors)
    return spec


def load_spec(path: str | Path, overrides: list[str] | None = None) -> DistillSpec:
    """Load, override (``section.key=value``) and validate a spec; a path that does not exist
    may name a shipped one (``production-judge``, :mod:`citetrain.io.assets`)."""
    from citetrain.io.assets import resolve

    path = resolve(path, "distill")
    spec = validate_spec(apply_overrides(load_yaml_of(path, "distill"), overrides or []), path)
    return _resolve(spec, Path(path))
