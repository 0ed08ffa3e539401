"""Speed of the per-SNP test (the allelic trend test, :class:`.estimators.trend.TrendTest`) at
genome scale: simulated genotypes (MAF uniform in 0.05..0.5, 1 % missing), a case-control class
(SNP 0 with an odds ratio of 1.5 per allele, logit -0.2 + 0.4 x SNP 0 + covariates), two
covariates:

* ``discrete``: sex and a 3-level site (the counted fits: one pass over the genotypes
  counts the instances and cases of each (stratum, value) cell, then a dozen-row fit per SNP);
* ``numeric``: age and a principal component (standard normal): every fit runs over the
  instances, a block of SNPs at a time (batched Newton steps).

The genotypes are held as bit planes (two bits a genotype, as a PLINK .bed file is read);
the missing ones as NaN in a float matrix when ``--missing`` is above 0. Prints the seconds of
the test (all SNPs: statistics, p-values, q-values), the SNPs fitted by Firth's fallback and the
best SNP, with the CPU seconds of all threads (on two idle cores the seconds are about half of
them) and the load average (the machine's other work slows it). A small run first loads the
compiled fits (or compiles them), which the timed run does not pay for.

    python benchmarks/per_snp_test.py                       # 2,000 x 100,000, both kinds
    python benchmarks/per_snp_test.py --snps 10000 --covariates numeric
"""
import argparse
import os
import time
from dataclasses import replace

import numpy as np

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.encoding import as_covariates
from orangecontrib.relief.estimators.trend import TrendTest


def simulate(n, a, kind, missing, seed=0):
    rng = np.random.default_rng(seed)
    maf = rng.uniform(0.05, 0.5, a)
    G = np.empty((n, a), np.int8)
    for lo in range(0, a, 10_000):
        hi = min(lo + 10_000, a)
        G[:, lo:hi] = rng.binomial(2, maf[lo:hi], (n, hi - lo))
    if kind == "discrete":
        covs = np.c_[rng.integers(0, 2, n), rng.integers(0, 3, n)].astype(float)
        effect = 0.3 * covs[:, 0] - 0.2 * (covs[:, 1] == 2)
        names, discrete = ["sex", "site"], True
    else:
        covs = rng.normal(size=(n, 2))
        effect = 0.3 * covs[:, 0] + 0.2 * covs[:, 1]
        names, discrete = ["age", "PC1"], False
    logit = -0.2 + 0.4 * G[:, 0] + effect
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    if missing > 0:
        X = G.astype(float)
        X[rng.random((n, a)) < missing] = np.nan
        data = encode(X, y, discrete=True, n_values=3, n_classes=2)
    else:
        from orangecontrib.relief.estimators.neighbourhood.packed import (PackedColumns,
                                                                           pack_planes)
        planes = pack_planes(G, np.arange(a))
        del G
        data = encode(np.zeros((n, 1)), y, discrete=True, n_values=3, n_classes=2)
        data = replace(data, X=PackedColumns(planes, a), discrete=np.ones(a, bool),
                       n_values=np.full(a, 3), minimum=np.zeros(a), span=np.ones(a),
                       names=tuple(f"snp{i}" for i in range(a)))
    return replace(data, covariates=as_covariates(covs, n, discrete=discrete, names=names))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=2000)
    parser.add_argument("--snps", type=int, default=100_000)
    parser.add_argument("--covariates", default="discrete,numeric")
    parser.add_argument("--missing", type=float, default=0.0)
    args = parser.parse_args()
    warmed = set()
    for kind in args.covariates.split(","):
        data = simulate(args.instances, args.snps, kind, args.missing)
        if kind not in warmed:          # the compiled fits loaded (or compiled) beforehand
            TrendTest().test(simulate(200, 64, kind, args.missing, seed=1))
            warmed.add(kind)
        load = os.getloadavg()[0]
        start, cpu = time.perf_counter(), time.process_time()
        result = TrendTest().test(data)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        best = int(np.nanargmax(result.scores))
        print(f"trend test, {args.instances:,} x {args.snps:,} SNPs, two {kind} covariates, "
              f"{args.missing:.0%} missing: {seconds:.1f} s, {cpu:.1f} CPU s (load average {load:.1f} "
              f"before, {os.getloadavg()[0]:.1f} after); "
              f"Firth's fallback for {int(result.firth.sum())} SNPs; best SNP {best} "
              f"(planted: 0), p = {result.pvalues[best]:.2g}", flush=True)


if __name__ == "__main__":
    main()
