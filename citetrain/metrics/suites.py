"""Eval suites: YAML files in the top-level ``eval/`` naming data, metrics and the NLI model,
and optionally a checkpoint (``model:``) whose predictions on the data are scored."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from citetrain.config import (ConfigError, apply_overrides, load_yaml_of, validate,
                              yaml_path)
from citetrain.metrics.options import option_errors
from citetrain.metrics.registry import METRICS


class SuiteData(BaseModel):
    """One predictions file; a relative path is taken from the suite file's folder."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
    path: str
    """The predictions file; a relative path is taken from the suite file's folder."""
    format: str = "auto"
    """Its format (auto: detected from the records' keys)."""
    skip_invalid: bool = False
    """Skip bad records (reported with reasons) instead of stopping."""
    limit: int | None = Field(default=None, ge=1)
    """Read only the first N records (null: all)."""


class SuiteModel(BaseModel):
    """A checkpoint to score (``model:``); a relative ``path`` is taken from the suite file's folder.

    ``kind``: ``auto`` reads it from the checkpoint (a causal LM is a generator, a support
    classifier a pair refiner); ``refiner`` makes a causal LM a Generate-then-Refine refiner;
    ``judge`` meta-evaluates a judge on labelled data: ``judge`` is a judge kind used with
    ``path`` (``crossencoder``, ``generative``) or a full judge name (``crossencoder:PATH``,
    ``nli:NAME``, ``teacher:MODEL``), and by default read from the checkpoint. Generation:
    ``max_new_tokens``, ``batch_size``, ``max_length`` (prompt + output tokens; prompts are cut
    from the left), ``max_doc_words`` (as the training data's), ``chunk`` (records per saved,
    resumable chunk), ``backend`` (``vllm`` when installed), ``dtype`` (``auto``: bf16 on a GPU
    that has it, fp32 on a CPU).
    """

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
    path: str | None = None
    """The checkpoint folder, relative to the suite file's folder."""
    kind: Literal["auto", "generator", "refiner", "judge"] = "auto"
    """auto reads it from the checkpoint (a causal LM is a generator, a support classifier a pair
    refiner); refiner makes a causal LM a Generate-then-Refine refiner; judge meta-evaluates a judge
    on labelled data."""
    judge: str | None = None
    """kind judge: a judge kind used with path (crossencoder, generative) or a full judge name
    (crossencoder:PATH, nli:NAME, teacher:MODEL); by default read from the checkpoint."""
    max_new_tokens: int = Field(default=128, ge=1)
    """Cap on generated tokens."""
    batch_size: int = Field(default=8, ge=1)
    """Prompts per generation batch."""
    max_length: int | None = Field(default=None, ge=1)
    """Cap on prompt + output tokens (prompts are cut from the left)."""
    max_doc_words: int | None = Field(default=None, ge=1)
    """Cut each passage to this many words in the prompts (as the training data's)."""
    chunk: int = Field(default=64, ge=1)
    """Records per saved, resumable chunk of predictions."""
    backend: Literal["transformers", "vllm"] = "transformers"
    """Generation backend (vllm when installed)."""
    dtype: Literal["auto", "fp32", "bf16", "fp16"] = "auto"
    """auto: bf16 on a GPU that has it, fp32 on a CPU."""

    @model_validator(mode="after")
    def _path_or_judge(self) -> "SuiteModel":
        if self.judge is not None and self.kind != "judge":
            raise ValueError(f"judge: given with kind {self.kind}; set kind: judge")
        if self.path is None and not (self.kind == "judge" and ":" in (self.judge or "")):
            raise ValueError("path: give the checkpoint folder (or, for kind: judge, a full "
                             "judge name such as crossencoder:PATH)")
        return self


class Suite(BaseModel):
    """An eval suite. ``options`` maps a metric to its keyword options, checked against the
    metric's signature and ranges (:mod:`citetrain.metrics.options`) with the other keys."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
    name: str
    """The suite's name: the report goes to `eval_results/NAME` unless `out` is set."""
    data: list[SuiteData] = Field(min_length=1)
    """The predictions files scored (at least one)."""
    metrics: list[str] = Field(default_factory=lambda: ["alce", "lenient", "aliice"], min_length=1)
    """The metrics computed (see the metrics reference)."""
    nli: str = "lexical"
    """The NLI engine the metrics ask: lexical, seq2seq:PATH, classifier:PATH, llm:MODEL."""
    nli_options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options of the NLI engine."""
    cache: bool | str | None = None
    """NLI answers cache: a path, true for the default file (`~/.cache/citetrain/nli.sqlite`),
    false for none; null: cached for models, not for the lexical baseline."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Per metric, its keyword options, e.g. `{alce: {at_most_citations: 5}}`; checked against the
    metric's signature and ranges."""
    out: str | None = None
    """Output folder of the report (default `eval_results/NAME`)."""
    model: SuiteModel | None = None
    """A checkpoint whose predictions on the data are scored."""

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, v: list[str]) -> list[str]:
        bad = [m for m in v if m not in METRICS]
        if bad:
            raise ValueError(f"unknown metric(s) {', '.join(bad)}; choose from {', '.join(METRICS)}")
        return v


def resolve_data_paths(data: list[SuiteData], config_path: str | Path) -> None:
    """The data paths read as every YAML file's (:func:`~citetrain.config.yaml_path`; one found
    nowhere is taken from the config file's folder), in place."""
    for d in data:
        if d.path is not None:
            d.path = yaml_path(d.path, config_path)


def validate_suite(data: dict[str, Any], path: str | Path) -> Suite:
    """A :class:`Suite` from plain data, or a :class:`ConfigError` listing every problem: the
    schema's, then each metric option's (before any record or model is read)."""
    errors: list[str] = []
    try:
        suite = validate(Suite, data, str(path))
    except ConfigError as e:
        errors, suite = list(e.errors), None
    raw = data.get("options")
    checked, option_problems = option_errors(raw) if isinstance(raw, dict) else ({}, [])
    errors += option_problems
    if errors or suite is None:
        raise ConfigError(str(path), errors)
    suite.options = checked
    return suite


def load_suite(path: str | Path, overrides: list[str] | None = None) -> Suite:
    """Validate a suite file (its metric options included) and make its paths absolute. A path
    that does not exist may name a shipped suite (``example``, :mod:`citetrain.io.assets`)."""
    from citetrain.io.assets import resolve

    path = resolve(path, "suite")
    suite = validate_suite(apply_overrides(load_yaml_of(path, "suite"), overrides or []), path)
    resolve_data_paths(suite.data, path)
    if suite.model is not None and suite.model.path is not None:
        suite.model.path = yaml_path(suite.model.path, path)
    if suite.out and not Path(suite.out).is_absolute():
        suite.out = str(Path(suite.out))
    return suite
