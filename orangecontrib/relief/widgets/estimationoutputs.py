"""What the Attribute Estimation widget gives beyond its table: the selection rule as a
preprocessor that selects anew on each training set (for Test and Score's Preprocessor input),
and the report of its estimator, data, estimates and selection."""
from orangecontrib.relief.selection import SelectAttributes
from orangecontrib.relief.widgets.estimation import PERMUTATION_SEED, SIGNIFICANCE
from orangecontrib.relief.widgets.estimatorparams import describe

__all__ = ["RULES", "selection_preprocessor", "send_report"]

#: the selection methods' rules of :class:`.selection.SelectAttributes`, by the widget's index
#: (manual, best k, above τ, q below a level); a manual selection has no rule
RULES = (None, "best", "threshold", "fdr")


def selection_preprocessor(widget):
    """The widget's selection as a preprocessor (:class:`.selection.SelectAttributes`) that
    estimates and selects anew on the data it is given — in Test and Score, on each training
    set: the estimator the selection follows with its parameters and covariates, and the
    selection rule, which falls back to the best ranked where the table does (τ or q-values
    that do not apply). None for a manual selection, which is not a rule."""
    rule = RULES[widget.selection_method]
    widget.Information.manual_preprocessor(shown=rule is None)
    if rule is None:
        return None
    name = widget.selection_run_name()
    scorer = widget.create_scorer(name)
    method = widget.significance_test()
    if rule == "threshold" and not widget.has_relief_threshold(name) \
            or rule == "fdr" and method not in scorer.significance_tests:
        rule = "best"
    return SelectAttributes(scorer, rule=rule, n=widget.n_selected, alpha=widget.alpha,
                            fdr=widget.fdr, significance=method or "stir",
                            n_permutations=widget.n_permutations,
                            random_state=PERMUTATION_SEED)


def send_report(widget):
    """The report: the estimator with its parameters, covariates, compared estimators and
    significance method; then, with data, the data, the estimates table, the score plot and
    how many attributes are selected by which rule."""
    name = widget.current_name
    params = widget.editors[name].values
    method = widget.significance_test()
    widget.report_items(
        "Estimator", [("Estimator", name)]
        + [describe(param, value, widget.scorer_classes[name])
           for param, value in params.items()]
        + [("Covariates", ", ".join(widget.covariates_in_use()) or "none"),
           ("Compared with", ", ".join(widget.compared_names()) or "none"),
           ("Significance", SIGNIFICANCE[widget.significance_method][0]
            + (f" ({widget.n_permutations} runs)" if method == "permutation" else ""))])
    if widget.data is None:
        return
    widget.report_data("Data", widget.data)
    if widget.result is not None:
        widget.report_table("Estimates", widget.ranks_view, num_format="{:.4g}")
        widget.report_plot("Scores", widget.plot)
        selection = ["manually", f"the {widget.n_selected} best ranked",
                     f"above τ (α = {widget.alpha:g})",
                     f"q < {widget.fdr:g}"][widget.selection_method]
        widget.report_items("Output", [("Selected attributes",
                                        f"{len(widget.selected_attrs)}, {selection}")])
