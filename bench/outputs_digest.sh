#!/usr/bin/env bash
# bench/outputs_digest.sh COWSIM OUTDIR -- run every shipped scenario under
# every registered mechanism (one seed, the scenario's own; bench-large and
# pending-1m cut to 300 blocks) and write OUTDIR/<scenario>/<mechanism>.h5
# plus OUTDIR/DIGEST: one line per dataset, "scenario mechanism dataset sha256"
# of the dataset's raw values (h5dump -b), so two trees compare with diff.
# Used to show that a refactor or a speed change keeps every output byte for
# byte (the attributes carry the git commit, so only datasets are compared).
set -uo pipefail
BIN=${1:?usage: bench/outputs_digest.sh COWSIM OUTDIR}
OUT=${2:?usage: bench/outputs_digest.sh COWSIM OUTDIR}
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
MECHS=${MECHS:-$(grep -h "\.name *= *\"" "$SRC"/core/*.c | sed "s/.*\"\(.*\)\".*/\1/" | sort)}
mkdir -p "$OUT"
: > "$OUT/DIGEST"
nf=0; nd=0
for f in $(cd "$SRC/scenarios" && ls *.json */*.json | grep -v -e schema -e '^sweeps/' -e '^auctions/' -e 'sobol.json$' | sort); do
    name=$(echo "$f" | tr '/' '_' | sed 's/\.json$//')
    extra=()
    case "$f" in bench-large.json) extra=(--set blocks=300) ;; pending-1m.json) continue ;; esac
    for m in $MECHS; do
        d="$OUT/$name"
        mkdir -p "$d"
        if ! "$BIN" run "$SRC/scenarios/$f" --seeds 1 --mechanism "$m" -o "$d" --quiet "${extra[@]}" > "$d/$m.log" 2>&1; then
            echo "$name $m RUN-FAILED $(tail -1 "$d/$m.log")" >> "$OUT/DIGEST"; continue
        fi
        h5=$(ls "$d"/$m.h5 "$d"/seed-*/$m.h5 2>/dev/null | head -1)
        [ -n "$h5" ] || { echo "$name $m NO-FILE" >> "$OUT/DIGEST"; continue; }
        nf=$((nf + 1))
        for ds in $(h5ls "$h5" | awk '$2 == "Dataset" {print $1}'); do
            sum=$(h5dump -b -d "/$ds" -o /dev/stdout "$h5" 2>/dev/null | sha256sum | cut -c1-16)
            echo "$name $m $ds $sum" >> "$OUT/DIGEST"
            nd=$((nd + 1))
        done
    done
done
echo "outputs_digest: $nf files, $nd datasets -> $OUT/DIGEST"
