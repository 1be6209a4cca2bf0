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

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.io.writers import replace_dir
from citetrain.train import components as S
from citetrain.judge_training.pairs import LABEL_NAMES, pairs_path
from citetrain.train.recipe_rules import best_direction
from citetrain.train.recipe_schema import Recipe
from citetrain.judge_training.students import load_student

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


def tokenize(dataset: Any, tokenizer: Any, max_length: int, what: str,
             premise: str = "cut", label_map: dict[int, int] | None = None,
             hint: str = "none") -> Any:
    """Token ids of (premise, hypothesis) pairs, the premise cut to fit ``max_length`` (first
    reduced to its best-covering sentences with ``premise="select"``), the hypothesis read with
    its coverage hint (:mod:`citetrain.nli.hints`); pairs whose statement alone does not fit are
    dropped and counted; returns (tokens, the rows kept). A ``target`` column (target rows,
    :mod:`citetrain.judge_training.targets`) becomes the labels instead of ``label``."""
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
    source (:func:`~citetrain.judge_training.card.source_figures`), where ``roc_auc`` pools the pairs
    (a binary set's "not attributable" then counts as no support against other sets' partial)."""
    import numpy as np
    from scipy.special import softmax

    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.base import expected_support
    from citetrain.judge_training.card import source_figures

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


@dataclass
class Pairs:
    """The data phase's output: the tokenized splits and what the later phases read of them."""
    path: Path
    train: Any  # tokenized training pairs
    eval: Any  # tokenized in-loop validation pairs (None without evaluation)
    kept: Any  # the in-loop validation rows kept (their groups and sources score the checkpoints)
    heldout: Any  # the whole validation split, for the judge card (None without one)
    fold: Any  # the fold a teacher leaves out, scored after training (None unless distill.folds)
    id2label: dict[int, str]
    targets: Any  # the soft-target counts (None: plain labels)


def teacher_targets(recipe: Recipe, train_raw: Any, id2label: dict[int, str]) -> tuple[Any, Any]:
    """The training pairs with a ``target`` column when the recipe reads soft targets (a
    ``distill.teacher`` file, ``crossencoder.not_full`` labels), and the counts of what was read;
    ``(train_raw, None)`` otherwise."""
    from citetrain.judge_training.targets import describe_targets, training_targets
    from citetrain.judge_training.teacher_scores import read_teacher_rows

    c, d = recipe.crossencoder, recipe.distill
    if d.teacher is None and not c.not_full:
        return train_raw, None
    three = [name for name, on in (("distill.teacher", d.teacher is not None),
                                   ("crossencoder.not_full", bool(c.not_full))) if on]
    if len(id2label) != 3:
        raise CitetrainError(f"{' and '.join(three)}: these train three support levels; the "
                             "training pairs have no partial label")
    targets, counts = training_targets(
        train_raw, read_teacher_rows(d.teacher) if d.teacher is not None else {},
        d.teacher_weight, c.not_full)
    if d.teacher is not None and not counts["taught"]:
        raise CitetrainError(f"distill.teacher: {d.teacher} has none of the {len(targets)} "
                             "training pairs (made from teachers of other pairs: "
                             "another crossencoder.labelled?)")
    for line in describe_targets(recipe, counts, len(targets)):
        print(f"[citetrain] {line}", flush=True)
    return train_raw.add_column("target", targets), counts


