"""A deliberately plain, loop-by-loop reference of the Relief family, for testing the engine.

Written from the papers, not from the engine: pure Python loops over iterations, neighbours and
attributes, no vectorisation, no numba, no use of ``DiffModel``. Slow on purpose; use it on tens of
instances.

Sources
-------
* diff, eqs. 1-2 and Fig. 1 (Relief), Fig. 3 (ReliefF), Fig. 4 with eqs. 13-14 (RReliefF):
  Robnik-Šikonja & Kononenko 1999;
* RELIEF-A (k neighbours), missing values RELIEF-B/C/D, RELIEF-E/F: Kononenko 1994;
* Euclidean distance of Kira & Rendell: Kira & Rendell 1992;
* CORElearn's choices (ramp, Laplace, both-missing with the current class, 5 bins for numeric
  missing values, skipping zero distances, exp-rank ties, k capped by class size):
  CORElearn 1.57.3 (its source and its reference numbers in tests/data/corelearn);
* the diff conventions the project chose (RELIEF-C = RELIEF-B inside distances, no ramp on
  missing-value diffs, bins max(2, N // 5) when N < 25, an all-missing attribute diffs 0 in
  distances and gets NaN): the docstring of ``orangecontrib/relief/estimators/neighbourhood/diffs.py``.

The reference takes the iteration instances explicitly (``rows``): the engine's sample of m
instances can be replayed.
"""
import math

NAN = float("nan")


def _is_missing(v):
    return v != v


