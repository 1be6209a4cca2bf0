"""``citetrain export MODEL --out DIR``: a cross-encoder judge as ONNX or OpenVINO IR
(citetrain/judges/export.py)."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.judges.openvino_ir import CALIBRATION_PAIRS  # light: no model library

    p = sub.add_parser(name, help="export a cross-encoder judge as ONNX or OpenVINO, with its model card",
                       description="Write MODEL (a trained cross-encoder / classifier folder) for another "
                       "runtime into --out: the model, tokenizer, config and a README stating the "
                       "preprocessing it needs. citetrain reads the folder with crossencoder:DIR or "
                       "classifier:DIR and applies that preprocessing, with the runtime for the model.")
    p.add_argument("model", help="model folder, e.g. runs/judge-crossencoder/final")
    p.add_argument("--out", required=True, help="folder to write (replaced as a whole when done)")
    p.add_argument("--runtime", choices=("onnx", "openvino"), default="onnx",
                   help="onnx: model.onnx for ONNX Runtime (default); openvino: OpenVINO IR")
    p.add_argument("--int8", action="store_true", help="int8: ONNX Runtime's dynamic quantization, "
                   "or (openvino) NNCF's post-training quantization calibrated on --calibration")
    p.add_argument("--calibration", metavar="DATASET", help="openvino --int8: a datasets folder of "
                   "premise/hypothesis pairs to calibrate on (its train split), e.g. the judge's "
                   "training data (default: none)")
    p.add_argument("--calibration-pairs", type=int, default=CALIBRATION_PAIRS, metavar="N",
                   help=f"pairs drawn from --calibration (default {CALIBRATION_PAIRS})")
    p.add_argument("--calibration-seed", type=int, default=0, metavar="S", help="their draw's seed")
    p.add_argument("--whole-last-layer", action="store_true", help="export a BERT judge's last "
                   "layer for every token (default: for the first token only, the one its head "
                   "reads: the same logits for less work)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.io.console import quiet_libraries
    from citetrain.models.package_paths import model_folder

    model_folder(args.model)  # a wrong path: one line, before the model libraries load
    from citetrain.judges.export import export_judge

    quiet_libraries(None)
    card = export_judge(args.model, args.out, runtime=args.runtime, int8=args.int8,
                        calibration=args.calibration, calibration_size=args.calibration_pairs,
                        calibration_seed=args.calibration_seed,
                        first_token=not args.whole_last_layer)
    files = "model.onnx" if args.runtime == "onnx" else "openvino_model.xml/.bin"
    print(f"wrote {args.out}: {files} ({'int8' if args.int8 else 'fp32'}), tokenizer, config, README.md")
    print(f"  last layer: {card['last_layer']}")
    print(f"  preprocessing: premise {card['premise']}, hint {card['hint']}, max length "
          f"{card['max_length']}")
    print(f"  against the PyTorch model on {card['check_pairs']} check pairs: max |Δ| probability "
          f"{card['max_abs_diff_prob']:.2e}, expected level {card['max_abs_diff_expected']:.2e}")
    return 0
