"""Interacting pairs: the true pair found first on 2-way epistasis, uniform p-values on null data,
and the time of all pairs among 1,000 attributes of 2,000 instances.

The data are the simulated genetic data sets of Urbanowicz et al., "Benchmarking relief-based
feature selection methods for bioinformatics data mining" (J Biomed Inform 85, 2018), published in
the ReBATE benchmark archive (github.com/EpistasisLab/rebate-benchmark, MIT licence): one
directory per configuration holding ``rep_NN.txt.gz`` tables (tab-separated, header row, target
column ``Class``; the two predictive attributes of a 2-way epistasis model are named ``M...``,
noise ``N...``). Pass the root of such a tree as the first argument; the configurations whose
path contains one of ``--configs`` (default ``core2wayEpistasis,2wayEpiFeatures``) are read.

Parts (``--parts``, default first,null,speed):

* ``first``: for every replicate, the pairs among the 20 attributes MultiSURF ranks best
  (``--top``); where both predictive attributes are among them, whether the predictive pair is
  the first pair. Prints the share per configuration and overall.
* ``null``: the same replicates with the class permuted at random (seeded): the pairs' p-values
  of all replicates together against the uniform distribution (Kolmogorov-Smirnov), and the
  share below 0.05 and 0.01.
* ``speed``: 2,000 instances x 1,000 simulated SNPs (minor allele frequencies 0.05-0.5), all
  pairs (499,500) with the default permutations; and 2,000 x 2,000 SNPs, the pairs of the 1,000
  that MultiSURF ranks best (the ranking repeated for the permutation). Seconds, with the load.
* ``filter``: the candidate filters for wide SNP data (``--filters``, default all of
  ``FILTERS``) on every replicate: the rank of each predictive attribute (counting every
  attribute scored at least as high) and the seconds of the ranking; a table of the worse
  predictive attribute's rank per replicate. ``--reps`` selects replicates (e.g. 1-5).
* ``workflow``: ``interacting_pairs`` with its defaults on every replicate (the method it
  chose, whether the predictive pair is first, seconds); then a simulated PLINK study
  (``--study N,A``, default 1,000 individuals x 20,000 SNPs, minor allele frequencies 0.05-0.5,
  two SNPs of frequency 0.4 in a pure epistatic pair: the penetrance 0.5 + 1.2 (h1 - 0.48)
  (h2 - 0.48), h the heterozygosity, so each SNP's genotypes alone leave it 0.5) written with
  bed-reader and run as ``orange-relief pairs study.bed`` with its defaults, timed as a command.

    python benchmarks/interacting_pairs.py DATA
    python benchmarks/interacting_pairs.py DATA --parts first --configs s_200
    python benchmarks/interacting_pairs.py - --parts speed
    python benchmarks/interacting_pairs.py REBATE/2wayEpiFeatures/a_10000 --configs s_1600 \\
        --parts filter,workflow --reps 1-5
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orangecontrib.relief.estimators import (  # noqa: E402
    MultiScaleRelief, MultiSURF, MultiSURFstar, ReliefF, TuRF, encode)
from orangecontrib.relief.estimators.interactions import interacting_pairs  # noqa: E402
from orangecontrib.relief.estimators.iterative import Iter  # noqa: E402
from orangecontrib.relief.estimators.vls import VLS  # noqa: E402

#: the candidate filters of the ``filter`` part: name -> a new estimator
FILTERS = {
    "MultiSURF": MultiSURF,
    "MultiScaleRelief": MultiScaleRelief,
    "MultiSURF*": MultiSURFstar,
    "TuRF-MultiSURF 10%x10": lambda: TuRF(MultiSURF(), remove=0.1),
    "TuRF-MultiSURF 20%x5": lambda: TuRF(MultiSURF(), remove=0.2),
    "TuRF-MultiSURF 50%x1": lambda: TuRF(MultiSURF(), remove=0.5, rounds=1),
    "TuRF-MultiSURF 50%x2": lambda: TuRF(MultiSURF(), remove=0.5, rounds=2),
    "TuRF-MultiSURF 50%x3": lambda: TuRF(MultiSURF(), remove=0.5, rounds=3),
    "TuRF-ReliefF-10 10%x10": lambda: TuRF(ReliefF(k=10), remove=0.1),
    "TuRF-ReliefF-100 10%x10": lambda: TuRF(ReliefF(k=100), remove=0.1),
    "TuRF-ReliefF-100 50%x1": lambda: TuRF(ReliefF(k=100), remove=0.5, rounds=1),
    "VLS-MultiSURF": lambda: VLS(MultiSURF(), random_state=0),
    "Iter-MultiSURF": lambda: Iter(MultiSURF()),
}


def replicates(root, configs, reps=None):
    for path in sorted(Path(root).rglob("rep_*.txt.gz")):
        config = str(path.parent.relative_to(root))
        if any(c in config for c in configs) and (
                reps is None or int(path.name[4:6]) in reps):
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


def part_filter(root, configs, reps, names):
    rows = defaultdict(list)
    for config, path in replicates(root, configs, reps):
        data, model = load(path)
        for name in names:
            start = time.perf_counter()
            scores = np.asarray(FILTERS[name]()(data), dtype=float)
            seconds = time.perf_counter() - start
            ranks = [int((scores >= scores[m]).sum()) for m in model]
            rows[name].append((path.name[:6], ranks, seconds))
            print(json.dumps({"config": config, "rep": path.name[:6], "filter": name,
                              "ranks": ranks, "seconds": round(seconds, 1),
                              "load": os.getloadavg()[0]}), flush=True)
    print(f"\n| filter | worse predictive SNP's rank per replicate | median | worst | "
          f"seconds per ranking (mean) |\n|---|---|---|---|---|")
    for name in names:
        worse = [max(r) for _, r, _ in rows[name]]
        print(f"| {name} | {', '.join(map(str, worse))} | {np.median(worse):g} | "
              f"{max(worse)} | {np.mean([s for *_, s in rows[name]]):.1f} |")


def plink_study(folder, n, a, seed=7):
    """Write the simulated study of the ``workflow`` part: (path of study.bed, the pair's
    SNP names)."""
    from bed_reader import to_bed
    rng = np.random.default_rng(seed)
    maf = rng.uniform(0.05, 0.5, a)
    pair = rng.choice(a, 2, replace=False)
    maf[pair] = 0.4
    genotypes = rng.binomial(2, maf, size=(n, a)).astype(np.int8)
    het = genotypes[:, pair] == 1
    penetrance = 0.5 + 1.2 * (het[:, 0] - 0.48) * (het[:, 1] - 0.48)
    case = rng.random(n) < penetrance
    path = os.path.join(folder, "study.bed")
    names = [f"rs{i}" for i in range(a)]
    to_bed(path, genotypes, properties={"sid": names,
                                        "pheno": [str(int(c) + 1) for c in case]})
    return path, {names[i] for i in pair}


def part_workflow(root, configs, reps, study):
    for config, path in replicates(root, configs, reps):
        data, model = load(path)
        start = time.perf_counter()
        result = interacting_pairs(data, random_state=0)
        seconds = time.perf_counter() - start
        first = {result[0].first, result[0].second} == set(model)
        print(f"  {config} {path.name[:6]}: {result.method}, {len(result):,} pairs, predictive "
              f"pair first: {first} (p = {result[0].pvalue:.3g}, q = {result[0].qvalue:.3g}); "
              f"{seconds:.1f} s, load {os.getloadavg()[0]:.1f}", flush=True)
    if study:
        n, a = study
        with tempfile.TemporaryDirectory() as folder:
            bed, pair = plink_study(folder, n, a)
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "orangecontrib.relief.cli", "pairs",
                                  bed, "--format", "json", "--pairs", "5"],
                                 capture_output=True, text=True, check=True).stdout
            seconds = time.perf_counter() - start
        document = json.loads(out)
        best = document["pairs"][0]
        found = {best["first"], best["second"]} == pair
        print(f"  PLINK study {n:,} x {a:,} SNPs: orange-relief pairs study.bed: "
              f"{document['method']}, planted pair first: {found} "
              f"(p = {best['p']:.3g}, q = {best['q']:.3g}); {seconds:.1f} s, "
              f"load {os.getloadavg()[0]:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="root of the ReBATE tree ('-' for --parts speed alone)")
    parser.add_argument("--parts", default="first,null,speed")
    parser.add_argument("--configs", default="core2wayEpistasis,2wayEpiFeatures")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--reps", help="replicates, e.g. 1-5 or 1,3")
    parser.add_argument("--filters", default=",".join(FILTERS))
    parser.add_argument("--study", default="1000,20000",
                        help="individuals,SNPs of the workflow's PLINK study (0: none)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    configs = args.configs.split(",")
    reps = None
    if args.reps:
        reps = {int(x) for part in args.reps.split(",") for x in (
            range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1))}
    study = None if args.study == "0" else tuple(int(x) for x in args.study.split(","))
    if "first" in parts:
        part_first(args.data, configs, args.top)
    if "null" in parts:
        part_null(args.data, configs, args.top)
    if "speed" in parts:
        part_speed()
    if "filter" in parts:
        part_filter(args.data, configs, reps, args.filters.split(","))
    if "workflow" in parts:
        part_workflow(args.data, configs, reps, study)


if __name__ == "__main__":
    main()
