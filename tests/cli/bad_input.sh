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

source "$(dirname "$0")/lib/expect_fail.sh"

run_quick=(run "$case_file" --no-output -q --set grid.points=11 --set time.end=0.5)
expect_fail "unknown backend 'quantum'.*available" "${run_quick[@]}" --backend quantum
expect_fail "unknown key 'rock.permeabilty'" "${run_quick[@]}" --set rock.permeabilty=1
expect_fail "rock.permeability = -0.001 must be a finite number > 0" "${run_quick[@]}" --set rock.permeability=-0.001
expect_fail "rock.porosity = 1.5 must be in \(0, 1\]" "${run_quick[@]}" --set rock.porosity=1.5
expect_fail "rock.porosity = 0 must be in \(0, 1\]" "${run_quick[@]}" --set rock.porosity=0
expect_fail "grid.points = 0 must be an integer in \[3, 281474976710656\]" "${run_quick[@]}" --set grid.points=0
expect_fail "grid.points must be an integer" "${run_quick[@]}" --set grid.points=2.5
# issue 24: extreme values are refused where they are read, naming the key and the limit
expect_fail "rock.porosity = .* is below the smallest normal number" "${run_quick[@]}" --set rock.porosity=1e-320
expect_fail "grid.points = 4000000000000000000 must be an integer in \[3, 281474976710656\]" "${run_quick[@]}" \
  --set grid.points=4000000000000000000
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
# issue 24: 2^70 ran size 64 (and 2^64 size 1); 2^40 ended in std::bad_alloc
expect_fail "--sizes: '2\^70' is past the limit of 2\^48 = 281474976710656" bench reduce --backends serial --sizes 2^70
expect_fail "--sizes: '2\^64' is past the limit of 2\^48" bench reduce --backends serial --sizes 2^14,2^64
expect_fail "--sizes: '2\^1x' is not a size" bench reduce --backends serial --sizes 2^1x
expect_fail "bench reduce at size 1099511627776 needs .* TiB of memory in float, but .* has .* free" \
  bench reduce --backends serial --sizes 2^40
expect_fail "bench bl1d at size 1099511627776 needs .* TiB of memory in float" bench bl1d --backends serial --sizes 2^40
expect_fail "bench tridiag at 1048576x1048576 needs .* TiB of memory" bench tridiag --backends serial --shapes 2^20x2^20
expect_fail "--shapes: '2\^30x2\^30': n x batch is past the limit of 2\^48" bench tridiag --backends serial --shapes 2^30x2^30
expect_fail "bench sor3d at 4096x4096x4096 needs .* TiB of memory" bench sor3d --backends serial --grids 4096^3
expect_fail "the 100001 x 100001 grid needs .* TiB of memory in float" bench adi2d --backends serial --sizes 100001
expect_fail "--sizes: 1073741824 is outside \[3, 16777216\]" bench adi2d --backends serial --sizes 2^30
# the memory a case needs, before anything is allocated
expect_fail "the 3000000000-point grid needs .* of memory in double, but .* free" "${run_quick[@]}" --set grid.points=3000000000
expect_fail "the 100001 x 100001 grid needs .* of memory" run "$src/cases/adi2d.toml" --no-output -q --set grid.points=100001
expect_fail "needs .* in double .*: does not fit" run "$src/cases/adi2d.toml" --dry-run --set grid.points=100001
# options are checked like case keys
expect_fail "--threads: -5 is not in \[0, 4096\]" "${run_quick[@]}" --threads -5
expect_fail "--check-every: 0 is not in \[1, 1048576\]" "${run_quick[@]}" --check-every 0
expect_fail "--device: -1 must be an integer >= 0" "${run_quick[@]}" --device -1
expect_fail "--tolerance: -1 must be a number > 0" compare "$case_file" --tolerance -1
expect_fail "--sample-seconds: 0 is not in \[1e-06, 60\]" bench reduce --backends serial --sample-seconds 0
expect_fail "unknown tridiagonal algorithm 'crr'" bench tridiag --backends serial --variants crr
expect_fail "unknown SOR design 'diagonal'|diagonal" bench sor3d --backends serial --variants diagonal

