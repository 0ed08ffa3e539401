"""What missing genotype calls cost, and what filling them saves: ReliefF and NPDR on a PLINK file
set of complete genotypes, on the same genotypes with a share of the calls missing (MCAR), and on
those read with each SNP's missing calls filled by its most frequent genotype (``read_plink(...,
impute="mode")``, ``--impute mode``). Each case runs in its own process, so that its peak
resident memory is its own; the kernels are compiled (or loaded from the cache) on a small file
of the same kind first, untimed.

    python benchmarks/missing_calls.py --workdir DIR                  # 1,000 x 5,000, 0.5 %
    python benchmarks/missing_calls.py --workdir DIR --quick          # 300 x 1,000, smoke run
    python benchmarks/missing_calls.py --workdir DIR --estimators ReliefF --rounds 3

Printed for each estimator and case: the seconds to read, the seconds of the estimate (the
median of the rounds), the peak resident memory of the process (MB), the ratios to the complete
data, and the load average before and after.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

#: what a case's process runs: read, warm up on the small file, time the estimate
CHILD = r"""
import json, resource, sys, time
from orangecontrib.relief.readers import read_plink
from orangecontrib.relief.estimators import NPDR, ReliefF
path, small, impute, name = sys.argv[1], sys.argv[2], sys.argv[3] or None, sys.argv[4]
estimator = {"ReliefF": ReliefF, "NPDR": NPDR}[name]()
estimator(read_plink(small, impute=impute))                     # compile or load the kernels
start = time.perf_counter()
data = read_plink(path, impute=impute)
read = time.perf_counter() - start
start = time.perf_counter()
scores = estimator(data)
estimate = time.perf_counter() - start
print(json.dumps({"read": read, "estimate": estimate, "kind": type(data.X).__name__,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "best": int(scores.argmax())}))
"""


def write_set(path, n, a, share, seed):
    """A .bed/.bim/.fam of ``n`` individuals x ``a`` SNPs (minor allele frequencies 0.05-0.5),
    the phenotype following SNPs 0 and 1 together with 10 % noise, ``share`` of the calls
    missing (NaN) at random."""
    from bed_reader import to_bed
    rng = np.random.default_rng(seed)
    maf = rng.uniform(0.05, 0.5, a)
    genotypes = rng.binomial(2, maf, (n, a)).astype(np.float32)
    case = (genotypes[:, 0] > 0) ^ (genotypes[:, 1] > 0)
    case ^= rng.random(n) < 0.1
    if share:
        genotypes[rng.random(genotypes.shape) < share] = np.nan
    to_bed(path, genotypes, properties={"pheno": [str(int(c) + 1) for c in case]})
    return int(np.isnan(genotypes).sum())


def load():
    return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def run_case(path, small, impute, name, timeout):
    try:
        result = subprocess.run([sys.executable, "-c", CHILD, path, small, impute or "", name],
                                capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if result.returncode:
        raise SystemExit(result.stderr)
    return json.loads(result.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True, help="a folder for the file sets")
    parser.add_argument("--individuals", type=int, default=1000)
    parser.add_argument("--snps", type=int, default=5000)
    parser.add_argument("--share", type=float, default=0.005, help="share of calls missing")
    parser.add_argument("--estimators", default="ReliefF,NPDR")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds a case may take before it is stopped and reported so")
    parser.add_argument("--quick", action="store_true", help="300 x 1,000 SNPs")
    args = parser.parse_args()
    n, a = (300, 1000) if args.quick else (args.individuals, args.snps)
    os.makedirs(args.workdir, exist_ok=True)
    files = {}
    for kind, share in (("complete", 0.0), ("missing", args.share)):
        files[kind] = os.path.join(args.workdir, f"{kind}_{n}x{a}.bed")
        count = write_set(files[kind], n, a, share, seed=1)
        write_set(os.path.join(args.workdir, f"{kind}_small.bed"), 100, 200, share and 0.02,
                  seed=2)
        print(f"{kind}: {n} x {a} SNPs, {count} calls missing")
    cases = (("complete", "complete", None), ("missing", "missing", None),
             ("imputed", "missing", "mode"))
    print(f"load before: {load()}")
    for name in args.estimators.split(","):
        base = None
        for case, kind, impute in cases:
            small = os.path.join(args.workdir, f"{kind}_small.bed")
            runs = [run_case(files[kind], small, impute, name, args.timeout)
                    for _ in range(args.rounds)]
            if any(r is None for r in runs):
                print(f"{name:8s} {case:9s} over {args.timeout:.0f} s (stopped)  load {load()}",
                      flush=True)
                continue
            estimate = float(np.median([r["estimate"] for r in runs]))
            peak = max(r["peak_mb"] for r in runs)
            read = float(np.median([r["read"] for r in runs]))
            if base is None:
                base = estimate, peak
            print(f"{name:8s} {case:9s} read {read:6.2f} s  estimate {estimate:7.2f} s "
                  f"({estimate / base[0]:5.2f}x)  peak {peak:6.0f} MB ({peak / base[1]:4.2f}x)  "
                  f"{runs[0]['kind']}, best SNP {runs[0]['best']}  load {load()}", flush=True)
    print(f"load after: {load()}  ({time.strftime('%H:%M UTC', time.gmtime())})")


if __name__ == "__main__":
    main()
