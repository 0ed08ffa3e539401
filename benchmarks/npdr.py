"""NPDR (Le, Dawkins & McKinney 2020): null calibration, confounding, power against calibrated
STIR, and speed on a genome-wide PLINK panel.

Sections (``--sections``, comma-separated):

* ``null``: SNP data (MAF uniform in 0.1..0.5) with a class unrelated to them, classes 50/50 and
  30/70; NPDR's calibrated p-values (30 permutations) and the regressions' own ones: KS test of
  uniformity, the share below 0.05, the share of data sets with any discovery at q < 0.05;
* ``confounding``: a binary covariate (sex) sets the risk of the class and the allele
  frequency of 10 null SNPs (0.1 vs 0.6); SNPs 0 and 1 interact (XOR of carrying the minor
  allele); sex logit +-1.5, XOR logit +-2, 100 SNPs, n = 400 and n = 800 (``CONFOUNDING``).
  Per replicate, NPDR without and with the covariate: the number of the 10 confounded SNPs at
  q < 0.05, the false discovery proportion over all null SNPs, whether both interacting SNPs
  are found, and the larger of their two calibrated p-values (its median over replicates);
* ``confounding-numeric``: the same with a numeric covariate (age, standard normal) that sets
  the class's logit (+1.5 a standard deviation) and the 10 SNPs' allele frequency
  (expit(-0.85 + 1.5 age), about 0.1 to 0.6 over -1..+1 SD); n = 400. Each fit runs
  over every neighbour pair (the numeric covariate's diffs differ pair by pair): slow, so
  fewer replicates are usual (``--reps``);
* ``power``: 100 SNPs, n = 200, classes 50/50 (the half of highest liability), 5 planted
  attributes: two interacting pairs (0-1, 2-3: the XOR of carrying the minor allele, liability
  +2 each) and a main effect (SNP 4, additive, +1 an allele), logistic noise. NPDR calibrated
  (its default; the allele-sharing diff; k-nearest neighbourhoods with the R package's k and
  with k = 10; 100 permutations) against STIR calibrated on MultiSURF and on ReliefF k = 10,
  and a bound: the likelihood-ratio tests of a logistic regression that knows the true model
  (each planted SNP's own terms; null SNPs' p-values uniform, as a valid test's). Over the data
  sets: the share of planted SNPs found at q < 0.05 (mean and 95 % interval), the false
  discovery proportion, the paired difference from STIR MultiSURF; and the correlation of
  NPDR's and STIR's uncalibrated statistics over the SNPs of each data set;
* ``standard``: NPDR beside the standard tests on one simulation, n = 400, 100 SNPs (MAF
  uniform in 0.1..0.5), three scenarios: *main effects in a case-control sample* (10 planted
  SNPs with an odds ratio of 2 per allele in a population of about half cases; 200 cases and
  200 controls drawn from it, as a GWAS samples), *the same main effects, classes as drawn*
  (each instance's class drawn from its risk, logit centred on its median: 42 % to 62 % cases)
  and *a pure-epistatic pair* (SNPs 0 and 1: the class's logit +-2 by the XOR of carrying their
  minor alleles, no main effect). Per data set: the allelic trend test (logistic regression on
  the allele count), NPDR calibrated (30 permutations), NPDR's uncalibrated Wald p-values (the
  regressions' own), STIR MultiSURF calibrated and the scan of every pair for interaction
  (:func:`.interactions.interacting_pairs`, ``method="scan"``); the share of planted SNPs found
  at q < 0.05 (for the scan: in a pair at q < 0.05 with another planted SNP), the false
  discovery proportion among the SNPs (pairs for the scan) called, the share of the null SNPs
  with p < 0.05 (about 5 % for a valid test) and the mean z of the planted SNPs' statistics
  (NPDR, STIR: one-sided, a relevant SNP's is positive; the trend test's two-sided |z|). With
  unequal classes NPDR's hits are mostly pairs of the larger class, whose genotypes are more
  (or less) varied than the other's when a SNP has a main effect: the statistic then moves with
  the class sizes as well as with the effect (``--scenarios``: the scenarios to run, by words of
  their names);
* ``standard-fdr``: the allelic trend test alone on ``--reps`` data sets of each main-effects
  scenario of ``standard`` (the same seeds): the share of planted SNPs found and the false
  discovery proportion at q < 0.05
  averaged over the data sets (the false discovery rate), the share of the data sets with a
  false discovery, and the share of the null SNPs with p < 0.05;
* ``standard-z``: per data set of each main-effects scenario of ``standard`` (the same
  seeds), the share of cases, the mean uncalibrated statistic of the planted SNPs for NPDR and
  STIR MultiSURF, and the correlation of the two statistics over the SNPs: how NPDR's evidence
  for a main effect moves with the class sizes;
* ``standard-balanced``: a variant of NPDR's comparison measured on the same data sets of the
  main-effects scenarios (not the estimator's statistic): over NPDR's neighbour pairs, each
  SNP's share of differing genotypes among the misses less the mean of its shares among the
  hits of each class (so the two classes' hits count equally whatever their sizes), calibrated
  as NPDR's by 30 permutations of the class (:func:`.significance.calibrated_pvalues`), beside
  the same difference with the hits pooled (NPDR's weighting); the share of planted SNPs found
  at q < 0.05 and of null SNPs with p < 0.05;
* ``speed``: NPDR with MultiSURF neighbourhoods and two covariates on 2,000 x 100,000 SNPs read
  from a ``.bed`` file (written once into ``--workdir`` by bed-reader): discrete covariates
  (sex and a 3-level site: the grouped popcount path), in a child process for its peak memory,
  after a warm-up on a small file that compiles the kernels into numba's cache;
* ``speed-numeric``: the same with 10 numeric covariates (principal components, standard
  normal) instead: the score test's counted sums (``statistic="score"``, the default), the
  neighbour search and the fits timed apart, on ``-a`` SNPs (a slice of 100,000 when the
  machine is loaded: the fits' work is linear in the SNPs, and so is the search's);
* ``strata``: the calibration of the permutations within strata of a numeric covariate on
  SNPs unrelated to it: age (standard normal) sets the class (logit 1.5 a standard deviation)
  and the allele frequency of 10 SNPs (as ``confounding-numeric``), 90 SNPs are unrelated to
  both, no SNP is causal; n = 400, NPDR adjusted for age with 30 permutations in strata of
  ``STRATUM_SIZE`` instances of similar predicted class, and for comparison in strata of 5 and
  40 and over all instances. Over the replicates: the share of unrelated and of confounded
  SNPs with p < 0.05, the KS test of the unrelated SNPs' p-values against uniform, and the
  share of data sets with any discovery (q < 0.05; at most 5 % under a complete null);
* ``score-vs-wald``: the score test against the full regression (the Wald z of each SNP's own
  fit) on null SNPs with two numeric covariates: the correlation of the statistics, and the
  shares of their own p-values and of their calibrated p-values below 0.05;
* ``progress``: the time of the neighbour search and of one pass of fits apart, for each kind
  of fits (grouped counts, counted score sums, score and Wald fits over the pairs' diffs),
  against the ratio the progress assumes (``npdr.FIT_WORK``).

    python benchmarks/npdr.py --sections null,confounding,power --reps 30
    python benchmarks/npdr.py --sections speed --workdir DIR
    python benchmarks/npdr.py --sections standard --reps 20
    python benchmarks/npdr.py --sections speed-numeric --workdir DIR -a 10000
    python benchmarks/npdr.py --sections strata,score-vs-wald --reps 20
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
from orangecontrib.relief.estimators.significance import benjamini_hochberg, stir
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


#: the confounding section's simulations: (instances, logit of sex, logit of the XOR)
CONFOUNDING = ((400, 1.5, 2.0), (800, 1.5, 2.0))
#: the confounding-numeric section's (n = 800 would fit 200,000 pairs for every SNP)
CONFOUNDING_NUMERIC = ((400, 1.5, 2.0),)


def confounded(rng, n=400, a=100, sex_logit=1.5, xor_logit=2.0, numeric=False):
    """SNPs, class and covariate of the confounding sections: sex (0/1) or, ``numeric``, age
    (standard normal) with the same logits a unit."""
    covariate = rng.normal(size=n) if numeric else rng.integers(0, 2, n)
    frequency = 1 / (1 + np.exp(0.85 - 1.5 * covariate)) if numeric \
        else np.where(covariate == 1, 0.6, 0.1)
    X = snps(rng, n, a)
    X[:, 2:12] = rng.binomial(2, frequency[:, None], (n, 10))
    xor = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(float)
    logit = sex_logit * (covariate if numeric else 2 * covariate - 1) \
        + 2 * xor_logit * (xor - 0.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    return X, y, covariate


def confounding_section(reps, numeric=False):
    print("| simulation | NPDR | replicates | confounded SNPs found (of 10): mean, min-max | "
          "replicates with >= 6 of them | FDP over null SNPs, mean [95 % interval] | "
          "pair found | the pair's larger p, median |")
    print("|---|---|---|---|---|---|---|---|")
    for n, sex_logit, xor_logit in CONFOUNDING_NUMERIC if numeric else CONFOUNDING:
        name = "age" if numeric else "sex"
        label = f"n = {n}, {name} ±{sex_logit:g}, XOR ±{xor_logit:g}"
        rows = {False: [], True: []}
        for rep in range(reps):
            rng = np.random.default_rng(1000 + rep)
            X, y, covariate = confounded(rng, n, sex_logit=sex_logit, xor_logit=xor_logit,
                                         numeric=numeric)
            null = np.ones(X.shape[1], bool)
            null[:2] = False
            for adjust in (False, True):
                covs = as_covariates(covariate, len(y), discrete=not numeric,
                                     names=[name]) if adjust else None
                result = NPDR().test(encode(X, y, discrete=True, n_classes=2, covariates=covs),
                                     random_state=rep)
                found = result.qvalues < 0.05
                rows[adjust].append((found[2:12].sum(),
                                     (found & null).sum() / max(found.sum(), 1),
                                     found[0] and found[1], result.pvalues[:2].max()))
        for adjust in (False, True):
            found, fdp, pair, p = (np.array(c, float) for c in zip(*rows[adjust]))
            print(f"| {label} | {f'with {name} as covariate' if adjust else 'unadjusted'} | "
                  f"{reps} | {found.mean():.1f}, {found.min():.0f}-{found.max():.0f} | "
                  f"{np.mean(found >= 6):.0%} | {interval(fdp)} | {pair.mean():.0%} | "
                  f"{np.median(p):.2g} |", flush=True)


def planted(rng, n=200, a=100):
    X = snps(rng, n, a)
    carry = X > 0
    liability = 2.0 * ((carry[:, 0] ^ carry[:, 1]) + (carry[:, 2] ^ carry[:, 3])) \
        + 1.0 * X[:, 4] + rng.logistic(size=n)
    y = (liability > np.median(liability)).astype(float)
    return X, y


def oracle_pvalues(X, y, rng):
    """The bound of the power section: p-values of a test that knows the true model. Each
    planted SNP by the likelihood-ratio test, in the logistic regression of the class on the
    planted model's terms (carrying the minor allele of SNPs 0-3, the two XORs' products, the
    allele count of SNP 4), of that SNP's terms (its carrying and its product: 2 df; SNP 4's
    count: 1 df); a valid test of a null SNP gives a uniform p-value, drawn by ``rng``."""
    import statsmodels.api as sm
    carry = (X[:, :4] > 0).astype(float)
    terms = {"c0": carry[:, 0], "c1": carry[:, 1], "c01": carry[:, 0] * carry[:, 1],
             "c2": carry[:, 2], "c3": carry[:, 3], "c23": carry[:, 2] * carry[:, 3],
             "x4": X[:, 4]}
    own = {0: ("c0", "c01"), 1: ("c1", "c01"), 2: ("c2", "c23"), 3: ("c3", "c23"), 4: ("x4",)}

    def loglik(names):
        design = np.column_stack([np.ones(len(y))] + [terms[t] for t in names])
        return sm.Logit(y, design).fit(disp=0).llf

    full = loglik(terms)
    p = rng.random(X.shape[1])
    for snp, drop in own.items():
        p[snp] = stats.chi2.sf(2 * (full - loglik([t for t in terms if t not in drop])),
                               len(drop))
    return p


def power_section(reps):
    snp_data = lambda X, y: encode(X, y, discrete=True, n_classes=2)
    # SNPs as allele counts: the diff |x - x'| / 2 and Manhattan distances, the R package
    # npdr's "allele-sharing" diff and "allele-sharing-manhattan" metric (the pair-by-pair
    # path: slower)
    counts = lambda X, y: encode(X, y, discrete=False, n_classes=2)
    methods = {
        "NPDR (MultiSURF, calibrated)": lambda X, y, s: NPDR().test(snp_data(X, y),
                                                                     random_state=s),
        "NPDR, allele-sharing diff": lambda X, y, s: NPDR().test(counts(X, y), random_state=s),
        "NPDR, k nearest (k = 0.154 (n - 1) = 30)": lambda X, y, s: NPDR("k-nearest").test(
            snp_data(X, y), random_state=s),
        "NPDR, k = 10 nearest": lambda X, y, s: NPDR("k-nearest", k=10).test(
            snp_data(X, y), random_state=s),
        "NPDR, 100 permutations": lambda X, y, s: NPDR().test(snp_data(X, y), calibration=100,
                                                               random_state=s),
        "STIR MultiSURF, calibrated": lambda X, y, s: stir(MultiSURF(), snp_data(X, y),
                                                           random_state=s),
        "STIR ReliefF k=10, calibrated": lambda X, y, s: stir(ReliefF(k=10), snp_data(X, y),
                                                              random_state=s),
        "oracle: LRT of the true model (bound)": lambda X, y, s: oracle_pvalues(
            X, y, np.random.default_rng(s)),
    }
    found = {name: [] for name in methods}
    fdp = {name: [] for name in methods}
    seconds = {name: 0.0 for name in methods}
    correlation = []
    for rep in range(reps):
        X, y = planted(np.random.default_rng(2000 + rep))
        for name, method in methods.items():
            start = time.perf_counter()
            result = method(X, y, rep)
            seconds[name] += time.perf_counter() - start
            q = benjamini_hochberg(result) if isinstance(result, np.ndarray) else result.qvalues
            chosen = q < 0.05
            found[name].append(chosen[:5].mean())
            fdp[name].append(chosen[5:].sum() / max(chosen.sum(), 1))
        data = snp_data(X, y)
        correlation.append(np.corrcoef(NPDR().test(data, calibration=0).statistics,
                                       stir(MultiSURF(), data, calibration=0).statistics)[0, 1])
    print("| method | data sets | planted found at q < .05, mean [95 % interval] | "
          "FDP, mean [95 % interval] | minus STIR MultiSURF, per data set [95 % interval] | "
          "s/data set |")
    print("|---|---|---|---|---|---|")
    stir_found = np.array(found["STIR MultiSURF, calibrated"])
    for name in methods:
        print(f"| {name} | {reps} | {interval(found[name])} | {interval(fdp[name])} | "
              f"{interval(np.array(found[name]) - stir_found)} | "
              f"{seconds[name] / reps:.2f} |", flush=True)
    correlation = np.array(correlation)
    print(f"\nNPDR's and STIR MultiSURF's uncalibrated statistics over the 100 SNPs, Pearson "
          f"correlation per data set: mean {correlation.mean():.3f}, "
          f"min {correlation.min():.3f}")


def main_effects(rng, n=400, a=100, planted=10, odds_ratio=2.0):
    X = snps(rng, n, a)
    logit = np.log(odds_ratio) * X[:, :planted].sum(axis=1)
    logit -= np.median(logit)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    return X, y


def case_control(rng, n=400, a=100, planted=10, odds_ratio=2.0):
    """n / 2 cases and n / 2 controls drawn from a population whose risk has an odds ratio of
    ``odds_ratio`` per minor allele of each of the first ``planted`` SNPs (logit centred on its
    mean: about half the population are cases)."""
    maf = rng.uniform(0.1, 0.5, a)
    need = {1.0: n // 2, 0.0: n - n // 2}
    parts = []
    while need[0.0] or need[1.0]:
        X = snps(rng, 4 * n, a, maf)
        logit = np.log(odds_ratio) * (X[:, :planted] - 2 * maf[:planted]).sum(axis=1)
        y = (rng.random(4 * n) < 1 / (1 + np.exp(-logit))).astype(float)
        for label in need:
            take = np.flatnonzero(y == label)[:need[label]]
            need[label] -= take.size
            parts.append((X[take], y[take]))
    return np.vstack([X for X, _ in parts]), np.concatenate([y for _, y in parts])


def epistatic_pair(rng, n=400, a=100, logit=2.0):
    X = snps(rng, n, a)
    carry = X[:, :2] > 0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit * np.where(carry[:, 0] ^ carry[:, 1], 1, -1)))
         ).astype(float)
    return X, y


def standard_section(reps, skip=(), scenarios=()):
    from orangecontrib.relief.estimators.interactions import interacting_pairs
    from orangecontrib.relief.estimators.trend import TrendTest
    snp_data = lambda X, y: encode(X, y, discrete=True, n_classes=2)
    methods = {
        "allelic trend test": lambda d, s: TrendTest().test(d),
        "NPDR (calibrated)": lambda d, s: NPDR().test(d, random_state=s),
        "NPDR (Wald, uncalibrated)": lambda d, s: NPDR(statistic="wald").test(d, calibration=0),
        "STIR MultiSURF (calibrated)": lambda d, s: stir(MultiSURF(), d, random_state=s),
        "pair scan": lambda d, s: interacting_pairs(d, method="scan", random_state=s),
    }
    methods = {name: m for name, m in methods.items()
               if not any(word and word in name for word in skip)}
    simulations = {
        "main effects, 200 cases and 200 controls (10 SNPs, OR 2 per allele)":
            (case_control, 10),
        "main effects, classes as drawn (10 SNPs, OR 2 per allele)": (main_effects, 10),
        "pure-epistatic pair (XOR, logit +-2)": (epistatic_pair, 2)}
    simulations = {name: s for name, s in simulations.items()
                   if not any(scenarios) or any(word and word in name for word in scenarios)}
    print("| scenario | method | data sets | planted found at q < .05, mean [95 % interval] | "
          "FDP, mean [95 % interval] | null SNPs p < .05 | planted mean z | s/data set |")
    print("|---|---|---|---|---|---|---|---|")
    for scenario, (simulate, planted) in simulations.items():
        found = {name: [] for name in methods}
        fdp = {name: [] for name in methods}
        null_p = {name: [] for name in methods}
        mean_z = {name: [] for name in methods}
        seconds = {name: 0.0 for name in methods}
        for rep in range(reps):
            X, y = simulate(np.random.default_rng(3000 + rep))
            data = snp_data(X, y)
            for name, method in methods.items():
                start = time.perf_counter()
                result = method(data, rep)
                seconds[name] += time.perf_counter() - start
                if name == "pair scan":
                    called = [(p.first, p.second) for p in result if p.qvalue < 0.05]
                    true = [c for c in called if c[0] < planted and c[1] < planted]
                    hit = {i for c in true for i in c}
                    found[name].append(len(hit) / planted)
                    fdp[name].append((len(called) - len(true)) / max(len(called), 1))
                else:
                    chosen = result.qvalues < 0.05
                    found[name].append(chosen[:planted].mean())
                    fdp[name].append(chosen[planted:].sum() / max(chosen.sum(), 1))
                    null_p[name].append(np.mean(result.pvalues[planted:] < 0.05))
                    z = result.statistics[:planted]
                    mean_z[name].append(np.mean(np.abs(z) if "trend" in name else z))
        for name in methods:
            share = f"{np.mean(null_p[name]):.1%}" if null_p[name] else "–"
            z = f"{np.mean(mean_z[name]):.2f}" if mean_z[name] else "–"
            print(f"| {scenario} | {name} | {reps} | {interval(found[name])} | "
                  f"{interval(fdp[name])} | {share} | {z} | {seconds[name] / reps:.2f} |",
                  flush=True)


def standard_fdr_section(reps):
    from orangecontrib.relief.estimators.trend import TrendTest
    print("| scenario | data sets | planted found at q < .05 | FDR (mean FDP) at q < .05 | "
          "data sets with a false discovery | null SNPs p < .05 |")
    print("|---|---|---|---|---|---|")
    for scenario, simulate in (("200 cases and 200 controls", case_control),
                               ("classes as drawn", main_effects)):
        fdp, null_p, found = [], [], []
        for rep in range(reps):
            X, y = simulate(np.random.default_rng(3000 + rep))
            result = TrendTest().test(encode(X, y, discrete=True, n_classes=2))
            chosen = result.qvalues < 0.05
            found.append(chosen[:10].mean())
            fdp.append(chosen[10:].sum() / max(chosen.sum(), 1))
            null_p.append(np.mean(result.pvalues[10:] < 0.05))
        fdp = np.array(fdp)
        print(f"| main effects, {scenario} | {reps} | {interval(found)} | {interval(fdp)} | "
              f"{np.mean(fdp > 0):.1%} | {np.mean(null_p):.2%} |", flush=True)


def standard_z_section(reps):
    print("| scenario | data set | cases | NPDR planted mean z | STIR planted mean z | "
          "correlation over the SNPs |")
    print("|---|---|---|---|---|---|")
    for scenario, simulate in (("200 cases and 200 controls", case_control),
                               ("classes as drawn", main_effects)):
        for rep in range(reps):
            X, y = simulate(np.random.default_rng(3000 + rep))
            data = encode(X, y, discrete=True, n_classes=2)
            npdr = NPDR().test(data, calibration=0).statistics
            relief = stir(MultiSURF(), data, calibration=0).statistics
            print(f"| {scenario} | {rep} | {y.mean():.1%} | {npdr[:10].mean():.2f} | "
                  f"{relief[:10].mean():.2f} | {np.corrcoef(npdr, relief)[0, 1]:.3f} |",
                  flush=True)


def standard_balanced_section(reps, permutations=30):
    from orangecontrib.relief.estimators.significance import calibrated_pvalues

    def differences(differ, rows, others, y):
        """(pooled, balanced) differences of the SNPs' shares of differing genotypes."""
        miss = y[rows] != y[others]
        hits = [~miss & (y[rows] == c) for c in (0.0, 1.0)]
        shares = lambda pairs: differ[pairs].mean(axis=0)
        return (shares(miss) - shares(~miss),
                shares(miss) - (shares(hits[0]) + shares(hits[1])) / 2)

    print("| scenario | hits | data sets | planted found at q < .05, mean [95 % interval] | "
          "null SNPs p < .05 |")
    print("|---|---|---|---|---|")
    for scenario, simulate in (("200 cases and 200 controls", case_control),
                               ("classes as drawn", main_effects)):
        found = {"pooled": [], "balanced": []}
        null_p = {"pooled": [], "balanced": []}
        for rep in range(reps):
            X, y = simulate(np.random.default_rng(3000 + rep))
            data = encode(X, y, discrete=True, n_classes=2)
            context = NPDR().context(data)
            rows, others = context.rows, context.others
            differ = X[rows] != X[others]
            observed = differences(differ, rows, others, y)
            rng = np.random.default_rng(rep)
            null = [differences(differ, rows, others, rng.permutation(y))
                    for _ in range(permutations)]
            for k, name in enumerate(("pooled", "balanced")):
                p = calibrated_pvalues(observed[k], np.array([n[k] for n in null]))
                found[name].append(np.mean(benjamini_hochberg(p)[:10] < 0.05))
                null_p[name].append(np.mean(p[10:] < 0.05))
        for name in found:
            print(f"| main effects, {scenario} | {name} | {reps} | {interval(found[name])} | "
                  f"{np.mean(null_p[name]):.1%} |", flush=True)


