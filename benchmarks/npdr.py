"""NPDR (Le, Dawkins & McKinney 2020): null calibration, confounding, power against calibrated
STIR, and speed on a genome-wide PLINK panel.

Sections (``--sections``, comma-separated):

* ``null``: SNP data (MAF uniform in 0.1..0.5) with a class unrelated to them, classes 50/50 and
  30/70; NPDR's calibrated p-values (30 permutations) and the regressions' own ones: KS test of
  uniformity, the share below 0.05, the share of data sets with any discovery at q < 0.05;
* ``confounding``: a binary covariate (sex) sets the risk of the class (logit +-1.5) and the
  allele frequency of 10 null SNPs (0.1 vs 0.6); SNPs 0 and 1 interact (XOR of carrying the
  minor allele, logit +-2); 100 SNPs, n = 400. Per replicate, NPDR without and with the
  covariate: the number of the 10 confounded SNPs at q < 0.05, the false discovery proportion
  over all null SNPs, whether both interacting SNPs are found;
* ``power``: 100 SNPs, n = 200, classes 50/50 (the half of highest liability), 5 planted
  attributes: two interacting pairs (0-1, 2-3: the XOR of carrying the minor allele, liability
  +2 each) and a main effect (SNP 4, additive, +1 an allele), logistic noise; NPDR (calibrated) against STIR calibrated on MultiSURF and on
  ReliefF k = 10, over the data sets: the share of planted SNPs found at q < 0.05 (mean and 95 %
  interval over data sets) and the false discovery proportion;
* ``speed``: NPDR with MultiSURF neighbourhoods and two covariates on 2,000 x 100,000 SNPs read
  from a ``.bed`` file (written once into ``--workdir`` by bed-reader): discrete covariates
  (sex and a 3-level site: the grouped popcount path), in a child process for its peak memory,
  after a warm-up on a small file that compiles the kernels into numba's cache.

    python benchmarks/npdr.py --sections null,confounding,power --reps 30
    python benchmarks/npdr.py --sections speed --workdir DIR
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
from scipy import stats

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.encoding import as_covariates
from orangecontrib.relief.estimators.npdr import NPDR
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.significance import stir
from orangecontrib.relief.estimators.surf import MultiSURF


def snps(rng, n, a, maf=None):
    maf = rng.uniform(0.1, 0.5, a) if maf is None else maf
    return rng.binomial(2, maf, (n, a)).astype(float)


def interval(values):
    """mean and the 95 % t interval of the mean."""
    values = np.asarray(values, float)
    half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
    return f"{values.mean():.1%} [{values.mean() - half:.1%}, {values.mean() + half:.1%}]"


def null_section(reps):
    print("| classes | p-values | KS p | p < .05 | sets with a discovery (q < .05) |")
    print("|---|---|---|---|---|")
    for share in (0.5, 0.3):
        for calibration in (30, 0):
            ps, any_fd = [], []
            for rep in range(reps):
                rng = np.random.default_rng(rep)
                n = 200
                y = rng.permutation((np.arange(n) < share * n).astype(float))
                data = encode(snps(rng, n, 100), y, discrete=True, n_classes=2)
                result = NPDR().test(data, calibration=calibration, random_state=rep)
                ps.append(result.pvalues)
                any_fd.append((result.qvalues < 0.05).any())
            p = np.concatenate(ps)
            print(f"| {share:.0%}/{1 - share:.0%} | "
                  f"{'calibrated (30)' if calibration else 'regression'} | "
                  f"{stats.kstest(p, 'uniform').pvalue:.2g} | {np.mean(p < 0.05):.1%} | "
                  f"{np.mean(any_fd):.1%} |", flush=True)


def confounded(rng, n=400, a=100):
    sex = rng.integers(0, 2, n)
    X = snps(rng, n, a)
    X[:, 2:12] = rng.binomial(2, np.where(sex == 1, 0.6, 0.1)[:, None], (n, 10))
    xor = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(float)
    logit = 1.5 * (2 * sex - 1) + 4.0 * (xor - 0.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    return X, y, sex


def confounding_section(reps):
    rows = {False: [], True: []}
    for rep in range(reps):
        rng = np.random.default_rng(1000 + rep)
        X, y, sex = confounded(rng)
        null = np.ones(X.shape[1], bool)
        null[:2] = False
        for adjust in (False, True):
            covs = as_covariates(sex, len(y), discrete=True, names=["sex"]) if adjust else None
            result = NPDR().test(encode(X, y, discrete=True, n_classes=2, covariates=covs),
                                 random_state=rep)
            found = result.qvalues < 0.05
            rows[adjust].append((found[2:12].sum(), (found & null).sum() / max(found.sum(), 1),
                                 found[0] and found[1]))
    print("| NPDR | replicates | confounded SNPs found (of 10): mean, min-max | replicates "
          "with >= 6 of them | FDP over null SNPs, mean [95 % interval] | pair found |")
    print("|---|---|---|---|---|---|")
    for adjust in (False, True):
        found, fdp, pair = (np.array(c, float) for c in zip(*rows[adjust]))
        print(f"| {'with sex as covariate' if adjust else 'unadjusted'} | {reps} | "
              f"{found.mean():.1f}, {found.min():.0f}-{found.max():.0f} | "
              f"{np.mean(found >= 6):.0%} | {interval(fdp)} | {pair.mean():.0%} |", flush=True)


def planted(rng, n=200, a=100):
    X = snps(rng, n, a)
    carry = X > 0
    liability = 2.0 * ((carry[:, 0] ^ carry[:, 1]) + (carry[:, 2] ^ carry[:, 3])) \
        + 1.0 * X[:, 4] + rng.logistic(size=n)
    y = (liability > np.median(liability)).astype(float)
    return X, y


def power_section(reps):
    methods = {
        "NPDR (MultiSURF, calibrated)": lambda d, s: NPDR().test(d, random_state=s),
        "STIR MultiSURF, calibrated": lambda d, s: stir(MultiSURF(), d, random_state=s),
        "STIR ReliefF k=10, calibrated": lambda d, s: stir(ReliefF(k=10), d, random_state=s),
    }
    found = {name: [] for name in methods}
    fdp = {name: [] for name in methods}
    seconds = {name: 0.0 for name in methods}
    for rep in range(reps):
        X, y = planted(np.random.default_rng(2000 + rep))
        data = encode(X, y, discrete=True, n_classes=2)
        for name, method in methods.items():
            start = time.perf_counter()
            chosen = method(data, rep).qvalues < 0.05
            seconds[name] += time.perf_counter() - start
            found[name].append(chosen[:5].mean())
            fdp[name].append(chosen[5:].sum() / max(chosen.sum(), 1))
    print("| method | data sets | planted found at q < .05, mean [95 % interval] | "
          "FDP, mean [95 % interval] | s/data set |")
    print("|---|---|---|---|---|")
    for name in methods:
        print(f"| {name} | {reps} | {interval(found[name])} | {interval(fdp[name])} | "
              f"{seconds[name] / reps:.2f} |", flush=True)
    diff = np.array(found[list(methods)[0]]) - np.array(found[list(methods)[1]])
    print(f"\nNPDR minus STIR MultiSURF, planted found: {interval(diff)}")


def speed_child(path):
    from dataclasses import replace
    from orangecontrib.relief.readers import read_plink
    start = time.perf_counter()
    data = read_plink(path)
    read = time.perf_counter() - start
    rng = np.random.default_rng(0)
    n = data.n_instances
    covs = as_covariates(np.c_[rng.integers(0, 2, n), rng.integers(0, 3, n)], n,
                         discrete=True, names=["sex", "site"])
    data = replace(data, covariates=covs)
    scores = NPDR()(data)
    total = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    print(json.dumps({"seconds": total, "read": read, "peak_gb": peak,
                      "top": [int(i) for i in np.argsort(-scores)[:2]]}))


def speed_section(workdir, n, a):
    sys.path.insert(0, os.path.dirname(__file__))
    from plink_scale import write_bed
    path = write_bed(os.path.join(workdir, f"npdr_{n}x{a}.bed"), n, a)
    # the warm-up compiles the kernels once (numba caches them), so the timed run does not pay
    # for it
    small = write_bed(os.path.join(workdir, "npdr_warm.bed"), 300, 640)
    subprocess.run([sys.executable, __file__, "--speed-child", small], check=True,
                   capture_output=True, env=dict(os.environ, ORANGE_RELIEF_KERNELS="compiled"))
    out = subprocess.run([sys.executable, __file__, "--speed-child", path], check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    print(f"NPDR MultiSURF + 2 covariates, {n:,} x {a:,} SNPs from .bed: "
          f"{result['seconds']:.1f} s ({result['read']:.1f} s reading), peak "
          f"{result['peak_gb']:.2f} GB, top SNPs {result['top']} (the XOR pair is 0, 1)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default="null,confounding,power")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--workdir", default=".")
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-a", type=int, default=100_000)
    parser.add_argument("--speed-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_child:
        return speed_child(args.speed_child)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
    for section in args.sections.split(","):
        print(f"## {section}\n")
        if section == "null":
            null_section(args.reps)
        elif section == "confounding":
            confounding_section(args.reps)
        elif section == "power":
            power_section(args.reps)
        elif section == "speed":
            speed_section(args.workdir, args.n, args.a)
        print()


if __name__ == "__main__":
    main()
