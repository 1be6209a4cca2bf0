"""Build specs: YAML files in the top-level ``data_builders/`` (validated like recipes)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from citetrain.analysis.support import QUERY_RECALL, RESPONSE_RECALL
from citetrain.config import apply_overrides, load_yaml_of, validate, yaml_entry
from citetrain.metrics.suites import SuiteData, resolve_data_paths
from citetrain.synth.records import DOCS, docs_range

Kind = Literal["refiner", "generator", "judge", "pairs"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SynthSpec(_Section):
    """The project's own seeded synthetic records (:func:`citetrain.synth.records.synth_records`)."""

    n: int = Field(default=1000, ge=1)
    """How many records."""
    seed: int = 0
    """Seed of the records: the same seed writes the same records."""
    docs: tuple[int, int] = DOCS
    """Passages per record, ``[min, max]`` (``citetrain synth --docs MIN,MAX``); min at least 3."""

    @field_validator("docs")
    @classmethod
    def _docs_range(cls, docs: tuple[int, int]) -> tuple[int, int]:
        return docs_range(docs)


class SourceSpec(SuiteData):
    """One input: a file (``path``, ``format``) or ``synthetic: {n, seed}``."""

    path: str | None = None  # type: ignore[assignment]
    """A records file (any supported format), relative to the spec file's folder."""
    synthetic: SynthSpec | None = None
    """Seeded synthetic records instead of a file."""

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
    """One example per statement, or per response with numbered statements."""
    perturb: float = Field(default=0.0, ge=0.0, le=1.0)
    """Probability that an example's input citations are perturbed (an id dropped or a random id
    added), so keep / add / remove are all learned."""


class GeneratorSpec(_Section):
    """``marks``: gold citations at each sentence's end, or positional: after each atomic claim
    (ALiiCE's dependency parse) with the claim's own gold citations."""

    marks: Literal["sentence", "positional"] = "sentence"
    """Gold citations at each sentence's end, or positional: after each atomic claim (ALiiCE's
    dependency parse) with the claim's own gold citations."""


class TeacherSpec(_Section):
    """An OpenAI-compatible teacher whose ITERCOE outputs become the judge targets."""

    model: str
    """The teacher model's name at the endpoint."""
    base_url: str | None = None
    """The OpenAI-compatible endpoint (null: `$OPENAI_BASE_URL`)."""
    api_key_env: str = "OPENAI_API_KEY"
    """The environment variable holding the endpoint's API key."""
    max_tokens: int = Field(default=2048, ge=16)
    """Cap on the tokens of each teacher output."""
    concurrency: int = Field(default=4, ge=1)
    """Requests in flight at once."""


class JudgeSpec(_Section):
    """``teacher``: when given, targets are the teacher's parsed outputs instead of silver labels."""

    teacher: TeacherSpec | None = None
    """When given, the judge targets are the teacher's parsed ITERCOE outputs instead of silver
    labels."""


TRANSFORMS = ("copy", "drop_modifiers", "merge", "reorder", "pronoun", "swap_entity", "negate",
              "swap_roles", "other_passage", "unrelated", "add_fact", "alter_one")
"""The transformations of a ``pairs`` build (:mod:`citetrain.builders.transforms`)."""


def _default_weights() -> dict[str, float]:
    return {t: 0.5 if t in ("copy", "unrelated") else 1.0 for t in TRANSFORMS}


class HoldoutSpec(_Section):
    """Leave out the passages of human-labelled claims on the validation side of
    ``split_of(split_key(pair), fraction, seed)`` (the split of a cross-encoder recipe's
    ``validation_fraction`` / ``split_seed``). The claims are those of the spec's labelled sources,
    of its record sources that also hold labelled claims (ExpertQA) and of ``labelled``
    (``"FORMAT:PATH"`` entries, relative to the spec file)."""

    fraction: float = Field(default=0.3, gt=0.0, lt=1.0)
    """Validation share of the split (as the recipe's `validation_fraction`)."""
    seed: int = 0
    """Seed of the split (as the recipe's `split_seed`)."""
    labelled: list[str] = Field(default_factory=list)
    """More human-labelled sources, `FORMAT:PATH` entries relative to the spec file."""


class PairsSpec(_Section):
    """Three-way (passage, claim) support pairs made by the transformations of
    :mod:`citetrain.builders.transforms` (no NLI model: a label follows from the transformation).
    ``weights``: how often each transformation is drawn (0 turns one off); ``per_passage`` pairs
    per passage, each over a window of at most ``window`` sentences; ``max_pairs`` caps the
    total (the first pairs in passage order); claims under ``min_words`` words are skipped;
    ``processes`` parse shards in parallel (the output does not depend on it)."""

    per_passage: int = Field(default=6, ge=1)
    """Pairs made per passage."""
    window: int = Field(default=6, ge=1)
    """Each pair reads a window of at most this many sentences of its passage."""
    weights: dict[str, float] = Field(default_factory=_default_weights)
    """How often each transformation is drawn (0 turns one off); unnamed ones keep their default
    (0.5 for copy and unrelated, else 1)."""
    max_pairs: int | None = Field(default=None, ge=1)
    """Cap on the pairs (the first in passage order; null: no cap)."""
    min_words: int = Field(default=5, ge=1)
    """Claims under this many words are skipped."""
    processes: int = Field(default=1, ge=1)
    """Processes parsing shards in parallel (the output does not depend on it)."""
    holdout: HoldoutSpec | None = None
    """Leave out the passages of the human-labelled validation claims."""

    @model_validator(mode="after")
    def _known_weights(self) -> "PairsSpec":
        bad = [k for k in self.weights if k not in TRANSFORMS]
        if bad:
            raise ValueError(f"unknown transformation(s) {', '.join(bad)} in weights; "
                             f"known: {', '.join(TRANSFORMS)}")
        if any(w < 0 for w in self.weights.values()):
            raise ValueError("weights must be >= 0")
        self.weights = {**_default_weights(), **self.weights}
        if not any(self.weights.values()):
            raise ValueError("every weight is 0: no transformation to draw")
        return self


