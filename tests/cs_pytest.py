"""cs_pytest -- shared prelude of the Python tests (tests/test_*.py): the
pass / fail counters, check(cond, what) and finish(suite) (prints
"<suite>: N passed, N failed" and exits 1 on a failure), and scratch(dir)
(a fresh, empty scratch directory)."""
import os
import shutil
import sys

FAILS = []
CHECKS = [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def finish(suite):
    print(f"{suite}: {CHECKS[0] - len(FAILS)} passed, {len(FAILS)} failed")
    sys.exit(1 if FAILS else 0)


def scratch(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d
