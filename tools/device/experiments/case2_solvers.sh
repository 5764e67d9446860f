#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): impes3d case 2's whole run (cases/impes_case2.toml,
# 450 days) with each pressure solver of SOLVERS on cuda and NVIDIA's OpenCL, for issue 22's "case 2
# whole run on cuda with CG + AMG against SOR". REPS rounds (3); the solvers' order turns each round,
# so none always runs first. EXTRA: more arguments of every run. --no-output, as bench impes3d's case2-full. Logs: $OUT/logs/c2_*.log.
pf=${PF:-build-gpu/apps/poreflow}
mkdir -p "$OUT/logs"
solvers=(${SOLVERS:-sor cg-amg cg-amgf})
settings() {  # the --set arguments of a solver's name
  case $1 in
    sor) ;;
    cg-amg) echo "--set 'pressure.solver=\"cg\"' --set 'pressure.preconditioner=\"amg\"'" ;;
    cg-amg-every) echo "--set 'pressure.solver=\"cg\"' --set pressure.amg_reuse=1" ;;  # every level every step
    cg-amgf) echo "--set 'pressure.solver=\"cg\"' --set 'pressure.preconditioner=\"amg\"' --set pressure.amg_float=true" ;;
    bicgstab-amg) echo "--set 'pressure.solver=\"bicgstab\"' --set 'pressure.preconditioner=\"amg\"'" ;;
    *) echo "unknown solver $1" >&2; exit 2 ;;
  esac
}
n=${#solvers[@]}
for rep in $(seq 1 "${REPS:-3}"); do
  for b in ${BACKENDS:-cuda opencl}; do
    for k in $(seq 0 $((n - 1))); do
      s=${solvers[$(((k + rep - 1) % n))]}
      name="${s}_${b}_r$rep"
      log="$OUT/logs/c2_$name.log"
      start=$EPOCHREALTIME
      eval "\"$pf\" run cases/impes_case2.toml --backend $b --cl-platform NVIDIA --no-output $(settings "$s") ${EXTRA:-}" > "$log" 2>&1
      rc=$?
      end=$EPOCHREALTIME
      echo "r$rep $b $s exit $rc process $(awk "BEGIN{printf \"%.3f\", $end - $start}") s: $(grep -E 'steps to t' "$log" | sed 's/ on .*//')" \
        "$(grep -E '^ +(seconds_|pressure_iterations_total|sor_iterations_total|oil_produced|mass_balance|retried|pressure_amg|pressure_solves)' "$log" | tr -s ' ' | tr '\n' ' ')"
    done
  done
done
