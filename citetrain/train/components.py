"""Pieces of a training run: data, base model, tokenizer, PEFT config, SFT arguments."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train.recipe_rules import best_direction
from citetrain.train.recipe_schema import Recipe

MODEL_CARD = "citetrain_recipe.json"


def input_errors(recipe: Recipe) -> list[str]:
    """The missing inputs an LM run would stop on (the dataset, or the build spec it is made
    from), found before anything is launched."""
    d = recipe.data
    if (Path(d.dataset) / "dataset_dict.json").is_file():
        return []
    if d.build is None:
        return [f"data.dataset: {d.dataset} is not a dataset folder (build one with "
                "`citetrain build SPEC`, or give data.build)"]
    if not Path(d.build).is_file():
        return [f"data.build: {d.build} not found"]
    return []


def dataset_path(recipe: Recipe) -> Path:
    """``data.dataset``, which the run's entry point built before training when it was missing
    (:func:`citetrain.cli.recipe_run.prepare_data`)."""
    path = Path(recipe.data.dataset)
    if not (path / "dataset_dict.json").is_file():
        raise CitetrainError((input_errors(recipe) or [
            f"data.dataset: {path} is not a dataset folder (build one with `citetrain build "
            "SPEC`)"])[0])
    return path


def load_splits(recipe: Recipe, path: Path):
    """Train and eval splits (eval is ``None`` when the dataset has none)."""
    import datasets

    dd = datasets.load_from_disk(str(path))
    if recipe.data.train_split not in dd:
        raise CitetrainError(f"{path}: no split {recipe.data.train_split!r} (has {', '.join(dd)})")
    train = dd[recipe.data.train_split]
    if recipe.data.max_train_examples:
        train = train.select(range(min(recipe.data.max_train_examples, len(train))))
    evals = dd[recipe.data.eval_split] if recipe.data.eval_split in dd else None
    if evals is not None and recipe.data.max_eval_examples:
        n = recipe.data.max_eval_examples
        evals = evals.select(whole_records(evals["id"], n) if "id" in evals.column_names
                             else range(min(n, len(evals))))
    return train, evals


def drop_long(dataset: Any, tokenizer: Any, max_length: int, what: str,
              completion_key: str | None = "completion") -> Any:
    """Examples whose prompt + ``completion_key`` text (+ EOS) fit ``max_length`` tokens (the
    prompt alone with ``None``); the others are dropped and counted (a cut completion would
    train without its end)."""
    if dataset is None:
        return None
    texts = ([p + c for p, c in zip(dataset["prompt"], dataset[completion_key])]
             if completion_key else list(dataset["prompt"]))
    lengths = [len(ids) + 1 for ids in tokenizer(texts)["input_ids"]]
    keep = [i for i, n in enumerate(lengths) if n <= max_length]
    if len(keep) < len(dataset):
        print(f"[citetrain] {what}: dropped {len(dataset) - len(keep)} of {len(dataset)} examples "
              f"longer than data.max_length={max_length} tokens", flush=True)
    if not keep:
        raise CitetrainError(f"{what}: every example is longer than data.max_length={max_length}")
    return dataset.select(keep)


def whole_records(ids: list[str], subset: int) -> list[int]:
    """Indices of the first examples, whole records at a time (a record's statements are scored
    together), about ``subset`` of them and never none."""
    order: dict[str, list[int]] = {}
    for i, rid in enumerate(ids):
        order.setdefault(rid, []).append(i)
    keep: list[int] = []
    for idx in order.values():
        if keep and len(keep) + len(idx) > subset:
            break
        keep += idx
    return keep


def load_records(path: Path) -> dict[str, Any]:
    """The builder's ``records.jsonl`` beside the dataset, by id (empty when absent)."""
    from citetrain.io.readers import read_records

    src = path.parent / "records.jsonl"
    return {r.id: r for r in read_records(src, "alce").records} if src.is_file() else {}


def base_model_path(recipe: Recipe, train: Any, main: bool) -> str:
    """A hub id / local path, or the tiny model made for this run (``<output_dir>/base``)."""
    if recipe.model.name_or_path:
        return recipe.model.name_or_path
    from citetrain.models.tiny import make_tiny_base

    target = Path(recipe.train.output_dir) / "base"
    if main:
        make_tiny_base(recipe.model.tiny, (r["prompt"] + r["completion"] for r in train), target)
    return str(target)