def prepare_pairs(recipe: Recipe, tokenizer: Any) -> Pairs:
    """Phase 1, the data: the pairs dataset's splits, the fold a teacher leaves out, the built
    pairs drawn, soft targets, tokenized (premises read as the judge will read them)."""
    from citetrain.judge_training.pairs import training_pairs
    from citetrain.judge_training.teacher_scores import fold_split

    c, d = recipe.crossencoder, recipe.distill
    path = pairs_path(recipe)
    train_raw, eval_raw = S.load_splits(recipe, path)
    fold = None
    if d.folds is not None:
        train_raw, fold = fold_split(train_raw, d.folds, d.fold, c.split_seed)
    if c.built or not c.human_train:
        train_raw = training_pairs(train_raw, c.built, c.built_max, c.human_train,
                                   recipe.train.seed, c.built_exclude)
    id2label, label_map = head_labels(list(train_raw["label"]) + (
        list(eval_raw["label"]) if eval_raw is not None else []))
    train_raw, counts = teacher_targets(recipe, train_raw, id2label)
    length = recipe.data.max_length
    train_set, _ = tokenize(train_raw, tokenizer, length, "train", c.premise, label_map, c.hint)
    heldout = eval_raw
    if eval_raw is not None and len(eval_raw) > recipe.eval.subset:
        eval_raw = eval_raw.shuffle(seed=recipe.train.seed).select(range(recipe.eval.subset))
    eval_set, kept = (tokenize(eval_raw, tokenizer, length, "validation", c.premise, label_map,
                               c.hint)
                      if eval_raw is not None and recipe.eval.enabled else (None, None))
    return Pairs(path, train_set, eval_set, kept, heldout, fold, id2label, counts)