def strata_section(reps):
    from orangecontrib.relief.estimators import significance
    n = 400
    print("| permutations | replicates | unrelated SNPs p < .05 | KS p (unrelated) | "
          "confounded SNPs p < .05 | sets with a discovery (q < .05) |")
    print("|---|---|---|---|---|---|")
    for size, label in ((significance.STRATUM_SIZE, "strata of "
                         f"{significance.STRATUM_SIZE} (the default)"),
                        (5, "strata of 5"), (40, "strata of 40"), (n, "over all instances")):
        unrelated, confounded, any_fd = [], [], []
        previous, significance.STRATUM_SIZE = significance.STRATUM_SIZE, size
        try:
            for rep in range(reps):
                rng = np.random.default_rng(5000 + rep)
                age = rng.normal(size=n)
                X = snps(rng, n, 100)
                X[:, :10] = rng.binomial(2, 1 / (1 + np.exp(0.85 - 1.5 * age))[:, None],
                                         (n, 10))
                y = (rng.random(n) < 1 / (1 + np.exp(-1.5 * age))).astype(float)
                data = encode(X, y, discrete=True, n_classes=2,
                              covariates=as_covariates(age, n, names=["age"]))
                result = NPDR().test(data, random_state=rep)
                unrelated.append(result.pvalues[10:])
                confounded.append(result.pvalues[:10])
                any_fd.append((result.qvalues < 0.05).any())
        finally:
            significance.STRATUM_SIZE = previous
        u, c = np.concatenate(unrelated), np.concatenate(confounded)
        print(f"| {label} | {reps} | {np.mean(u < 0.05):.1%} | "
              f"{stats.kstest(u, 'uniform').pvalue:.2g} | {np.mean(c < 0.05):.1%} | "
              f"{np.mean(any_fd):.0%} |", flush=True)


