"""The options of ``citetrain eval`` (shared by the command line and ``python -m
citetrain.evaluation``, which ``accelerate launch`` runs data-parallel)."""
from __future__ import annotations

import argparse

from citetrain.evaluation.options import MODEL_KINDS, SCORE_CHUNK


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Every option of ``citetrain eval``."""
    p.add_argument("target", help="predictions file (.jsonl/.json, any supported format) or suite "
                   ".yaml; with --model: the questions with passages (outputs may be empty)")
    p.add_argument("--metrics", help="comma list: alce,lenient,aliice,citeeval,correctness "
                   "(default alce,lenient,aliice)")
    p.add_argument("--nli", help="lexical | seq2seq:PATH | classifier:PATH | llm:MODEL (default lexical)")
    p.add_argument("--format", default=None, help="input format (default auto)")
    p.add_argument("--skip-invalid", action="store_true", default=None,
                   help="skip bad records (reported with reasons) instead of stopping (default: the "
                   "suite's skip_invalid, else off)")
    p.add_argument("--limit", type=int, help="score only the first N records (default: the "
                   "suite's limit, else every record)")
    p.add_argument("--out", help="output folder (default eval_results/<name>)")
    p.add_argument("--cache", help="NLI cache file (default ~/.cache/citetrain/nli.sqlite for models)")
    p.add_argument("--no-cache", action="store_true", help="do not use the NLI cache")
    p.add_argument("--score-chunk", type=int, default=SCORE_CHUNK, metavar="N",
                   help=f"records scored per saved chunk (default {SCORE_CHUNK}): memory stays flat, a killed "
                   "run goes on from its finished chunks, processes share the chunks")
    p.add_argument("--strict", action="store_true",
                   help="an LLM judge's verdict still unreadable after its tries stops the run "
                   "(longbench_cite's strict option) instead of leaving its statement unscored")
    p.add_argument("--dry-run", action="store_true",
                   help="print the LLM judges' requests and estimated prompt tokens (characters / "
                   "4), the answers already cached apart, and exit: nothing is sent or scored")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a suite key, e.g. --set nli=lexical:0.6 --set model.chunk=32")
    m = p.add_argument_group("checkpoint", "score a checkpoint's predictions (a suite's model: "
                             "key; these options override it)")
    m.add_argument("--model", metavar="CKPT", help="checkpoint folder: a generator (adapter or "
                   "merged model) generates the predictions; a refiner refines the answers (default: the "
                   "suite's model:, else none: the predictions are scored as given)")
    m.add_argument("--model-kind", choices=MODEL_KINDS,
                   help="auto (default: read from the checkpoint), generator, refiner or judge")
    m.add_argument("--max-new-tokens", type=int, help="cap on generated tokens (default 128)")
    m.add_argument("--batch-size", type=int, help="prompts per generation batch (default 8)")
    m.add_argument("--max-length", type=int, help="cap on prompt + output tokens (default: the "
                   "suite's, else none)")
    m.add_argument("--max-doc-words", type=int, help="passage words in the prompt, as the "
                   "training data's max_doc_words (default: the suite's, else none)")
    m.add_argument("--chunk", type=int, help="records per saved chunk (default 64): a killed run "
                   "resumes from the last finished chunk")
    m.add_argument("--backend", choices=("transformers", "vllm"),
                   help="generation backend (default transformers; vllm when installed)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


# the checkpoint options, as keys of the suite's model:
