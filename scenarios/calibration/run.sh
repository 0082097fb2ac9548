#!/bin/sh
# run.sh [STUDY...] -- regenerate calibration studies (default: all twelve):
# the sweep, the report; for the studies study.py knows, the x5-population
# sweep (study.py --make-x5) and the study section (study.md: comparisons
# with 95 % intervals and the scale check); then the conclusion on top
# (prepend.sh).  Heavy: run under nice on a shared machine.
# Run from the repository root; COWSIM names the binary (default build/cowsim).
set -eu
C=${COWSIM:-build/cowsim}
[ $# -gt 0 ] || set -- 01-lambda 02-reserve 03-vcg-fp 04-fairness-window 05-fragmentation \
    06-median-ema 07-tiers 08-lane-fee-multiplier 09-basefee-rule 10-lane-size-cap \
    11-gba-headroom 12-gc-isolation
for s in "$@"; do
    d=results/calibration/$s
    rm -rf "$d/runs"
    rm -f "$d"/*.png "$d"/*.gp "$d"/*.dat "$d/report.md" "$d/sweep.h5"
    "$C" sweep "scenarios/calibration/$s.json" -j 2 -o "results/calibration/$s/runs" --quiet
    "$C" report "results/calibration/$s/runs/sweep.h5" -o "results/calibration/$s"
    if /usr/bin/python3 scenarios/calibration/study.py "$s" --help-known 2> /dev/null; then
        rm -rf "$d/runs-x5"
        /usr/bin/python3 scenarios/calibration/study.py --make-x5 "scenarios/calibration/$s.json" "$d/x5.json"
        "$C" sweep "$d/x5.json" -j 2 -o "$d/runs-x5" --quiet
        rm -f "$d/x5.json"
        /usr/bin/python3 scenarios/calibration/study.py "$s" --runs "$d/runs" --x5 "$d/runs-x5" --out "$d/study.md"
    fi
    sh scenarios/calibration/prepend.sh "$s"
    if [ "$s" = 01-lambda ]; then
        # Sobol indices of lambda, reserve_price, bias_scale (sobol.py); the
        # reading above the tables is kept, the tables are regenerated.
        rm -rf "$d/runs-sobol"
        "$C" sweep scenarios/calibration/01-lambda-sobol.json -j 2 -o "$d/runs-sobol" --quiet
        sed '/^## Sobol sensitivity/,$d' "$d/sobol.md" > "$d/sobol.md.tmp"
        /usr/bin/python3 scenarios/calibration/sobol.py analyze "$d/runs-sobol" paid welfare censored delay_p99 \
            >> "$d/sobol.md.tmp"
        mv "$d/sobol.md.tmp" "$d/sobol.md"
    fi
done
