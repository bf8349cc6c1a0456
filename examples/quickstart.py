"""Records and analogies: what is the dollar of Mexico?
====================================================

Encode records as hypervectors, then ask them questions.

Each country is a record {name, capital, currency}: every field's filler vector is
bound to its role vector, and the bound pairs are bundled into one vector.
Unbinding a role from a record gives a noisy filler, which a search of the
filler codebook cleans up. Binding the two records maps one onto the other,
so it answers analogies: "what is the dollar of Mexico?" (Kanerva 2010).

This is the demo that ``python -m holovec`` runs; its code is ``holovec/demo.py``.
Run it from the command line, on any model and backend::

    python examples/quickstart.py [--model FHRR|MAP|VTB|...] [--backend numpy|torch|jax|auto] [--dim 10000]
    python -m holovec --help

The records bind each filler to its role with the role on the right,
``bind(filler, role)``, because ``unbind(c, b)`` recovers the left operand of
``c = bind(a, b)`` on every model, commutative or not:

.. literalinclude:: ../../holovec/demo.py
   :pyobject: encode_records

The analogy maps the USA record onto Mexico's with one vector where bind commutes.
Where it does not (VTB, GHRR, BSDC), the roles cannot cancel, so the demo asks the
records instead: which role holds the Dollar in the USA record, and what Mexico has in
that role:

.. literalinclude:: ../../holovec/demo.py
   :pyobject: dollar_of_mexico
"""

import sys

from holovec import demo

# %%
# Run the demo: ``--model``, ``--backend``, ``--dim`` and ``--seed`` choose the model,
# the backend, the dimension and the seed (defaults: FHRR, NumPy, 10,000, 2026). It
# checks every answer against the records and says which ones are wrong.

if __name__ == "__main__":
    status = demo.main(prog="quickstart.py")
    if status:
        sys.exit(status)
