"""``kind: crossencoder``: fine-tune an encoder as a (passage, statement) support classifier.

Three labels, the :mod:`citetrain.io.labelled` convention: 0 ``not_supported``,
1 ``partially_supported``, 2 ``supported`` (binary sources such as AttributionBench only use 0
and 2). Pairs are tokenized as ``(premise, hypothesis)`` with ``truncation="only_first"``: the
passage is cut, never the statement. Full fine-tuning, or LoRA (peft ``SEQ_CLS``, merged into the
saved model). Each evaluation scores the validation split with
:func:`citetrain.metrics.meta.meta_evaluate` on **score = P(supported) + ½·P(partially_supported)**
(:func:`citetrain.nli.base.expected_support`, P(supported) for a two-way head) — the score
``citetrain meta-eval`` ranks for this model by default, so in-loop figures and meta-eval agree —
and the best checkpoint is kept by ``roc_auc`` (binary ROC-AUC, or the mean of the one-vs-one
ROC-AUCs when the validation set has partial labels) unless ``eval.best_metric`` names another
measure; in-loop evaluation reads ``eval.subset`` validation pairs (a seeded
sample; ``citetrain meta-eval --split validation`` measures the whole split).

A premise too long for ``data.max_length`` is, with ``crossencoder.premise: select`` (the default), cut
down to the sentences that best cover the statement
(:func:`citetrain.nli.premises.select_evidence`), so a cited web page is trained on its evidence
rather than its first tokens; ``cut`` keeps the first tokens instead. The choice is saved in the
model's config (``citetrain_premise``), so the ``classifier:`` backend reads pairs the same way.

``<output_dir>/final`` holds the model and a tokenizer whose
``model_max_length`` is ``data.max_length``, so the NLI backend reads pairs at the trained length.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.io.writers import replace_dir
from citetrain.train import setup as S
from citetrain.train.pairs import LABEL_NAMES, MANIFEST, build_pairs, parse_source
from citetrain.train.recipe_rules import best_direction
from citetrain.train.recipe_schema import Recipe
from citetrain.train.students import load_student

ID2LABEL = dict(LABEL_NAMES)
LABEL2ID = {v: k for k, v in ID2LABEL.items()}
BINARY = {0: "not_supported", 1: "supported"}


def head_labels(labels: Any) -> tuple[dict[int, str], dict[int, int]]:
    """The head's ``id2label`` and the map from support levels (0/1/2) to its ids: three-way
    when a training pair is labelled partial, else a two-way head (``not_supported``,
    ``supported``) — on binary data a three-way head whose middle class never occurs learns
    far more slowly (measured: all-MiniLM-L6-v2 stays at the label prior for 100 LoRA steps on
    the quickstart's pairs where a two-way head fits them within 50)."""
    if 1 in set(labels):
        return ID2LABEL, {k: k for k in ID2LABEL}
    return BINARY, {0: 0, 2: 1}


def _manifest_matches(recipe: Recipe, path: Path) -> bool:
    """The saved pairs came from the same files (by sha256), fraction and seed."""
    from citetrain.io.readers import sha256_file

    man = path.parent / MANIFEST
    if not (path / "dataset_dict.json").is_file() or not man.is_file():
        return False
    old = json.loads(man.read_text())
    d = recipe.crossencoder
    if (old.get("validation_fraction"), old.get("split_seed"), old.get("split_by")) != (
            d.validation_fraction, d.split_seed, "statement"):
        return False
    want = [parse_source(e)[1] for e in d.labelled or []]
    have = old.get("sources", [])
    return (len(want) == len(have) and all(
        h["path"] == w and Path(w).is_file() and h["sha256"] == sha256_file(w)
        for w, h in zip(want, have)))


def ensure_pairs(recipe: Recipe, main: bool) -> Path:
    """``data.dataset``, (re)built from ``crossencoder.labelled`` by the main process when it is
    absent or was built from other files or split settings."""
    path = Path(recipe.data.dataset)
    d = recipe.crossencoder
    if d.labelled and main and not _manifest_matches(recipe, path):
        man = build_pairs(d.labelled, path, d.validation_fraction, d.split_seed)
        print(f"[citetrain] pairs: {json.dumps(man['counts'])} -> {path}", flush=True)
    elif not (path / "dataset_dict.json").is_file() and not d.labelled:
        raise CitetrainError(f"data.dataset: {path} is not a pairs dataset; give "
                             "crossencoder.labelled")
    return path


def tokenize(dataset: Any, tokenizer: Any, max_length: int, what: str,
             premise: str = "cut", label_map: dict[int, int] | None = None,
             hint: str = "none") -> Any:
    """Token ids of (premise, hypothesis) pairs, the premise cut to fit ``max_length`` (first
    reduced to its best-covering sentences with ``premise="select"``), the hypothesis read with
    its coverage hint (:mod:`citetrain.nli.hints`); pairs whose statement alone does not fit are
    dropped and counted; returns (tokens, the rows kept). A ``target`` column (target rows,
    :mod:`citetrain.train.targets`) becomes the labels instead of ``label``."""
    from citetrain.nli.classifier import encode_pairs
    from citetrain.nli.premises import read_pairs

    def enc(batch: dict[str, list]) -> dict[str, list]:
        premises, hyps = read_pairs(list(zip(batch["premise"], batch["hypothesis"])), tokenizer,
                                    max_length, premise, hint)
        # a statement that leaves no room for its premise is read cut, and dropped below
        out, fits = encode_pairs(tokenizer, premises, hyps, max_length)
        out["fits"] = fits
        out["labels"] = (batch["target"] if "target" in batch else
                         [label_map[v] for v in batch["label"]] if label_map else batch["label"])
        return out

    cols = dataset.column_names
    data = dataset.map(enc, batched=True, remove_columns=cols, desc=f"tokenizing {what}")
    keep = [i for i, ok in enumerate(data["fits"]) if ok]
    data = data.remove_columns("fits")
    if len(keep) < len(data):
        print(f"[citetrain] {what}: dropped {len(data) - len(keep)} of {len(data)} pairs whose "
              f"statement alone exceeds data.max_length={max_length}", flush=True)
        data, dataset = data.select(keep), dataset.select(keep)
    if not len(data):
        raise CitetrainError(f"{what}: no pair fits data.max_length={max_length}")
    return data, dataset


def metrics_fn(groups: list[str], id2label: dict[int, str] | None = None,
               sources: list[str] | None = None):
    """``compute_metrics`` for the Trainer: meta-evaluation of the expected support level
    (P(supported) + ½·P(partially_supported)) on validation (labels read back as support levels
    0/1/2 for a two-way head). With the pairs' ``sources`` from more than one format, also
    ``roc_auc_sources``: the mean over formats of each one's ROC-AUC, the held-out figure per
    source (:func:`~citetrain.train.judge_card.source_figures`), where ``roc_auc`` pools the pairs
    (a binary set's "not attributable" then counts as no support against other sets' partial)."""
    import numpy as np
    from scipy.special import softmax

    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.base import expected_support
    from citetrain.train.judge_card import source_figures

    def compute(pred: Any) -> dict[str, float]:
        logits = pred.predictions[0] if isinstance(pred.predictions, tuple) else pred.predictions
        probs = softmax(np.asarray(logits, dtype=np.float64), axis=-1)
        labels = np.asarray(pred.label_ids).tolist()
        names = id2label or ID2LABEL
        levels = [LABEL2ID[names[v]] for v in labels]
        column = {v: k for k, v in names.items()}
        partial = probs[:, column["partially_supported"]] if "partially_supported" in column else 0.0
        score = expected_support(probs[:, column["supported"]], partial)
        res = meta_evaluate(score.tolist(), levels, groups[: len(labels)])
        out = {k: float(v) for k, v in res.items() if isinstance(v, (int, float))}
        out["roc_auc"] = out.get("roc_auc", out.get("roc_auc_mean", float("nan")))
        out["accuracy"] = float((probs.argmax(-1) == np.asarray(labels)).mean())
        if sources and len({s.partition(":")[0] for s in sources[: len(labels)]}) > 1:
            rows = source_figures(sources[: len(labels)], levels, groups[: len(labels)],
                                  {"model": score.tolist()})
            out["roc_auc_sources"] = float(np.mean([r["model"] for r in rows]))
        return out

    return compute


def training_args(recipe: Recipe, has_eval: bool):
    """``TrainingArguments`` from the recipe; the best checkpoint by ROC-AUC when evaluating."""
    from transformers import TrainingArguments

    e = recipe.eval
    kwargs = S.trainer_kwargs(recipe, has_eval, eval_batch_size=e.batch_size)
    kwargs["label_names"] = ["labels"]
    if has_eval and e.enabled:
        best = e.best_metric or "roc_auc"
        kwargs.update(load_best_model_at_end=True, metric_for_best_model=f"eval_{best}",
                      greater_is_better=best_direction(recipe))
    return TrainingArguments(**kwargs)


def save_final(trainer: Any, tokenizer: Any, recipe: Recipe, final: Path, main: bool) -> None:
    """The (merged) model and its tokenizer to ``final`` through ``final.tmp`` and a rename."""
    tmp = final.with_name(final.name + ".tmp")
    if main:
        shutil.rmtree(tmp, ignore_errors=True)
    trainer.accelerator.wait_for_everyone()
    if recipe.method == "lora":
        if main:
            trainer.model.merge_and_unload().save_pretrained(str(tmp))
    else:
        trainer.save_model(str(tmp))
    if main:
        tokenizer.save_pretrained(str(tmp))
        replace_dir(tmp, final)


def train_crossencoder(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Run a ``kind: crossencoder`` recipe; returns the summary written to
    ``<output_dir>/train_summary.json``."""
    import datasets
    import torch
    from accelerate import PartialState
    from transformers import AutoTokenizer, DataCollatorWithPadding, Trainer, set_seed

    from citetrain.models.pkg import resolve_model_path
    from citetrain.train.resume import resume_point

    start = time.time()
    state = PartialState(cpu=recipe.train.use_cpu or not torch.cuda.is_available())
    out = Path(recipe.train.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    with state.main_process_first():
        data_path = ensure_pairs(recipe, state.is_main_process)
    train_raw, eval_raw = S.load_splits(recipe, data_path)
    c, d = recipe.crossencoder, recipe.distill
    fold_held = None
    if d.folds is not None:
        from citetrain.train.distill import fold_split

        train_raw, fold_held = fold_split(train_raw, d.folds, d.fold, c.split_seed)
    if c.built or not c.human_train:
        from citetrain.train.pairs import training_pairs

        train_raw = training_pairs(train_raw, c.built, c.built_max, c.human_train, recipe.train.seed,
                                   c.built_exclude)
    base = resolve_model_path(recipe.model.name_or_path)
    identity = S.run_identity(recipe, state.num_processes)
    ckpt = resume_point(recipe, out, identity)
    state.wait_for_everyone()
    if state.is_main_process:
        S.write_json(out / "citetrain_run.json", identity)
    tokenizer = AutoTokenizer.from_pretrained(base, revision=recipe.model.revision,
                                              trust_remote_code=recipe.model.trust_remote_code)
    # the judge reads premises to this length (nli.classifier): every checkpoint saves it, so a
    # checkpoint folder is read as the final model is
    tokenizer.model_max_length = recipe.data.max_length
    datasets.disable_progress_bars()
    id2label, label_map = head_labels(list(train_raw["label"]) + (
        list(eval_raw["label"]) if eval_raw is not None else []))
    three = [name for name, on in (("distill.teacher", d.teacher is not None),
                                   ("crossencoder.not_full", bool(c.not_full))) if on]
    if three and len(id2label) != 3:
        raise CitetrainError(f"{' and '.join(three)}: these train three support levels; the "
                             "training pairs have no partial label")
    counts = None
    if d.teacher is not None or c.not_full:
        from citetrain.train.distill import read_teacher_rows
        from citetrain.train.targets import training_targets

        targets, counts = training_targets(
            train_raw, read_teacher_rows(d.teacher) if d.teacher is not None else {},
            d.teacher_weight, c.not_full)
        if d.teacher is not None and not counts["taught"]:
            raise CitetrainError(f"distill.teacher: {d.teacher} has none of the {len(targets)} "
                                 "training pairs (made from teachers of other pairs: "
                                 "another crossencoder.labelled?)")
        train_raw = train_raw.add_column("target", targets)
        if d.teacher is not None:
            print(f"[citetrain] teacher: {counts['taught']} of {len(targets)} training pairs read "
                  f"{d.teacher_weight:g}·teacher + {1 - d.teacher_weight:g}·label"
                  + (f", {counts['own']} of them transfer pairs with their own weight"
                     if counts["own"] else ""), flush=True)
            if counts["own"] == counts["taught"] and d.teacher_weight != 1.0:
                print(f"[citetrain] warning: distill.teacher_weight {d.teacher_weight:g} applies to "
                      f"no pair: every pair {d.teacher} scores carries its own weight (set it "
                      "when the file is made: citetrain teacher --transfer-weight)", flush=True)
        if c.not_full:
            print(f"[citetrain] crossencoder.not_full: {counts['not_full']} training labels of "
                  f"{', '.join(c.not_full)} read as 'not fully supported' (level 0 or 1)", flush=True)
    train_set, _ = tokenize(train_raw, tokenizer, recipe.data.max_length, "train",
                            c.premise, label_map, c.hint)
    heldout = eval_raw
    if eval_raw is not None and len(eval_raw) > recipe.eval.subset:
        eval_raw = eval_raw.shuffle(seed=recipe.train.seed).select(range(recipe.eval.subset))
    eval_set, kept = (tokenize(eval_raw, tokenizer, recipe.data.max_length, "validation",
                               c.premise, label_map, c.hint)
                      if eval_raw is not None and recipe.eval.enabled else (None, None))
    set_seed(recipe.train.seed)  # the fresh head and the LoRA matrices: the same every run
    model = load_student(recipe, base, id2label, train_set, tokenizer)
    trainer_class = Trainer
    if counts is not None:  # target rows
        from citetrain.train.targets import target_trainer_class

        trainer_class = target_trainer_class(d.teacher_loss)
    trainer = trainer_class(model=model, args=training_args(recipe, eval_set is not None),
                            train_dataset=train_set, eval_dataset=eval_set, processing_class=tokenizer,
                            data_collator=DataCollatorWithPadding(tokenizer),
                            compute_metrics=(metrics_fn(list(kept["group"]), id2label,
                                                        list(kept["source"]))
                                             if eval_set is not None else None),
                            callbacks=list(extra_callbacks))
    from citetrain.train.console import use_log_lines

    use_log_lines(trainer)
    result = trainer.train(resume_from_checkpoint=ckpt)
    final = out / "final"
    save_final(trainer, tokenizer, recipe, final, state.is_main_process)
    summary: dict[str, Any] = {
        "final": str(final), "base_model": recipe.model.name_or_path, "steps": trainer.state.global_step,
        "train_loss": result.training_loss, "resumed_from": ckpt,
        "losses": [h["loss"] for h in trainer.state.log_history if "loss" in h],
        "evals": [h for h in trainer.state.log_history if "eval_loss" in h],
        "best_checkpoint": trainer.state.best_model_checkpoint,
        "best_metric": trainer.state.best_metric,
        "score": "P(supported) + P(partially_supported)/2", "train_pairs": len(train_set),
        "validation_pairs": len(eval_set) if eval_set is not None else 0,
        "parameters": sum(p.numel() for p in trainer.model.parameters()),
        "head": f"{'three' if len(id2label) == 3 else 'two'}-way ({', '.join(id2label.values())})",
        "seconds": round(time.time() - start, 1)}
    if state.is_main_process:
        from citetrain.train.card import publish

        if c.built:
            from citetrain.train.pairs import built_manifests

            summary["built"] = built_manifests(c.built)
        if d.teacher is not None:
            from citetrain.io.readers import sha256_file

            summary["teacher"] = {"file": d.teacher, "pairs": counts["taught"],
                                  "weight": d.teacher_weight, "sha256": sha256_file(d.teacher)}
            if counts["own"]:
                summary["teacher"]["transfer_pairs"] = counts["own"]
        if c.not_full:
            summary["not_full"] = {"sources": list(c.not_full), "labels": counts["not_full"]}
        from citetrain.train.judge_card import heldout_figures, load_judge

        card = heldout is not None and c.card
        # one load serves the fold scores and the card
        judge = load_judge(final) if fold_held is not None or card else None
        if fold_held is not None:
            from citetrain.train.distill import FOLD_SCORES, write_fold_scores

            reader = judge if d.fold_read == "whole" else load_judge(final, d.fold_read)
            n = write_fold_scores(final, fold_held, out / FOLD_SCORES, reader, d.fold_read)
            summary["fold"] = {"fold": d.fold, "folds": d.folds, "pairs": n}
            if d.fold_read != "whole":
                summary["fold"]["read"] = d.fold_read
        if card:
            summary["heldout"] = heldout_figures(final, heldout, out / "heldout_scores.jsonl",
                                                 judge)
        summary["model_bytes"] = sum(f.stat().st_size for f in final.iterdir() if f.is_file())
        publish(final, recipe, data_path, summary, recipe.model.name_or_path, trainer, tokenizer, out)
    state.wait_for_everyone()
    return summary