def score_vs_wald_section(reps):
    n = 300
    r, own, calibrated = [], {"score": [], "wald": []}, {"score": [], "wald": []}
    for rep in range(reps):
        rng = np.random.default_rng(7000 + rep)
        y = (rng.random(n) < 0.4).astype(float)
        data = encode(snps(rng, n, 60), y, discrete=True, n_classes=2,
                      covariates=as_covariates(rng.normal(size=(n, 2)), n))
        results = {}
        for statistic in ("score", "wald"):
            results[statistic] = NPDR(statistic=statistic).test(data, calibration=0)
            own[statistic].append(results[statistic].pvalues)
            calibrated[statistic].append(NPDR(statistic=statistic).test(
                data, random_state=rep).pvalues)
        r.append(np.corrcoef(results["score"].statistics, results["wald"].statistics)[0, 1])
    print("| statistic | the regressions' own p < .05 | calibrated p < .05 (30 permutations) |"
          " KS p (calibrated) |")
    print("|---|---|---|---|")
    for statistic in ("score", "wald"):
        o, c = np.concatenate(own[statistic]), np.concatenate(calibrated[statistic])
        print(f"| {statistic} | {np.mean(o < 0.05):.1%} | {np.mean(c < 0.05):.1%} | "
              f"{stats.kstest(c, 'uniform').pvalue:.2g} |")
    print(f"\ncorrelation of the score and Wald statistics over the SNPs of a data set: mean "
          f"{np.mean(r):.4f}, min {np.min(r):.4f} ({reps} data sets of {n} x 60 null SNPs, "
          "two numeric covariates)")


