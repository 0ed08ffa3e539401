"""``orange-relief tree``: prints the tree and its cross-validated accuracy / relative error."""
import io
import re

from orangecontrib.relief.cli import main


def run(argv):
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


def test_tree_command_prints_tree_and_cross_validated_accuracy():
    status, text = run(["tree", "iris", "--estimator", "InfGain", "--folds", "3"])
    assert status == 0
    assert "petal" in text and "[InfGain" in text
    accuracy = float(re.search(r"3-fold cross-validated accuracy: ([0-9.]+)", text).group(1))
    assert 0.85 < accuracy <= 1


def test_tree_command_reports_relative_squared_error_for_regression():
    status, text = run(["tree", "housing", "--estimator", "MSE", "--max-depth", "2",
                        "--folds", "3"])
    assert status == 0
    error = float(re.search(r"relative squared error \(eq. 19\): ([0-9.]+)", text).group(1))
    assert 0 < error < 1           # a sensible predictor beats the mean (paper, eq. 19)


def test_tree_command_rejects_an_estimator_for_the_other_target_type(capsys):
    status, _ = run(["tree", "iris", "--estimator", "RReliefF"])
    assert status == 2 and "does not suit" in capsys.readouterr().err
