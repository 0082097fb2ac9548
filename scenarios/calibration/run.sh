#!/bin/sh
# run.sh [STUDY...] -- regenerate calibration studies (default: all twelve):
# the sweep, the report, then the conclusion on top (prepend.sh).
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
    sh scenarios/calibration/prepend.sh "$s"
done