def torch_dtype(recipe: Recipe):
    """The dtype the weights are loaded in; ``model.dtype: auto`` gives bf16 on GPUs that have it
    for LoRA and QLoRA (the base is frozen; peft keeps the adapters in fp32), and fp32 on CPU and
    for ``method: full``, whose trained weights must stay fp32: AdamW steps of lr·update are
    mostly below bf16's resolution (8 bits of mantissa) and round away. The Trainer's bf16
    autocast (``train.bf16``) still runs the matrix products in bf16. Measured on an H100,
    ``citetrain train`` of the judge-crossencoder recipe, two seeds: bf16 weights ended at train
    loss 0.86 / 0.85 with held-out ROC-AUC (WiCE, AttributionBench, ExpertQA) 0.63 / 0.62,
    0.67 / 0.65, 0.56 / 0.58; fp32 weights at 0.68 / 0.68 with 0.75 / 0.72, 0.75 / 0.75,
    0.62 / 0.64, as on CPU."""
    import torch

    if recipe.model.dtype != "auto":
        return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[recipe.model.dtype]
    return torch.bfloat16 if recipe.method != "full" and bf16_gpu(recipe) else torch.float32


def bf16_gpu(recipe: Recipe) -> bool:
    """The run trains on a GPU that has bf16 (``train.use_cpu`` off)."""
    import torch

    return torch.cuda.is_available() and torch.cuda.is_bf16_supported() and not recipe.train.use_cpu


def attention_implementation(recipe: Recipe) -> str | None:
    """``model.attn_implementation``, or with ``data.packing`` and none named,
    ``sdpa_varlen`` (:mod:`citetrain.models.attention`: each packed example attended on its own
    instead of sdpa's mask over the whole row); remote modeling code keeps its own default."""
    from citetrain.models.attention import NAME

    if recipe.model.attn_implementation or not recipe.data.packing or recipe.model.trust_remote_code:
        return recipe.model.attn_implementation
    return NAME


def load_model(recipe: Recipe, path: str, local_rank: int):
    """The causal LM: 4-bit (each process's model on its own device, never ``auto``) for QLoRA."""
    import torch
    from transformers import AutoModelForCausalLM

    kwargs: dict[str, Any] = {"revision": recipe.model.revision, "dtype": torch_dtype(recipe),
                              "trust_remote_code": recipe.model.trust_remote_code}
    impl = attention_implementation(recipe)
    if impl:
        from citetrain.models.attention import register

        register(impl)
        kwargs["attn_implementation"] = impl
    if recipe.method == "qlora":
        from transformers import BitsAndBytesConfig

        q = recipe.quantization
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type=q.quant_type,
            bnb_4bit_use_double_quant=q.double_quant,
            bnb_4bit_compute_dtype={"bf16": torch.bfloat16, "fp16": torch.float16,
                                    "fp32": torch.float32}[q.compute_dtype])
        on_gpu = torch.cuda.is_available() and not recipe.train.use_cpu
        kwargs["device_map"] = {"": f"cuda:{local_rank}" if on_gpu else "cpu"}
    model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    if recipe.method == "qlora":
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(
            model, use_gradient_checkpointing=recipe.model.gradient_checkpointing)
    if recipe.model.adapter:
        model = load_adapter(model, recipe.model.adapter)
    return model


def load_adapter(model: Any, folder: str):
    """``model`` with the LoRA adapter saved in ``folder`` (an earlier run's ``final/``), trainable:
    the run goes on training it (the trainers then get no ``peft_config``; GRPO and DPO keep a
    frozen copy as their reference model)."""
    from peft import PeftModel

    if not (Path(folder) / "adapter_config.json").is_file():
        raise CitetrainError(f"model.adapter: {folder} holds no LoRA adapter (adapter_config.json)")
    return PeftModel.from_pretrained(model, folder, is_trainable=True)


def load_tokenizer(recipe: Recipe, path: str):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path, revision=recipe.model.revision,
                                        trust_remote_code=recipe.model.trust_remote_code)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def peft_config(recipe: Recipe):
    """The LoRA config of a new adapter; ``None`` for method full and with ``model.adapter``
    (its saved config goes on)."""
    if recipe.method == "full" or recipe.model.adapter:
        return None
    from peft import LoraConfig

    lo = recipe.lora
    return LoraConfig(r=lo.r, lora_alpha=lo.alpha, lora_dropout=lo.dropout,
                      target_modules=lo.target_modules, modules_to_save=lo.modules_to_save,
                      task_type="CAUSAL_LM")


def _checkpointing_arg() -> str:
    """``activation_checkpointing`` where the installed ``TrainingArguments`` has it (newer
    transformers 5 releases, whose ``gradient_checkpointing`` is a deprecated alias that warns on
    every run), else ``gradient_checkpointing``."""
    from dataclasses import fields

    from transformers import TrainingArguments

    names = {f.name for f in fields(TrainingArguments)}
    return "activation_checkpointing" if "activation_checkpointing" in names else "gradient_checkpointing"


