#!/usr/bin/env bash
# Bad input gives one clear message naming the problem and a non-zero exit, never a crash.
# usage: bad_input.sh POREFLOW_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case_file=$src/cases/buckley_leverett.toml
failures=0

# expect_fail REGEX ARGS...: the command must exit non-zero (not by a signal) and print REGEX
expect_fail() {
  local regex=$1
  shift
  local out rc
  out=$("$bin" "$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then
    echo "FAIL (exit $rc): poreflow $*"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  elif ! echo "$out" | grep -qE -- "$regex"; then
    echo "FAIL (message): poreflow $* should mention /$regex/, got:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: poreflow $*  ->  $(echo "$out" | tail -n 1)"
  fi
}

run_quick=(run "$case_file" --no-output -q --set grid.points=11 --set time.end=0.5)
expect_fail "unknown backend 'quantum'.*available" "${run_quick[@]}" --backend quantum
expect_fail "unknown key 'rock.permeabilty'" "${run_quick[@]}" --set rock.permeabilty=1
expect_fail "rock.permeability = -0.001 must be a finite number > 0" "${run_quick[@]}" --set rock.permeability=-0.001
expect_fail "rock.porosity = 1.5 must be in \(0, 1\]" "${run_quick[@]}" --set rock.porosity=1.5
expect_fail "rock.porosity = 0 must be in \(0, 1\]" "${run_quick[@]}" --set rock.porosity=0
expect_fail "grid.points = 0 must be an integer >= 3" "${run_quick[@]}" --set grid.points=0
expect_fail "grid.points must be an integer" "${run_quick[@]}" --set grid.points=2.5
expect_fail "case file '$tmp/missing.toml' does not exist" run "$tmp/missing.toml"
expect_fail "unknown precision 'half'" "${run_quick[@]}" --precision half
expect_fail "reduction 'warp_magic'" "${run_quick[@]}" --reduction warp_magic
expect_fail "reduction 'complete_unroll' is not available on the serial backend" "${run_quick[@]}" --backend serial --reduction complete_unroll
expect_fail "expected key=value" "${run_quick[@]}" --set novalue
expect_fail "time.cfl = 2 must be in \(0, 1\]" "${run_quick[@]}" --set time.cfl=2
expect_fail "not a known model" "${run_quick[@]}" --set model=quantum_foam
expect_fail "block size 100" "${run_quick[@]}" --backend omp --block 100
printf 'model = "bl1d"\n[grid\npoints = 3\n' > "$tmp/broken.toml"
expect_fail "broken.toml' line 2" run "$tmp/broken.toml"
expect_fail "not expected|not found|unrecognized|Extra" run "$case_file" --no-such-option
expect_fail "--sizes: 'lots' is not a size" bench reduce --backends serial --sizes lots

# adi2d (papers 002/004)
adi=(run "$src/cases/adi2d.toml" --no-output -q --set grid.points=9 --set time.end=0.002)
expect_fail "grid.points = 2 must be an integer >= 3" "${adi[@]}" --set grid.points=2
expect_fail "time.dt = -0.001 must be a finite number > 0" "${adi[@]}" --set time.dt=-0.001
expect_fail "unknown tridiagonal algorithm 'lu'" "${adi[@]}" --set pressure.algorithm=lu
expect_fail "fluid.k3 = 0 must be a finite number > 0" "${adi[@]}" --set fluid.k3=0
expect_fail "fluid.k3 = -1 must be a finite number > 0" "${adi[@]}" --set fluid.k3=-1
expect_fail "saturations must sum to 1" "${adi[@]}" --set initial.sw=0.5
expect_fail "not a known pattern" "${adi[@]}" --set wells.pattern=spiral

[ $failures -eq 0 ] || { echo "$failures bad-input case(s) failed"; exit 1; }
echo "all bad-input cases give a clear error"
