"""How the widgets write numbers in their tables: a column of estimates to the precision of its
largest magnitude, p- and q-values to two significant digits, test statistics to one decimal;
and counts and lists in their texts ("1 attribute", "1,000 pairs", "NPDR and ReliefF")."""
import numpy as np

__all__ = ["format_scores", "format_p", "format_statistic", "count", "listing", "estimators"]


def format_scores(values):
    """A formatter for one column of estimates: three significant digits of the column's
    largest magnitude, in plain notation (0.250, 12.3, 8541), or in scientific notation when
    the whole column is tiny or huge (1.23e-07); never "-0.000"; "NA" for an unknown value."""
    magnitudes = np.abs(np.asarray(values, dtype=float)).ravel()
    magnitudes = magnitudes[np.isfinite(magnitudes) & (magnitudes > 0)]
    largest = magnitudes.max() if magnitudes.size else 1.0
    decimals = 2 - int(np.floor(np.log10(largest)))
    if decimals > 6 or largest >= 1e9:
        return lambda v: "NA" if not np.isfinite(v) else f"{v:.3g}"
    decimals = max(decimals, 0)

    def text(v):
        if not np.isfinite(v):
            return "NA"
        s = f"{v:.{decimals}f}"
        return s[1:] if s.startswith("-") and not s.strip("-0.") else s
    return text


def format_p(value):
    """A p- or q-value to two significant digits: 0.003, 0.25, 1.2e-05; "NA" if unknown."""
    if value is None or not np.isfinite(value):
        return "NA"
    return f"{value:.2g}"


def format_statistic(value):
    """A test statistic (such as a likelihood-ratio G², a chi-square) to one decimal: 274.3,
    7.7, 0.0; "NA" if unknown."""
    if value is None or not np.isfinite(value):
        return "NA"
    return f"{value:.1f}"


def count(n, noun, plural=None):
    """``n`` (with thousands separated) and ``noun``, plural unless ``n`` is 1: "1 attribute",
    "2,000 attributes" (``plural`` where adding "s" is wrong)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def listing(names):
    """``names`` as a list in a sentence: "A", "A and B", "A, B and C"."""
    names = list(names)
    return " and ".join(filter(None, (", ".join(names[:-1]), *names[-1:])))


def estimators(names):
    """Estimators named in a sentence, which the estimators' names (labels such as "Allelic
    trend test") can begin: "the estimator NPDR", "the estimators NPDR and Allelic trend
    test"."""
    names = list(names)
    return f"the estimator{'' if len(names) == 1 else 's'} {listing(names)}"
