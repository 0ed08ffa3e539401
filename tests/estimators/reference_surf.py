"""A plain, loop-by-loop reference of SURF, SURF*, MultiSURF and MultiSURF*, for testing the engine.

Written from the definitions (Urbanowicz et al., "Relief-based feature selection: introduction and
review", J Biomed Inform 2018, §4.2; Granizo-Mackenzie & Moore 2013 for MultiSURF*), with the
diff and distance of :class:`reference_relief.ReferenceData` (itself written from the papers):
Python loops over instances, band members and attributes; no numpy, no ``DiffModel``.
"""
import math

from reference_relief import NAN


def bands(data, rows, variant):
    """For each row its near and far band members (lists of indices), by ``variant``:
    "SURF", "SURF*", "MultiSURF" or "MultiSURF*"."""
    distances = {i: [(data.distance(i, j), j) for j in range(data.n) if j != i] for i in rows}
    if variant.startswith("SURF"):
        everything = [d for i in rows for d, _ in distances[i]]
        mean = sum(everything) / len(everything)
        limits = {i: (mean, mean) for i in rows}
    else:
        limits = {}
        for i in rows:
            ds = [d for d, _ in distances[i]]
            mean = sum(ds) / len(ds)
            sd = math.sqrt(sum((d - mean) ** 2 for d in ds) / len(ds))
            limits[i] = (mean - sd / 2, mean + sd / 2)
    starred = variant.endswith("*")
    out = {}
    for i in rows:
        near_limit, far_limit = limits[i]
        near = [j for d, j in distances[i] if d < near_limit]
        far = [j for d, j in distances[i] if starred and d > far_limit]
        out[i] = (near, far)
    return out


def _class_band_terms(data, t, i, members):
    """(miss, hit, miss_known, hit_known, miss_total, hit_total) of attribute t over one band:
    the prior-weighted means of the diffs to each miss class and the mean over the hits,
    with the known-diff shares for RELIEF-C."""
    by_class = {}
    for j in members:
        by_class.setdefault(data.group[j], []).append(j)
    own = data.group[i]
    sums = {"miss": [0.0, 0.0, 0.0], "hit": [0.0, 0.0, 0.0]}   # diff sum, known, total
    for c, js in by_class.items():
        if c == own:
            key, weight = "hit", 1.0
        else:
            key, weight = "miss", data.prior[c] / (1.0 - data.prior[own])
        for j in js:
            d = data.diff(t, i, j, current=i)
            w = weight / len(js)
            sums[key][2] += w
            if d == d:
                sums[key][0] += w * d
                sums[key][1] += w
    return sums


def surf_family(data, variant, rows=None):
    """The estimates W = W_near - W_far of every attribute."""
    rows = list(range(data.n)) if rows is None else list(rows)
    m = len(rows)
    members = bands(data, rows, variant)
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
                    if not js:
                        continue
                    m_band += 1
                    for j in js:
                        w = 1.0 / len(js)
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