class ReferenceData:
    """Attributes, target and diff options, with the per-attribute tables the diff needs.

    ``X`` is a list of rows (NaN = missing), discrete values integer codes 0..n_values-1;
    ``n_classes`` > 0 for classification (``y`` class codes), 0 for regression.
    """

    def __init__(self, X, y, discrete, n_values, n_classes, numeric_diff="linear",
                 t_equal=0.04, t_different=0.1, missing="D", laplace=False,
                 both_missing="both", numeric_bins=5, distance="manhattan"):
        self.X = [[float(v) for v in row] for row in X]
        self.y = [float(v) for v in y]
        self.n = len(self.X)
        self.a = len(self.X[0]) if self.n else 0
        self.discrete = [bool(d) for d in discrete]
        self.n_classes = int(n_classes)
        self.numeric_diff = numeric_diff
        self.t_equal = t_equal
        self.t_different = t_different
        self.missing = missing
        self.laplace = laplace
        self.both_missing = both_missing
        self.distance_kind = distance
        self._distances = {}
        # ranges of numeric attributes over their known values (eq. 2: max(A) - min(A))
        self.low, self.span, self.usable = [], [], []
        for t in range(self.a):
            known = [row[t] for row in self.X if not _is_missing(row[t])]
            self.usable.append(len(known) > 0)
            if known and not self.discrete[t]:
                self.low.append(min(known))
                self.span.append(max(known) - min(known))
            else:
                self.low.append(0.0)
                self.span.append(1.0)
        # number of values: declared for discrete, equal-width bins for numeric
        bins = numeric_bins if self.n >= 25 else max(2, self.n // 5)
        self.n_vals = [int(n_values[t]) if self.discrete[t] else bins for t in range(self.a)]
        if self.n_classes:
            targets = self.n_classes
            self.group = [int(c) for c in self.y]
        else:  # regression: RELIEF-D's probabilities lose the class conditioning
            targets = 1
            self.group = [0] * self.n
        if self.n_classes:
            self.prior = [0.0] * self.n_classes
            for c in self.group:
                self.prior[c] += 1.0 / self.n
        if not self.n_classes:
            self.y_span = max(self.y) - min(self.y)
        # P[t][c][v] = P(value v of attribute t | class c), relative frequency or Laplace
        self.P = []
        for t in range(self.a):
            table = []
            for c in range(targets):
                counts = [0] * self.n_vals[t]
                total = 0
                for i in range(self.n):
                    if self.group[i] == c and not _is_missing(self.X[i][t]):
                        counts[self.code(t, self.X[i][t])] += 1
                        total += 1
                nv = self.n_vals[t]
                if laplace:
                    table.append([(counts[v] + 1) / (total + nv) for v in range(nv)])
                elif total:
                    table.append([counts[v] / total for v in range(nv)])
                else:  # no known value in this class: nothing is known, take uniform
                    table.append([1.0 / nv] * nv)
            self.P.append(table)

    def code(self, t, value):
        """The value's index: the code of a discrete value, the equal-width bin of a numeric."""
        if self.discrete[t]:
            return int(value)
        nb = self.n_vals[t]
        if self.span[t] == 0:
            return 0
        b = int(math.floor((value - self.low[t]) / self.span[t] * nb))
        return min(b, nb - 1)

    # --- diff -----------------------------------------------------------------------------------
    def diff(self, t, i, j, current=None, in_distance=False):
        """diff(A_t, I_i, I_j). ``current`` is the instance whose neighbours are sought (its class
        is used for both factors when both values are missing and both_missing == "current").
        In the estimate RELIEF-C returns NaN for a pair with a missing value (to be left out);
        inside distances it is RELIEF-B. An attribute without known values: 0 in distances,
        NaN in the estimate."""
        if not self.usable[t]:
            return 0.0 if in_distance else NAN
        u, v = self.X[i][t], self.X[j][t]
        if not _is_missing(u) and not _is_missing(v):
            if self.discrete[t]:
                return 0.0 if u == v else 1.0                     # eq. 1
            if self.span[t] == 0:
                return 0.0
            d = abs(u - v) / self.span[t]                          # eq. 2
            if self.numeric_diff == "ramp":
                return self._ramp(d)
            return d
        variant = self.missing
        if variant == "C" and in_distance:
            variant = "B"
        if variant == "C":
            return NAN
        if variant == "B":
            return 1.0 - 1.0 / self.n_vals[t]
        # RELIEF-D
        Pt = self.P[t]
        if _is_missing(u) and _is_missing(v):
            ci = self.group[i]
            cj = self.group[j]
            if self.both_missing == "current":
                cj = ci = self.group[i if current is None else current]
            s = 0.0
            for val in range(self.n_vals[t]):
                s += Pt[ci][val] * Pt[cj][val]
            return 1.0 - s
        if _is_missing(u):  # I_i's value unknown: conditioned on I_i's class
            return 1.0 - Pt[self.group[i]][self.code(t, v)]
        return 1.0 - Pt[self.group[j]][self.code(t, u)]

    def _ramp(self, d):
        if d <= self.t_equal:
            return 0.0
        if d >= self.t_different:
            return 1.0
        return (d - self.t_equal) / (self.t_different - self.t_equal)

    def target_diff(self, i, j):
        """diff(tau, I_i, I_j) for a regression target: |y_i - y_j| / range, ramped like a
        numeric attribute when numeric_diff == "ramp"."""
        d = abs(self.y[i] - self.y[j]) / self.y_span
        if self.numeric_diff == "ramp":
            return self._ramp(d)
        return d

    def distance(self, i, j):
        """Manhattan: the sum of the diffs (papers); Euclidean: the square root of the sum of
        squared diffs (Kira & Rendell, Kira & Rendell 1992). Remembered once computed."""
        if (i, j) not in self._distances:
            self._distances[i, j] = self._distance(i, j)
        return self._distances[i, j]

    def _distance(self, i, j):
        s = 0.0
        for t in range(self.a):
            d = self.diff(t, i, j, current=i, in_distance=True)
            s += d * d if self.distance_kind == "euclidean" else d
        return math.sqrt(s) if self.distance_kind == "euclidean" else s


# --- neighbours and their weights ---------------------------------------------------------------
def nearest(data, i, candidates, k, skip_zero_distance=False):
    """The k nearest of ``candidates`` to instance i (i itself never), as a list of
    (distance, index), nearest first; fewer when there are fewer candidates."""
    found = []
    for j in candidates:
        if j == i:
            continue
        d = data.distance(i, j)
        if skip_zero_distance and d == 0:
            continue
        found.append((d, j))
    found.sort()
    return found[:k]


def neighbour_weights(neighbours, weighting="equal", sigma=20.0):
    """Weights of ``neighbours`` (nearest first), normalised to sum 1.

    equal: all 1; exp-rank: exp(-(r / sigma)^2) for 0-based rank r (eq. 14), neighbours at equal
    distance sharing the weight of the first of them; 1/d and 1/d2: the inverse (squared)
    distance (at distance 0: those neighbours share all the influence)."""
    raw = []
    for r, (d, _) in enumerate(neighbours):
        if weighting == "equal":
            raw.append(1.0)
        elif weighting == "exp-rank":
            first = r
            while first > 0 and neighbours[first - 1][0] == d:
                first -= 1
            raw.append(math.exp(-(first / sigma) ** 2))
        elif weighting in ("1/d", "1/d2"):
            if any(n[0] == 0 for n in neighbours):
                # the limit d -> 0: the neighbours at distance 0 share all the influence
                raw.append(1.0 if d == 0 else 0.0)
            else:
                raw.append(1.0 / d if weighting == "1/d" else 1.0 / (d * d))
        else:
            raise ValueError(weighting)
    total = sum(raw)
    return [w / total for w in raw]


# --- ReliefF family -------------------------------------------------------------------------------
def relieff_terms(data, rows, k, weighting="equal", sigma=20.0, misses="per-class",
                  skip_zero_distance=False):
    """Per iteration R and per attribute: the list of (signed weight, diff) contributions of
    Fig. 3 (hits negative, misses positive with P(C)/(1 - P(class(R)))); RELIEF-E
    (``misses="pooled"``) takes the k nearest of all other classes together, unweighted by
    priors; ``misses="equal"`` weighs every other class's misses 1/(C - 1) (CORElearn's
    ReliefFavgC and ReliefFpa under uniform costs). Yields, per iteration, a list of (coefficient, neighbour index)."""
    per_iteration = []
    for r in rows:
        cr = data.group[r]
        terms = []
        same = [j for j in range(data.n) if data.group[j] == cr]
        hits = nearest(data, r, same, k, skip_zero_distance)
        for w, (_, j) in zip(neighbour_weights(hits, weighting, sigma), hits):
            terms.append((-w, j))
        if misses == "pooled":
            others = [j for j in range(data.n) if data.group[j] != cr]
            found = nearest(data, r, others, k, skip_zero_distance)
            for w, (_, j) in zip(neighbour_weights(found, weighting, sigma), found):
                terms.append((w, j))
        else:
            for c in range(data.n_classes):
                if c == cr:
                    continue
                members = [j for j in range(data.n) if data.group[j] == c]
                found = nearest(data, r, members, k, skip_zero_distance)
                if not found:
                    continue
                factor = (1.0 / (data.n_classes - 1) if misses == "equal"
                          else data.prior[c] / (1.0 - data.prior[cr]))
                for w, (_, j) in zip(neighbour_weights(found, weighting, sigma), found):
                    terms.append((factor * w, j))
        per_iteration.append((r, terms))
    return per_iteration


def combine(data, per_iteration, m):
    """W[A] from the contributions: sum of coefficient * diff(A, R, N) over iterations, / m.

    RELIEF-C: the contributions whose diff involves a missing value are left out, and the hits'
    and the misses' remaining weights are renormalised to the weight they had in total:
    W[A] = M_all * (sum_valid miss w diff / sum_valid miss w) - H_all * (same for hits), with
    M_all, H_all the total miss and hit weights divided by m; NaN when the hits or the misses
    have weight but none of their diffs is known."""
    W = []
    for t in range(data.a):
        if not data.usable[t]:
            W.append(NAN)
            continue
        sums = {True: 0.0, False: 0.0}      # key: is a miss
        valid_w = {True: 0.0, False: 0.0}
        all_w = {True: 0.0, False: 0.0}
        for r, terms in per_iteration:
            for coef, j in terms:
                miss = coef > 0
                d = data.diff(t, r, j, current=r)
                all_w[miss] += abs(coef)
                if d == d:
                    sums[miss] += abs(coef) * d
                    valid_w[miss] += abs(coef)
        if data.missing != "C":
            W.append((sums[True] - sums[False]) / m)
            continue
        value = 0.0
        for miss, sign in ((True, 1.0), (False, -1.0)):
            if valid_w[miss] > 0:
                value += sign * all_w[miss] / m * sums[miss] / valid_w[miss]
            elif all_w[miss] > 0:   # no known diff among the hits (misses): undefined
                value = NAN
        W.append(value)
    return W


def relieff(data, k=10, rows=None, weighting="equal", sigma=20.0, misses="per-class",
            skip_zero_distance=False):
    """ReliefF (Fig. 3; RELIEF-F of Kononenko 1994), RELIEF-E with
    ``misses="pooled"``; ``rows`` are the iteration instances (default: each once)."""
    rows = list(range(data.n)) if rows is None else list(rows)
    terms = relieff_terms(data, rows, k, weighting, sigma, misses, skip_zero_distance)
    return combine(data, terms, len(rows))


def relief(data, rows=None, skip_zero_distance=False):
    """Kira & Rendell's Relief (Fig. 1): the nearest hit and the nearest miss of any other
    class, W[A] -= diff(A, R, H)/m, W[A] += diff(A, R, M)/m."""
    rows = list(range(data.n)) if rows is None else list(rows)
    per_iteration = []
    for r in rows:
        cr = data.group[r]
        same = [j for j in range(data.n) if data.group[j] == cr]
        other = [j for j in range(data.n) if data.group[j] != cr]
        terms = [(-1.0, j) for _, j in nearest(data, r, same, 1, skip_zero_distance)]
        terms += [(1.0, j) for _, j in nearest(data, r, other, 1, skip_zero_distance)]
        per_iteration.append((r, terms))
    return combine(data, per_iteration, len(rows))


def relieff_best_k(data, rows=None, weighting="equal", sigma=20.0, misses="per-class",
                   skip_zero_distance=False):
    """ReliefFbestK: for every k from 1 to the largest class size, the best ReliefF estimate
    of each attribute."""
    largest = max(data.group.count(c) for c in range(data.n_classes))
    best = None
    for k in range(1, largest + 1):
        W = relieff(data, k, rows, weighting, sigma, misses, skip_zero_distance)
        best = W if best is None else [max(b, w) for b, w in zip(best, W)]
    return best


def rrelieff(data, k=70, rows=None, weighting="exp-rank", sigma=20.0,
             skip_zero_distance=False):
    """RReliefF (Fig. 4): the k nearest instances of any target value (self excluded) with
    weights d(i, j) of eqs. 13-14 (or equal 1/k),
    W[A] = N_dC&dA / N_dC - (N_dA - N_dC&dA) / (m - N_dC), N_dC clamped into
    [1e-7, m - 1e-7] (as CORElearn).

    RELIEF-C (the project's convention, rrelieff.py's docstring; the 1994 paper defines C for
    classification only): per attribute, the pairs with a missing value are left out of N_dA
    and N_dC&dA, which are then scaled by m / (the summed influence of the remaining pairs);
    N_dC keeps all pairs."""
    rows = list(range(data.n)) if rows is None else list(rows)
    m = len(rows)
    contexts = []
    n_dc = 0.0
    for r in rows:
        found = nearest(data, r, range(data.n), k, skip_zero_distance)
        pairs = list(zip(neighbour_weights(found, weighting, sigma), [j for _, j in found]))
        contexts.append((r, pairs))
        for w, j in pairs:
            n_dc += data.target_diff(r, j) * w                       # line 6
    n_dc = min(max(n_dc, 1e-7), m - 1e-7)
    W = []
    for t in range(data.a):
        if not data.usable[t]:
            W.append(NAN)
            continue
        n_da = n_dcda = 0.0
        known = 0.0
        for r, pairs in contexts:
            for w, j in pairs:
                d_a = data.diff(t, r, j, current=r)
                if d_a != d_a:
                    continue
                d_c = data.target_diff(r, j)
                known += w
                n_da += d_a * w                                      # line 8
                n_dcda += d_c * d_a * w                              # lines 9-10
        if data.missing == "C":
            n_da *= m / known
            n_dcda *= m / known
        W.append(n_dcda / n_dc - (n_da - n_dcda) / (m - n_dc))       # line 15
    return W