# adi2d (papers 002/004)
adi=(run "$src/cases/adi2d.toml" --no-output -q --set grid.points=9 --set time.end=0.002)
expect_fail "grid.points = 2 must be an integer in \[3, 16777216\]" "${adi[@]}" --set grid.points=2
expect_fail "time.dt = -0.001 must be a finite number > 0" "${adi[@]}" --set time.dt=-0.001
expect_fail "unknown tridiagonal algorithm 'lu'" "${adi[@]}" --set pressure.algorithm=lu
expect_fail "fluid.k3 = 0 must be a finite number > 0" "${adi[@]}" --set fluid.k3=0
expect_fail "fluid.k3 = -1 must be a finite number > 0" "${adi[@]}" --set fluid.k3=-1
expect_fail "saturations must sum to 1" "${adi[@]}" --set initial.sw=0.5
expect_fail "not a known pattern" "${adi[@]}" --set wells.pattern=spiral
# numbers in messages print as %g, not as 301 digits (std::to_string)
expect_fail "K3 at the initial pressure \(1e\+300\) exceeds 1" "${adi[@]}" --set fluid.k3=1e300

# fluids3d (paper 001): grid, fluid, sources and memory, each named
fl=(run "$src/cases/fluids3d.toml" --no-output -q --set grid.n=10)
expect_fail "grid.n = 0 must be an integer in \[1, 65534\]" "${fl[@]}" --set grid.n=0
expect_fail "grid.n = 2000000000 must be an integer in \[1, 65534\]" "${fl[@]}" --set grid.n=2000000000
expect_fail "fluid.viscosity = -0.001 must be a finite number >= 0" "${fl[@]}" --set fluid.viscosity=-0.001
expect_fail "fluid.diffusion = -1 must be a finite number >= 0" "${fl[@]}" --set fluid.diffusion=-1
expect_fail "sources\[0\].cell with radius 0 reaches outside the grid" "${fl[@]}" --set 'sources[0].cell=[4,10,4]'
expect_fail "sources\[1\].force must be" "${fl[@]}" --set 'sources[1].force=[1,2]'
expect_fail "needs .* in float .*: does not fit" run "$src/cases/fluids3d.toml" --dry-run --precision float --set grid.n=60000
expect_fail "fluids3d grid .* needs .* but" run "$src/cases/fluids3d.toml" --no-output -q --set grid.n=60000

# impes3d (paper 003): wells, rock, tables, schedule and memory, each named
imp=(run "$src/cases/impes_case1.toml" --no-output -q --set grid.nx=10 --set grid.ny=10 --set grid.nz=3 --set time.end=30
  --set time.reports=3)
expect_fail "well 'INJ' completion 1: cell \(11, 1, 1\) is outside the 10 x 10 x 3 grid" "${imp[@]}" --set 'wells[0].i=11'
expect_fail "well 'INJ' completion 1: cell \(1, 1, 1\) is inactive" "${imp[@]}" --set 'grid.inactive=[[1, 1, 1]]'
expect_fail "PERMX of cell \(1, 1, 1\) = -5 is negative" "${imp[@]}" --set rock.permx=-5
expect_fail "SWOF's S_w column is not increasing: row 3" "${imp[@]}" \
  --set 'fluid.swof=[[0.2, 0, 1, 0], [0.5, 0.3, 0.2, 0], [0.4, 0.5, 0, 0]]'
expect_fail "SWOF does not reach 1 - S_or" "${imp[@]}" --set 'fluid.swof=[[0.2, 0, 1, 0], [0.5, 0.3, 0.2, 0], [0.7, 0.5, 0.1, 0]]'
expect_fail "PVDO's pressure column is not increasing" "${imp[@]}" --set 'fluid.pvdo=[[50.0, 1.2, 1.1], [40.0, 1.1, 1.2]]'
expect_fail "schedule event 1 \(well 'I2', t = -5\): the time must be >= 0" run "$src/cases/impes_case2.toml" --no-output -q \
  --set 'schedule[0].time=-5'
expect_fail "100000 x 100000 x 3 grid \(30000000000 cells\) needs .* TiB of memory in double, but .* has .* GiB free" \
  "${imp[@]}" --set grid.nx=100000 --set grid.ny=100000
expect_fail "unknown SOR design 'diagonal'|pressure.design" "${imp[@]}" --set pressure.design=diagonal
# a completion's layers are [upper, lower]: reversed, they are refused, not reordered
expect_fail "wells\[0\]\.k = \[3, 1\] runs upward: layer 3 is below layer 1" "${imp[@]}" --set 'wells[0].k=[3,1]'
expect_fail "wells\[0\]\.k = \[-1, 1\] runs upward" "${imp[@]}" --set 'wells[0].k=[-1,1]'
expect_fail "grid.nx = 4000000000 must be an integer in \[1, 2147483647\]" "${imp[@]}" --set grid.nx=4000000000
expect_fail "the 2000000000 x 2000000000 x 3 grid \(12000000000000000000 cells\) is past the limit of 2\^48 cells" "${imp[@]}" \
  --set grid.nx=2000000000 --set grid.ny=2000000000

[ $failures -eq 0 ] || { echo "$failures bad-input case(s) failed"; exit 1; }
echo "all bad-input cases give a clear error"
