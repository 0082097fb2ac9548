# cs_crn.py -- common random numbers check shared by the script tests:
#   python3 tests/cs_crn.py FILE.h5...
# prints "timers N" and "CRN OK" when every file's /timers holds the same
# timers (timer_id, actor, schedule height, first due height), else
# "MISMATCH <file> <n> <n_ref>" and exits 1.
import sys

import h5py
import numpy as np

ref = None
for path in sys.argv[1:]:
    t = h5py.File(path, "r")["timers"][:]
    key = np.sort(t[["timer_id", "actor", "sched_height", "due_height"]], order=["timer_id", "sched_height"])
    if ref is None:
        ref = key
        print("timers", len(ref))
    elif len(key) != len(ref) or not (key == ref).all():
        print("MISMATCH", path, len(key), len(ref))
        sys.exit(1)
print("CRN OK")
