"""Build specs: YAML files in the top-level ``data_builders/`` (validated like recipes)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from citetrain.config import load_config
from citetrain.suites import SuiteData, resolve_data_paths

Kind = Literal["refiner", "generator", "judge"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SynthSpec(_Section):
    """The project's own seeded synthetic records (:func:`citetrain.synth.synth_records`)."""

    n: int = Field(default=1000, ge=1)
    seed: int = 0


class SourceSpec(SuiteData):
    """One input: a file (``path``, ``format``) or ``synthetic: {n, seed}``."""

    path: str | None = None  # type: ignore[assignment]
    synthetic: SynthSpec | None = None

    @model_validator(mode="after")
    def _one_source(self) -> "SourceSpec":
        if (self.path is None) == (self.synthetic is None):
            raise ValueError("give exactly one of path or synthetic")
        return self


class RefinerSpec(_Section):
    """``unit``: one example per statement, or per response with numbered statements.
    ``perturb``: probability that an example's input citations are perturbed (an id dropped or a
    random id added), so keep / add / remove are all learned."""

    unit: Literal["statement", "response"] = "statement"
    perturb: float = Field(default=0.0, ge=0.0, le=1.0)


class GeneratorSpec(_Section):
    """``marks``: gold citations at each sentence's end, or positional: after each atomic claim
    (ALiiCE's dependency parse) with the claim's own gold citations."""

    marks: Literal["sentence", "positional"] = "sentence"


class TeacherSpec(_Section):
    """An OpenAI-compatible teacher whose ITERCOE outputs become the judge targets."""

    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_tokens: int = Field(default=2048, ge=16)
    concurrency: int = Field(default=4, ge=1)


class JudgeSpec(_Section):
    """``teacher``: when given, targets are the teacher's parsed outputs instead of silver labels."""

    teacher: TeacherSpec | None = None


class SplitSpec(_Section):
    """Train / validation split by question: a question's hash decides its side."""

    validation: float = Field(default=0.1, ge=0.0, lt=1.0)
    seed: int = 0


class BuildSpec(_Section):
    """A data build: sources, NLI model, search settings, which training set, where to."""

    name: str
    kind: Kind
    sources: list[SourceSpec] = Field(min_length=1)
    nli: str = "lexical"
    nli_options: dict[str, Any] = Field(default_factory=dict)
    cache: bool | str = True
    max_subset: int = Field(default=3, ge=1, le=6)
    exhaustive: bool = False
    check_sample: int = Field(default=0, ge=0)
    at_most_citations: int | None = Field(default=None, ge=1)
    first_line_only: bool = False
    max_doc_words: int | None = Field(default=None, ge=1)
    shard_size: int = Field(default=256, ge=1)
    seed: int = 0
    split: SplitSpec = Field(default_factory=SplitSpec)
    refiner: RefinerSpec | None = None
    generator: GeneratorSpec | None = None
    judge: JudgeSpec | None = None
    out: str | None = None

    @model_validator(mode="after")
    def _sections_match_kind(self) -> "BuildSpec":
        wrong = [k for k in ("refiner", "generator", "judge")
                 if k != self.kind and getattr(self, k) is not None]
        if wrong:
            raise ValueError(f"kind is {self.kind!r} but the spec has a {', '.join(wrong)} section")
        if self.exhaustive and self.check_sample:
            raise ValueError("check_sample compares pruned with exhaustive search: "
                             "it needs exhaustive: false")
        if getattr(self, self.kind) is None:
            setattr(self, self.kind, {"refiner": RefinerSpec, "generator": GeneratorSpec,
                                      "judge": JudgeSpec}[self.kind]())
        return self

    def settings(self) -> dict[str, Any]:
        """What decides the built data (sources aside): stored in the manifest and checked
        before a build resumes."""
        keep = ("kind", "nli", "nli_options", "max_subset", "exhaustive", "at_most_citations",
                "first_line_only", "max_doc_words", "shard_size", "seed", "split", self.kind)
        return self.model_dump(include=set(keep), mode="json")


def load_spec(path: str | Path, overrides: list[str] | None = None) -> BuildSpec:
    """Validate a spec; source paths are taken relative to the spec file's folder."""
    spec = load_config(BuildSpec, path, overrides)
    resolve_data_paths(spec.sources, path)
    return spec
