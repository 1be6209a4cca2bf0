#!/bin/bash
# The GPU rows of a trained judge on ExpertQA's answers (issue 14: >= 1,000 statements/s), alone
# and read with lexical recall, in one call on a lent GPU machine (the run tool).
# Here, first:  bash bench/device_judge_speed.sh carry JUDGE_FOLDER
#   writes data/gpu14/ (git-ignored): the judge in fp16 (45 MB for MiniLM-L6's shape; the 64 MiB
#   carry would not hold its fp32 weights; read back as fp32 / bf16 by the bench's rows) and the
#   human-labelled files as ../shared/data/... (bench/device_carry.sh's tarball), and .whl/.
# Device:  run carry [".whl", "data/gpu14"], command `bash bench/device_judge_speed.sh`
#   prints bench/judge_throughput.py --device cuda on 600 ExpertQA answers, three ways: read with
#   lexical recall with the tokenizer's threads on and off, and the judge alone; JSON under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = carry ]; then
  JUDGE=${2:?give the judge folder, e.g. runs/d4c-cpu/mixed-s42/final}
  [ -f data/carry/shared_data.tar.xz ] && [ -d .whl ] || bash bench/device_carry.sh || exit 1
  mkdir -p data/gpu14/m && cp data/carry/shared_data.tar.xz data/gpu14/ || exit 1
  for f in "$JUDGE"/*.json "$JUDGE"/*.txt "$JUDGE"/README.md; do [ -f "$f" ] && cp "$f" data/gpu14/m/; done
  python bench/half_weights.py "$JUDGE/model.safetensors" data/gpu14/m/model.safetensors || exit 1
  du -sh .whl data/gpu14
  exit 0
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >/dev/null 2>&1 || exit 1
export PYTHONPATH=/tmp/site:$PWD HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p ../shared && tar -xJf data/gpu14/shared_data.tar.xz -C ../shared || exit 1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
for cfg in lexical:true lexical:false alone:true; do
  how=${cfg%%:*}; threads=${cfg##*:}; flag=""; [ "$how" = lexical ] && flag=--with-lexical
  echo "=== $how, TOKENIZERS_PARALLELISM=$threads"
  TOKENIZERS_PARALLELISM=$threads timeout 170 python3 bench/judge_throughput.py --device cuda \
    --crossencoder data/gpu14/m --records 600 --gen-shape tiny --gen-prompts 8 --max-new-tokens 8 \
    $flag --json "${OUT:-/tmp}/$how-$threads.json" 2>&1 | grep -v "Warn\|warn\|Loading" | tail -20
done
