#!/usr/bin/env python3
"""Reads lit's output and prints `N passed, N failed` (exit 1 if any failed).

Passed counts tests that passed and expected failures that failed; failed
counts failures, unresolved tests, timeouts and unexpected passes. Unsupported
tests (a lit feature such as cuda-gpu is missing) are reported on a line of
their own and count as neither.
"""

import re
import sys

PASSED = {"Passed", "Expectedly Failed"}
FAILED = {"Failed", "Unresolved", "Timed Out", "Unexpectedly Passed"}


def main(path):
    counts = {}
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            match = re.match(r"^\s+([A-Za-z ]+?)\s*:\s*(\d+)(\s|$)", line)
            if match:
                counts[match.group(1)] = counts.get(match.group(1), 0) + int(match.group(2))
    passed = sum(counts.get(k, 0) for k in PASSED)
    failed = sum(counts.get(k, 0) for k in FAILED)
    if passed + failed == 0:
        failed = 1  # lit did not run: treat as a failure, never as success.
    unsupported = counts.get("Unsupported", 0)
    if unsupported:
        print(f"({unsupported} unsupported: lit features missing on this machine)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
