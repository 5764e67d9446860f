# Sourced by the CLI tests (tests/cli/*.sh; this folder is not a test): $bin is poreflow, and
# $failures counts what failed.
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
