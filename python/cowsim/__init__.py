"""cowsim -- load cowsim run files and sweep summaries into pandas.

Pure Python over h5py and pandas (Debian: python3-h5py, python3-pandas).

    import cowsim
    run = cowsim.load_run("results/default/eip1559.h5")
    run.fires.groupby("kind", observed=True).paid.sum()
    run.params["params.lambda"]

    sw = cowsim.load_sweep("out/sweep.h5", series=["burn", "utilisation"])
    sw.runs.groupby(["mechanism", "params_lane_timer_cycles"], observed=True).jain.mean()

What the loader does to the raw tables (``h5py.File(p)["fires"][:]``):

* enumerations (agent kind, trigger, outcome, identity kind) become pandas
  Categoricals whose categories are the file's enum names, in value order;
* fixed strings (digest, deployer name, run id, mechanism) become str;
* every amount column ``c`` (stored as ``c`` float64 plus exact ``c_hi``,
  ``c_lo`` uint64) stays ``c`` (float64, for arithmetic) and gains
  ``c_exact`` (Python int, dtype object: hi * 2**64 + lo); ``_hi``/``_lo``
  are dropped.  Files of format 1 (a single u64 per amount) get the same
  two columns (so ``timers.book_price_exact`` and ``blocks.slot_base_exact``,
  the schedule-time rules' quoted and base prices, are exact ints);
* root attributes are decoded into ``attrs`` (a dict), the effective
  parameters (``params_effective``: every parameter with defaults filled)
  into ``params``, a Series indexed by dotted paths in the ``--set``
  notation (``params.lambda``, ``agents[0].params.rate``, ``seed``).
"""
import json
import os

import h5py
import numpy as np
import pandas as pd

__all__ = ["Run", "Sweep", "load_run", "load_sweep", "flatten"]

TABLES = ("blocks", "fires", "timers", "actors", "weights", "summary", "identities")


def _decode(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray) and v.shape == ():
        return v.item()
    if isinstance(v, np.generic):
        return v.item()
    return v


# ---- the root attributes' digest (DESIGN-NOTES N97) -------------------------

_RC = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
# FIPS 202 §3.2.2: rho's offset of lane (x, y), indexed x + 5y.
_RHO = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]
_M64 = (1 << 64) - 1


def _keccak_f(a):
    """Keccak-f[1600] (FIPS 202 §3.3) on 25 lanes, a[x + 5y], in place."""
    for rc in _RC:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[(x - 1) % 5] ^ (((c[(x + 1) % 5] << 1) | (c[(x + 1) % 5] >> 63)) & _M64) for x in range(5)]
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                v, r = a[x + 5 * y] ^ d[x], _RHO[x + 5 * y]
                b[y + 5 * ((2 * x + 3 * y) % 5)] = ((v << r) | (v >> (64 - r))) & _M64 if r else v
        for y in range(5):
            row = b[5 * y:5 * y + 5]
            for x in range(5):
                a[x + 5 * y] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5])
        a[0] ^= rc


