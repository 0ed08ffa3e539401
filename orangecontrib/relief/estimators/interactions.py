"""Interacting pairs of discrete attributes (SNPs): which pairs act on the class together.

For two discrete attributes A and B (values i and j) and a discrete class C, the **statistic**
is the likelihood-ratio test of the logistic (for more classes: multinomial) model with A, B and
their interaction as factors against the model with A and B only — the test of BOOST (Wan, Yang,
Yang, Xue, Fan, Tang & Yu, "BOOST: a fast approach to detecting gene-gene interactions in
genome-wide case-control studies", Am. J. Hum. Genet. 87(3), 2010, eqs. 3-5). On the C x I x J
table of counts ``n_cij`` the two models are the saturated log-linear model and the model of
no three-factor interaction [CA][CB][AB], whose fitted counts ``m_cij`` have the observed
margins ``n_ci.``, ``n_c.j`` and ``n_.ij`` and are found by iterative proportional fitting
(Deming & Stephan 1940; Agresti, *Categorical Data Analysis*, 3rd ed., 2013, sec. 9.7)::

    G² = 2 Σ n_cij log(n_cij / m_cij),    df = (C - 1)(I - 1)(J - 1),

C, I and J counting the classes and values present in the pair's table (:func:`table_df`).
A sparse table (rare genotypes: a combination no instance has) has fewer interaction terms that
can be estimated (:func:`.pair_scan.interaction_df`), but the chi-square distribution with that
smaller df makes the test liberal on such tables (measured: p < 0.05 in 6.5-6.9 % of rare x rare
pairs without interaction at n = 1,600), while the full df keeps it valid (3 %). G² is 0 when the log odds of the classes are the
sum of an effect of A and an effect of B, and grows with the interaction; a pure epistatic pair
(each SNP alone unrelated to the class) has a large G² and small main effects. An instance
missing A or B is left out of the pair's table. Data with covariates are refused: the test
does not adjust for them.

**Null and p-values.** The chi-square distribution with df degrees of freedom holds only
asymptotically: with rare genotypes (expected counts below 1 in some cells, as for a minor
allele frequency of 0.2 in a few hundred instances) G² is far from it, and when the pairs are
those of the attributes a Relief estimator ranks best on the same data, the ranking has already
picked attributes whose chance interactions are large. So each pair's chi-square tail
``s = -log P(χ²_df >= G²)`` is referred to its distribution under the null that the class is
independent of the attributes: the whole procedure — the ranking and the choice of the top
attributes when they are not given, and the statistics of all their pairs — is repeated on R
copies of the data with the class permuted (the same class sizes, the attributes' dependence
kept), and the N permuted values of s of all pairs together form the null pool. A pair's p-value
is (b + 1)/(N + 1), b being the number of pooled values at least its s (Phipson & Smyth,
"Permutation p-values should never be zero", 2010); beyond the pool's largest value e it is
``exp(e - s)/(N + 1)``, the chi-square tail scaled to meet the pool there, so that strong pairs
keep their order. Pooling makes the p-values of all pairs together uniform on null
data whatever the genotype frequencies (it assumes the pairs' permuted statistics are alike,
which the chi-square transformation makes nearly so). The q-values are Benjamini-Hochberg's over
the tested pairs. The pairs are ordered by p-value, best first (equal p-values by G²).

**Which pairs** (``method``). The exhaustive scan ("scan") tests every pair of attributes
(:func:`scan_pairs`: BOOST's scan of :mod:`.pair_scan`, the chi-square p-values of the test,
valid in every stratum of allele frequencies as measured, q-values over every pair; with
``n_permutations`` given, the permutation p-values above, each permutation a scan); it is
chosen by default ("auto") when the data's instances times pairs are at most
``SCAN_WORK``, about a minute's work on two cores. Above that the filter ("filter") tests the
pairs of the ``top`` attributes (default ``FILTER_TOP``) that an estimator ranks best — by
default :func:`filter_estimator`, two TuRF rounds around MultiSURF, which on wide SNP data
keeps the SNPs of a pure epistatic pair near the top where MultiSURF alone ranks them among
hundreds of noise SNPs (Moore & White, "Tuning ReliefF for genome-wide genetic analysis",
EvoBIO 2007). Giving ``top`` or ``estimator`` asks for the filter, giving ``attributes`` tests
their pairs. Each ranking of the filter's null costs as much as the first, so the filter pools
the statistics of all its pairs over at most ``MAX_RANKINGS`` permutations; the pool's
extension beyond its largest value keeps strong pairs apart.

The counts of all pairs of a block of attributes come from one matrix product of the indicator
columns (one per attribute value) of the instances of each class, and the fitting runs on all
pairs of the block at once.
"""
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from scipy import sparse, stats

