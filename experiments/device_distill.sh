#!/bin/bash
# One call on a lent GPU machine (the run tool; carry [".whl", "data/carry"] made by
# experiments/device_carry.sh): fold teachers that read their folds clause by clause and, beside them,
# the same teachers reading whole statements (experiments/judge_distill.py --read clauses|whole, four
# folds of seeds $TSEEDS), each teacher file with the built pairs as transfer pairs, and students
# mixed-kd50 of seeds $SEEDS from each (human + 4,000 built pairs, teacher weight 0.5).
# What comes back under $OUT: res.tar.gz (every run's figures and per-pair held-out scores, the
# teacher files, the logs; refreshed every 15 s, so a call stopped at its limit still returns
# what finished) and m16.part-* (the $BRING arm's seed-42 student in fp16, split to fit: `cat
# m16.part-* > model.safetensors` beside res.tar.gz's model/ folder). Tables here with
# python experiments/judge_seeds.py --row NAME=RUN,... --combine lexmean.
# Run (device): bash experiments/device_distill.sh   [READS="clauses whole" SEEDS=42,1,2,3 TSEEDS=42
#   PARALLEL=12 EXTRA="--set data.max_length=128" (more judge_distill.py arguments)]
T0=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
mkdir -p ../shared && tar -xJf data/carry/shared_data.tar.xz -C ../shared && tar -xJf data/carry/pairs.tar.xz || exit 1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
python3 -c "import torch, transformers, datasets; print(torch.__version__, transformers.__version__, datasets.__version__)"
COL=/tmp/col; mkdir -p $COL
( while true; do sleep 15; tar -czf $OUT/res.tmp -C $COL . 2>/dev/null; mv $OUT/res.tmp $OUT/res.tar.gz; done ) &
LOOP=$!
python3 -c "import sys; sys.path.insert(0, 'experiments'); from judge_campaign import prepare, REPO; prepare(REPO / 'data/judge-crossencoder-tok/dataset')" || exit 1
echo "prep $(( $(date +%s) - T0 )) s"
common="--base data/carry/minilm16 --folds 4 --weights 0.5 --transfer --built-max 4000 --seeds ${SEEDS:-42,1,2,3} --teacher-seeds ${TSEEDS:-42} --student-rows mixed-kd50 --set train.use_cpu=false --set train.bf16=false --parallel ${PARALLEL:-12} ${EXTRA:-}"
pids=""
for r in ${READS:-clauses whole}; do
  python3 experiments/judge_distill.py --out runs/d-$r $common --read $r --collect $COL/$r > $COL/$r.log 2>&1 &
  pids="$pids $!"
done
wait $pids
for r in ${READS:-clauses whole}; do cp runs/d-$r/teacher*.jsonl $COL/$r/ 2>/dev/null; done
echo "all $(( $(date +%s) - T0 )) s"
M=runs/d-${BRING:-clauses}/mixed-kd50-s42/final
if [ -f $M/model.safetensors ]; then
  mkdir -p $COL/model && cp $M/*.json $M/*.txt $M/README.md $COL/model/ 2>/dev/null
  python3 experiments/half_weights.py $M/model.safetensors /tmp/m16.safetensors && split -b 15M /tmp/m16.safetensors $OUT/m16.part-
fi
tail -5 $COL/*.log
kill $LOOP; sleep 1
tar -czf $OUT/res.tmp -C $COL . && mv $OUT/res.tmp $OUT/res.tar.gz
