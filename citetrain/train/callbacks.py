"""Trainer callbacks: citation scores of generated outputs at each evaluation, and a check of
every saved adapter."""
from __future__ import annotations

__all__ = ["CitationScoreCallback"]

import json
import math
from pathlib import Path
from typing import Any, Sequence

from transformers import TrainerCallback

from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text
from citetrain.records import Record


class CitationScoreCallback(TrainerCallback):
    """At each evaluation: greedy generation on a fixed eval subset, split across processes and
    gathered; predictions scored with the shared metrics; scalars logged as ``eval_<name>``
    (so ``metric_for_best_model`` can pick a checkpoint by a citation metric); outputs written to
    ``<output_dir>/eval_generations/step-N.jsonl``. Set :attr:`trainer` after building it."""

    def __init__(self, kind: str, examples: Sequence[dict[str, Any]], records: dict[str, Record],
                 tokenizer: Any, metrics: Sequence[str], nli: Any, *, max_new_tokens: int,
                 batch_size: int, max_length: int) -> None:
        self.kind, self.examples, self.records = kind, list(examples), records
        self.tokenizer, self.metrics, self.nli = tokenizer, list(metrics), nli
        self.max_new_tokens, self.batch_size, self.max_length = max_new_tokens, batch_size, max_length
        self.trainer: Any = None
        self.history: list[dict[str, float]] = []

    def _generate(self, model: Any) -> list[str]:
        from accelerate import PartialState
        from accelerate.utils import gather_object
        from transformers.integrations import is_deepspeed_zero3_enabled

        from citetrain.models.generate import generate_texts

        state = PartialState()
        idx = list(range(len(self.examples)))
        per = math.ceil(len(idx) / state.num_processes)
        n_batches = math.ceil(per / self.batch_size)  # every process runs as many passes
        with state.split_between_processes(idx) as mine:
            outs = generate_texts(model, self.tokenizer, [self.examples[i]["prompt"] for i in mine],
                                  max_new_tokens=self.max_new_tokens, batch_size=self.batch_size,
                                  max_length=self.max_length, synced_gpus=is_deepspeed_zero3_enabled(),
                                  n_batches=n_batches)
            pairs = list(zip(mine, outs))
        if state.num_processes > 1:
            pairs = gather_object(pairs)
        got = dict(pairs)
        return [got[i] for i in idx]

    def on_evaluate(self, args, state, control, metrics=None, model=None, **kwargs):
        from citetrain.train.scoring import score_outputs

        from accelerate import PartialState
        from accelerate.utils import broadcast_object_list

        outputs = self._generate(model)
        scores = (score_outputs(self.kind, self.records, self.examples, outputs, self.metrics,
                                self.nli) if state.is_world_process_zero else None)
        if PartialState().num_processes > 1:  # every rank needs them to pick the best checkpoint
            scores = broadcast_object_list([scores])[0]
        named = {f"eval_{k}": v for k, v in scores.items()}
        if metrics is not None:
            metrics.update(named)
        if not state.is_world_process_zero:
            return
        self.history.append({"step": state.global_step, **scores})
        rows = [{"id": ex["id"], "unit": ex["unit"], "output": out, "target": ex["completion"]}
                for ex, out in zip(self.examples, outputs)]
        atomic_write_text(Path(args.output_dir) / "eval_generations" / f"step-{state.global_step}.jsonl",
                          "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        if self.trainer is not None:
            self.trainer.log(named)
        shown = ", ".join(f"{k}={v:.2f}" for k, v in scores.items()
                          if k in ("citation_f1", "lenient_f1", "ids_f1", "judge_parsed"))
        print(f"[citetrain] step {state.global_step}: in-loop citation scores: {shown}", flush=True)


def check_adapter(folder: str | Path, expected_keys: int) -> tuple[int, int]:
    """Tensors and bytes of a saved adapter; an error when it is missing, empty (e.g. a ZeRO-3
    save that did not gather the weights) or has another number of tensors than trainable
    parameters."""
    from safetensors import safe_open

    path = Path(folder) / "adapter_model.safetensors"
    if not path.is_file():
        raise CitetrainError(f"{path}: no adapter was saved")
    with safe_open(str(path), "pt") as f:
        keys = list(f.keys())
        sizes = [f.get_slice(k).get_shape() for k in keys]
    numel = [math.prod(s) for s in sizes]
    if not keys or any(n == 0 for n in numel):
        raise CitetrainError(f"{path}: empty adapter ({len(keys)} tensors, "
                             f"{sum(n == 0 for n in numel)} of them empty)")
    if len(keys) != expected_keys:
        raise CitetrainError(f"{path}: {len(keys)} tensors saved for {expected_keys} trainable "
                             "parameters")
    return len(keys), path.stat().st_size


class AdapterCheckCallback(TrainerCallback):
    """After every checkpoint save, check the adapter against the trainable parameters."""

    def __init__(self, expected_keys: int) -> None:
        self.expected_keys = expected_keys

    def on_save(self, args, state, control, **kwargs):
        if state.is_world_process_zero and self.expected_keys:
            folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if folder.is_dir():
                check_adapter(folder, self.expected_keys)
