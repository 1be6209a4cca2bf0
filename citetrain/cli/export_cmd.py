"""``citetrain export MODEL --out DIR``: a cross-encoder judge as ONNX (citetrain/judges/export.py)."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="export a cross-encoder judge as ONNX, with its model card",
                       description="Write MODEL (a trained cross-encoder / classifier folder) as ONNX "
                       "into --out: model.onnx, tokenizer, config and a README stating the "
                       "preprocessing it needs. citetrain reads the folder with crossencoder:DIR or "
                       "classifier:DIR and applies that preprocessing, with ONNX Runtime for the model.")
    p.add_argument("model", help="model folder, e.g. runs/judge-crossencoder/final")
    p.add_argument("--out", required=True, help="folder to write (replaced as a whole when done)")
    p.add_argument("--int8", action="store_true", help="ONNX Runtime dynamic int8 quantization")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.io.console import quiet_libraries
    from citetrain.judges.export import export_onnx

    quiet_libraries(None)
    card = export_onnx(args.model, args.out, int8=args.int8)
    print(f"wrote {args.out}: model.onnx ({'int8' if args.int8 else 'fp32'}), tokenizer, config, README.md")
    print(f"  preprocessing: premise {card['premise']}, hint {card['hint']}, max length "
          f"{card['max_length']}, stack {'yes' if card['stack'] else 'none'}")
    print(f"  against the PyTorch model on {card['check_pairs']} check pairs: max |Δ| probability "
          f"{card['max_abs_diff_prob']:.2e}, expected level {card['max_abs_diff_expected']:.2e}")
    return 0