def keccak256(data):
    """Keccak-256 (the original padding 0x01 ... 0x80, not SHA3-256's)."""
    rate = 136
    msg = bytearray(data) + b"\x01" + bytes((-len(data) - 1) % rate)
    msg[-1] |= 0x80
    a = [0] * 25
    for off in range(0, len(msg), rate):
        for i in range(rate // 8):
            a[i] ^= int.from_bytes(msg[off + 8 * i:off + 8 * i + 8], "little")
        _keccak_f(a)
    return b"".join(a[i].to_bytes(8, "little") for i in range(4))


def attrs_digest(f):
    """The digest cowsim writes as a run file's root attribute attrs_digest
    (sim/cs_h5_attrs.c): Keccak-256, in hex, of every other root attribute
    in name order, each as name, NUL, HDF5 type class (1 byte), value length
    (8 bytes, little-endian) and value (a variable-length string's bytes,
    else the elements in native byte order)."""
    out = bytearray()
    for name in sorted(f.attrs.keys(), key=lambda k: k.encode()):
        if name == "attrs_digest":
            continue
        aid = f.attrs.get_id(name)
        t = aid.get_type()
        cls = t.get_class()
        if cls == h5py.h5t.STRING and t.is_variable_str():
            v = f.attrs[name]
            val = v if isinstance(v, bytes) else str(v).encode("utf-8")
        else:
            arr = np.asarray(f.attrs[name])
            val = arr.astype(arr.dtype.newbyteorder("=")).tobytes()
        out += name.encode() + b"\x00" + bytes([cls]) + len(val).to_bytes(8, "little") + val
    return keccak256(bytes(out)).hex()


def _tidy(arr):
    """A DataFrame from a compound numpy array read by h5py: categoricals,
    str, amounts as float plus exact int."""
    names = arr.dtype.names or ()
    cols = {}
    done = set()
    for n in names:
        if n in done:
            continue
        col = arr[n]
        enum = h5py.check_enum_dtype(arr.dtype[n])
        if n + "_hi" in names and n + "_lo" in names:
            hi = arr[n + "_hi"].astype(object)
            lo = arr[n + "_lo"].astype(object)
            cols[n] = col.astype(np.float64)
            cols[n + "_exact"] = pd.Series([(int(h) << 64) | int(l) for h, l in zip(hi, lo)], dtype=object)
            done.update((n + "_hi", n + "_lo"))
        elif enum is not None:
            by_value = sorted(enum.items(), key=lambda kv: kv[1])
            cats = [k for k, _ in by_value]
            codes = {v: i for i, (_, v) in enumerate(by_value)}
            cols[n] = pd.Categorical.from_codes([codes.get(int(v), -1) for v in col], categories=cats)
        elif col.dtype.kind == "S":
            cols[n] = pd.Series([x.rstrip(b"\0").decode("utf-8", "replace") for x in col], dtype=object)
        else:
            cols[n] = col
        done.add(n)
    return pd.DataFrame(cols)


# Amount columns of format-1 files (one u64, or f64 for /summary.paid).
_V1_MONEY = {
    "blocks": ("basefee_lane", "basefee_cycle", "basefee_cell", "burn", "tips", "payments", "p50_tip"),
    "fires": ("bid", "max_fee", "max_prio", "paid", "burn", "tip"),
    "actors": ("paid", "end_balance"),
    "summary": ("paid",),
}


def _v1_money(table, df):
    for c in _V1_MONEY.get(table, ()):
        if c not in df.columns or c + "_exact" in df.columns:
            continue
        raw = df[c]
        df[c + "_exact"] = pd.Series([int(v) for v in raw], dtype=object, index=df.index)
        df[c] = raw.astype(np.float64)
    return df


def flatten(obj, prefix=""):
    """Dotted-path dict of a JSON value in the ``--set`` notation:
    {"params": {"lambda": 0.1}, "agents": [{"count": 2}]} ->
    {"params.lambda": 0.1, "agents[0].count": 2}."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(obj, list) and prefix:
        for i, v in enumerate(obj):
            out.update(flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = obj
    return out


class Run:
    """One run file: a DataFrame per table, decoded root attributes, the
    effective parameters (a Series), the scenario (a dict) and the
    strategic populations' convergence (a dict or None)."""

    def __init__(self, path, tables, attrs):
        self.path = path
        self.attrs = attrs
        for t in TABLES:
            setattr(self, t, tables.get(t))
        self.format_version = int(attrs.get("format_version", 0))
        self.mechanism = attrs.get("mechanism", "")
        self.scenario = json.loads(attrs.get("scenario_json") or "{}")
        eff = attrs.get("params_effective")
        self.effective = json.loads(eff) if eff else None
        self.params = pd.Series(flatten(self.effective) if self.effective else {}, dtype=object, name="value")
        conv = attrs.get("convergence")
        # The strategic populations' convergence (DESIGN-NOTES N77): a dict
        # with "criterion", "window", "tolerance" and "populations" (one
        # dict per scenario entry with a strategy: entry, kind, strategy,
        # requests, final_mean, converged, at, means); None without one.
        self.convergence = json.loads(conv) if conv else None

    def exact(self, name):
        """An exact root total (``burned``, ``proposer``, ``initial``,
        ``minted``, ``escrow``, ``paid``) as a Python int."""
        return int(self.attrs[name + "_exact"])

    def __repr__(self):
        return f"<cowsim.Run {self.path!r} {self.mechanism} {len(self.blocks)} blocks>"


class CorruptRunError(ValueError):
    """A run file or sweep summary whose checksums or cross-checks fail
    (cowsim's exit status 4; DESIGN-NOTES N68)."""


def _exact_sum(df, col):
    """Exact sum of a MONEY column (its Python-int _exact column)."""
    return sum(int(v) for v in df[col + "_exact"])


def _cross_check(path, attrs, tables):
    """The cross-checks of sim/cs_h5_verify.c on a complete run file: row
    counts against blocks and fires_seen, table sums against the exact
    root totals.  Raises CorruptRunError."""
    if int(attrs.get("complete", 0)) != 1:
        return
    blocks, fires, actors = tables["blocks"], tables["fires"], tables["actors"]
    bad = None
    mode, seen = attrs.get("fires_mode"), attrs.get("fires_seen")
    if "blocks" in attrs and len(blocks) != int(attrs["blocks"]):
        bad = "/blocks has not one row per block"
    elif seen is not None and mode == "all" and len(fires) != int(seen):
        bad = "/fires rows differ from fires_seen"
    elif seen is not None and mode == "off" and len(fires) != 0:
        bad = "/fires has rows with fires_mode off"
    elif seen is not None and len(fires) > int(seen):
        bad = "/fires has more rows than fires_seen"
    elif seen is not None and "blocks" in attrs and int(actors["fires"].sum()) != int(seen):
        bad = "the sum of /actors.fires differs from fires_seen"
    elif "burned_exact" in attrs and "proposer_exact" in attrs and "burn_exact" in blocks and (
        sum(_exact_sum(blocks, c) for c in ("burn", "tips", "payments"))
        != int(attrs["burned_exact"]) + int(attrs["proposer_exact"])
    ):
        bad = "/blocks burn + tips + payments differ from burned_exact + proposer_exact"
    elif "paid_exact" in attrs and "paid_exact" in actors and _exact_sum(actors, "paid") != int(attrs["paid_exact"]):
        bad = "the sum of /actors.paid differs from paid_exact"
    if bad:
        raise CorruptRunError(f"{path} is corrupt: {bad}")


def load_run(path):
    """Read a cowsim run file (format 1 or 2) into a Run.  A damaged file
    raises CorruptRunError: HDF5 verifies the chunks' Fletcher-32 checksums
    and object header checksums as it reads, and the tables are cross-checked
    against the root totals (old files without checksums too)."""
    try:
        with h5py.File(path, "r") as f:
            attrs = {k: _decode(v) for k, v in f.attrs.items()}
            if "format_version" not in attrs or "blocks" not in f:
                raise ValueError(f"{path}: not a cowsim run file (no format_version or /blocks)")
            tables = {}
            for t in TABLES:
                if t in f:
                    tables[t] = _v1_money(t, _tidy(f[t][:]))
                else:  # /identities: format 2 on
                    tables[t] = pd.DataFrame()
            digest = attrs_digest(f) if "attrs_digest" in attrs and int(attrs.get("complete", 0)) == 1 else None
    except (OSError, RuntimeError, KeyError) as e:
        if not isinstance(e, FileNotFoundError) and not isinstance(e, PermissionError):
            raise CorruptRunError(f"{path} is corrupt: {e}") from e
        raise
    _cross_check(path, attrs, tables)
    if digest is not None and digest != attrs["attrs_digest"]:
        raise CorruptRunError(f"{path} is corrupt: its root attributes differ from their digest (attrs_digest)")
    return Run(path, tables, attrs)


class Sweep:
    """A sweep summary: ``runs`` (one row per run x mechanism: the swept
    parameters, the metrics, ``file`` the run file), ``params`` (the
    effective parameters of every row that differ between rows, joined into
    ``runs`` as columns ``eff.<path>``) and, when asked for, ``series``
    (long format: run_id, mechanism, the swept parameters, height,
    variable, value)."""

    def __init__(self, path, runs, attrs, series):
        self.path = path
        self.runs = runs
        self.attrs = attrs
        self.series = series

    def __repr__(self):
        return f"<cowsim.Sweep {self.path!r} {len(self.runs)} rows>"


def _cross_check_sweep(path, attrs, raw):
    """The cross-checks of cs_sweep_file_verify (analysis/cs_h5_table.c) on
    a sweep summary's root counts and raw /runs rows.  Raises
    CorruptRunError."""
    def count(name):
        v = attrs.get(name)
        return None if v is None else int(v)

    nruns, done, npts, nseeds, complete = (count(k) for k in ("n_runs", "runs_done", "n_points", "n_seeds",
                                                              "complete"))
    bad = None
    if None not in (nruns, npts, nseeds) and nruns != npts * nseeds:
        bad = "n_runs is not n_points x n_seeds"
    elif None not in (nruns, done) and done > nruns:
        bad = "runs_done exceeds n_runs"
    elif complete is not None and complete not in (0, 1):
        bad = "complete is neither 0 nor 1"
    elif complete == 1 and None not in (nruns, done) and done != nruns:
        bad = "complete, but runs_done is not n_runs"
    names = raw.dtype.names or ()
    if not bad and len(raw) == 0 and done:
        bad = "/runs is empty but runs_done is not 0"
    if not bad and len(raw) and "run_id" in names:
        ids = raw["run_id"]
        k = 1
        while k < len(raw) and ids[k] == ids[0]:
            k += 1
        if done is not None and len(raw) != done * k:
            bad = "/runs rows are not runs_done x mechanisms"
        elif len(raw) % k:
            bad = "/runs rows are not whole runs"
        prev = -1
        for g in range(0 if bad else len(raw) // k):
            grp = raw[g * k:(g + 1) * k]
            rid = bytes(grp["run_id"][0]).rstrip(b"\0")
            rn = int(rid[1:]) if rid[:1] == b"r" and rid[1:].isdigit() else -1
            pt = int(grp["point"][0]) if "point" in names else None
            if rn < 0:
                bad = "a run_id is not r<number>"
            elif rn <= prev:
                bad = "run_ids are not increasing"
            elif nruns is not None and rn >= nruns:
                bad = "a run_id is beyond n_runs"
            elif pt is not None and nseeds and pt != rn // nseeds:
                bad = "a point differs from its run_id"
            elif pt is not None and npts is not None and pt >= npts:
                bad = "a point is beyond n_points"
            elif any((c in names and (grp[c] != grp[c][0]).any()) for c in ("run_id", "point", "seed")):
                bad = "a run's rows differ in run_id, point or seed"
            elif "mechanism" in names and g and (grp["mechanism"] != raw["mechanism"][:k]).any():
                bad = "a run's mechanisms differ from the first run's"
            prev = rn
            if bad:
                break
    if bad:
        raise CorruptRunError(f"{path} is corrupt: {bad}")


def load_sweep(path, series=None, params="varying"):
    """Read DIR/sweep.h5.  series: /blocks columns to gather from every run
    file in long format (None: none).  params: "varying" joins the effective
    parameters that differ between rows, "all" every one, None none.  A
    damaged summary raises CorruptRunError: HDF5 verifies /runs' Fletcher-32
    checksums and the object header checksums as it reads, and the root
    counts and rows are cross-checked (older files without checksums too)."""
    try:
        with h5py.File(path, "r") as f:
            attrs = {k: _decode(v) for k, v in f.attrs.items()}
            if "runs" not in f:
                raise ValueError(f"{path}: not a cowsim sweep summary (no /runs)")
            d = f["runs"]
            if (d.compression is None and not d.shuffle and d.scaleoffset is None and len(d.shape) == 1
                    and d.id.get_storage_size() < d.shape[0] * d.id.get_type().get_size()):
                # (before memory for the claimed rows is reserved)
                raise CorruptRunError(f"{path} is corrupt: /runs claims more rows than it stores")
            raw = d[:]
    except (OSError, RuntimeError, KeyError) as e:
        if isinstance(e, (FileNotFoundError, PermissionError)):
            raise
        raise CorruptRunError(f"{path} is corrupt: {e}") from e
    _cross_check_sweep(path, attrs, raw)
    runs = _tidy(raw)
    top = os.path.dirname(os.path.abspath(path))
    runs["mechanism"] = pd.Categorical(runs["mechanism"])
    runs["file"] = [os.path.join(top, "runs", r, f"{m}.h5") for r, m in zip(runs.run_id, runs.mechanism)]
    swept = [c for c in runs.columns if c not in ("run_id", "point", "seed", "mechanism", "file")
             and c in _swept_columns(attrs, runs)]
    eff_rows = []
    longs = []
    if params is not None or series:
        for i, p in enumerate(runs.file):
            if not os.path.exists(p):  # a run that failed or was not run
                eff_rows.append({})
                continue
            with h5py.File(p, "r") as rf:
                eff = rf.attrs.get("params_effective")
                eff_rows.append(flatten(json.loads(_decode(eff))) if eff is not None else {})
                for v in series or ():
                    b = rf["blocks"]
                    d = pd.DataFrame({"run_id": runs.run_id[i], "mechanism": runs.mechanism[i],
                                      "height": b["height"], "variable": v,
                                      "value": b[v].astype(np.float64)})
                    for c in swept:
                        d[c] = runs[c][i]
                    longs.append(d)
    if params is not None and eff_rows:
        effdf = pd.DataFrame(eff_rows, index=runs.index)
        if params == "varying":
            keep = [c for c in effdf.columns
                    if effdf[c].map(lambda x: json.dumps(x, sort_keys=True)).nunique(dropna=False) > 1]
            effdf = effdf[keep]
        runs = runs.join(effdf.add_prefix("eff."))
    ser = None
    if series:
        ser = pd.concat(longs, ignore_index=True) if longs else pd.DataFrame()
        if len(ser):
            ser["mechanism"] = pd.Categorical(ser["mechanism"], categories=runs.mechanism.cat.categories)
            ser["variable"] = pd.Categorical(ser["variable"], categories=list(series))
    return Sweep(path, runs, attrs, ser)


def _swept_columns(attrs, runs):
    """The /runs columns of the swept paths: those between seed/mechanism
    and the first metric column ("blocks")."""
    cols = list(runs.columns)
    try:
        a = cols.index("mechanism") + 1
        b = cols.index("blocks")
    except ValueError:
        return []
    return cols[a:b]
