"""Interacting pairs: the true pair found first on 2-way epistasis, uniform p-values on null data,
and the time of all pairs among 1,000 attributes of 2,000 instances.

The data are the simulated genetic data sets of Urbanowicz et al., "Benchmarking relief-based
feature selection methods for bioinformatics data mining" (J Biomed Inform 85, 2018), published in
the ReBATE benchmark archive (github.com/EpistasisLab/rebate-benchmark, MIT licence): one
directory per configuration holding ``rep_NN.txt.gz`` tables (tab-separated, header row, target
column ``Class``; the two predictive attributes of a 2-way epistasis model are named ``M...``,
noise ``N...``). Pass the root of such a tree as the first argument; the configurations whose
path contains one of ``--configs`` (default ``core2wayEpistasis,2wayEpiFeatures``) are read.

Three parts (``--parts``, default all):

* ``first``: for every replicate, the pairs among the 20 attributes MultiSURF ranks best
  (``--top``); where both predictive attributes are among them, whether the predictive pair is
  the first pair. Prints the share per configuration and overall.
* ``null``: the same replicates with the class permuted at random (seeded): the pairs' p-values
  of all replicates together against the uniform distribution (Kolmogorov-Smirnov), and the
  share below 0.05 and 0.01.
* ``speed``: 2,000 instances x 1,000 simulated SNPs (minor allele frequencies 0.05-0.5), all
  pairs (499,500) with the default permutations; and 2,000 x 2,000 SNPs, the pairs of the 1,000
  that MultiSURF ranks best (the ranking repeated for the permutation). Seconds, with the load.

    python benchmarks/interacting_pairs.py DATA
    python benchmarks/interacting_pairs.py DATA --parts first --configs s_200
    python benchmarks/interacting_pairs.py - --parts speed
"""
import argparse
import gzip
import os
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orangecontrib.relief.estimators import encode  # noqa: E402
from orangecontrib.relief.estimators.interactions import interacting_pairs  # noqa: E402


def replicates(root, configs):
    for path in sorted(Path(root).rglob("rep_*.txt.gz")):
        config = str(path.parent.relative_to(root))
        if any(c in config for c in configs):
            yield config, path


def load(path):
    with gzip.open(path, "rt") as f:
        names = f.readline().split()
    values = np.loadtxt(path, skiprows=1, dtype=float)
    X, y = values[:, :-1], values[:, -1].astype(int)
    data = encode(X, y.astype(float), discrete=True, n_values=[3] * X.shape[1], n_classes=2,
                  names=names[:-1])
    return data, [i for i, name in enumerate(names[:-1]) if name.startswith("M")]


def part_first(root, configs, top):
    found = defaultdict(list)
    skipped = 0
    start = time.perf_counter()
    for config, path in replicates(root, configs):
        data, model = load(path)
        result = interacting_pairs(data, top=top, random_state=0)
        if not set(model) <= set(result.attributes.tolist()):
            skipped += 1
            continue
        best = result[0]
        found[config].append({best.first, best.second} == set(model))
    for config in sorted(found):
        print(f"  {config:50s} {sum(found[config])}/{len(found[config])}")
    total = [x for v in found.values() for x in v]
    print(f"first pair is the predictive pair: {sum(total)}/{len(total)} = "
          f"{np.mean(total):.3f} (replicates with a predictive attribute outside the top "
          f"{top}: {skipped}; {time.perf_counter() - start:.0f} s)")


def part_null(root, configs, top):
    rng = np.random.default_rng(2026)
    pvalues = []
    for _, path in replicates(root, configs):
        data, _ = load(path)
        data = replace(data, y=data.y[rng.permutation(data.n_instances)])
        pvalues.append(interacting_pairs(data, top=top, random_state=1).pvalues)
    p = np.concatenate(pvalues)
    print(f"null: {len(pvalues)} permuted replicates, {p.size} pairs: KS p = "
          f"{stats.kstest(p, 'uniform').pvalue:.3f}; p < 0.05: {np.mean(p < 0.05):.4f}, "
          f"p < 0.01: {np.mean(p < 0.01):.4f}")


def snps(n, a, seed):
    rng = np.random.default_rng(seed)
    maf = rng.uniform(0.05, 0.5, a)
    X = rng.binomial(2, maf, size=(n, a)).astype(float)
    y = rng.permutation(np.arange(n) % 2).astype(float)
    return encode(X, y, discrete=True, n_values=[3] * a, n_classes=2)


def part_speed():
    load_before = os.getloadavg()[0]
    data = snps(2000, 1000, 1)
    interacting_pairs(data.columns(np.arange(20)), random_state=0)      # warm-up
    start = time.perf_counter()
    result = interacting_pairs(data, top=1000, random_state=0)
    all_pairs = time.perf_counter() - start
    wide = snps(2000, 2000, 2)
    start = time.perf_counter()
    ranked = interacting_pairs(wide, top=1000, random_state=0)
    with_ranking = time.perf_counter() - start
    print(f"2,000 x 1,000 SNPs, all {len(result):,} pairs ({result.n_permutations} "
          f"permutation): {all_pairs:.1f} s")
    print(f"2,000 x 2,000 SNPs, the {len(ranked):,} pairs of MultiSURF's best 1,000 "
          f"({ranked.n_permutations} permutation, ranking included): {with_ranking:.1f} s")
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="root of the ReBATE tree ('-' for --parts speed alone)")
    parser.add_argument("--parts", default="first,null,speed")
    parser.add_argument("--configs", default="core2wayEpistasis,2wayEpiFeatures")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    parts = args.parts.split(",")
    configs = args.configs.split(",")
    if "first" in parts:
        part_first(args.data, configs, args.top)
    if "null" in parts:
        part_null(args.data, configs, args.top)
    if "speed" in parts:
        part_speed()


if __name__ == "__main__":
    main()
