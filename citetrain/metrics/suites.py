"""Eval suites: YAML files in the top-level ``eval/`` naming data, metrics and the NLI model."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from citetrain.config import load_config
from citetrain.metrics.registry import METRICS


class SuiteData(BaseModel):
    """One predictions file; a relative path is taken from the suite file's folder."""

    model_config = ConfigDict(extra="forbid")
    path: str
    format: str = "auto"
    skip_invalid: bool = False
    limit: int | None = Field(default=None, ge=1)


class Suite(BaseModel):
    """An eval suite."""

    model_config = ConfigDict(extra="forbid")
    name: str
    data: list[SuiteData] = Field(min_length=1)
    metrics: list[str] = Field(default_factory=lambda: ["alce", "lenient", "aliice"], min_length=1)
    nli: str = "lexical"
    nli_options: dict[str, Any] = Field(default_factory=dict)
    cache: bool | str | None = None
    options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    out: str | None = None

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, v: list[str]) -> list[str]:
        bad = [m for m in v if m not in METRICS]
        if bad:
            raise ValueError(f"unknown metric(s) {', '.join(bad)}; choose from {', '.join(METRICS)}")
        return v

    @field_validator("options")
    @classmethod
    def _known_option_metrics(cls, v: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        bad = [m for m in v if m not in METRICS]
        if bad:
            raise ValueError(f"options for unknown metric(s) {', '.join(bad)}")
        return v


def resolve_data_paths(data: list[SuiteData], config_path: str | Path) -> None:
    """Make relative data paths absolute, taken from the config file's folder (in place)."""
    base = Path(config_path).resolve().parent
    for d in data:
        if d.path is None:
            continue
        p = Path(d.path)
        d.path = str(p if p.is_absolute() else (base / p).resolve())


def load_suite(path: str | Path, overrides: list[str] | None = None) -> Suite:
    """Validate a suite file and make its data paths absolute."""
    suite = load_config(Suite, path, overrides)
    resolve_data_paths(suite.data, path)
    if suite.out and not Path(suite.out).is_absolute():
        suite.out = str(Path(suite.out))
    return suite