def load_tokenizer(recipe: Recipe, base: str) -> Any:
    """The base model's tokenizer, reading premises to ``data.max_length``: every checkpoint
    saves it, so a checkpoint folder is read as the final model is (nli.classifier)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base, revision=recipe.model.revision,
                                              trust_remote_code=recipe.model.trust_remote_code)
    tokenizer.model_max_length = recipe.data.max_length
    return tokenizer


def build_trainer(recipe: Recipe, model: Any, tokenizer: Any, pairs: Pairs,
                  callbacks: tuple[Any, ...]) -> Any:
    """Phase 3, the trainer: transformers' ``Trainer``, or the soft-target trainer when the
    pairs carry targets; checkpoints scored by meta-evaluation of the validation pairs."""
    from transformers import DataCollatorWithPadding, Trainer

    from citetrain.judge_training.targets import target_trainer_class
    from citetrain.train.console import use_log_lines

    trainer_class = (Trainer if pairs.targets is None
                     else target_trainer_class())
    scorer = (metrics_fn(list(pairs.kept["group"]), pairs.id2label, list(pairs.kept["source"]))
              if pairs.eval is not None else None)
    trainer = trainer_class(model=model, args=training_args(recipe, pairs.eval is not None),
                            train_dataset=pairs.train, eval_dataset=pairs.eval,
                            processing_class=tokenizer,
                            data_collator=DataCollatorWithPadding(tokenizer),
                            compute_metrics=scorer, callbacks=list(callbacks))
    use_log_lines(trainer)
    return trainer


def run_summary(recipe: Recipe, trainer: Any, result: Any, pairs: Pairs, final: Path,
                ckpt: Any, seconds: float) -> dict[str, Any]:
    """What the run did, as ``train_summary.json`` keeps it."""
    state = trainer.state
    return {
        "final": str(final), "base_model": recipe.model.name_or_path, "steps": state.global_step,
        "train_loss": result.training_loss, "resumed_from": ckpt,
        "losses": [h["loss"] for h in state.log_history if "loss" in h],
        "evals": [h for h in state.log_history if "eval_loss" in h],
        "best_checkpoint": state.best_model_checkpoint, "best_metric": state.best_metric,
        "score": "P(supported) + P(partially_supported)/2", "train_pairs": len(pairs.train),
        "validation_pairs": len(pairs.eval) if pairs.eval is not None else 0,
        "parameters": sum(p.numel() for p in trainer.model.parameters()),
        "head": f"{'three' if len(pairs.id2label) == 3 else 'two'}-way "
                f"({', '.join(pairs.id2label.values())})",
        "seconds": round(seconds, 1)}


def describe_inputs(recipe: Recipe, pairs: Pairs) -> dict[str, Any]:
    """The summary's account of the inputs beyond the human pairs: built pairs, the teacher
    file, coarse labels."""
    from citetrain.io.readers import sha256_file
    from citetrain.judge_training.pairs import built_manifests

    c, d, counts = recipe.crossencoder, recipe.distill, pairs.targets
    out: dict[str, Any] = {}
    if c.built:
        out["built"] = built_manifests(c.built)
    if d.teacher is not None:
        out["teacher"] = {"file": d.teacher, "pairs": counts["taught"],
                          "weight": d.teacher_weight, "sha256": sha256_file(d.teacher)}
        if counts["own"]:
            out["teacher"]["transfer_pairs"] = counts["own"]
    if c.not_full:
        out["not_full"] = {"sources": list(c.not_full), "labels": counts["not_full"]}
    return out


def score_saved(recipe: Recipe, pairs: Pairs, final: Path, out: Path) -> dict[str, Any]:
    """Phase 4b, on the main process: the saved judge reads the fold a teacher left out
    (``fold_scores.jsonl``) and the held-out split for its card; one load serves both."""
    from citetrain.judge_training.card import heldout_figures, load_judge
    from citetrain.judge_training.teacher_scores import FOLD_SCORES, write_fold_scores

    d = recipe.distill
    card = pairs.heldout is not None and recipe.crossencoder.card
    judge = load_judge(final) if pairs.fold is not None or card else None
    found: dict[str, Any] = {}
    if pairs.fold is not None:
        reader = judge if d.fold_read == "whole" else load_judge(final, d.fold_read)
        n = write_fold_scores(final, pairs.fold, out / FOLD_SCORES, reader, d.fold_read)
        found["fold"] = {"fold": d.fold, "folds": d.folds, "pairs": n}
        if d.fold_read != "whole":
            found["fold"]["read"] = d.fold_read
    if card:
        found["heldout"] = heldout_figures(final, pairs.heldout, out / "heldout_scores.jsonl",
                                           judge)
    return found


def train_crossencoder(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Run a ``kind: crossencoder`` recipe in four phases (the pairs, the student, the trainer,
    the save); returns the summary written to ``<output_dir>/train_summary.json``."""
    import datasets
    import torch
    from accelerate import PartialState
    from transformers import set_seed

    from citetrain.judge_training.card import card_sections
    from citetrain.models.package_paths import resolve_model_path
    from citetrain.train.card import publish
    from citetrain.train.resume import resume_point

    start = time.time()
    state = PartialState(cpu=recipe.train.use_cpu or not torch.cuda.is_available())
    out = Path(recipe.train.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    base = resolve_model_path(recipe.model.name_or_path)
    identity = S.run_identity(recipe, state.num_processes)
    ckpt = resume_point(recipe, out, identity)
    state.wait_for_everyone()
    if state.is_main_process:
        S.write_json(out / "citetrain_run.json", identity)
    tokenizer = load_tokenizer(recipe, base)
    datasets.disable_progress_bars()
    pairs = prepare_pairs(recipe, tokenizer)
    set_seed(recipe.train.seed)  # the fresh head and the LoRA matrices: the same every run
    model = load_student(recipe, base, pairs.id2label, pairs.train, tokenizer)
    trainer = build_trainer(recipe, model, tokenizer, pairs, extra_callbacks)
    result = trainer.train(resume_from_checkpoint=ckpt)
    final = out / "final"
    save_final(trainer, tokenizer, recipe, final, state.is_main_process)
    summary = run_summary(recipe, trainer, result, pairs, final, ckpt, time.time() - start)
    if state.is_main_process:
        summary.update(describe_inputs(recipe, pairs))
        summary.update(score_saved(recipe, pairs, final, out))
        summary["model_bytes"] = sum(f.stat().st_size for f in final.iterdir() if f.is_file())
        publish(final, recipe, pairs.path, summary, recipe.model.name_or_path, trainer, tokenizer,
                out, card_sections(summary))
    state.wait_for_everyone()
    return summary
