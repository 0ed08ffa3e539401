"""The Attribute Estimation widget's notes on a run about to start: which chosen estimators the
chosen significance test does not cover (STIR, NPDR's regression, the trend test), which ignore
the covariates, and whether the permutations are too few for the attributes tested."""
from orangecontrib.relief.estimators.significance import permutation_rule, supports_stir
from orangecontrib.relief.widgets.numbers import estimators, listing

__all__ = ["show_notes"]


def show_notes(widget, scorers):
    """Show (or clear) ``widget``'s warnings and information about running ``scorers`` (the
    first the chosen estimator, then the compared ones) with its significance method and
    covariates."""
    method = widget.significance_test()
    # one message for all the estimators STIR does not test, with the advice that suits
    # them all (NPDR: its regression test, which adjusts for covariates, or permutations)
    no_stir = [s for s in scorers if not supports_stir(s)]
    advice = "Regression (NPDR) or Permutations" \
        if all("npdr" in s.significance_tests for s in no_stir) else "Permutations"
    widget.Warning.no_stir(advice, ", ".join(s.stem() for s in no_stir),
                           shown=method == "stir" and bool(no_stir))
    no_npdr = [s.stem() for s in scorers if "npdr" not in s.significance_tests]
    widget.Warning.no_npdr(", ".join(no_npdr), shown=method == "npdr" and bool(no_npdr))
    no_trend = [s.stem() for s in scorers if "trend" not in s.significance_tests]
    widget.Warning.no_trend(", ".join(no_trend), shown=method == "trend" and bool(no_trend))
    covariates = widget.covariates_in_use()
    unadjusted = [s.stem() for s in scorers if not s.adjusts_covariates]
    adjusting = widget.adjusting
    widget.Information.unadjusted(
        estimators(adjusting), "s" if len(adjusting) == 1 else "",
        listing(unadjusted), "s" if len(unadjusted) == 1 else "",
        shown=bool(covariates) and bool(unadjusted))
    tested = len(widget.data.domain.attributes) - len(covariates)
    message = permutation_rule(tested, widget.n_permutations, kind="attributes")[1]
    widget.Warning.few_permutations(message, shown=method == "permutation"
                                    and message is not None)
