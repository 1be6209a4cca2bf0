"""Figures out of fold: a merged teacher file's reading of the training claims, per source.

Fold teachers (``distill.folds`` / ``distill.fold``, merged by ``citetrain teacher`` or
``experiments/judge_distill.py``) read every training pair with the judges that did not train on it:
out-of-fold scores of the judge recipe on claims that no validation split holds. For each source
of ``--dataset``'s train split this prints the pairs the file covers, the teachers' ROC-AUC (the
expected level P(full) + P(partial)/2 of the averaged probabilities), lexical recall's, and their
mean (e + r) / 2, the reading that the issue's held-out table puts against lexical recall; with
``--bootstrap N`` also (e + r) / 2 minus lexical recall with its sd and 95 % interval from N
resamples of the claims (:func:`~citetrain.metrics.meta.bootstrap_auc_difference`). Rows a
teacher file gives their own weight (transfer pairs, built not labelled) are left out.
Run: ``python experiments/judge_oof.py runs/distill/teacher.jsonl [--bootstrap 1000]``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def oof_rows(teacher: Path, dataset: Path) -> dict[str, list[dict]]:
    """Per source (the part before ``:``), the train pairs the teacher file scored, each as
    ``{label, group, expected, lexical}``."""
    import datasets

    from citetrain.nli.registry import make_engine
    from citetrain.judge_training.teacher_scores import pair_key, read_teacher_rows

    scored = {k: probs for k, (probs, weight) in read_teacher_rows(teacher).items() if weight is None}
    train = datasets.load_from_disk(str(dataset))["train"]
    found = [x for x in train if pair_key(x["premise"], x["hypothesis"]) in scored]
    if not found:
        raise SystemExit(f"{teacher}: none of its rows is a train pair of {dataset}")
    lexical = make_engine("lexical", cache=False, progress=False).results(
        [(x["premise"], x["hypothesis"]) for x in found])
    out: dict[str, list[dict]] = {}
    for x, lex in zip(found, lexical):
        no, partial, full = scored[pair_key(x["premise"], x["hypothesis"])]
        out.setdefault(x["source"].partition(":")[0], []).append(
            {"label": x["label"], "group": x["group"], "expected": full + partial / 2,
             "lexical": lex.expected})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("teacher", type=Path, help="a merged teacher file (teacher.jsonl)")
    ap.add_argument("--dataset", type=Path,
                    default=REPO / "data" / "judge-crossencoder-tok" / "dataset")
    ap.add_argument("--bootstrap", type=int, metavar="N")
    ap.add_argument("--bootstrap-seed", type=int, default=0)
    args = ap.parse_args()
    from citetrain.metrics.meta import bootstrap_auc_difference, support_auc

    print(f"{'source':<18}{'pairs':>7}{'claims':>8}{'teachers':>10}{'lexical':>9}{'(e + r) / 2':>13}"
          + ("   (e + r) / 2 - lexical, sd, 95 %" if args.bootstrap else ""))
    for src, rows in sorted(oof_rows(args.teacher, args.dataset).items()):
        labels = [r["label"] for r in rows]
        if len(set(labels)) < 2:
            continue
        e, lex = [r["expected"] for r in rows], [r["lexical"] for r in rows]
        mean = [(a + b) / 2 for a, b in zip(e, lex)]
        line = (f"{src:<18}{len(rows):>7}{len({r['group'] for r in rows}):>8}"
                f"{support_auc(e, labels):>10.3f}{support_auc(lex, labels):>9.3f}"
                f"{support_auc(mean, labels):>13.3f}")
        if args.bootstrap:
            res = bootstrap_auc_difference([mean], lex, labels, [r["group"] for r in rows],
                                           resamples=args.bootstrap, seed=args.bootstrap_seed)
            line += (f"   {res['difference']:+.3f} ± {res['sd']:.3f} "
                     f"[{res['low']:+.3f}, {res['high']:+.3f}]")
        print(line)


if __name__ == "__main__":
    main()