def trainer_kwargs(recipe: Recipe, has_eval: bool, *, eval_batch_size: int) -> dict[str, Any]:
    """The ``TrainingArguments`` every run shares (SFT and cross-encoder): schedule, batch sizes,
    checkpoints, precision (bf16 where the GPU has it), in-loop evaluation, trackers, warmup."""
    t, e = recipe.train, recipe.eval
    bf16 = bf16_gpu(recipe) if t.bf16 == "auto" else bool(t.bf16)
    evaluate = has_eval and e.enabled
    kwargs: dict[str, Any] = dict(
        output_dir=t.output_dir, max_steps=t.max_steps, num_train_epochs=t.epochs,
        learning_rate=t.learning_rate, per_device_train_batch_size=t.batch_size,
        per_device_eval_batch_size=eval_batch_size, gradient_accumulation_steps=t.grad_accum,
        lr_scheduler_type=t.scheduler, weight_decay=t.weight_decay, seed=t.seed,
        data_seed=t.seed, logging_steps=t.logging_steps, save_strategy="steps",
        save_steps=t.save_steps, save_total_limit=t.save_total_limit, bf16=bf16, use_cpu=t.use_cpu,
        **{_checkpointing_arg(): recipe.model.gradient_checkpointing},
        eval_strategy="steps" if evaluate else "no", eval_steps=e.steps if evaluate else None,
        report_to=recipe.logging.report_to, run_name=recipe.logging.run_name or recipe.name,
        ddp_find_unused_parameters=False, disable_tqdm=False)
    if t.warmup_steps is not None:
        kwargs["warmup_steps"] = t.warmup_steps
    if t.warmup_ratio is not None:
        kwargs["warmup_steps"] = t.warmup_ratio  # transformers 5: a float < 1 is a ratio
    return kwargs


def sft_config(recipe: Recipe, has_eval: bool):
    """trl's ``SFTConfig`` from the recipe (loss on the completion only).

    ``data.packing`` is kept with every attention implementation (eager and sdpa included, not
    only flash attention), because packed sequences cannot attend to each other here:

    * trl packs best-fit-decreasing (``packing_strategy="bfd"``, pinned below: ``"wrapped"``
      would cut examples and keep a plain attention mask) and then trains padding-free: the
      collator concatenates the packed examples into one row with ``position_ids`` restarting
      at 0 for each example (plus ``cu_seq_lens_*`` for varlen kernels) and **no**
      ``attention_mask``, and drops the label of each example's first token
      (trl 1.16 ``sft_trainer.py`` l. 177-218 and 916);
    * trl calls the model with ``use_cache=False`` (``compute_loss``, l. 1564);
    * with no ``attention_mask`` and no cache, transformers 5 (``masking_utils.py``
      ``_preprocess_mask_arguments`` l. 873-881, ``find_packed_sequence_indices`` l. 750,
      ``create_causal_mask`` l. 1003-1008) finds the examples from the ``position_ids`` jumps
      and builds a block-diagonal causal mask for eager / sdpa / flex; flash attention uses the
      ``cu_seq_lens`` boundaries. RoPE uses the restarted positions.

    ``tests/train/test_packing.py`` checks that a packed row gives the same logits as its
    examples run one by one. Modeling code from ``trust_remote_code`` may build its own mask
    without those ``position_ids`` checks: that case keeps packing with a warning line.
    """
    from trl import SFTConfig

    t = recipe.train
    kwargs = trainer_kwargs(recipe, has_eval, eval_batch_size=t.batch_size)
    kwargs.update(
        prediction_loss_only=True, max_length=recipe.data.max_length,
        packing=recipe.data.packing, completion_only_loss=True, dataset_num_proc=None)
    if recipe.data.packing:
        kwargs["packing_strategy"] = "bfd"  # padding-free with per-example position_ids
        impl = recipe.model.attn_implementation or ""
        if recipe.model.trust_remote_code and "flash" not in impl:
            print("[citetrain] warning: data.packing with trust_remote_code and attention "
                  f"{impl or 'default'}: packed examples stay apart only if the remote modeling "
                  "code masks by position_ids (as transformers' own models do); use "
                  "model.attn_implementation: flash_attention_2 or data.packing: false if unsure",
                  flush=True)
    kwargs.update(best_checkpoint_kwargs(recipe, has_eval))
    return SFTConfig(**kwargs)


def best_checkpoint_kwargs(recipe: Recipe, has_eval: bool) -> dict[str, Any]:
    """The arguments that keep the best checkpoint by ``eval.best_metric`` (none when unset)."""
    e = recipe.eval
    if not (e.best_metric and has_eval and e.enabled):
        return {}
    return dict(load_best_model_at_end=True, metric_for_best_model=f"eval_{e.best_metric}",
                greater_is_better=best_direction(recipe))


def run_identity(recipe: Recipe, world: int) -> dict[str, Any]:
    """What a checkpoint must agree on to be resumed: the world size and every recipe setting
    except step counts, logging, evaluation and launch details."""
    data = recipe.model_dump(mode="json")
    for key in ("max_steps", "epochs", "logging_steps", "save_steps", "save_total_limit", "resume"):
        data["train"].pop(key, None)
    for key in ("eval", "logging", "launch", "hub"):
        data.pop(key, None)
    return {"world_size": world, "recipe": data}


def write_json(path: Path, data: Any) -> None:
    from citetrain.io.writers import atomic_write_text

    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
