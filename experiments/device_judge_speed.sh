#!/bin/bash
# The GPU rows of a judge on ExpertQA's answers (issue 14: >= 1,000 statements/s), alone and read
# with lexical recall, in one call on a lent GPU machine (the run tool).
# Here, first, one of:
#   bash experiments/device_judge_speed.sh carry JUDGE_FOLDER
#     data/gpu14/m: that judge in fp16 (45 MB for MiniLM-L6's shape; the 64 MiB carry would not
#     hold its fp32 weights; read back as fp32 / bf16 by the bench's rows);
#   bash experiments/device_judge_speed.sh carry
#     no judge at hand (a fresh checkout has no runs/): data/gpu14/base, all-MiniLM-L6-v2 in fp16,
#     from which the device first trains recipes/judge-crossencoder.yaml at the quality judge's 128
#     tokens (~1 min on an H100); the rows are then this judge's, and its pairs are printed;
#   both also write the human-labelled files as ../shared/data/... (experiments/device_carry.sh's
#   tarball) and .whl/.
# Device:  run carry [".whl", "data/gpu14"], command `bash experiments/device_judge_speed.sh`
#   prints bench/judge_throughput.py --device cuda on 600 ExpertQA answers, three ways: read with
#   lexical recall with the tokenizer's threads on and off, and the judge alone; JSON under $OUT.
# A dry run on a CPU: DEVICE=cpu RECORDS=5 TRAIN_SETS="--set train.max_steps=2" bash
#   experiments/device_judge_speed.sh (TRAIN_SETS replaces the GPU training settings).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
if [ "${1:-}" = carry ]; then
  [ -f data/carry/shared_data.tar.xz ] && [ -d .whl ] && [ -f data/carry/minilm16/model.safetensors ] \
    || bash experiments/device_carry.sh || exit 1
  rm -rf data/gpu14 && mkdir -p data/gpu14 && cp data/carry/shared_data.tar.xz data/gpu14/ || exit 1
  if [ -n "${2:-}" ]; then
    mkdir -p data/gpu14/m
    for f in "$2"/*.json "$2"/*.txt "$2"/README.md; do [ -f "$f" ] && cp "$f" data/gpu14/m/; done
    python experiments/half_weights.py "$2/model.safetensors" data/gpu14/m/model.safetensors || exit 1
  else
    cp -r data/carry/minilm16 data/gpu14/base || exit 1
  fi
  du -sh .whl data/gpu14
  exit 0
fi
DEVICE=${DEVICE:-cuda}
if [ "$DEVICE" = cuda ]; then  # the device's Python lacks these; a CPU dry run uses this one's
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >/dev/null 2>&1 || exit 1
fi
export PYTHONPATH=/tmp/site:$PWD HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
[ -d ../shared/data ] || { mkdir -p ../shared && tar -xJf data/gpu14/shared_data.tar.xz -C ../shared; } || exit 1
[ "$DEVICE" = cuda ] && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
M=data/gpu14/m
if [ ! -f $M/model.safetensors ]; then
  [ -d data/gpu14/base ] || { echo "no data/gpu14/m or data/gpu14/base: run the carry step first"; exit 1; }
  M=runs/gpu14/final
  echo "=== training $M from data/gpu14/base (recipes/judge-crossencoder.yaml, 128 tokens)"
  python3 -m citetrain.train recipes/judge-crossencoder.yaml --set model.name_or_path=data/gpu14/base \
    --set data.max_length=128 --set train.output_dir=runs/gpu14 \
    ${TRAIN_SETS:---set train.use_cpu=false --set train.bf16=false} 2>&1 | grep -v "Warn\|warn" | tail -8
  [ -f $M/model.safetensors ] || { echo "training failed"; exit 1; }
  echo "trained in $(( $(date +%s) - T0 )) s"
fi
for cfg in lexical:true lexical:false alone:true; do
  how=${cfg%%:*}; threads=${cfg##*:}; flag=""; [ "$how" = lexical ] && flag=--with-lexical
  echo "=== $how, TOKENIZERS_PARALLELISM=$threads"
  TOKENIZERS_PARALLELISM=$threads timeout 170 python3 bench/judge_throughput.py --device $DEVICE \
    --crossencoder $M --records ${RECORDS:-600} --gen-shape tiny --gen-prompts 8 --max-new-tokens 8 \
    $flag --json "${OUT:-/tmp}/$how-$threads.json" 2>&1 | grep -v "Warn\|warn\|Loading" | tail -20
done
echo "all $(( $(date +%s) - T0 )) s"
