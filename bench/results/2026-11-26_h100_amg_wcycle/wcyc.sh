set -e
build-gpu/apps/poreflow generate spe10 --out validation/decks/spe10 > /dev/null
build-gpu/apps/poreflow bench linalg --backends cuda,opencl --cl-platform NVIDIA --sizes spe10,poisson128 --solvers sor,amg,amg-w --solves 3 --json $OUT/linalg_wcycle.json 2>&1 | grep -v "^\[" | tail -30
for d in SPE10 HETERO; do for c in v w; do for b in cuda; do echo "== $d $b amg_cycle=$c"; build-gpu/apps/poreflow run validation/decks/$d.DATA --backend $b --cl-platform NVIDIA -o /tmp/o_${d}_$c --set output.vtk=false --set output.png=false --set "linear.amg_cycle=\"$c\"" 2>&1 | grep -E "error|steps to|newton_iterations_total|linear_iterations_total|seconds_linear|retried|refreshes|oil_produced"; done; done; done
