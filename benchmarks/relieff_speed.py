"""ReliefF speed: our engine against Orange's, scikit-rebate's and fast-select's ReliefF, in one run.

    python benchmarks/relieff_speed.py            # the target sizes (several minutes)
    python benchmarks/relieff_speed.py --quick    # a small smoke run (seconds)
    python benchmarks/relieff_speed.py --sections fast-select --snp SNP_FILE   # one table

``--snp`` is a ReBATE replicate (e.g. ``2wayEpiFeatures/a_1000/.../rep_01.txt.gz`` of the
ReBATE benchmark archive, github.com/EpistasisLab/rebate-benchmark: 1,600 instances, 1,000 SNPs
coded 0/1/2, tab-separated with a ``Class`` column); without it a random SNP table of that shape
is generated (minor allele frequency 0.2, class = XOR of two SNPs' parity with 10 % noise).

Every case is ReliefF with k = 10 on numeric data (uniform [0, 1] attributes; the class is the
XOR of the first two attributes thresholded at 0.5), using all instances as iterations unless
the case says m:

* ours: ``orangecontrib.relief.estimators.relieff.ReliefF(k=10)`` on ``encode(X, y)`` (numba
  functions are compiled on a tiny warm-up set first, so the times exclude JIT compilation);
* Orange: ``Orange.preprocess.score.ReliefF(n_iterations=m, k_nearest=10)`` on a Table;
* scikit-rebate: ``skrebate.ReliefF(n_neighbors=10).fit(X, y)`` (always all instances; it
  builds an N x N distance matrix, so it cannot run at 50,000 rows).

* fast-select: ``fast_select.ReliefF(n_neighbors=k, backend="cpu").fit(X, y)`` (numba,
  float32; all instances; it treats a column with at most 10 distinct values as discrete, so the
  uniform columns are numeric and the SNPs discrete, as ours are told). Its table also splits
  our time into the neighbour search (``context``) and the diff sums (``estimate``), and gives
  the agreement of the two estimates (correlation, largest absolute difference).

The ``ties`` section measures what neighbour selection independent of the row order costs
(the default: every instance tied with the k-th distance is kept, and the tied ones share the
remaining places): on the SNP cases (and on 1,600 × 20 SNPs, where nearly every row has ties
at the k-th distance; ``--ties-snp`` takes a ReBATE replicate of that shape, e.g.
``core2wayEpistasis/a_20/s_1600/her_0.4__maf_0.2/EDM-1/rep_01.txt.gz``), and on uniform
numeric attributes cut into 5 equally frequent bins (discrete, the single-precision search),
it times the default search and diff sums against the same estimator with ties broken by row
index and fast-select, in ``TIES_ROUNDS`` rounds of the median of ``TIES_REPEATS`` runs of each
(alternated; 3 with ``--quick``), the ratios as min / median / max over the rounds, and
reports the largest change of the estimates over three shuffles of the rows for both; a
second table splits both variants' time into stages (the search, trimming its places to the
tied, the numpy steps and the kernel of the diff sums) over as many alternated runs, with the
tie groups' sizes and the diff terms each variant sums.

The ``wide`` section runs our ReliefF (k = 10) and MultiSURF on 2,000 × 100,000 generated SNPs,
each in a fresh process, and reports encode, the search (the bands for MultiSURF) and the diff
sums separately with the peak resident memory (no peer is timed in this table).

A peer whose cost (N²·A, or m·N·A for Orange) exceeds its budget is timed at a smaller number of
rows n and n/2 and extrapolated to N with the exponent fitted to those two times (clamped to
[1, 2]); such cells are marked "≈" and the note says from which n. Peak memory is measured in a
subprocess: resident memory sampled every 5 ms during the call, minus the resident memory
before it (data, imports and compiled code already loaded); the process's ru_maxrss is shown
too. It uses m iterations (a few thousand) rather than all 50,000: the neighbour search works in
blocks of a fixed number of rows, so its peak does not grow with m, and the context (m x k
neighbour indices and weights per class) is a few MB at m = 50,000. Each time is one run (wall
clock), except the missing-values section: ``MISSING_REPEATS`` rounds, each timing the complete
data, the missing values and the ramp in turn, and their ratios as min / median / max.
"""
import argparse
import functools
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np

