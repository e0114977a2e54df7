#!/bin/sh
# Stands in for fp8-run to show that the manifest fuzzer fails on what it must
# catch. FAKE_MODE=accept: accepts every manifest. FAKE_MODE=crash: killed by
# SIGSEGV on every manifest.
case "$FAKE_MODE" in
accept) echo "ok: (stand-in)" ;;
crash) kill -SEGV $$ ;;
esac
