#!/usr/bin/env bash
# test_layers.sh -- the house rules of ARCHITECTURE.md, checked on the tree:
#   1. every quoted #include in core/ agents/ sim/ analysis/ bench/ cli/
#      names a header of its own folder or of a folder below it:
#        core <- agents <- sim <- analysis, bench <- cli
#      (a header that no folder holds, or two folders hold, fails too);
#   2. no source file in those folders is longer than 1,500 lines.
# Usage: test_layers.sh [COWSIM]  (the argument is ignored; CS_SRC or the
# script's checkout is checked).  Prints one line per violation; exit 1 if any.
set -uo pipefail
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 2
MAX_LINES=1500

allowed() { # folder -> the folders it may include from
    case "$1" in
    core) echo "core" ;;
    agents) echo "agents core" ;;
    sim) echo "sim agents core" ;;
    analysis) echo "analysis sim agents core" ;;
    bench) echo "bench sim agents core" ;;
    cli) echo "cli analysis bench sim agents core" ;;
    esac
}
FOLDERS="core agents sim analysis bench cli"

# Which folder holds each header.
declare -A home
for d in $FOLDERS; do
    for h in "$d"/*.h; do
        [ -e "$h" ] || continue
        b=$(basename "$h")
        if [ -n "${home[$b]:-}" ]; then home[$b]="${home[$b]} $d"; else home[$b]=$d; fi
    done
done

bad=0 checked=0
for d in $FOLDERS; do
    ok=" $(allowed "$d") "
    for f in "$d"/*.c "$d"/*.h; do
        [ -e "$f" ] || continue
        n=$(wc -l < "$f")
        if [ "$n" -gt "$MAX_LINES" ]; then
            echo "FAIL $f: $n lines (at most $MAX_LINES)"
            bad=$((bad + 1))
        fi
        while IFS= read -r inc; do
            checked=$((checked + 1))
            h=${inc##*/}
            where=${home[$h]:-}
            if [ -z "$where" ]; then
                echo "FAIL $f: #include \"$inc\": no folder of the house holds $h"
                bad=$((bad + 1))
            elif [ "$where" != "${where% *}" ]; then
                echo "FAIL $f: #include \"$inc\": $h is in several folders ($where)"
                bad=$((bad + 1))
            elif [[ "$ok" != *" $where "* ]]; then
                echo "FAIL $f: #include \"$inc\" reaches up from $d/ into $where/ ($d/ may include only from:$ok)"
                bad=$((bad + 1))
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done
done
echo "layers: $checked includes checked in $FOLDERS, $bad violations"
if [ "$bad" -gt 0 ]; then echo "0 passed, 1 failed"; exit 1; fi
echo "1 passed, 0 failed"