from .base import progress_part, random_generator
from .pair_scan import EXACT_PAIRS, scan
from .significance import benjamini_hochberg, seeded, target_estimates

__all__ = ["Pair", "InteractingPairs", "interacting_pairs", "scan_pairs", "pair_statistics",
           "no_interaction_fit", "table_df", "MAX_VALUES", "SCAN_TOP", "METHODS", "choose_method", "filter_estimator"]

#: the most values of an attribute whose pairs are tested (the tables grow as its square)
MAX_VALUES = 16
#: permuted statistics wanted in the null pool: R = ceil(POOL / pairs) permutations by default,
#: at most MAX_RANKINGS when each repeats a ranking and at most MAX_PERMUTATIONS otherwise
POOL = 20_000
MAX_RANKINGS = 10
MAX_PERMUTATIONS = 2_000
#: which pairs are tested: every pair, the pairs of the best-ranked attributes, or the method
#: chosen by the size of the data (module docstring)
METHODS = ("auto", "scan", "filter")
#: the exhaustive scan is chosen when instances x pairs is at most this (about a minute's work
#: of BOOST's scan on two cores: all pairs of 20,000 SNPs of 2,000 instances, 28,000 of 1,000)
SCAN_WORK = 2_000 * (20_000 * 19_999 // 2)
#: the attributes whose pairs the filter tests by default
FILTER_TOP = 50
#: the best pairs the scan of more than ``pair_scan.EXACT_PAIRS`` pairs reports by default
#: (up to that many it reports every pair)
SCAN_TOP = 1_000
#: bytes of the pair tables (and their fits' temporaries) of one block of pairs
BLOCK_BYTES = 48 * 2 ** 20
#: iterative proportional fitting stops when no fitted margin is farther than this from the
#: observed one (in counts), or after MAX_FIT_ROUNDS rounds
FIT_TOLERANCE = 1e-6
MAX_FIT_ROUNDS = 200


class Pair(NamedTuple):
    """One tested pair: the two attributes' indices, G², its p-value and q-value."""
    first: int
    second: int
    statistic: float
    pvalue: float
    qvalue: float


@dataclass(frozen=True, eq=False)
class InteractingPairs:
    """The tested pairs, best first: ``first[i]`` and ``second[i]`` the attribute indices
    (``first < second``), ``statistics`` G², ``df`` its degrees of freedom, ``pvalues`` and
    ``qvalues``; ``attributes`` the tested attributes (best ranked first when they were
    ranked), ``n_permutations`` the permutations of the null, ``method`` how the pairs were
    chosen ("scan", "filter" or "given") and ``estimator`` the filter's estimator. Iterating gives
    :class:`Pair` records; :meth:`table` the rows (first, second, statistic, p, q)."""
    first: np.ndarray
    second: np.ndarray
    statistics: np.ndarray
    df: np.ndarray
    pvalues: np.ndarray
    qvalues: np.ndarray
    attributes: np.ndarray
    n_permutations: int
    #: "scan" (every pair), "filter" (the pairs of the best-ranked attributes) or "given"
    method: str = "given"
    #: the estimator that ranked the attributes (the filter), else None
    estimator: object = None
    #: the pairs tested: the q-values' number of tests (the scan keeps only its best pairs)
    n_tested: int = 0
    #: the q-values are exact up to this one, above it upper bounds (a scan of more pairs than
    #: it tests exactly: :mod:`.pair_scan`)
    exact_below: float = 1.0

    def __len__(self):
        return self.first.size

    def __getitem__(self, i):
        return Pair(int(self.first[i]), int(self.second[i]), float(self.statistics[i]),
                    float(self.pvalues[i]), float(self.qvalues[i]))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def table(self):
        """(pairs, 5) float array: the two indices, G², p and q of each pair, best first."""
        return np.column_stack([self.first, self.second, self.statistics, self.pvalues,
                                self.qvalues]).astype(float)


def no_interaction_fit(tables, callback=None):
    """The fitted counts (same shape) of the log-linear model of no three-factor interaction
    for each (C, I, J) table of counts in ``tables`` (P, C, I, J): iterative proportional
    fitting of the margins ``n_ci.``, ``n_c.j`` and ``n_.ij``, all tables at once (module
    docstring)."""
    fit = np.ones_like(tables)
    margins = [(3,), (2,), (1,)]
    observed = [tables.sum(axis=axis, keepdims=True) for axis in margins]
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(MAX_FIT_ROUNDS):
            for axis, total in zip(margins, observed):
                fitted = fit.sum(axis=axis, keepdims=True)
                fit *= np.where(fitted > 0, total / fitted, 0.0)
            if callback is not None:
                callback()
            # the last step fitted the margin n_.ij exactly; the others drift until convergence
            if all(np.abs(fit.sum(axis=axis, keepdims=True) - total).max() <= FIT_TOLERANCE
                   for axis, total in zip(margins[:2], observed[:2])):
                break
    return fit


def _likelihood_ratio(tables, callback=None):
    fit = no_interaction_fit(tables, callback)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(tables > 0, tables * np.log(tables / fit), 0.0)
    return np.maximum(2.0 * terms.sum(axis=(1, 2, 3)), 0.0)


def _indicators(codes, n_values):
    """(n, a * V) float32 indicator columns, V = max values: column a * V + v is codes[:, a] == v
    (a missing code: no indicator)."""
    n, a = codes.shape
    width = int(n_values.max())
    out = np.zeros((n, a, width), dtype=np.float32)
    for v in range(width):
        out[:, :, v] = codes == v
    return out.reshape(n, a * width), width


def pair_statistics(codes, y, n_classes, n_values, callback=None):
    """G² and its degrees of freedom (module docstring) of every pair (i, j), i < j, of the
    columns of ``codes`` ((n, a) value codes 0..n_values-1, NaN missing), in the order of
    ``numpy.triu_indices(a, 1)``, for the class codes ``y`` (0..n_classes-1).
    ``callback(fraction)`` reports progress; raising from it cancels."""
    n, a = codes.shape
    indicators, width = _indicators(codes, n_values)
    by_class = [indicators[y == c] for c in range(n_classes)]
    first, second = np.triu_indices(a, 1)
    df = np.zeros(first.size)
    statistics = np.zeros(first.size)
    # blocks of consecutive first attributes, about BLOCK_BYTES of tables (and temporaries) each
    pair_bytes = 8 * 8 * n_classes * width * width
    starts = np.searchsorted(first, np.arange(a))        # starts[a - 1] == number of pairs
    lo = 0
    while lo < a - 1:
        hi = lo + 1
        while hi < a - 1 and (starts[hi + 1] - starts[lo]) * pair_bytes <= BLOCK_BYTES:
            hi += 1
        tables = np.empty((starts[hi] - starts[lo], n_classes, width, width))
        for c, part in enumerate(by_class):
            counts = (part[:, lo * width:hi * width].T @ part[:, lo * width:]).astype(float)
            counts = counts.reshape(hi - lo, width, a - lo, width)
            k = 0
            for i in range(hi - lo):
                partners = counts[i, :, i + 1:, :]                 # (V, a - lo - i - 1, V)
                tables[k:k + partners.shape[1], c] = partners.transpose(1, 0, 2)
                k += partners.shape[1]
        done = starts[lo] / first.size
        step = None if callback is None else (lambda: callback(done))
        statistics[starts[lo]:starts[hi]] = _likelihood_ratio(tables, step)
        df[starts[lo]:starts[hi]] = table_df(tables)
        if callback is not None:
            callback(starts[hi] / first.size)
        lo = hi
    return statistics, df


def _tail(statistics, df):
    """-log P(χ²_df >= G²); 0 where df is 0 (a constant attribute: no test). Where the tail
    underflows (G² above about 1,400), the leading terms of the upper incomplete gamma function's
    asymptotic series, log Q(a, x) = -x + (a - 1) log x - log Γ(a) + log(1 + (a - 1)/x) with
    a = df/2, x = G²/2 (Abramowitz & Stegun 6.5.32): finite, so that strong pairs keep their
    order."""
    from scipy.special import gammaln
    k = np.maximum(df, 1)
    with np.errstate(divide="ignore"):
        tail = -stats.chi2.logsf(statistics, k)
    a, x = k / 2, np.maximum(np.asarray(statistics, float), 1.0) / 2
    # (computed for every pair, used where the tail underflows: G² far above df, where
    # (a - 1) / x is near 0; elsewhere, e.g. a = x = 1/2, it may be log(0), which would warn)
    with np.errstate(divide="ignore", invalid="ignore"):
        series = x - (a - 1) * np.log(x) + gammaln(a) - np.log1p((a - 1) / x)
    return np.where(df > 0, np.where(np.isfinite(tail), tail, series), 0.0)


def _check(data, attributes, top, n_permutations, method):
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if not data.is_classification:
        raise ValueError("interacting pairs need a discrete class")
    if data.weights is not None:
        raise ValueError("interacting pairs count instances; they take no instance weights")
    if data.covariates is not None:
        raise ValueError("the test of interacting pairs does not adjust for covariates: test "
                         "the data without them (the test is then unadjusted), or within "
                         "groups of equal covariates")
    if data.n_instances < 2:
        raise ValueError(f"interacting pairs need at least 2 instances, got {data.n_instances}")
    if len(np.unique(data.y[~np.isnan(data.y)])) < 2:
        raise ValueError("interacting pairs need at least two classes present in the data")
    if np.isnan(data.y).any():
        raise ValueError("the class is missing for some instances; remove them first")
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer))
                            or top < 2):
        raise ValueError(f"top must be an integer >= 2, got {top!r}")
    if n_permutations is not None and (isinstance(n_permutations, bool)
                                       or not isinstance(n_permutations, (int, np.integer))
                                       or n_permutations < 1):
        raise ValueError(f"n_permutations must be an integer >= 1 or None, "
                         f"got {n_permutations!r}")
    if attributes is not None:
        chosen = np.asarray(attributes)
        if chosen.ndim != 1 or chosen.size < 2 or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError("attributes must list at least two attribute indices")
        if chosen.min() < 0 or chosen.max() >= data.n_attributes:
            raise ValueError(f"attribute indices must be in 0..{data.n_attributes - 1}")
        if np.unique(chosen).size != chosen.size:
            raise ValueError("attributes lists an attribute twice")
        columns = chosen
    else:
        if data.n_attributes < 2:
            raise ValueError("interacting pairs need at least two attributes")
        columns = np.arange(data.n_attributes)
    numeric = columns[~data.discrete[columns]]
    if numeric.size:
        names = ", ".join(_name(data, c) for c in numeric[:3])
        raise ValueError(f"interacting pairs need discrete attributes; numeric: {names}"
                         f"{', ...' if numeric.size > 3 else ''} (discretize them first)")
    many = columns[data.n_values[columns] > MAX_VALUES]
    if many.size:
        raise ValueError(f"interacting pairs take attributes of at most {MAX_VALUES} values; "
                         f"{_name(data, many[0])} has {data.n_values[many[0]]}")
    return None if attributes is None else np.asarray(attributes, dtype=np.intp)