from resident_memory import peak_rss_mb

K = 10
SEED = 0
#: rounds of the missing-values section (a ratio of two single runs of about a second moves by
#: ±0.2 on a shared machine)
MISSING_REPEATS = 3

FULL = dict(
    speed=[(10_000, 100, 3), (50_000, 10, 10), (50_000, 100, 60), (10_000, 1_000, 40)],
    sampled=(50_000, 1_000, 100, 3),  # rows, attributes, m, target seconds
    memory=(50_000, 1_000, 500),      # rows, attributes, m
    missing=[(10_000, 100, 0.2), (5_000, 1_000, 0.2)],  # rows, attributes, fraction
    budgets={"Orange": 1.0e10, "skrebate": 4.0e8},
    # rows, attributes, k, target seconds (None: the target is >= 3x fast-select)
    fast_select=[(5_000, 100, 10, None), (10_000, 100, 10, None), (20_000, 100, 10, None),
                 (10_000, 1_000, 10, None), (50_000, 100, 10, 3.5)],
    snp=[(1_600, 1_000, 10), (1_600, 1_000, 100)],
    ties_snp=[(1_600, 20, 10)],
    ties_binned=[(1_600, 100, 5, 10)],  # rows, attributes, bins, k
    wide=(2_000, 100_000, 60),         # rows, SNPs, target seconds (and <= 2 GB)
)
QUICK = dict(
    speed=[(1_000, 20, None), (2_000, 10, None), (2_000, 50, None), (500, 200, None)],
    sampled=(3_000, 200, 50, None),
    memory=(3_000, 200, 500),
    missing=[(1_000, 20, 0.2)],
    budgets={"Orange": 5.0e7, "skrebate": 2.0e7},
    fast_select=[(1_000, 20, 10, None), (2_000, 50, 10, None)],
    snp=[(400, 200, 10), (400, 200, 100)],
    ties_snp=[(400, 20, 10)],
    ties_binned=[(400, 50, 5, 10)],
    wide=(500, 5_000, None),
)
SECTIONS = ("memory", "missing", "peers", "fast-select", "ties", "wide")
#: the ties section: rounds, each timing this many runs of each variant (alternated) and
#: fast-select once; a round's ratio is that of the medians (a run takes 0.02-0.2 s, so one
#: run's time moves by several ms with the machine's load)
TIES_ROUNDS = 3
TIES_REPEATS = 15


