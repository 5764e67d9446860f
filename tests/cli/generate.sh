#!/usr/bin/env bash
# poreflow generate spe10 writes the four INCLUDE files of a small field, the same twice, and
# refuses a bad grid; poreflow bench linalg runs and verifies a small case: products, dots and a
# system of each kind with every solver, whose JSON rows say what they timed.
# usage: generate.sh POREFLOW_BINARY SOURCE_DIR
set -u
bin=$1
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/lib/expect_fail.sh"

for d in a b; do
  if ! "$bin" generate spe10 --out "$tmp/$d" --grid 12x17x9 --seed 5 -q > "$tmp/$d.log" 2>&1; then
    echo "FAIL: generate spe10 into $tmp/$d"; cat "$tmp/$d.log"; failures=$((failures + 1))
  fi
done
for f in PERMX.INC PERMY.INC PERMZ.INC PORO.INC; do
  if ! cmp -s "$tmp/a/$f" "$tmp/b/$f"; then echo "FAIL: $f differs between two runs"; failures=$((failures + 1)); fi
done
# 12 x 17 x 9 = 1836 values: 306 lines of six between the keyword and the slash
n=$(grep -v -- '^--' "$tmp/a/PORO.INC" | sed -n '2,$p' | grep -v '^/$' | wc -w)
[ "$n" -eq 1836 ] || { echo "FAIL: PORO.INC holds $n values, not 1836"; failures=$((failures + 1)); }
grep -q "fingerprint" "$tmp/a.log" || { echo "FAIL: no fingerprint printed"; failures=$((failures + 1)); }

expect_fail "--grid: '12x17' is not NXxNYxNZ" generate spe10 --out "$tmp/c" --grid 12x17
expect_fail "every side must be in \[1, 4096\]" generate spe10 --out "$tmp/c" --grid 0x17x9
expect_fail "--sizes: 'huge' is not N, N\^3, 27ptN, denseN, dotN, poissonN, spe10, spe10-2p or impes-case2" bench linalg --backends serial --sizes huge
expect_fail "--variants: 'x' is not auto, vendor or a lanes count" bench linalg --backends serial --sizes 8 --variants x
expect_fail "--solvers: 'gmres' is not sor, jacobi, ilu0, amg, amg-w, amg-f, cpr or cpr-f" bench linalg --backends serial --sizes poisson8 --solvers gmres
expect_fail "--sor-omega: '2.5' is not auto, lanczos or a number in \(0, 2\)" bench linalg --backends serial --sizes poisson8 --sor-omega 2.5
expect_fail "--sizes: 'poisson2': a Poisson grid side in \[3, 1024\]" bench linalg --backends serial --sizes poisson2

if ! "$bin" bench linalg --backends serial,omp --sizes 9,27pt5,dense7 --sample-seconds 0.001 -q > "$tmp/bench.log" 2>&1; then
  echo "FAIL: bench linalg on a small case"; cat "$tmp/bench.log"; failures=$((failures + 1))
fi
if ! POREFLOW_COMMIT=abc1234 "$bin" bench linalg --backends serial,omp --sizes 7,dot1000,poisson10,spe10:9x11x6,spe10-2p:9x11x6 --solves 1 \
    --sample-seconds 0.001 --json "$tmp/systems.json" -q > "$tmp/systems.log" 2>&1; then
  echo "FAIL: bench linalg's systems on a small case"; cat "$tmp/systems.log"; failures=$((failures + 1))
fi
grep -q '"commit" : "abc1234"' "$tmp/systems.json" 2>/dev/null || { echo "FAIL: the JSON does not name POREFLOW_COMMIT"; failures=$((failures + 1)); }
# every system row ran (serial is listed), converged and names its iterations and setup
for v in '"sor simple"' '"sor zline"' '"cg+jacobi"' '"cg+ilu0"' '"cg+amg"' '"bicgstab+ilu0"' '"bicgstab+cpr"' '"cub dot"\|"vec dot"' '"stencil7 scalar"'; do
  grep -q "$v" "$tmp/systems.json" 2>/dev/null || { echo "FAIL: no $v row in the JSON"; failures=$((failures + 1)); }
done
n=$(grep -c '"iterations"' "$tmp/systems.json" 2>/dev/null)
[ "${n:-0}" -eq 24 ] || { echo "FAIL: $n system rows with iterations, not 24 (12 a backend)"; failures=$((failures + 1)); }

