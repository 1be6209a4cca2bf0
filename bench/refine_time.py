"""Benchmark: refining time per answer at few and at many passages, on this CPU.

Two sets of answers: QuoteSum dev (about 3 passages each) and WiCE dev read as evidence finding
(one claim over its page's sentences, about 120 passages each), from ``../shared/data`` when
present, else seeded synthetic records (:func:`citetrain.synth.records.synth_records`) with 3 and
with 120 passages. Marks are removed first (:func:`citetrain.refine.inputs.make_inputs`), then each
refiner (``load_refiner_row``: ``baseline:cover``, ``baseline:spans``, ``lexical``,
``lexical+joint`` and every ``--refiner`` checkpoint, asked one passage at a time and jointly)
refines the same answers; printed per row: answers, statements, seconds per answer (loading not
counted) and, where the records carry reference citations, F1 against them. Figures only; nothing is asserted.
Run: ``HF_HUB_OFFLINE=1 python bench/refine_time.py [--records 40] [--threads 2] [--refiner CKPT]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

DATA = REPO.parent / "shared" / "data"
REAL = {3: ("QuoteSum dev", DATA / "quotesum" / "dev.jsonl", "quotesum"),
        120: ("WiCE dev evidence", DATA / "wice" / "entailment_retrieval_claim" / "dev.jsonl",
              "wice_evidence")}


def answers(passages: int, n: int):
    """``n`` answers with reference citations and about ``passages`` passages, and their source."""
    from citetrain.refine.benchmark import read_gold_records

    name, path, fmt = REAL[passages]
    if path.is_file():
        records, _ = read_gold_records(str(path), fmt, n)
        mean = sum(len(r.docs) for r in records) / len(records)
        return records, f"{name} (first {len(records)}, {mean:.1f} passages on average)"
    from citetrain.synth.records import synth_records

    return synth_records(n, seed=0, n_docs=(passages, passages)), \
        f"synthetic ({n}, seed 0, {passages} passages)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=40)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--refiner", action="append", default=[], metavar="CKPT",
                    help="a pair-refiner checkpoint (timed alone and +joint; repeatable)")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from citetrain.metrics.gold_citations import gold_citations
    from citetrain.refine.inputs import make_inputs
    from citetrain.refine.load import JOINT_SUFFIX, load_refiner_row

    names = ["baseline:cover", "baseline:spans", "lexical", "lexical" + JOINT_SUFFIX]
    names += [n + s for n in args.refiner for s in ("", JOINT_SUFFIX)]
    refiners = [load_refiner_row(n) for n in names]
    print(f"torch threads {args.threads}")
    for passages in (3, 120):
        records, source = answers(passages, args.records)
        print(f"\n{source}\n{'refiner':<44}{'answers':>8}{'stmts':>7}{'s/answer':>10}{'F1':>7}")
        inputs = make_inputs(records, "removed", 0) if all(
            (r.model_extra or {}).get("gold") is not None for r in records) else records
        for refiner in refiners:
            start = time.perf_counter()
            refined, counts = refiner.refine(inputs, {})
            per_answer = (time.perf_counter() - start) / len(inputs)
            f1 = gold_citations(refined).scores["gold_f1"] if inputs is not records else float("nan")
            print(f"{refiner.name:<44}{len(inputs):>8}{counts['statements']:>7}"
                  f"{per_answer:>10.4f}{f1:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
