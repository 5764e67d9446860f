# HETERO and THIN on cuda with the old build (1391497) and this one, alternately, twice
for rep in 1 2; do for d in HETERO THIN; do for b in build-gpu-old build-gpu; do
  echo "== rep $rep $d $b"
  $b/apps/poreflow run validation/decks/$d.DATA --backend cuda -o /tmp/ovn_${d}_$b --set output.vtk=false --set output.png=false 2>&1 | grep -E "error|steps to|newton_iterations_total|linear_iterations_total|seconds_linear|seconds_assemble|refreshes"
done; done; done
