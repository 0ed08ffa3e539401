"""The models print as one line (not their per-node row arrays); the full listing on request."""
from Orange.data import Table

from orangecontrib.relief.learners import CoreTreeLearner, ObliviousTreeLearner


def test_core_tree_repr_is_one_line_and_print_tree_lists_every_node():
    data = Table("iris")
    model = CoreTreeLearner()(data)
    for text in (repr(model), str(model), repr(model.core_tree), repr(model.core_tree.root)):
        assert "\n" not in text and len(text) < 200, text
    tree = model.core_tree
    assert f"{tree.node_count()} nodes" in repr(model)
    assert f"{tree.leaf_count()} leaves" in repr(model)
    assert "iris" in repr(model)
    # the full printout: one line per node below the root, each naming its split's estimator
    listing = model.print_tree().splitlines()
    assert len(listing) == tree.node_count() - 1
    assert all("[ReliefF" in line for line in listing)


def test_oblivious_tree_repr_is_one_line_and_print_tree_lists_the_path():
    data = Table("iris")
    model = ObliviousTreeLearner()(data)
    for text in (repr(model), str(model), repr(model.tree)):
        assert "\n" not in text and len(text) < 200, text
    assert all(a.name in repr(model) for a in model.retained_attributes)
    listing = model.print_tree().splitlines()
    assert len(listing) == 2 + len(model.path)          # the summary, all attributes, each step
    assert [line.split()[1] for line in listing[2:]] == [v.name.split()[0]
                                                         for v, _ in model.path]
