"""``citetrain refine PREDICTIONS --refiner CKPT --out FILE``: Generate-then-Refine."""
from __future__ import annotations

import argparse

from citetrain.cli.pair_options import add_pair_options, pair_options


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="replace the citations of any generator's answers with a refiner's",
                       description="Refine citations with any refiner citetrain trains, chosen "
                       "from the checkpoint's config: a causal-LM G-t-R refiner (adapter or merged "
                       "model) or a (passage, statement) support classifier (the quickstart's "
                       "refiner, a cross-encoder judge, classifier:HUB_ID); the text stays "
                       "byte-identical outside the marks. Output is in the "
                       "input's format (ALCE, WebGLM, CiteEval, ExpertQA; others as ALCE). Finished "
                       "chunks go to OUT.partial.jsonl, so a killed run resumes where it stopped.")
    p.add_argument("predictions", help="predictions file (any supported format)")
    p.add_argument("--refiner", required=True,
                   help="refiner checkpoint: causal LM (adapter or model folder) or classifier")
    p.add_argument("--out", required=True, help="output file (.jsonl or .json)")
    p.add_argument("--format", default="auto", help="input format (default auto)")
    p.add_argument("--max-new-tokens", type=int, default=24,
                   help="causal-LM refiners: cap on new tokens per generation (default 24)")
    p.add_argument("--batch-size", type=int, default=8, help="prompts (or pairs) per batch (default 8)")
    p.add_argument("--chunk", type=int, default=64, help="records per saved chunk (default 64)")
    p.add_argument("--max-length", type=int, default=None,
                   help="cap on prompt + output tokens (default: none)")
    p.add_argument("--max-doc-words", type=int, default=None, help="passage words in the prompt, "
                   "as the training data's max_doc_words (default: none)")
    add_pair_options(p)
    p.add_argument("--best-of", type=int, default=None, metavar="N",
                   help="causal-LM refiners: sample N citation sets per statement and keep the one "
                   "with the highest SelfCite context-ablation reward (the given set competes too; default: "
                   "off)")
    p.add_argument("--temperature", type=float, default=1.0, help="--best-of: sampling temperature")
    p.add_argument("--seed", type=int, default=0, help="--best-of: sampling seed")
    p.add_argument("--selfcite-model", default=None,
                   help="--best-of: causal LM that scores the reward (default: the refiner itself)")
    p.add_argument("--selfcite-batch-tokens", type=int, default=8192,
                   help="--best-of: padded tokens per scoring forward pass (default 8192)")
    p.add_argument("--score", action="store_true", help="score before and after with --metrics")
    p.add_argument("--metrics", default="alce,lenient",
                   help="--score: metrics, comma-separated (default alce,lenient)")
    p.add_argument("--nli", default="lexical", help="--score: the metrics' NLI, e.g. lexical or "
                   "classifier:PATH (default lexical)")
    p.add_argument("--skip-invalid", action="store_true", help="skip bad records instead of stopping")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.io.patch import write_in_input_format
    from citetrain.io.readers import read_records
    from citetrain.refine.load import load_refiner
    from citetrain.refine.partial import PartialRefine

    res = read_records(args.predictions, args.format, skip_invalid=args.skip_invalid)
    if res.skipped:
        print(res.summary())
    if args.best_of is not None:
        from citetrain.refine.best_of import load_best_of

        refiner = load_best_of(args.refiner, args.best_of, scorer=args.selfcite_model,
                               temperature=args.temperature, seed=args.seed,
                               max_new_tokens=args.max_new_tokens, batch_size=args.batch_size,
                               max_length=args.max_length, max_words=args.max_doc_words,
                               max_ids=args.max_ids, max_batch_tokens=args.selfcite_batch_tokens)
    else:
        refiner = load_refiner(args.refiner, max_new_tokens=args.max_new_tokens,
                               batch_size=args.batch_size, max_length=args.max_length,
                               max_words=args.max_doc_words, **pair_options(args))
    job = PartialRefine(args.out + ".partial.jsonl", args.predictions,
                        refiner.name if args.best_of is not None else args.refiner)
    refined, counts = job.run(res.records, refiner.refine, chunk=args.chunk,
                              progress=not args.no_progress)
    fmt = write_in_input_format(res, refined, args.out)
    job.finish()
    print(f"{refiner.kind} refiner {args.refiner}: refined {len(refined)} records ({counts['resumed']} resumed from a partial run), "
          f"{counts['statements']} statements: {counts['ids']} ids kept, "
          f"{counts['dropped_out_of_range']} out of range dropped, {counts['not_ids']} outputs "
          f"not ids (citations left as they were), {counts['records_unchanged']} records left "
          f"unchanged; wrote {args.out} ({fmt})")
    if args.score:
        from citetrain.metrics.evaluate import evaluate
        from citetrain.nli.registry import make_engine

        engine = make_engine(args.nli, progress=not args.no_progress)
        before = evaluate(res.records, args.metrics, engine, progress=False).scores
        after = evaluate(refined, args.metrics, engine, progress=False).scores
        print(f"{'score':<22}{'before':>9}{'after':>9}{'change':>9}")
        for m, group in after.items():
            for k, v in group.items():
                b = before[m][k]
                print(f"{k:<22}{b:9.2f}{v:9.2f}{v - b:+9.2f}")
    return 0
