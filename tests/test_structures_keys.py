"""How structures key what they hold: by symbols, as Python's dict does not (``1``, ``1.0`` and
``True`` are three labels with three vectors), and ``HashTable.get`` as ``dict.get``."""

from __future__ import annotations

import numpy as np
import pytest

from holovec import VSA
from holovec.structures import Graph, HashTable
from holovec.structures.hashtable import MissingKeyError


@pytest.fixture(scope="module")
def model():
    return VSA.create("MAP", dim=2000, seed=1)


@pytest.mark.parametrize("directed", [False, True])
def test_graph_edges_of_labels_equal_in_python_are_distinct_edges(model, directed):
    g = Graph(model, directed, seed=1)
    g.add_edge(1, "a")
    g.add_edge(1.0, "a")  # another node: another edge (before: "already in the graph")
    g.add_edge(True, "a")
    assert g.edges == [(1, "a"), (1.0, "a"), (True, "a")] and len(g) == 3
    assert [type(u) for u, _ in g.edges] == [int, float, bool]
    with pytest.raises(ValueError, match="already in the graph"):
        g.add_edge(1.0, "a")
    g.remove_edge(1.0, "a")
    assert g.edges == [(1, "a"), (True, "a")]
    with pytest.raises(ValueError, match="not in the graph"):
        g.remove_edge(1.0, "a")
    expected = Graph(model, directed, seed=1)
    expected.add_edges([(1, "a"), (True, "a")])
    np.testing.assert_array_equal(g.sums, expected.sums)


def test_an_undirected_edge_between_one_and_true_is_no_self_loop(model, tmp_path):
    g = Graph(model, seed=1)
    g.add_edge(1, True)  # before: refused as a self-loop
    g.add_edges([(1.0, 1)])
    with pytest.raises(ValueError, match="self-loop"):
        g.add_edge(1, 1)
    with pytest.raises(ValueError, match="already in the graph"):
        g.add_edge(True, 1)  # undirected: either way round
    g.remove_edge(True, 1)
    assert g.edges == [(1.0, 1)]
    g.add_edge(True, 1)
    g.save(tmp_path / "g.npz")
    back = Graph.load(tmp_path / "g.npz", model)
    assert back.edges == [(1.0, 1), (True, 1)]
    assert [type(x) for edge in back.edges for x in edge] == [float, int, bool, int]
    np.testing.assert_array_equal(back.sums, g.sums)


def test_hashtable_get_is_dict_like(model):
    table = HashTable(model, {"fr": "paris", 1: "one"}, seed=1)
    assert table.get("fr") == "paris"
    assert table.get("es") is None
    assert table.get("es", "madrid") == "madrid"  # the second argument is the default
    assert table.get(1.0, "absent") == "absent"  # 1.0 is not the key 1
    assert table.get("fr", "madrid") == "paris"
    assert table.get("fr", candidates=["paris", "rome"]) == "paris"
    assert table.get("es", candidates=["paris"]) is None
    with pytest.raises(MissingKeyError, match="not in the table"):
        table["es"]
    with pytest.raises(TypeError, match="labels"):
        table.get(model.random(seed=2))
    with pytest.raises(TypeError):
        table.get("fr", None, ["paris"])  # candidates are keyword only
