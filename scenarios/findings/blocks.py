#!/usr/bin/env python3
"""Print columns of a cowsim run file's /blocks table at chosen heights.

usage: blocks.py RUN.h5 COL[,COL...] [H[,H...]]
Without heights, prints a summary line per column: min, max and the sum.
"""
import sys

import h5py


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    rows = h5py.File(argv[1], "r")["blocks"][:]
    cols = argv[2].split(",")
    if len(argv) > 3:
        heights = [int(h) for h in argv[3].split(",")]
        print("height " + " ".join(cols))
        for h in heights:
            r = rows[h - 1]
            print(str(int(r["height"])) + " " + " ".join(str(r[c]) for c in cols))
        return 0
    for c in cols:
        v = rows[c]
        print("%s: min %s max %s sum %s" % (c, v.min(), v.max(), sum(int(x) for x in v)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