def _name(data, column):
    return data.names[column] if len(data.names) > column else f"attribute {column}"


def _codes(data, columns):
    """(n, len(columns)) float value codes of ``columns`` (NaN missing), from any form of X."""
    X = data.X[:, columns]
    return X.toarray() if sparse.issparse(X) else np.asarray(X, dtype=float)


def choose_method(n_instances, n_attributes):
    """The method "auto" takes for data of this size: "scan" (every pair) when instances x
    pairs is at most ``SCAN_WORK``, else "filter"."""
    pairs = n_attributes * (n_attributes - 1) // 2
    return "scan" if n_instances * pairs <= SCAN_WORK else "filter"


def filter_estimator():
    """The filter's default estimator, recommended for ranking wide SNP data: TuRF around
    MultiSURF with two rounds that each remove the worse-scored half of the SNPs (module
    docstring)."""
    from .surf import MultiSURF
    from .turf import TuRF
    return TuRF(MultiSURF(), remove=0.5, rounds=2)


def interacting_pairs(data, attributes=None, top=None, estimator=None, n_permutations=None,
                      method="auto", random_state=None, callback=None):
    """The interacting pairs of discrete attributes of ``data`` (:class:`.encoding.EncodedData`
    with a discrete class), best first, each with G² of the test of interaction, its p-value
    under the null of a class independent of the attributes and its Benjamini-Hochberg q-value
    (module docstring). Which pairs: those of the given ``attributes`` (indices); else by
    ``method`` — "scan" every pair, "filter" the pairs of the ``top`` attributes (default 50)
    that ``estimator`` (default :func:`filter_estimator`) ranks best, "auto" (default) the scan
    when the data are small enough for it (:func:`choose_method`) and neither ``top`` nor
    ``estimator`` is given, else the filter. The p-values come from ``n_permutations``
    permutations of the class drawn by ``random_state`` (None: enough for 20,000 permuted
    statistics, but at most 10 when each repeats the filter's ranking and 2,000 otherwise).
    ``callback(fraction)`` reports progress; raising from it cancels.

    Returns :class:`InteractingPairs` (iterating gives ``Pair(first, second, statistic,
    pvalue, qvalue)`` records; ``method`` says which pairs were tested)."""
    given = _check(data, attributes, top, n_permutations, method)
    if given is not None:
        method = "given"
    elif method == "auto":
        method = "filter" if top is not None or estimator is not None \
            else choose_method(data.n_instances, data.n_attributes)
    if method == "filter" and (FILTER_TOP if top is None else top) >= data.n_attributes:
        method = "scan"          # the filter would keep every attribute
    if method == "scan" and n_permutations is None:
        return scan_pairs(data, callback=callback)
    rank = method == "filter"
    rng = random_generator(random_state)
    if rank:
        estimator = seeded(filter_estimator() if estimator is None else estimator, rng)
    m = given.size if given is not None else \
        FILTER_TOP if rank and top is None else top if rank else data.n_attributes
    n_pairs = m * (m - 1) // 2
    if n_permutations is None:
        n_permutations = min(-(-POOL // n_pairs), MAX_RANKINGS if rank else MAX_PERMUTATIONS)
    runs = 1 + n_permutations
    n_classes = int(data.n_classes)
    # a ranking's share of one run: the neighbour search once, then an estimate a run
    estimate = target_estimates(estimator, data, progress_part(callback, 0.0, 0.5 / runs)) \
        if rank else None

    fixed = None if rank else (given if given is not None else np.arange(data.n_attributes))
    fixed_codes = None if rank else _codes(data, fixed)

    def run(target, part):
        if rank:
            scores = estimate(target, progress_part(part, 0.0, 0.5))
            order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable")
            columns = order[:m]
            codes = _codes(data, columns)
            part = progress_part(part, 0.5, 1.0)
        else:
            columns, codes = fixed, fixed_codes
        statistics, df = pair_statistics(codes, target.y.astype(np.intp),
                                         n_classes, data.n_values[columns], part)
        return columns, statistics, df

    columns, statistics, df = run(data, progress_part(callback, 0.0, 1 / runs))
    observed = _tail(statistics, df)
    null = np.empty((runs - 1, n_pairs))
    for r in range(1, runs):
        permuted = replace(data, y=data.y[rng.permutation(data.n_instances)])
        _, null_statistics, null_df = run(permuted,
                                          progress_part(callback, r / runs, (r + 1) / runs))
        null[r - 1] = _tail(null_statistics, null_df)
    p = pooled_pvalues(observed, null.ravel(), df)
    first, second = np.triu_indices(m, 1)
    order = np.lexsort((-statistics, p))
    a, b = columns[first[order]], columns[second[order]]
    if callback is not None:
        callback(1.0)
    return InteractingPairs(first=np.minimum(a, b), second=np.maximum(a, b),
                            statistics=statistics[order], df=df[order], pvalues=p[order],
                            qvalues=benjamini_hochberg(p)[order], attributes=columns,
                            n_permutations=runs - 1, method=method,
                            estimator=estimator if rank else None, n_tested=n_pairs)


def table_df(tables):
    """(P,) df = (C - 1)(I - 1)(J - 1) of each (C, I, J) table of counts in ``tables``
    (P, C, I, J), counting the classes and values present in it; 0 where fewer than two
    classes are present (module docstring). It is at least the df of the interaction terms
    that can be estimated on the table (:func:`.pair_scan.interaction_df`)."""
    tables = np.asarray(tables)
    classes = (tables.sum(axis=(2, 3)) > 0).sum(axis=1)
    rows = (tables.sum(axis=(1, 3)) > 0).sum(axis=1)
    cols = (tables.sum(axis=(1, 2)) > 0).sum(axis=1)
    return (np.maximum(classes - 1, 0) * np.maximum(rows - 1, 0)
            * np.maximum(cols - 1, 0)).astype(float)


def _exact(tables, step=None):
    """(G², df, -log p) of the chi-square test of each table (module docstring)."""
    statistics = _likelihood_ratio(tables, step)
    df = table_df(tables)
    return statistics, df, _tail(statistics, df)


def scan_pairs(data, attributes=None, top=None, callback=None):
    """Every pair of ``data``'s attributes (or of the given ``attributes``, indices) tested for
    interaction by BOOST's scan (Wan et al. 2010; :mod:`.pair_scan`): ``data`` an
    :class:`.encoding.EncodedData` with discrete attributes of at most four values (SNP
    genotypes) and a discrete class, without covariates. Returns :class:`InteractingPairs`
    (``method`` "scan") with the ``top`` best pairs (default: every pair up to
    ``pair_scan.EXACT_PAIRS`` pairs, else ``SCAN_TOP``), smallest p-value first (ties by G²),
    each with G², df, the chi-square p-value of the test and the Benjamini-Hochberg q-value
    over all ``n_tested`` pairs (exact up to ``exact_below``, above it an upper bound: every
    q-value of a scan of up to ``pair_scan.EXACT_PAIRS`` pairs is exact). ``callback(fraction)``
    reports progress; raising from it cancels within a fraction of a second.

    >>> import numpy as np
    >>> from orangecontrib.relief.estimators import encode
    >>> rng = np.random.default_rng(0)
    >>> X = rng.binomial(2, 0.5, (400, 30)).astype(float)
    >>> y = ((X[:, 3] == 1) ^ (X[:, 17] == 1)).astype(float)   # SNPs 3 and 17 together
    >>> pairs = scan_pairs(encode(X, y, discrete=True, n_values=3, n_classes=2))
    >>> best = pairs[0]
    >>> (best.first, best.second), best.qvalue < 1e-10, pairs.n_tested
    ((3, 17), True, 435)
    """
    given = _check(data, attributes, 2, None, "scan")
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer))
                            or top < 1):
        raise ValueError(f"top must be an integer >= 1, got {top!r}")
    columns = given if given is not None else np.arange(data.n_attributes)
    m = columns.size * (columns.size - 1) // 2
    if top is None:
        top = m if m <= EXACT_PAIRS else SCAN_TOP
    found = scan(data, columns, top, _exact, lambda some: _codes(data, some), callback)
    if callback is not None:
        callback(1.0)
    return InteractingPairs(first=found.first, second=found.second,
                            statistics=found.statistics, df=found.df,
                            pvalues=np.exp(-found.tails), qvalues=found.qvalues,
                            attributes=columns, n_permutations=0, method="scan",
                            n_tested=found.n_tested, exact_below=found.exact_below)


def pooled_pvalues(observed, pool, df):
    """p = (b + 1)/(N + 1) of each ``observed`` chi-square tail against the ``pool`` of N
    permuted ones, b counting those at least as large; beyond the pool's largest value e the
    chi-square tail scaled to meet it, exp(-(s - e))/(N + 1) (module docstring)."""
    pool = np.sort(pool)
    b = pool.size - np.searchsorted(pool, observed * (1 - 1e-12), side="left")
    p = (b + 1) / (pool.size + 1)
    if pool.size:
        edge = pool[-1]
        p = np.where(observed > edge, np.exp(-(observed - edge)) / (pool.size + 1), p)
    return np.where(df > 0, p, 1.0)
