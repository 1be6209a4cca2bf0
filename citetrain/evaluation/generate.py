"""A generator checkpoint's predictions: the generator prompt of the training sets for each
record, greedy batched generation (:func:`citetrain.models.generate.generate_texts`, or vLLM), the
answer made the record's ``output`` as the training loop does.

Work is cut into chunks of ``chunk`` records (:mod:`citetrain.io.chunks`): a finished
chunk is saved at once, so a killed run resumes where it stopped. Under ``accelerate launch
--num_processes N`` the unfinished chunks are dealt out among the processes, each saving into its
own partial file; the main process waits for all and merges in input order. A chunk is always
generated as the same batches, whoever generates it, so N processes give the predictions of one.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Sequence

from tqdm.auto import tqdm

from citetrain.builders.stages import Ranks
from citetrain.errors import CitetrainError
from citetrain.io.chunks import ChunkStore
from citetrain.metrics.suites import SuiteModel
from citetrain.models.generate import generate_texts
from citetrain.records import Record
from citetrain.text.prompts import generator_prompt

Generate = Callable[[Sequence[str]], list[str]]


def prompts_of(records: Sequence[Record], max_doc_words: int | None) -> list[str]:
    """The generator prompt (question and numbered passages) of each record."""
    return [generator_prompt(r.question, r.docs, max_doc_words) for r in records]


def as_predictions(records: Sequence[Record], outputs: Sequence[str]) -> list[Record]:
    """The records with the generated answers as outputs (the training loop's rule)."""
    from citetrain.train.scoring import generated_records

    by_position = {str(i): r for i, r in enumerate(records)}
    return generated_records(by_position, [{"id": str(i)} for i in range(len(records))], outputs)


def settings(spec: SuiteModel) -> dict[str, Any]:
    """The settings a partial run must share with its resumption."""
    return {k: getattr(spec, k) for k in ("max_new_tokens", "batch_size", "max_length",
                                          "max_doc_words", "chunk", "backend", "dtype")}


def _torch_dtype(name: str, device: Any) -> Any:
    import torch

    if name == "auto":
        bf16 = device.type == "cuda" and torch.cuda.is_bf16_supported()
        return torch.bfloat16 if bf16 else torch.float32
    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[name]


def device() -> Any:
    """The device this process generates on: its GPU under a launcher, ``cuda`` on a GPU
    machine, else the CPU."""
    import torch

    if not torch.cuda.is_available():
        return torch.device("cpu")
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return torch.device("cuda")
    from accelerate import PartialState

    return PartialState().device


def transformers_generator(spec: SuiteModel) -> Generate:
    """Greedy generation with the checkpoint loaded by :func:`load_causal_lm`, on this process's
    device."""
    from citetrain.models.loading import load_causal_lm

    model, tokenizer = load_causal_lm(spec.path, role="model.path")
    where = device()
    model.to(device=where, dtype=_torch_dtype(spec.dtype, where))

    def generate(prompts: Sequence[str]) -> list[str]:
        return generate_texts(model, tokenizer, prompts, max_new_tokens=spec.max_new_tokens,
                              batch_size=spec.batch_size, max_length=spec.max_length)

    return generate


def make_generator(spec: SuiteModel, ranks: Ranks, progress: bool = False) -> Generate:
    """The generation function of the spec's backend."""
    if spec.backend == "vllm":
        from citetrain.evaluation.vllm_backend import vllm_generator

        if ranks.world > 1:
            raise CitetrainError("model.backend: vllm runs in one process (it batches by "
                                 "itself); start it without accelerate launch")
        return vllm_generator(spec, progress)
    return transformers_generator(spec)


def check_backend(spec: SuiteModel) -> None:
    """A clear line before any work when ``backend: vllm`` is asked and absent."""
    if spec.backend == "vllm":
        from citetrain.evaluation.vllm_backend import require_vllm

        require_vllm()


def generate_predictions(records: Sequence[Record], spec: SuiteModel, predictions: Path,
                         header: dict[str, Any], ranks: Ranks | None = None, *,
                         progress: bool = True) -> tuple[list[Record] | None, ChunkStore, int]:
    """Generate every unfinished chunk of this process's share; on the main process return the
    predictions in input order (``None`` elsewhere), the chunk store (to remove the partial
    files once the output is written) and how many chunks were resumed."""
    ranks = ranks or Ranks()
    check_backend(spec)
    store = ChunkStore(predictions, header, ranks.rank)
    store.prepare()
    ranks.barrier()  # every partial file checked and whole before anyone reads them
    bounds = [(a, min(a + spec.chunk, len(records))) for a in range(0, len(records), spec.chunk)]
    done = store.finished()
    ranks.barrier()  # every process has the same view before anyone appends
    todo = [k for k in range(len(bounds)) if k not in done]
    mine = todo[ranks.rank::ranks.world]
    if mine:
        generate = make_generator(spec, ranks, progress)
        desc = f"generate (rank {ranks.rank})" if ranks.world > 1 else "generate"
        with tqdm(total=sum(b - a for a, b in (bounds[k] for k in mine)), desc=desc,
                  unit="record", disable=not progress) as bar:
            for k in mine:
                part = records[bounds[k][0]:bounds[k][1]]
                outputs = generate(prompts_of(part, spec.max_doc_words))
                store.append(k, [r.id for r in part], outputs)
                bar.update(len(part))
    ranks.barrier()  # every chunk saved
    if not ranks.main:
        return None, store, len(done)
    return merge(records, bounds, store), store, len(done)


def merge(records: Sequence[Record], bounds: list[tuple[int, int]],
          store: ChunkStore) -> list[Record]:
    """Every chunk's outputs in input order, made predictions."""
    done = store.finished()
    outputs: list[str] = []
    for k, (a, b) in enumerate(bounds):
        row = done.get(k)
        if row is None:
            raise CitetrainError(f"chunk {k} of the predictions is missing (a process of the run "
                                 "did not finish); run again to generate it")
        if row["ids"] != [r.id for r in records[a:b]] or len(row["outputs"]) != b - a:
            raise CitetrainError(f"{store.path.parent}: chunk {k} of a partial file does not "
                                 "match the input; delete the partial files to start again")
        outputs.extend(row["outputs"])
    return as_predictions(records, outputs)
