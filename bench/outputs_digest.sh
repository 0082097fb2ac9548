#!/usr/bin/env bash
# bench/outputs_digest.sh COWSIM OUTDIR -- run every shipped scenario under
# every registered mechanism (one seed, the scenario's own; bench-large and
# pending-1m cut to 300 blocks) and write OUTDIR/<scenario>/<mechanism>.h5
# plus OUTDIR/DIGEST: one line per dataset, "scenario mechanism dataset sha256"
# of the dataset's raw values (h5dump -b), so two trees compare with diff.
# Used to show that a refactor or a speed change keeps every output byte for
# byte (the attributes carry the git commit, so only datasets are compared).
# bench/outputs_digest.sh --rehash OUTDIR recomputes OUTDIR/DIGEST from the
# files already there (no runs).  SKIP='re1|re2' (an extended grep pattern
# over the scenario paths under scenarios/) leaves those scenarios out, for
# a before/after comparison on a busy machine; the last line counts what
# ran.
set -uo pipefail
REHASH=0
if [ "${1:-}" = "--rehash" ]; then REHASH=1; shift; set -- none "$@"; fi
BIN=${1:?usage: bench/outputs_digest.sh COWSIM OUTDIR}
OUT=${2:?usage: bench/outputs_digest.sh COWSIM OUTDIR}
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
MECHS=${MECHS:-$(grep -h "\.name *= *\"" "$SRC"/core/*.c | sed "s/.*\"\(.*\)\".*/\1/" | sort)}
mkdir -p "$OUT"
: > "$OUT/DIGEST"
TMPB=$(mktemp)
trap 'rm -f "$TMPB"' EXIT
nf=0; nd=0
for f in $(cd "$SRC/scenarios" && ls *.json */*.json | grep -v -e schema -e '^sweeps/' -e '^auctions/' -e 'sobol.json$' | sort | grep -v -E "${SKIP:-^$}"); do
    # A file without "agents" is not a run scenario and `cowsim run`
    # refuses it: a sweep ("base": scenarios/calibration/*) or a `cowsim
    # clear` input ("timers": scenarios/findings/vcg-spec-bob-truthful.json).
    if ! jq -e 'has("agents")' "$SRC/scenarios/$f" > /dev/null 2>&1; then
        continue
    fi
    name=$(echo "$f" | tr '/' '_' | sed 's/\.json$//')
    extra=()
    case "$f" in bench-large.json) extra=(--set blocks=300) ;; pending-1m.json) continue ;; esac
    for m in $MECHS; do
        d="$OUT/$name"
        mkdir -p "$d"
        if [ "$REHASH" = 1 ] && [ -f "$d/$m.log" ] && [ ! -f "$d/$m.h5" ] && ! ls "$d"/seed-*/$m.h5 > /dev/null 2>&1; then
            echo "$name $m RUN-FAILED" >> "$OUT/DIGEST"; continue
        fi
        if [ "$REHASH" = 0 ] && ! "$BIN" run "$SRC/scenarios/$f" --seeds 1 --mechanism "$m" -o "$d" --quiet "${extra[@]}" > "$d/$m.log" 2>&1; then
            echo "$name $m RUN-FAILED" >> "$OUT/DIGEST"; continue
        fi
        h5=$(ls "$d"/$m.h5 "$d"/seed-*/$m.h5 2>/dev/null | head -1)
        [ -n "$h5" ] || { echo "$name $m NO-FILE" >> "$OUT/DIGEST"; continue; }
        nf=$((nf + 1))
        for ds in $(h5ls "$h5" | awk '$2 == "Dataset" {print $1}'); do
            # The raw values only: h5dump's text (which names the file) goes
            # to /dev/null, the binary dump to a file of its own.
            h5dump -b -d "/$ds" -o "$TMPB" "$h5" > /dev/null 2>&1
            sum=$(sha256sum < "$TMPB" | cut -c1-16)
            echo "$name $m $ds $sum" >> "$OUT/DIGEST"
            nd=$((nd + 1))
        done
    done
done
echo "outputs_digest: $nf files, $nd datasets -> $OUT/DIGEST"