class SplitSpec(_Section):
    """Train / validation split by question: a question's hash decides its side."""

    validation: float = Field(default=0.1, ge=0.0, lt=1.0)
    """Share of the questions on the validation side."""
    seed: int = 0
    """Seed of the split: a question's hash with it decides its side."""


class BuildSpec(_Section):
    """A data build: sources, NLI model, search settings, which training set, where to."""

    name: str
    """The build's name: its output folder is `data/NAME` unless `out` is set."""
    kind: Kind
    """Which training set: refiner, generator, judge or pairs."""
    sources: list[SourceSpec] = Field(min_length=1)
    """The input records (at least one)."""
    nli: str = "lexical"
    """The NLI engine that decides support: lexical, seq2seq:PATH, classifier:PATH, llm:MODEL (a
    pairs build uses none)."""
    nli_options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options of the NLI engine (e.g. a threshold or a device)."""
    cache: bool | str = True
    """NLI answers cache: true keeps it in the build folder (`work/nli.sqlite`, so a resumed build
    never asks a pair twice), a path uses that file, false none."""
    max_subset: int = Field(default=3, ge=1, le=6)
    """Largest subset of passages searched for support."""
    exhaustive: bool = False
    """Search every subset instead of the pruned search."""
    query_recall: float = Field(default=QUERY_RECALL, ge=0.0, le=1.0)
    """Context query: a statement is asked against the question only if the question holds this
    share of its content words (0: the NLI alone decides)."""
    response_recall: float = Field(default=RESPONSE_RECALL, ge=0.0, le=1.0)
    """Context response: likewise against the earlier statements."""
    check_sample: int = Field(default=0, ge=0)
    """Re-search this many statements exhaustively and count where the pruned search's gold
    citations differ (needs exhaustive: false)."""
    at_most_citations: int | None = Field(default=None, ge=1)
    """Keep only the first this many cited ids of a statement (null: all)."""
    first_line_only: bool = False
    """Cut each output at its first newline, as ALCE does."""
    max_doc_words: int | None = Field(default=None, ge=1)
    """Cut each passage to this many words in the built examples (null: whole)."""
    shard_size: int = Field(default=256, ge=1)
    """Records per shard: the unit of batching and of resuming."""
    seed: int = 0
    """Seed of everything drawn (perturbations, pairs, the check sample)."""
    split: SplitSpec = Field(default_factory=SplitSpec)
    """The train / validation split by question."""
    refiner: RefinerSpec | None = None
    """Settings of a refiner build."""
    generator: GeneratorSpec | None = None
    """Settings of a generator build."""
    judge: JudgeSpec | None = None
    """Settings of a judge build."""
    pairs: PairsSpec | None = None
    """Settings of a pairs build."""
    out: str | None = None
    """Output folder (default `data/NAME`); `--out` overrides it."""

    @model_validator(mode="after")
    def _sections_match_kind(self) -> "BuildSpec":
        wrong = [k for k in ("refiner", "generator", "judge", "pairs")
                 if k != self.kind and getattr(self, k) is not None]
        if wrong:
            raise ValueError(f"kind is {self.kind!r} but the spec has a {', '.join(wrong)} section")
        if self.exhaustive and self.check_sample:
            raise ValueError("check_sample compares pruned with exhaustive search: "
                             "it needs exhaustive: false")
        if getattr(self, self.kind) is None:
            setattr(self, self.kind, {"refiner": RefinerSpec, "generator": GeneratorSpec,
                                      "judge": JudgeSpec, "pairs": PairsSpec}[self.kind]())
        return self

    def settings(self) -> dict[str, Any]:
        """What decides the built data (sources aside): stored in the manifest and checked
        before a build resumes. A ``pairs`` build uses no NLI model, so its NLI and subset
        settings are left out (and ``processes``, which changes nothing in the output)."""
        if self.kind == "pairs":
            keep_pairs = self.model_dump(include={"kind", "shard_size", "seed", "split", "pairs"},
                                         mode="json")
            del keep_pairs["pairs"]["processes"]
            return keep_pairs
        keep = ("kind", "nli", "nli_options", "max_subset", "exhaustive", "query_recall",
                "response_recall", "at_most_citations",
                "first_line_only", "max_doc_words", "shard_size", "seed", "split", self.kind)
        return self.model_dump(include=set(keep), mode="json")


def load_spec(path: str | Path, overrides: list[str] | None = None) -> BuildSpec:
    """Validate a spec; source paths are taken relative to the spec file's folder. A path that
    does not exist may name a shipped spec (``quickstart``, :mod:`citetrain.io.assets`)."""
    from citetrain.io.assets import resolve

    path = resolve(path, "spec")
    spec = validate(BuildSpec, apply_overrides(load_yaml_of(path, "spec"), overrides or []),
                    str(path))
    resolve_data_paths(spec.sources, path)
    if spec.pairs is not None and spec.pairs.holdout is not None:
        spec.pairs.holdout.labelled = [yaml_entry(e, path) for e in spec.pairs.holdout.labelled]
    return spec
