"""The scan of every pair (BOOST's test, ``scan_pairs``): speed and memory, calibration per
allele-frequency stratum, and the planted pair of the ReBATE replicates.

    python benchmarks/pair_scan.py speed                      # 1,600 x 10,000 and 2,000 x 20,000
    python benchmarks/pair_scan.py speed --sizes 1600x2000    # a quick run
    python benchmarks/pair_scan.py calibration --reps 10
    python benchmarks/pair_scan.py rebate DIR --reps 1-5      # DIR: the ReBATE a_10000 folder

**speed**: each size runs in a child process (the compiled kernels, numba's threads on every
core) on simulated SNPs held as bit planes, as a PLINK file is read (minor allele frequencies
uniform in [0.05, 0.5], a pure XOR pair planted in SNPs 0 and 1, 10 % of the classes flipped).
It reports the scan's time, its CPU time over all threads (on a machine shared with other
work, the time two idle cores would take is about half of it), its peak resident memory above the data's (``VmHWM`` reset after
the data are made), the word pairs a second (pairs x the instances' 64-bit words of one bit
plane) and that rate's share of the popcount peak of ``roofline.py`` measured in the same run
(``popcount((a0 ^ b0) | (a1 ^ b1))`` a word pair; the scan does four AND-popcounts a word pair
for SNPs, the cells of genotypes 0 and 1 of both), and whether the planted pair is first.

**calibration**: simulated SNPs of two strata, common (minor allele frequency uniform in
[0.25, 0.5]) and rare ([0.05, 0.15]), n instances (default 1,600), a class without
interaction: either independent of the SNPs, or with main effects (logit P(case) the sum of
each SNP's allele count times an effect drawn from N(0, 0.2²), centred). Every pair is tested
(exactly: fewer pairs than ``EXACT_PAIRS``) and the share of p < 0.05 (and < 0.01) is reported
per stratum of pairs (common x common, rare x rare, common x rare), with a 95 % interval over
the replicates (mean ± 1.96 standard errors).

**rebate**: each replicate ``rep_NN.txt.gz`` of the folder (tab-separated, a ``Class`` column,
the model SNPs named ``M0P0`` and ``M0P1``) scanned; the rank of the model pair, its q-value and
the time (reading the file not counted).
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def simulated_planes(n, a, seed=0):
    """EncodedData of n x a SNPs held only as bit planes (made a block of SNPs at a time)."""
    from orangecontrib.relief.estimators.encoding import EncodedData
    from orangecontrib.relief.estimators.neighbourhood.packed import PackedColumns, pack_planes
    rng = np.random.default_rng(seed)
    planes = np.zeros((n, 2, (a + 63) // 64), np.uint64)
    first = None
    for lo in range(0, a, 1024):
        hi = min(a, lo + 1024)
        maf = rng.uniform(0.05, 0.5, hi - lo)
        block = rng.binomial(2, maf, (n, hi - lo)).astype(float)
        if lo == 0:
            block[:, :2] = rng.binomial(2, 0.5, (n, 2))
            first = block[:, :2].copy()
        planes[:, :, lo // 64:lo // 64 + (hi - lo + 63) // 64] = pack_planes(
            block, np.arange(hi - lo))
    y = ((first[:, 0] == 1) ^ (first[:, 1] == 1)).astype(float)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return EncodedData(X=PackedColumns(planes, a), y=y, discrete=np.ones(a, bool),
                       n_values=np.full(a, 3, np.intp), n_classes=2, minimum=np.zeros(a),
                       span=np.ones(a), names=tuple(f"rs{i}" for i in range(a)), y_span=1.0)


def child(n, a):
    """One size: prints a JSON line."""
    from orangecontrib.relief.estimators.interactions import scan_pairs
    data = simulated_planes(n, a)
    scan_pairs(data, attributes=np.arange(64), top=5)             # load the kernels
    before = rss_kib("VmRSS")
    with open("/proc/self/clear_refs", "w") as refs:                # reset VmHWM
        refs.write("5")
    start, cpu = time.perf_counter(), time.process_time()
    result = scan_pairs(data, top=20)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    words = sum(-(-int(np.sum(data.y == c)) // 64) for c in (0, 1))
    pairs = a * (a - 1) // 2
    print(json.dumps({"n": n, "a": a, "pairs": pairs, "seconds": elapsed, "cpu_seconds": cpu,
                      "word_pairs_per_s": pairs * words / elapsed,
                      "peak_above_data_mib": (rss_kib("VmHWM") - before) / 1024,
                      "rss_before_mib": before / 1024,
                      "first": [int(result.first[0]), int(result.second[0])],
                      "q_first": float(result.qvalues[0]), "exact_below": result.exact_below}))


def popcount_peak():
    sys.path.insert(0, HERE)
    import numba
    from roofline import Peaks
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    peaks = Peaks(0.5)
    return peaks.run(3)["pop"]


def speed(args):
    peak = popcount_peak()
    print(f"popcount peak ({os.cpu_count()} threads): {peak / 1e9:.2f} G word pairs/s; "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| instances x SNPs | pairs | time | CPU time (all threads) | G word pairs/s | of peak "
          "| peak memory above the data | planted pair first |")
    print("|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        n, a = map(int, size.lower().split("x"))
        out = subprocess.run([sys.executable, __file__, "child", str(n), str(a)],
                             capture_output=True, text=True, env=dict(
                                 os.environ, ORANGE_RELIEF_KERNELS="compiled"))
        if out.returncode:
            print(out.stderr, file=sys.stderr)
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"| {n:,} x {a:,} | {r['pairs']:.2e} | {r['seconds']:.1f} s | "
              f"{r['cpu_seconds']:.1f} s | "
              f"{r['word_pairs_per_s'] / 1e9:.2f} | {r['word_pairs_per_s'] / peak:.0%} | "
              f"{r['peak_above_data_mib']:.0f} MiB | {r['first'] == [0, 1]} "
              f"(q = {r['q_first']:.1e}) |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def calibration(args):
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.interactions import scan_pairs
    rng = np.random.default_rng(args.seed)
    half = args.snps // 2
    strata = {"common x common": (0, 0), "rare x rare": (1, 1), "common x rare": (0, 1)}
    rates = {(effects, name): [] for effects in (False, True) for name in strata}
    start = time.perf_counter()
    for _ in range(args.reps):
        maf = np.concatenate([rng.uniform(0.25, 0.5, half), rng.uniform(0.05, 0.15, half)])
        X = rng.binomial(2, maf, (args.n, 2 * half)).astype(float)
        kind = np.repeat([0, 1], half)
        for effects in (False, True):
            if effects:
                beta = rng.normal(0, 0.2, 2 * half)
                logit = (X - 2 * maf) @ beta
                y = (rng.random(args.n) < 1 / (1 + np.exp(-logit))).astype(float)
            else:
                y = rng.permutation(np.arange(args.n) % 2).astype(float)
            result = scan_pairs(encode(X, y, discrete=True, n_values=3, n_classes=2))
            assert result.exact_below == 1.0
            a, b = kind[result.first], kind[result.second]
            for name, (u, v) in strata.items():
                chosen = ((a == u) & (b == v)) | ((a == v) & (b == u))
                p = result.pvalues[chosen]
                rates[effects, name].append(((p < 0.05).mean(), (p < 0.01).mean()))
    print(f"{args.reps} replicates of n = {args.n}, {half} common + {half} rare SNPs "
          f"({time.perf_counter() - start:.0f} s)")
    print("| class | stratum | p < 0.05 | p < 0.01 |")
    print("|---|---|---|---|")
    for (effects, name), values in rates.items():
        values = np.array(values)
        mean = values.mean(axis=0)
        half_width = 1.96 * values.std(axis=0, ddof=1) / np.sqrt(len(values)) \
            if len(values) > 1 else np.zeros(2)
        cells = [f"{m:.2%} [{m - h:.2%}, {m + h:.2%}]" for m, h in zip(mean, half_width)]
        print(f"| {'main effects' if effects else 'independent'} | {name} | {cells[0]} | "
              f"{cells[1]} |", flush=True)


def load_replicate(path):
    with gzip.open(path, "rt") as f:
        header = f.readline().rstrip("\n").split("\t")
        table = np.loadtxt(f, delimiter="\t")
    c = header.index("Class")
    names = header[:c] + header[c + 1:]
    return np.ascontiguousarray(np.delete(table, c, axis=1)), table[:, c], names


def replicates(root, spec):
    lo, _, hi = spec.partition("-")
    wanted = {f"rep_{k:02d}.txt.gz" for k in range(int(lo), int(hi or lo) + 1)}
    found = []
    for folder, _, files in os.walk(root):
        found += [os.path.join(folder, f) for f in files if f in wanted]
    return sorted(found)


def rebate(args):
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.interactions import scan_pairs
    print("| replicate | instances x SNPs | model pair's rank | its q-value | next q-value | "
          "time |")
    print("|---|---|---|---|---|---|")
    for path in replicates(args.path, args.reps):
        X, y, names = load_replicate(path)
        data = encode(X, y, discrete=True, n_values=3, n_classes=2, names=names)
        start = time.perf_counter()
        result = scan_pairs(data, top=100)
        elapsed = time.perf_counter() - start
        model = {names.index("M0P0"), names.index("M0P1")}
        ranks = [k for k, p in enumerate(result) if {p.first, p.second} == model]
        rank = ranks[0] + 1 if ranks else None
        q = result.qvalues[ranks[0]] if ranks else float("nan")
        other = result.qvalues[1 if rank == 1 else 0]
        print(f"| {os.path.relpath(path, args.path)} | {X.shape[0]:,} x {X.shape[1]:,} | "
              f"{rank if rank else '> 100'} | {q:.1e} | {other:.2g} | {elapsed:.1f} s |",
              flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        return child(int(sys.argv[2]), int(sys.argv[3]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = parser.add_subparsers(dest="part", required=True)
    p = parts.add_parser("speed")
    p.add_argument("--sizes", default="1600x10000,2000x20000")
    p = parts.add_parser("calibration")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--n", type=int, default=1600)
    p.add_argument("--snps", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p = parts.add_parser("rebate")
    p.add_argument("path")
    p.add_argument("--reps", default="1-5")
    args = parser.parse_args()
    {"speed": speed, "calibration": calibration, "rebate": rebate}[args.part](args)


if __name__ == "__main__":
    main()
