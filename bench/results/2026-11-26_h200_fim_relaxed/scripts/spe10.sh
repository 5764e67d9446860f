set -e
build-gpu/apps/poreflow generate spe10 --out validation/decks/spe10 > /dev/null
for b in cuda opencl; do echo "== SPE10 $b"; /usr/bin/time -f "process wall %e s" build-gpu/apps/poreflow run validation/decks/SPE10.DATA --backend $b --cl-platform NVIDIA -o /tmp/o_spe10_$b --set output.vtk=false --set output.png=false 2>&1 | grep -v "\[info\] step"; done
