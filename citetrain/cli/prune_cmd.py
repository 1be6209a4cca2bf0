"""``citetrain prune MODEL --out DIR --intermediate-size N --calibration DATASET``: a judge with
narrower feed-forward blocks and the same reading, no training (citetrain/judges/narrow.py)."""
from __future__ import annotations

import argparse

from citetrain.judges.narrow import HEAD_PAIRS, TOKEN_PAIRS


def widths(text: str) -> int | list[int]:
    """``N`` (every layer) or ``N,N,...`` (one per layer)."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not N or N,N,... (whole numbers)") from None
    return values[0] if len(values) == 1 else values


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="prune a cross-encoder judge's feed-forward blocks, re-fitted to "
                       "keep its reading (no training)",
                       description="Keep N feed-forward units in each layer of MODEL, chosen and "
                       "re-fitted by least squares on calibration pairs so that each layer's output "
                       "stays the judge's, and write a standard model folder to --out.")
    p.add_argument("model", help="model folder, e.g. runs/judge-crossencoder/final")
    p.add_argument("--out", required=True, help="folder to write (replaced as a whole when done)")
    p.add_argument("--intermediate-size", type=widths, required=True, metavar="N[,N...]",
                   help="feed-forward units to keep in each layer, or one width per layer "
                   "(e.g. 768,1024,768,1024,512,1536: an exported judge computes the last layer for "
                   "the first token only, so its width costs almost nothing there)")
    p.add_argument("--calibration", action="append", required=True, metavar="DATASET",
                   help="a datasets folder of premise/hypothesis pairs (its train split), e.g. the "
                   "judge's training data; repeat for more (an equal share of each)")
    p.add_argument("--token-pairs", type=int, default=TOKEN_PAIRS, metavar="N",
                   help=f"pairs whose every token fits the blocks before the last (default {TOKEN_PAIRS})")
    p.add_argument("--head-pairs", type=int, default=HEAD_PAIRS, metavar="N",
                   help=f"pairs whose first token fits the last block (default {HEAD_PAIRS})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the draw's seed (default 0)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.io.console import quiet_libraries
    from citetrain.models.package_paths import model_folder

    model_folder(args.model)  # a wrong path: one line, before the model libraries load
    from citetrain.judges.narrow import prune_judge

    quiet_libraries(None)
    card = prune_judge(args.model, args.out, args.intermediate_size, args.calibration,
                       token_pairs=args.token_pairs, head_pairs=args.head_pairs, seed=args.seed)
    widths = card["widths"]
    kept = str(widths[0]) if len(set(widths)) == 1 else "/".join(map(str, widths))
    print(f"wrote {args.out}: {kept} of {card['had']} feed-forward units a layer, fitted on "
          f"{card['token_pairs']} + {card['head_pairs']} pairs")
    for f in card["layers"]:
        print(f"  layer {f['layer']} ({f['width']} units): squared error {f['error_before']:.5f} -> "
              f"{f['error_after']:.5f} (target variance {f['target_variance']:.4f}, {f['rows']:,} rows)")
    return 0
