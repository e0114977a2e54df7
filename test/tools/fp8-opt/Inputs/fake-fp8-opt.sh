#!/bin/sh
# Stands in for fp8-opt to show that the fuzzer fails on what it must catch.
# FAKE_MODE=crash: killed by SIGSEGV on inputs with an fp8.scaled_matmul.
# FAKE_MODE=silent: exits 1 without a diagnostic on inputs with an fp8.amax.
# FAKE_MODE=contained: on inputs with an fp8.scaled_matmul, reports a contained
# crash and exits 1, or is killed by SIGSEGV when given --debug-crash.
# Any other input is printed back, as a successful fp8-opt run would print it.
input="$1"
case "$FAKE_MODE" in
crash) grep -q "fp8.scaled_matmul" "$input" && kill -SEGV $$ ;;
silent) grep -q "fp8.amax" "$input" && exit 1 ;;
contained)
  if grep -q "fp8.scaled_matmul" "$input"; then
    case " $* " in *" --debug-crash "*) kill -SEGV $$ ;; esac
    echo "$input: error: the input triggered an internal error while parsing: a crash" >&2
    exit 1
  fi ;;
esac
cat "$input"
