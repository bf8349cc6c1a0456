"""Data structures in one hypervector: an automaton, a tree and a table
======================================================================

:mod:`holovec.structures` holds symbolic structures in a single vector: a finite-state
automaton's transition table, a binary tree's leaves, a hash table's pairs, a graph's
edges. Each is a bundle of bound items; reading one unbinds its key and cleans the
result up among the candidates. Every read is right only with a probability that falls
as the structure fills, and :mod:`holovec.capacity` predicts it: this tutorial builds,
queries and decodes an automaton and a tree, then fills a hash table past its capacity
and compares the planner with what it measures.
"""

import matplotlib.pyplot as plt
import numpy as np

from holovec import VSA
from holovec.structures import FiniteStateAutomaton, HashTable, Tree

model = VSA.create("MAP", dim=2000, seed=0)

# %%
# An automaton: binary numbers divisible by three
# ------------------------------------------------
# The state is the remainder of the digits read so far: reading digit ``b`` in state
# ``r`` goes to ``(2 r + b) mod 3``. Six transitions, each
# ``bind(bind(state, digit), permute(next, 1))``, bundled into one vector.
fsa = FiniteStateAutomaton(model, start=0, accept=[0], seed=1)
fsa.add_transitions([(r, b, (2 * r + int(b)) % 3) for r in range(3) for b in "01"])
print(fsa)
print("next state after 2 on '1':", fsa.next_state(2, "1"))
print("run of '1001' (9):", fsa.run("1001"))

# %%
# Every input at once: the automaton reads one symbol of every input per step, all the
# lookups of a step in one similarity matrix.
rng = np.random.default_rng(0)
numbers = rng.integers(1, 2**12, size=500)
inputs = [format(int(n), "b") for n in numbers]
accepted = fsa.accepts_batch(inputs)
agree = np.mean(np.array(accepted) == (numbers % 3 == 0))
print(f"{len(inputs)} numbers of up to 12 digits: {agree:.1%} classified right")
print(f"one lookup is right with probability {fsa.expected_accuracy():.6f} (the planner)")

# %%
# The table can be read back from the vector alone: every (state, symbol) pair is
# unbound and cleaned up among the states.
print(fsa.decode())

# %%
# A tree: a parse of "the cat sat on the mat"
# --------------------------------------------
# A leaf's path is a string of ``l`` (left) and ``r`` (right); each step is a role
# vector permuted by its depth, so ``"lr"`` and ``"rl"`` are different paths.
tree = Tree(model, seed=2)
tree.add_leaves({"ll": "the", "lr": "cat", "rl": "sat", "rrl": "on", "rrrl": "the", "rrrr": "mat"})
print(tree)
print("the leaf at 'rrrr':", tree.get("rrrr"))
for path, (word, similarity) in tree.decode().items():
    print(f"  {path:5s} -> {word:4s} (similarity {similarity:.2f})")

# %%
# How much fits: a hash table past its capacity
# ----------------------------------------------
# A hash table of ``k`` pairs, read by unbinding a key and cleaning up among 100 values,
# is right with the planner's probability ``capacity.accuracy(model, dim, 100, k,
# query="lookup")``. Fill tables at a small dimension and measure.
small = VSA.create("MAP", dim=256, seed=0)
values = [f"v{i}" for i in range(100)]
sizes = [5, 10, 20, 40, 80, 160]
measured, predicted = [], []
for k in sizes:
    right = 0
    for trial in range(10):
        table = HashTable(small, seed=100 + trial)
        pairs = {f"key{i}": values[int(v)] for i, v in enumerate(rng.integers(0, 100, size=k))}
        table.update(pairs)
        decoded = table.decode(candidates=values)
        right += sum(decoded[key][0] == value for key, value in pairs.items())
    measured.append(right / (10 * k))
    predicted.append(table.expected_accuracy(n_candidates=100))
    print(f"{k:4d} pairs: {measured[-1]:6.1%} read right, planner {predicted[-1]:6.1%}")
print(f"capacity at 99%: {HashTable(small, seed=0).capacity(0.99, n_candidates=100)} pairs at dim 256")

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogx(sizes, measured, "o", label="measured")
ax.semilogx(sizes, predicted, "-", label="holovec.capacity")
ax.set_xlabel("pairs in the table")
ax.set_ylabel("lookups right")
ax.set_title("HashTable, MAP, dim 256, 100 candidate values")
ax.legend()
fig.tight_layout()
