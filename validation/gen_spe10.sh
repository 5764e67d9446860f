#!/usr/bin/env bash
# Writes the SPE10 deck's property files, validation/decks/spe10/{PERMX,PERMY,PERMZ,PORO}.INC
# (45 MB, not committed), with poreflow's SPE10-like generator (seed 1, 60 x 220 x 85; the same
# values on every machine: core/models/spe10_fields.hpp), and checks the field's fingerprint.
#   validation/gen_spe10.sh [POREFLOW]      (default: build/apps/poreflow, or $POREFLOW)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-${POREFLOW:-$root/build/apps/poreflow}}"
expected=2214775ba122a0fd  # generate_spe10_like(60, 220, 85, 1)
out="$root/validation/decks/spe10"
log="$("$bin" generate spe10 --out "$out" --grid 60x220x85 --seed 1)"
echo "$log"
grep -q "fingerprint $expected" <<< "$log" || {
  echo "gen_spe10.sh: the field's fingerprint is not $expected: the generator changed; SPE10's reference results no longer apply" >&2
  exit 1
}
