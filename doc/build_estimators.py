"""Write doc/estimators.md, the table of the estimators, from their descriptions.

    python doc/build_estimators.py

The table is generated from each estimator class's declaration (its name, targets, parameters,
capabilities and paper), so it is current whenever this script has run; a test checks that the
committed page equals the generated one. After running it, run ``python doc/build_help.py``.
"""
from pathlib import Path

from orangecontrib.relief.estimators.catalogue import ESTIMATORS
from orangecontrib.relief.estimators.description import markdown_table

PAGE = Path(__file__).resolve().parent / "estimators.md"

INTRODUCTION = """Estimators
==========

Every estimator of the add-on, as the widgets, Orange's Rank (through the scorers of
`orangecontrib.relief.scoring`), the scikit-learn selectors (`orangecontrib.relief.sklearn`) and
the command line (`orange-relief estimators`, `orange-relief rank --estimator NAME --param
NAME=VALUE`) offer it. *Target*: the class it estimates the attributes for (categorical:
classification; numeric: regression). *In Rank*: the header of its column in Orange's Rank
with the default parameters. *Parameters*: the keyword arguments with their defaults;
the advanced ones are named after them. *Also*: what else it does — it samples instances with
`random_state`, its estimates take STIR's significance test (every estimator takes the
permutation test), its estimates for every k come from one neighbour search, it reads sparse
data, it packs SNP-like data into bits, the Dask backend computes it, it gives the case counts of
the Π framework, its distance takes attribute weights (as Iterative Relief sets them).

"""


def page():
    """The text of doc/estimators.md."""
    return INTRODUCTION + markdown_table(ESTIMATORS)


if __name__ == "__main__":
    PAGE.write_text(page(), encoding="utf-8")
