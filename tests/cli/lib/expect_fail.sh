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

# expect_exit CODE REGEX ARGS...: the command must exit with CODE and print REGEX
expect_exit() {
  local code=$1 regex=$2
  shift 2
  local out rc
  out=$("$bin" "$@" 2>&1)
  rc=$?
  if [ $rc -ne "$code" ]; then
    echo "FAIL (exit $rc, expected $code): poreflow $*"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  elif ! echo "$out" | grep -qE -- "$regex"; then
    echo "FAIL (message): poreflow $* should mention /$regex/, got:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: poreflow $*  ->  exit $rc: $(echo "$out" | tail -n 1)"
  fi
}

# expect_output REGEX NOT_REGEX ARGS...: the command must succeed, print REGEX and not NOT_REGEX
# (an empty NOT_REGEX checks nothing)
expect_output() {
  local regex=$1 not=$2
  shift 2
  local out rc
  out=$("$bin" "$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL (exit $rc): poreflow $*"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  elif ! echo "$out" | grep -qE -- "$regex"; then
    echo "FAIL (output): poreflow $* should print /$regex/, got:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  elif [ -n "$not" ] && echo "$out" | grep -qE -- "$not"; then
    echo "FAIL (output): poreflow $* should not print /$not/, got:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: poreflow $*  ->  $(echo "$out" | grep -E -- "$regex" | head -n 1)"
  fi
}