def make_data(n, a, missing=0.0, seed=SEED):
    """Uniform numeric attributes, class = XOR of the first two thresholded at 0.5; a fraction
    ``missing`` of the attribute values set to NaN."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, a))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def make_binned(n, a, bins, seed=SEED):
    """The attributes of :func:`make_data` cut into ``bins`` equally frequent bins (codes 0 to
    bins - 1, discrete), and its class."""
    X, y = make_data(n, a, seed=seed)
    edges = np.quantile(X, np.linspace(0, 1, bins + 1)[1:-1], axis=0)
    return (X[None] > edges[:, None, :]).sum(axis=0).astype(float), y


def make_snp(n, a, seed=SEED):
    """SNPs coded 0/1/2 (minor allele frequency 0.2, Hardy-Weinberg proportions: 0.64, 0.32,
    0.04), made a block of rows at a time (a wide table is not built twice); the class is the
    XOR of the parities of the first two, flipped for 10 % of the instances."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, a))
    step = max(1, 2 ** 23 // max(a, 1))
    for lo in range(0, n, step):
        u = rng.random((min(step, n - lo), a))
        X[lo:lo + step] = (u > 0.64).astype(float) + (u > 0.96)
    y = ((X[:, 0] % 2) != (X[:, 1] % 2)).astype(float)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def load_snp(path):
    """(X, y) of a ReBATE replicate: a gzipped tab-separated table with a ``Class`` column."""
    import gzip
    with gzip.open(path, "rt") as f:
        header = f.readline().rstrip("\n").split("\t")
        table = np.loadtxt(f, delimiter="\t")
    c = header.index("Class")
    return np.ascontiguousarray(np.delete(table, c, axis=1)), table[:, c]


def warm_up():
    """Compile (or load from numba's cache) every kernel the timed runs use: the double- and the
    single-precision search (the latter from ``single_precision.MIN_WORK`` diff terms), with
    missing values and the ramp, and the bit planes of SNP data."""
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    for X, y in (make_data(200, 5), make_data(2_000, 100), make_data(2_000, 100, missing=0.1)):
        for numeric in ("linear", "ramp"):
            ReliefF(k=K, numeric_diff=numeric)(encode(X, y, n_classes=2))
    run_ours_split(*make_snp(200, 100), discrete=True)


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def run_ours(X, y, m=None):
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    return ReliefF(k=K, iterations=m, random_state=SEED)(encode(X, y, n_classes=2))


def run_ours_split(X, y, k=K, discrete=False):
    """(estimates, seconds of the neighbour search, seconds of the diff sums) of our ReliefF."""
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    data = encode(X, y, discrete=discrete, n_classes=2)
    estimator = ReliefF(k=k)
    start = time.perf_counter()
    context = estimator.context(data)
    middle = time.perf_counter()
    estimates = estimator.estimate(context)
    return estimates, middle - start, time.perf_counter() - middle


def run_fast_select(X, y, k=K):
    import fast_select
    selector = fast_select.ReliefF(n_neighbors=k, backend="cpu")
    return np.asarray(selector.fit(X, y.astype(int)).feature_importances_, float)


def run_orange(X, y, m=None):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from Orange.preprocess.score import ReliefF
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", values=("0", "1")))
    table = Table.from_numpy(domain, X, y)
    return ReliefF(n_iterations=m or len(y), k_nearest=K, random_state=SEED)(table)


def run_skrebate(X, y, m=None):
    import skrebate
    return skrebate.ReliefF(n_neighbors=K).fit(X, y.astype(int)).feature_importances_


PEERS = {"Orange": run_orange, "skrebate": run_skrebate}


def peer_cost(peer, n, a, m):
    return (m or n) * n * a if peer == "Orange" else n * n * a


@functools.lru_cache(maxsize=None)
def measure_peer(peer, n, a, m):
    """Seconds of one run of ``peer`` on n x a (remembered: extrapolations share sizes)."""
    X, y = make_data(n, a)
    return timed(lambda: PEERS[peer](X, y, m))


def time_peer(peer, n, a, m, budget):
    """(seconds, note): measured at n rows, or extrapolated from two smaller sizes."""
    if m is not None and peer == "skrebate":
        return None, "skrebate has no iteration sampling"
    if peer_cost(peer, n, a, m) <= budget:
        return measure_peer(peer, n, a, m), ""
    # the largest n' (a multiple of 100) within the budget, and n'/2
    if m is None:
        rows = int(math.sqrt(budget / a)) // 100 * 100
    else:
        rows = int(budget / (m * a)) // 100 * 100
    rows = max(rows, 200)
    times = []
    for size in (rows // 2, rows):
        times.append(measure_peer(peer, size, a, m))
    exponent = min(2.0, max(1.0, math.log(times[1] / times[0]) / math.log(2)))
    return times[1] * (n / rows) ** exponent, \
        f"{peer} ≈ from {rows:,} and {rows // 2:,} rows, time ∝ N^{exponent:.2f}"


def memory_child(n, a, m):
    """Run in a subprocess: the resident memory (MB) before our ReliefF runs on n x a with m
    iterations (data and imports loaded, numba compiled), its peak during the run (sampled every
    5 ms), and the process's peak RSS (ru_maxrss, including the numba compilation)."""
    warm_up()
    X, y = make_data(n, a)
    with peak_rss_mb() as memory:
        seconds = timed(lambda: run_ours(X, y, m))
    print(json.dumps({"before_mb": memory["before"], "peak_mb": memory["peak"],
                      "seconds": seconds,
                      "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def wide_child(n, a, name):
    """Run in a subprocess: ``name`` (ReliefF with k = 10, or MultiSURF) on n x a generated
    SNPs; print the seconds of encode, the context and the estimate, and the resident memory
    before (the data made) and at its peak (sampled every 5 ms from before encode to the end)."""
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    from orangecontrib.relief.estimators.surf import MultiSURF
    make = {"ReliefF": lambda: ReliefF(k=K), "MultiSURF": MultiSURF}[name]
    small = make_snp(200, 300)
    make()(encode(*small, discrete=True, n_classes=2))        # compile before measuring
    X, y = make_snp(n, a)
    with peak_rss_mb() as memory:
        t0 = time.perf_counter()
        data = encode(X, y, discrete=True, n_classes=2)
        t1 = time.perf_counter()
        estimator = make()
        context = estimator.context(data)
        t2 = time.perf_counter()
        estimator.estimate(context)
        t3 = time.perf_counter()
    print(json.dumps({"encode": t1 - t0, "context": t2 - t1, "estimate": t3 - t2,
                      "before_mb": memory["before"], "peak_mb": memory["peak"],
                      "data_mb": X.nbytes / 2 ** 20}))


def wide_section(plan):
    n, a, target = plan["wide"]
    report("")
    report(f"Wide SNP data, {n:,} × {a:,} generated SNPs (0/1/2), each estimator in a fresh "
           "process; peak = resident memory sampled every 5 ms from encode to the end:")
    report("")
    report("| estimator | encode (s) | search / bands (s) | diff sums (s) | total without encode "
           "(s) | target (s) | data (MB) | resident before (MB) | peak resident (MB) |")
    report("|---|---|---|---|---|---|---|---|---|")
    for name in ("ReliefF", "MultiSURF"):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--wide-child",
                              str(n), str(a), name], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        report(f"| {name}{' (k = 10)' if name == 'ReliefF' else ''} | {r['encode']:.2f} | "
               f"{r['context']:.2f} | {r['estimate']:.2f} | {r['context'] + r['estimate']:.2f} | "
               f"{'—' if target is None else f'≤ {target}'} | {r['data_mb']:.0f} | "
               f"{r['before_mb']:.0f} | {r['peak_mb']:.0f} (target ≤ 2,048) |")


def measure_memory(n, a, m):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--memory-child",
                          str(n), str(a), str(m)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt_seconds(s):
    return "—" if s is None else f"{s:.2f}" if s < 100 else f"{s:.0f}"


def fmt_ratio(peer, ours):
    return "—" if peer is None else f"{peer / ours:.1f}×"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--no-peers", action="store_true", help="time only our ReliefF")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--snp", default=None,
                        help="a ReBATE replicate with 1,600 x 1,000 SNPs (default: generated)")
    parser.add_argument("--ties-snp", default=None,
                        help="a ReBATE replicate with 1,600 x 20 SNPs for the ties section "
                             "(default: generated)")
    parser.add_argument("--memory-child", nargs=3, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--wide-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child(*args.memory_child)
        return
    if args.wide_child:
        wide_child(int(args.wide_child[0]), int(args.wide_child[1]), args.wide_child[2])
        return
    plan = QUICK if args.quick else FULL
    sections = args.sections.split(",")
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s) {', '.join(sorted(unknown))}")
    peers = [] if args.no_peers or "peers" not in sections else list(PEERS)
    warm_up()
    for run in [PEERS[peer] for peer in peers]:
        run(*make_data(200, 5))  # warm-up: imports, numba compilation
    report(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}")
    # cheap measurements first, then the speed cases by increasing cost; every line is
    # printed when measured, so an interrupted run still reports what it finished
    if "memory" in sections:
        memory_section(plan)
    if "missing" in sections:
        missing_section(plan, not args.no_peers)
    if "peers" in sections:
        peers_section(plan, peers)
    if "fast-select" in sections:
        fast_select_section(plan, args.snp, not args.no_peers)
    if "ties" in sections:
        ties_section(plan, args.snp, args.ties_snp, not args.no_peers,
                     3 if args.quick else TIES_REPEATS)
    if "wide" in sections:
        wide_section(plan)
    report(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}")


def memory_section(plan):
    n, a, m = plan["memory"]
    memory = measure_memory(n, a, m)
    growth = memory["peak_mb"] - memory["before_mb"]
    report(f"Peak memory, ours, {n:,} × {a:,} (m = {m:,}; {memory['seconds']:.1f} s): "
           f"{growth:.0f} MB above the {memory['before_mb']:.0f} MB resident before the call "
           f"(data, imports, compiled code), peak resident {memory['peak_mb']:.0f} MB; the "
           f"process's ru_maxrss, numba compilation included, {memory['maxrss_mb']:.0f} MB "
           f"(target ≤ 1 GB).")


def missing_section(plan, with_peer=True):
    """Exhaustive ReliefF on complete data, with a fraction of the values missing and with the
    ramp diff, in ``MISSING_REPEATS`` rounds (each round times the three in turn, so a change
    of the machine's load falls on all); the ratios of each round, min / median / max, and
    fast-select on the complete data in the same rounds (it has no missing-value rule)."""
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF

    def spread(values):
        return f"{min(values):.2f} / {float(np.median(values)):.2f} / {max(values):.2f}"

    if with_peer:
        run_fast_select(*make_data(200, 5))     # warm-up: numba compilation

    for n, a, fraction in plan["missing"]:
        X, y = make_data(n, a)
        cases = {"complete": (encode(X, y, n_classes=2), {}),
                 "missing": (encode(*make_data(n, a, missing=fraction), n_classes=2), {}),
                 "ramp": (encode(X, y, n_classes=2), {"numeric_diff": "ramp"})}
        times = {name: [] for name in list(cases) + (["fast-select"] if with_peer else [])}
        for _ in range(MISSING_REPEATS):
            for name, (data, options) in cases.items():
                times[name].append(timed(lambda: ReliefF(k=K, **options)(data)))
            if with_peer:
                times["fast-select"].append(timed(lambda: run_fast_select(X, y)))
        complete = np.array(times["complete"])
        peer = ""
        if with_peer:
            ratio = np.array(times["fast-select"]) / complete
            peer = (f"; fast-select (complete data) {spread(times['fast-select'])} s, its "
                    f"time / ours on complete data {spread(ratio)}")
        report(f"Missing values and the ramp diff, ours, {n:,} × {a:,} ({MISSING_REPEATS} "
               f"rounds, min / median / max): complete linear {spread(complete)} s, "
               f"{fraction:.0%} missing {spread(times['missing'])} s (ratio "
               f"{spread(np.array(times['missing']) / complete)}), ramp "
               f"{spread(times['ramp'])} s (ratio {spread(np.array(times['ramp']) / complete)}; "
               f"targets ≤ 1.3){peer}.")


def peers_section(plan, peers):
    header = ["case", "ours (s)", "target (s)"]
    for peer in peers:
        header += [f"{peer} (s)", f"{peer} / ours"]
    report("")
    report("| " + " | ".join(header) + " |")
    report("|" + "---|" * len(header))
    notes = []
    n, a, m, target = plan["sampled"]
    cases = [(f"{n:,} × {a:,}, m = {m}", n, a, m, target)]
    cases += [(f"{n:,} × {a:,}", n, a, None, target)
              for n, a, target in sorted(plan["speed"], key=lambda c: c[0] ** 2 * c[1])]
    for label, n, a, m, target in cases:
        X, y = make_data(n, a)
        ours = timed(lambda: run_ours(X, y, m))
        del X, y
        row = [label, fmt_seconds(ours), "—" if target is None else f"≤ {target}"]
        for peer in peers:
            seconds, note = time_peer(peer, n, a, m, plan["budgets"][peer])
            mark = "≈ " if note and seconds is not None else ""
            row += [mark + fmt_seconds(seconds), fmt_ratio(seconds, ours)]
            if note:
                notes.append(f"{label}: {note}")
        report("| " + " | ".join(row) + " |")
    report("")
    for note in notes:
        report(f"- {note}")


def fast_select_section(plan, snp_path, with_peer=True):
    """Ours against fast-select, k = 10 (and 100 on SNPs), m = N: times, ratio, our split
    between the neighbour search and the diff sums, and the agreement of the estimates."""
    warm_up()
    if with_peer:
        run_fast_select(*make_data(200, 5))
        run_fast_select(*make_snp(200, 20))
    cases = [(f"{n:,} × {a:,} numeric, k = {k}", lambda n=n, a=a: make_data(n, a), k, False,
              target) for n, a, k, target in plan["fast_select"]]
    for n, a, k in plan["snp"]:
        if snp_path and plan is not QUICK:
            label, make = f"ReBATE SNPs {n:,} × {a:,}, k = {k}", lambda: load_snp(snp_path)
        else:
            label, make = f"SNPs {n:,} × {a:,} (generated), k = {k}", \
                lambda n=n, a=a: make_snp(n, a)
        cases.append((label, make, k, True, None))
    # the ratio to fast-select each case aims at (20,000 x 100 numeric and the SNPs at k = 10
    # have their own; the others 3x)
    wanted = {"20,000 × 100 numeric, k = 10": 8}
    report("")
    report("| case | ours (s) | search (s) | diff sums (s) | fast-select (s) | fast-select / ours "
           "| target | correlation | max abs diff |")
    report("|---|---|---|---|---|---|---|---|---|")
    for label, make, k, discrete, target in cases:
        X, y = make()
        ours, search, sums = run_ours_split(X, y, k, discrete)
        total = search + sums
        row = [label, fmt_seconds(total), fmt_seconds(search), fmt_seconds(sums)]
        if with_peer:
            start = time.perf_counter()
            theirs = run_fast_select(X, y, k)
            peer = time.perf_counter() - start
            corr = np.corrcoef(ours, theirs)[0, 1]
            row += [fmt_seconds(peer), f"{peer / total:.2f}×"]
        else:
            row += ["—", "—"]
        ratio = 25 if discrete and label.endswith("k = 10") else wanted.get(label, 3)
        goal = f"≥ {ratio}× fast-select" + ("" if target is None else f", ≤ {target} s")
        row.append(goal)
        row += [f"{corr:.6f}", f"{np.abs(ours - theirs).max():.1e}"] if with_peer else ["—", "—"]
        report("| " + " | ".join(row) + " |")


def run_ours_ties(X, y, k, shared, rows=None):
    """(estimates, seconds of the search, seconds of the diff sums, CPU seconds of both, all
    threads) of our ReliefF on SNPs (rows in the order ``rows``), tied neighbours sharing
    their places or (``shared`` False) taken by row index."""
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.neighbourhood.diffs import DiffModel
    from orangecontrib.relief.estimators.neighbourhood.neighbours import nearest_neighbours
    from orangecontrib.relief.estimators.relieff import ReliefF
    rows = np.arange(len(y)) if rows is None else rows
    data = encode(X[rows], y[rows], discrete=True, n_classes=2)
    estimator = ReliefF(k=k)
    cpu, start = time.process_time(), time.perf_counter()
    context = nearest_neighbours(DiffModel(data, estimator.diff_options()), np.arange(len(y)),
                                 k, shared_ties=shared)
    middle = time.perf_counter()
    estimates = estimator.estimate(context)
    return (estimates, middle - start, time.perf_counter() - middle,
            time.process_time() - cpu)


#: the stages of the ties section's second table: the functions timed in the modules that
#: call them (the diff sums' numpy steps and kernel, the search's trimming to the tied)
TIE_STAGES = {"relief_family": ("neighbour_weights", "neighbour_places", "sum_plan",
                                "plan_totals", "fused_sums"),
              "neighbourhood.neighbours": ("tied_with_kth",)}


def tie_stages(X, y, k, repeats):
    """Where order-free neighbours cost more: per variant (order-free, by index) the medians
    over ``repeats`` alternated runs of the search without the trimming to the tied, the
    trimming, the diff sums' numpy steps (influences, places, sum plan, totals), their kernel
    and the rest of the diff sums (ms); and the diff terms (neighbours found x attributes)
    and the neighbours per group (mean, largest) of each variant."""
    import importlib
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.neighbourhood.diffs import DiffModel
    from orangecontrib.relief.estimators.neighbourhood.neighbours import nearest_neighbours
    from orangecontrib.relief.estimators.relieff import ReliefF
    spent, originals = {}, []

    def timing(module, name):
        function = getattr(module, name)
        originals.append((module, name, function))

        def timed_stage(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
        setattr(module, name, timed_stage)

    for module, names in TIE_STAGES.items():
        for name in names:
            timing(importlib.import_module(f"orangecontrib.relief.estimators.{module}"), name)
    rows = {True: [], False: []}
    try:
        for _ in range(repeats):
            for shared in (True, False):
                spent.clear()
                _, search, sums, _ = run_ours_ties(X, y, k, shared)
                numpy_steps = sum(spent[name] for name in TIE_STAGES["relief_family"][:4])
                trim = spent.get("tied_with_kth", 0.0)
                rows[shared].append([search - trim, trim, numpy_steps, spent["fused_sums"],
                                     sums - numpy_steps - spent["fused_sums"]])
    finally:
        for module, name, function in originals:
            setattr(module, name, function)
    data = encode(X, y, discrete=True, n_classes=2)
    found = {}
    for shared in (True, False):
        context = nearest_neighbours(DiffModel(data, ReliefF(k=k).diff_options()),
                                     np.arange(len(y)), k, shared_ties=shared)
        per_group = (context.neighbours >= 0).sum(axis=2)
        found[shared] = (int(per_group.sum()) * X.shape[1], per_group.mean(), per_group.max())
    return ({shared: 1e3 * np.median(rows[shared], axis=0) for shared in rows}, found)


def ties_section(plan, snp_path, ties_path, with_peer=True, repeats=TIES_REPEATS):
    """Order-free neighbours (the default) against ties broken by row index, in
    ``TIES_ROUNDS`` rounds: in each, the median of ``repeats`` runs of each (alternated; the
    search and the diff sums, wall clock and CPU seconds of all threads) and fast-select
    once; the ratios of the rounds (min / median / max), the medians' split between the
    search and the diff sums, and the largest change of the estimates over three shuffles
    of the rows."""
    warm_up()
    if with_peer:
        run_fast_select(*make_snp(200, 20))
    cases = []
    for (n, a, k), path in [(case, snp_path) for case in plan["snp"]] + \
            [(case, ties_path) for case in plan["ties_snp"]]:
        if path and plan is not QUICK:
            cases.append((f"ReBATE SNPs {n:,} × {a:,}, k = {k}",
                          lambda path=path: load_snp(path), k))
        else:
            cases.append((f"SNPs {n:,} × {a:,} (generated), k = {k}",
                          lambda n=n, a=a: make_snp(n, a), k))
    for n, a, bins, k in plan["ties_binned"]:
        cases.append((f"numeric {n:,} × {a:,} in {bins} bins (generated), k = {k}",
                      lambda n=n, a=a, bins=bins: make_binned(n, a, bins), k))

    def spread(values, digits=2):
        return " / ".join(f"{v:.{digits}f}" for v in
                          (min(values), float(np.median(values)), max(values)))

    report("")
    report(f"Order-free neighbours against ties broken by row index, {TIES_ROUNDS} rounds of "
           f"the median of {repeats} runs each (min / median / max over the rounds):")
    report("")
    report("| case | order-free (s) | search | diff sums | by index (s) | search | diff sums "
           "| order-free / by index | CPU: order-free / by index | fast-select (s) "
           "| fast-select / order-free | shuffles change, order-free | by index |")
    report("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    stages = []
    for label, make, k in cases:
        X, y = make()
        rounds = {True: [], False: []}      # per round: (search, sums, CPU) medians
        ratio, cpu_ratio, peers = [], [], []
        for _ in range(TIES_ROUNDS):
            runs = {True: [], False: []}
            for _ in range(repeats):
                for shared in (True, False):
                    runs[shared].append(run_ours_ties(X, y, k, shared)[1:])
            for shared in (True, False):
                rounds[shared].append(np.median(np.array(runs[shared]), axis=0))
            free, index = rounds[True][-1], rounds[False][-1]
            ratio.append((free[0] + free[1]) / (index[0] + index[1]))
            cpu_ratio.append(free[2] / index[2])
            if with_peer:
                peers.append(timed(lambda: run_fast_select(X, y, k)))
        rng = np.random.default_rng(SEED)
        change = {}
        for shared in (True, False):
            base = run_ours_ties(X, y, k, shared)[0]
            change[shared] = max(np.abs(run_ours_ties(X, y, k, shared, rng.permutation(len(y)))[0]
                                        - base).max() for _ in range(3))
        free, index = np.median(rounds[True], axis=0), np.median(rounds[False], axis=0)
        row = [label, spread([r[0] + r[1] for r in rounds[True]], 3), f"{free[0]:.3f}",
               f"{free[1]:.3f}", spread([r[0] + r[1] for r in rounds[False]], 3),
               f"{index[0]:.3f}", f"{index[1]:.3f}", spread(ratio), spread(cpu_ratio)]
        if with_peer:
            row += [spread(peers), spread([p / (r[0] + r[1])
                                           for p, r in zip(peers, rounds[True])], 1)]
        else:
            row += ["—", "—"]
        row += [f"{change[True]:.1e}", f"{change[False]:.1e}"]
        report("| " + " | ".join(row) + " |")
        stages.append((label, k) + tie_stages(X, y, k, repeats))
    report("")
    report(f"Where the order-free time goes, ms (median of {repeats} alternated runs; "
           "order-free / by index): the search without trimming its places to the tied, the "
           "trimming, the diff sums' numpy steps (influences, places, plan, totals), their "
           "kernel, the rest of the diff sums; the diff terms summed (neighbours x "
           "attributes) and the ratio they alone would give at the kernel's cost per term "
           "by index:")
    report("")
    report("| case | neighbours per group: mean / largest (k) | search | trimming | numpy steps "
           "| diff sums kernel | rest | diff terms | ns per term by index "
           "| ratio from the terms alone |")
    report("|---|---|---|---|---|---|---|---|---|---|")
    for label, k, times, found in stages:
        free, index = times[True], times[False]
        per_term = index[3] * 1e6 / found[False][0]
        floor = 1.0 + (found[True][0] - found[False][0]) * per_term * 1e-6 / index.sum()
        report("| " + " | ".join(
            [label, f"{found[True][1]:.1f} / {found[True][2]} ({k})"]
            + [f"{a:.2f} / {b:.2f}" for a, b in zip(free, index)]
            + [f"{found[True][0]:,} / {found[False][0]:,}", f"{per_term:.2f}",
               f"{floor:.3f}"]) + " |")


def report(line):
    print(line, flush=True)

if __name__ == "__main__":
    main()
