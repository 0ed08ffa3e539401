"""The estimation widgets' option to fill missing genotype calls, and their messages: what the
missing calls cost (the estimators leave their fast bit-plane path for genotypes) or how many
were filled. The filling is :func:`.imputation.impute_mode`, run in the background task."""
from types import SimpleNamespace

from Orange.widgets import gui
from Orange.widgets.widget import Msg

from orangecontrib.relief.imputation import impute_mode, missing_calls
from orangecontrib.relief.widgets.numbers import count

__all__ = ["COST", "FILLED", "LABEL", "add_option", "prepare", "show"]

#: the option's label
LABEL = "Fill missing genotypes"
#: the warning of missing calls that keep the data off the fast path
COST = Msg("{}: the fast path for genotypes is not used, so estimating takes many times as "
           "long and more memory (on 1,000 × 5,000 SNPs with 0.5 % of the calls missing, "
           "ReliefF took from 9 to over 100 times as long and up to twice the memory, NPDR "
           "over 60 times as long). Check '" + LABEL + "' to fill them with each attribute's most frequent "
           "value and keep the fast path.")
#: the information that missing values were filled
FILLED = Msg("{} filled with the attribute's most frequent value.")


def add_option(widget, box, callback):
    """The option's check box in ``box``, bound to the widget's ``impute_calls`` setting."""
    return gui.checkBox(
        box, widget, "impute_calls", LABEL, callback=callback,
        tooltip="Fill each categorical attribute's missing values (such as missing genotype "
                "calls) with its most frequent value among the instances with a known target "
                "(the smaller value of a tie), before estimating. With a missing value, "
                "genotypes cannot be compared as bit planes, and the estimators take their "
                "general path, which treats missing values by RELIEF-D's rules at many "
                "times the time and more memory. Filling a few missing calls keeps the fast path "
                "and changes the estimates little.")


def prepare(data, impute, state=None, estimated=True):
    """``(data, calls)`` in a background task: ``data`` filled (:func:`.impute_mode`) if
    ``impute``, and ``calls`` a namespace of ``missing`` (the missing calls that keep the data
    off the estimators' fast path, :func:`.missing_calls`; 0 unless ``estimated``: the
    attributes are not estimated) and ``filled`` (the values filled); ``calls`` is also sent
    as the task's partial result, so the widget says so while estimating."""
    calls = SimpleNamespace(missing=missing_calls(data) if estimated else 0, filled=0)
    if impute:
        data, calls.filled = impute_mode(data, count=True)
    if state is not None:
        state.set_partial_result(calls)
    return data, calls


def show(widget, calls):
    """The widget's messages for ``calls`` (of :func:`prepare`; None: none): the cost of
    missing calls left in (``Warning.missing_calls``) or the values filled
    (``Information.filled_calls``)."""
    missing = calls.missing if calls is not None and not calls.filled else 0
    widget.Warning.missing_calls(count(missing, "missing genotype call"), shown=missing > 0)
    filled = calls.filled if calls is not None else 0
    widget.Information.filled_calls(count(filled, "missing value"), shown=filled > 0)
