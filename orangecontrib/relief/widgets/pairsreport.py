"""The report of the Interacting Pairs widget: how the attributes were chosen (the estimator and
its parameters, or the chosen attributes, or every pair), the permutations, the data, the result
with its table and the heatmap."""
from orangecontrib.relief.widgets.estimatorparams import describe

__all__ = ["send_report"]


def send_report(widget):
    """Write ``widget``'s (an Interacting Pairs widget's) report."""
    if widget.may_rank():
        params = widget.params_stack.editors[widget.estimator_name].values
        cls = widget.scorer_classes[widget.estimator_name]
        best = f"the {widget.top} best ranked"
        items = [("Attributes", best if widget.attribute_choice == widget.BestRanked else
                  f"automatic: every pair where that takes about a minute or less, "
                  f"else {best}"),
                 ("Ranked by", widget.estimator_name)] \
            + [describe(name, value, cls) for name, value in params.items()]
    elif widget.attribute_choice == widget.Chosen:
        items = [("Attributes", ", ".join(a.name for a in widget.chosen_attrs) or "none")]
    else:
        items = [("Attributes", "all pairs (chi-square test)")]
    if widget.attribute_choice != widget.AllPairs:
        items += [("Permutations", widget.n_permutations or "automatic"),
                  ("Random seed", widget.random_state)]
    widget.report_items("Parameters", items)
    if widget.data is None:
        return
    widget.report_data("Data", widget.data)
    if widget.result is not None:
        widget.report_items("Result", [("Pairs", widget.summary.text())])
        widget.report_table("Pairs", widget.model)
        widget.report_plot("Heatmap", widget.heatmap_scene)