# impes3d case 2's pressure system from a run of the model: SOR and CG + AMG solve it to 1e-8
expect_fail "'impes-case2:0': impes-case2 or impes-case2:DAY with a day > 0" bench linalg --backends serial --sizes impes-case2:0
expect_fail "needs '$tmp/none/impes_case2.toml' \(--cases-dir names the folder of impes_case2.toml\)" bench linalg --backends serial \
  --sizes poisson8,impes-case2 --cases-dir "$tmp/none"
expect_fail "impes-case2:9000: the day must be inside the run's \(0, 450\)" bench linalg --backends serial --sizes impes-case2:9000 \
  --cases-dir "$src/cases"
if "$bin" bench linalg --backends omp --sizes impes-case2:2 --solvers sor,amg --solves 1 --cases-dir "$src/cases" \
    --json "$tmp/case2.json" -q > "$tmp/case2.log" 2>&1; then
  for v in '"variant" : "sor zline"' '"variant" : "cg+amg"'; do
    grep -q "$v" "$tmp/case2.json" || { echo "FAIL: no $v row of case 2's system"; failures=$((failures + 1)); }
  done
  # its three rows (sor simple, sor zline, cg+amg on omp), each on case 2's system and verified
  [ "$(grep -c '"layout" : "impes-case2 day 2"' "$tmp/case2.json")" -eq 3 ] &&
    [ "$(grep -c '"verified" : true' "$tmp/case2.json")" -eq 3 ] || { echo "FAIL: case 2's rows"; cat "$tmp/case2.json"; failures=$((failures + 1)); }
else
  echo "FAIL: bench linalg on impes-case2:2"; cat "$tmp/case2.log"; failures=$((failures + 1))
fi

# a row not run says so ("ran": false) and claims no verification; the bench still exits 0: the
# serial backend times only Thomas, so cr asked for by name is a row that did not run
if "$bin" bench tridiag --backends serial --shapes 65x3 --variants thomas,cr --sample-seconds 0.001 \
    --json "$tmp/notrun.json" -q > "$tmp/notrun.log" 2>&1; then
  # (one row of each layout not run: every such row, and only those, unverified)
  nf=$(grep -c '"ran" : false' "$tmp/notrun.json"); nv=$(grep -c '"verified" : false' "$tmp/notrun.json")
  if [ "$nf" -ge 1 ] && [ "$nf" -eq "$nv" ] && [ "$(grep -c '"ran" : true' "$tmp/notrun.json")" -ge 1 ]; then
    echo "ok: a row not run is marked so, and not verified"
  else
    echo "FAIL: the row not run:"; cat "$tmp/notrun.json"; failures=$((failures + 1))
  fi
else
  echo "FAIL: bench tridiag with a row not run exited non-zero"; cat "$tmp/notrun.log"; failures=$((failures + 1))
fi

# --amg-coarse-size reaches the AMG's setup: spe10:9x11x6 (1 144 rows) coarsens once by default (500)
# and not at all when 1 500 rows may be the coarsest; the row records the size
expect_fail "--amg-coarse-size: Value 2001 not in range 0 to 2000" bench linalg --backends serial --sizes poisson8 --amg-coarse-size 2001
for c in 0 1500; do
  if ! "$bin" bench linalg --backends serial --sizes spe10:9x11x6 --solvers amg --solves 1 --amg-coarse-size $c \
      --json "$tmp/coarse_$c.json" -q > "$tmp/coarse_$c.log" 2>&1; then
    echo "FAIL: bench linalg --amg-coarse-size $c"; cat "$tmp/coarse_$c.log"; failures=$((failures + 1))
  fi
done
grep -q 'AMG 2 levels: 1144 -> ' "$tmp/coarse_0.json" 2>/dev/null || { echo "FAIL: the default coarsest size did not coarsen 1144 rows once"; failures=$((failures + 1)); }
grep -q 'AMG 1 levels: 1144 rows' "$tmp/coarse_1500.json" 2>/dev/null || { echo "FAIL: --amg-coarse-size 1500 still coarsened 1144 rows"; failures=$((failures + 1)); }
grep -q '"amg_coarse_size" : 1500' "$tmp/coarse_1500.json" 2>/dev/null || { echo "FAIL: the row does not record --amg-coarse-size"; failures=$((failures + 1)); }

[ $failures -eq 0 ] || { echo "$failures generate case(s) failed"; exit 1; }
echo "generate spe10 and bench linalg: ok"
