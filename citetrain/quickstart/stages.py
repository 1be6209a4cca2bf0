"""The quickstart's stages; each is resumable (a finished stage is not redone)."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text, write_records
from citetrain.quickstart.plan import F1_KEYS, METRICS, Plan
from citetrain.records import Record

Log = Callable[[str], None]


def _shipped(kind: str) -> Path:
    """The shipped ``quickstart`` file of a kind (a clone's, or the installed wheel's)."""
    from citetrain.io.assets import find

    path = find("quickstart", (kind,))
    if path is None:
        raise CitetrainError(f"the shipped {kind} 'quickstart' is missing from this install of "
                             "citetrain (reinstall it: pip install citetrain, or pip install -e .)")
    return path


def build_data(plan: Plan, progress: bool = True, log: Log = print) -> dict[str, Any]:
    """Refiner data from ``plan.train_records`` synthetic records, labelled with the lexical NLI
    (``citetrain build data_builders/quickstart.yaml``, resumable). The build's statistics go to
    ``OUT/quickstart.log``; ``log`` gets one line."""
    from citetrain.builders.pipeline import build
    from citetrain.builders.spec import load_spec

    spec = load_spec(_shipped("spec"), [
        f"sources=[{{synthetic: {{n: {plan.train_records}, seed: {plan.seed}}}}}]",
        f"out={plan.build_dir}"])
    lines: list[str] = []
    manifest = build(spec, progress=progress, log=lines.append)
    with open(plan.out / "quickstart.log", "a", encoding="utf-8") as f:
        f.write("".join(f"{line}\n" for line in lines))
    path = plan.build_dir / "manifest.json"
    manifest = manifest or (json.loads(path.read_text()) if path.is_file() else {})
    st, ex = manifest.get("statements", {}), manifest.get("examples", {})
    log(f"[quickstart] build: {st.get('statements', '?')} statements labelled with the lexical "
        f"NLI -> {ex.get('train', '?')} train / {ex.get('validation', '?')} validation examples "
        f"(details in {plan.out / 'quickstart.log'})")
    return manifest


def heldout(plan: Plan) -> tuple[list[Record], list[Record]]:
    """Validation records (in-loop scores) and test records (scored once, at the end), from two
    other synthetic worlds; the test records are written to ``OUT/heldout.jsonl``."""
    from citetrain.synth.records import synth_records

    val = synth_records(plan.validation_records, seed=plan.seed + 1)
    test = synth_records(plan.test_records, seed=plan.seed + 2)
    write_records(test, plan.out / "heldout.jsonl")
    return val, test


def recipe_for(plan: Plan):
    """``recipes/quickstart.yaml`` pointed at this run's folders, steps and seed."""
    from citetrain.train.recipe import load_recipe

    return load_recipe(_shipped("recipe"), [
        f"crossencoder.labelled=['refiner:{plan.build_dir / 'statements.jsonl'}']",
        f"data.dataset={plan.out / 'pairs'}", f"train.output_dir={plan.run_dir}",
        f"train.max_steps={plan.max_steps}", f"train.save_steps={plan.eval_steps}",
        f"eval.steps={plan.eval_steps}", f"train.seed={plan.seed}",
        f"train.batch_size={plan.batch_size}",
        # the kept model: the checkpoint whose refined validation records score best (the
        # callback logs eval_citation_f1); constant-LR LoRA can collapse late in a short run
        "eval.best_metric=citation_f1"])


def train(plan: Plan, validation: list[Record], log: Log = print) -> dict[str, Any]:
    """Train the pair refiner with in-loop citation scores; a finished run is reused. Returns
    the training summary with ``losses`` and ``inloop`` as ``{"step", ...}`` rows."""
    from transformers import AutoTokenizer

    from citetrain.io.writers import restore_old_dir
    from citetrain.nli.registry import make_engine
    from citetrain.quickstart.callback import PairRefinerScoreCallback
    from citetrain.runner import run_recipe
    from citetrain.models.package_paths import resolve_model_path

    done = plan.run_dir / "quickstart_train.json"
    restore_old_dir(plan.run_dir / "final")
    if done.is_file() and (plan.run_dir / "final" / "config.json").is_file():
        log(f"[quickstart] training already finished: reusing {plan.run_dir / 'final'}")
        return json.loads(done.read_text())
    recipe = recipe_for(plan)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model_path(recipe.model.name_or_path))
    cb = PairRefinerScoreCallback(validation, tokenizer, make_engine("lexical", progress=False),
                                  max_length=recipe.data.max_length)
    before = cb.f1(validation)  # step 0: the answers as the generator cited them
    cb.history.append({"step": 0, **before})
    summary = run_recipe(recipe, extra_callbacks=(cb,))
    result = {"steps": summary["steps"], "seconds": summary["seconds"],
              "train_pairs": summary["train_pairs"], "parameters": summary["parameters"],
              "final": summary["final"], "losses": cb.losses, "inloop": cb.history}
    atomic_write_text(done, json.dumps(result, indent=2) + "\n")
    return result


def refine(plan: Plan, test: list[Record], progress: bool = True
           ) -> tuple[list[Record], dict[str, int]]:
    """The test records refined by the trained pair refiner (``OUT/refined.jsonl``), loaded as
    ``citetrain refine --refiner OUT/run/final`` loads it."""
    from citetrain.refine.load import load_refiner
    from citetrain.text.marks import strip_marks

    refiner = load_refiner(str(plan.run_dir / "final"), progress=progress)  # as `citetrain refine`
    refined, counts = refiner.refine(test, {})
    counts["text_unchanged"] = sum(strip_marks(a.output) == strip_marks(b.output)
                                   for a, b in zip(test, refined))
    write_records(refined, plan.out / "refined.jsonl")
    return refined, counts


def score(named: dict[str, list[Record]]) -> dict[str, dict[str, float]]:
    """``{name: {metric score: value}}`` for ALCE, lenient and ALiiCE with the lexical NLI."""
    from citetrain.metrics.registry import get_metric
    from citetrain.nli.registry import make_engine

    engine = make_engine("lexical", progress=False)
    out: dict[str, dict[str, float]] = {}
    for name, records in named.items():
        out[name] = {}
        for metric in METRICS:
            scores = get_metric(metric)(records, engine).scores
            out[name].update({k: round(float(v), 2) for k, v in scores.items()})
    return out


def f1_table(scores: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """``{metric: {variant: F1}}``, the figures the report leads with."""
    return {m: {name: s[F1_KEYS[m]] for name, s in scores.items()} for m in METRICS}


def timed(stage: str, seconds: dict[str, float], log: Log):
    """A context manager that logs the stage and records its wall time."""
    from contextlib import contextmanager

    @contextmanager
    def run():
        log(f"[quickstart] {stage} ...")
        start = time.time()
        yield
        seconds[stage] = round(time.time() - start, 1)
        log(f"[quickstart] {stage}: done in {seconds[stage]:.1f} s")

    return run()