def progress_section():
    rng = np.random.default_rng(0)
    n, a = 1000, 4000
    X = snps(rng, n, a)
    y = rng.integers(0, 2, n).astype(float)
    pcs = rng.normal(size=(n, 10))
    sex_site = as_covariates(np.c_[rng.integers(0, 2, n), rng.integers(0, 3, n)], n,
                             discrete=True)
    cases = (("grouped", X, True, sex_site, "score"),
             ("counted", X, True, as_covariates(pcs, n), "score"),
             ("score", rng.normal(size=(n, a // 10)), False, as_covariates(pcs[:, :2], n),
              "score"),
             ("wald", rng.normal(size=(n, a // 50)), False, as_covariates(pcs[:, :2], n),
              "wald"))
    print("| fits | data | search (CPU s) | one pass of fits (CPU s) | ratio | assumed |")
    print("|---|---|---|---|---|---|")
    for name, Xc, discrete, covs, statistic in cases:
        data = encode(Xc, y, discrete=discrete, n_classes=2, covariates=covs)
        npdr = NPDR(statistic=statistic)
        npdr(encode(Xc[:60], y[:60], discrete=discrete, n_classes=2,
                    covariates=as_covariates(covs.values[:60], 60, discrete=covs.discrete)))
        start = time.process_time()
        context = npdr.context(data)
        search = time.process_time() - start
        start = time.process_time()
        npdr.estimate(context)
        fits = time.process_time() - start
        print(f"| {name} | {n} x {Xc.shape[1]}, {covs.n_covariates} covariates | "
              f"{search:.2f} | {fits:.2f} | {fits / search:.1f} | {npdr.fit_work(data):.1f} |",
              flush=True)


def speed_numeric_child(path):
    from dataclasses import replace
    from orangecontrib.relief.readers import read_plink
    start = time.perf_counter()
    data = read_plink(path)
    read = time.perf_counter() - start
    rng = np.random.default_rng(0)
    n = data.n_instances
    covs = as_covariates(rng.normal(size=(n, 10)), n, names=[f"PC{i}" for i in range(1, 11)])
    data = replace(data, covariates=covs)
    npdr = NPDR()
    load = os.getloadavg()[0]
    begin, cpu = time.perf_counter(), time.process_time()
    context = npdr.context(data)
    search, search_cpu = time.perf_counter() - begin, time.process_time() - cpu
    begin, cpu = time.perf_counter(), time.process_time()
    scores = npdr.estimate(context)
    fits, fits_cpu = time.perf_counter() - begin, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    print(json.dumps({"read": read, "search": search, "fits": fits, "search_cpu": search_cpu,
                      "fits_cpu": fits_cpu, "load_before": load,
                      "pairs": int(context.rows.size), "peak_gb": peak, "load": os.getloadavg()[0],
                      "top": [int(i) for i in np.argsort(-scores)[:2]]}))


def speed_numeric_section(workdir, n, a):
    sys.path.insert(0, os.path.dirname(__file__))
    from plink_scale import write_bed
    path = write_bed(os.path.join(workdir, f"npdr_{n}x{a}.bed"), n, a)
    # the warm-up compiles the kernels once (numba caches them): the timed run does not pay
    small = write_bed(os.path.join(workdir, "npdr_warm.bed"), 300, 640)
    subprocess.run([sys.executable, __file__, "--speed-numeric-child", small], check=True,
                   capture_output=True, env=dict(os.environ, ORANGE_RELIEF_KERNELS="compiled"))
    out = subprocess.run([sys.executable, __file__, "--speed-numeric-child", path], check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    scale = 100_000 / a
    print(f"NPDR MultiSURF + 10 numeric covariates (score test), {n:,} x {a:,} SNPs from .bed "
          f"({result['pairs']:,} pairs): reading {result['read']:.1f} s, neighbour search "
          f"{result['search']:.1f} s ({result['search_cpu']:.1f} CPU s), fits "
          f"{result['fits']:.1f} s ({result['fits_cpu']:.1f} CPU s), peak "
          f"{result['peak_gb']:.2f} GB, load {result['load_before']:.1f} -> {result['load']:.1f}, "
          f"top SNPs {result['top']}")
    if a < 100_000:
        print(f"linear in the SNPs, 100,000 SNPs would take {scale * result['search']:.0f} s of "
              f"search and {scale * result['fits']:.0f} s of fits at this load: "
              f"{scale * (result['search'] + result['fits']):.0f} s; CPU seconds "
              f"{scale * (result['search_cpu'] + result['fits_cpu']):.0f} (on two idle cores "
              f"about half)")


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
    parser.add_argument("--skip", default="", help="standard: leave out the methods whose "
                        "name contains one of these words (comma-separated), e.g. STIR")
    parser.add_argument("--scenarios", default="", help="standard: only the scenarios whose "
                        "name contains one of these words (comma-separated), e.g. cases")
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-a", type=int, default=100_000)
    parser.add_argument("--speed-child", help=argparse.SUPPRESS)
    parser.add_argument("--speed-numeric-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_child:
        return speed_child(args.speed_child)
    if args.speed_numeric_child:
        return speed_numeric_child(args.speed_numeric_child)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
    for section in args.sections.split(","):
        print(f"## {section}\n")
        if section == "null":
            null_section(args.reps)
        elif section in ("confounding", "confounding-numeric"):
            confounding_section(args.reps, numeric=section == "confounding-numeric")
        elif section == "power":
            power_section(args.reps)
        elif section == "standard":
            standard_section(args.reps, args.skip.split(","), args.scenarios.split(","))
        elif section == "standard-fdr":
            standard_fdr_section(args.reps)
        elif section == "standard-z":
            standard_z_section(args.reps)
        elif section == "standard-balanced":
            standard_balanced_section(args.reps)
        elif section == "speed":
            speed_section(args.workdir, args.n, args.a)
        elif section == "speed-numeric":
            speed_numeric_section(args.workdir, args.n, args.a)
        elif section == "strata":
            strata_section(args.reps)
        elif section == "score-vs-wald":
            score_vs_wald_section(args.reps)
        elif section == "progress":
            progress_section()
        print()


if __name__ == "__main__":
    main()
