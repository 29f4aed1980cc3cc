#!/bin/sh
# tests/fit.sh — scripts/validate.py's fit and out-of-sample machinery on
# made-up residuals (tests/fit.py); Debian's python3, standard library only.
cd "$(dirname "$0")/.." || exit 1
exec /usr/bin/python3 tests/fit.py
