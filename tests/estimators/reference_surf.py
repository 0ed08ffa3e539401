"""A plain, loop-by-loop reference of SURF, SURF*, MultiSURF and MultiSURF*, the SWRF family and
μ-Relief, for testing the engine.

Written from the definitions (Urbanowicz et al., "Relief-based feature selection: introduction and
review", J Biomed Inform 2018, §4.2; Granizo-Mackenzie & Moore 2013 for MultiSURF*; Stokes &
Visweswaran 2012 for SWRF*'s sigmoid and scikit-rebate 0.8's documentation for the other SWRF
forms; Aggarwal et al. 2023 for μ-Relief), with the
diff and distance of :class:`reference_relief.ReferenceData` (itself written from the papers):
Python loops over instances, band members and attributes; no numpy, no ``DiffModel``.
"""
import math

from reference_relief import NAN


def _sigmoid(d, threshold, sd):
    """Stokes & Visweswaran's weight of a band member: 2 / (1 + e^(-4 |d - t| / sd)) - 1."""
    return 2.0 / (1.0 + math.exp(-4.0 * abs(d - threshold) / (sd if sd > 0 else 1.0))) - 1.0


def _mean_sd(ds):
    mean = sum(ds) / len(ds)
    return mean, math.sqrt(sum((d - mean) ** 2 for d in ds) / len(ds))


def _extremes(data, i, distances, k):
    """μ-Relief's neighbours of R_i: per group (class; all for a numeric target) the k with the
    largest |d - mean distance of the group|, those tied at the k-th place sharing the rest:
    a list of (j, 1, share)."""
    members = []
    for g in set(data.group[j] for _, j in distances):
        pairs = [(d, j) for d, j in distances if data.group[j] == g]
        mean = sum(d for d, _ in pairs) / len(pairs)
        scored = sorted(((abs(d - mean), j) for d, j in pairs), reverse=True)
        filled = 0
        for score in sorted(set(sc for sc, _ in scored), reverse=True):
            tied = [j for sc, j in scored if sc == score]
            share = min(max(k - filled, 0), len(tied)) / len(tied)
            members += [(j, 1.0, share) for j in tied if share > 0]
            filled += len(tied)
    return members


def bands(data, rows, variant, k=10):
    """For each row its near and far band members, lists of (index, weight w(d), places), by
    ``variant``: "SURF", "SURF*", "MultiSURF", "MultiSURF*", the SWRF family ("SWRF", "SWRF*",
    "MultiSWRF", "MultiSWRF*", "MultiSWRFDB", "MultiSWRFDB*": weight the sigmoid of the
    distance from the band's threshold) or "MuRelief" (k neighbours per group)."""
    distances = {i: [(data.distance(i, j), j) for j in range(data.n) if j != i] for i in rows}
    if variant == "MuRelief":
        return {i: (_extremes(data, i, distances[i], k), []) for i in rows}
    sigmoid = "SWRF" in variant
    if not variant.startswith("Multi"):
        everything = [d for i in rows for d, _ in distances[i]]
        mean, sd = _mean_sd(everything)
        limits = {i: (mean, mean, sd) for i in rows}
    else:
        limits = {}
        for i in rows:
            mean, sd = _mean_sd([d for d, _ in distances[i]])
            half = 0.0 if variant.startswith("MultiSWRF") and "DB" not in variant else sd / 2
            limits[i] = (mean - half, mean + half, sd)
    starred = variant.endswith("*")
    out = {}
    for i in rows:
        near_limit, far_limit, sd = limits[i]
        near = [(j, _sigmoid(d, near_limit, sd) if sigmoid else 1.0, 1.0)
                for d, j in distances[i] if d < near_limit]
        far = [(j, _sigmoid(d, far_limit, sd) if sigmoid else 1.0, 1.0)
               for d, j in distances[i] if starred and d > far_limit]
        out[i] = (near, far)
    return out


def _class_band_terms(data, t, i, members):
    """(miss, hit, miss_known, hit_known, miss_total, hit_total) of attribute t over one band:
    the prior-weighted means of the diffs to each miss class and the mean over the hits,
    with the known-diff shares for RELIEF-C."""
    by_class = {}
    for j, strength, places in members:
        by_class.setdefault(data.group[j], []).append((j, strength, places))
    own = data.group[i]
    sums = {"miss": [0.0, 0.0, 0.0], "hit": [0.0, 0.0, 0.0]}   # diff sum, known, total
    for c, js in by_class.items():
        if c == own:
            key, weight = "hit", 1.0
        else:
            key, weight = "miss", data.prior[c] / (1.0 - data.prior[own])
        filled = sum(places for _, _, places in js)
        for j, strength, places in js:
            d = data.diff(t, i, j, current=i)
            w = weight * strength * places / filled
            sums[key][2] += w
            if d == d:
                sums[key][0] += w * d
                sums[key][1] += w
    return sums


def surf_family(data, variant, rows=None, k=10):
    """The estimates W = W_near - W_far of every attribute."""
    rows = list(range(data.n)) if rows is None else list(rows)
    m = len(rows)
    members = bands(data, rows, variant, k)
    W = []
    for t in range(data.a):
        if not data.usable[t]:
            W.append(NAN)
            continue
        total = 0.0
        for band, sign in ((0, 1.0), (1, -1.0)):
            if data.n_classes:
                acc = {"miss": [0.0, 0.0, 0.0], "hit": [0.0, 0.0, 0.0]}
                for i in rows:
                    terms = _class_band_terms(data, t, i, members[i][band])
                    for key in acc:
                        for q in range(3):
                            acc[key][q] += terms[key][q]
                part = {}
                for key, (s, known, tot) in acc.items():
                    if data.missing == "C":
                        part[key] = s * tot / known if known else (0.0 if tot == 0 else NAN)
                    else:
                        part[key] = s
                total += sign * (part["miss"] - part["hit"]) / m
            else:
                n_dc = n_da = n_dcda = known = m_band = 0.0
                for i in rows:
                    js = members[i][band]
                    filled = sum(places for _, _, places in js)
                    for j, strength, places in js:
                        w = strength * places / filled
                        m_band += w
                        d_c = data.target_diff(i, j)
                        n_dc += w * d_c
                        d_a = data.diff(t, i, j, current=i)
                        if d_a != d_a:
                            continue
                        known += w
                        n_da += w * d_a
                        n_dcda += w * d_c * d_a
                if not m_band:
                    continue
                if data.missing == "C":
                    n_da *= m_band / known
                    n_dcda *= m_band / known
                n_dc = min(max(n_dc, 1e-7), m_band - 1e-7)
                total += sign * (n_dcda / n_dc - (n_da - n_dcda) / (m_band - n_dc))
        W.append(total)
    return W
