"""Counter-based random numbers that are the same on every backend and device.

One generator, Philox-4x64-10 (Salmon et al. 2011, "Parallel random numbers: as
easy as 1, 2, 3"), is written once here over the array API, in 32-bit words so
that it runs on any framework's integer types. It is the generator that NumPy's
``numpy.random.Philox`` implements in C; backends whose device is the host CPU
take their words from that (see ``kernels.philox_words``) and the tests check
the two bit for bit. Elsewhere the generic code runs on the device, compiled into
one kernel where the backend can (``kernels.fuse``: torch on a GPU); where a whole
draw is made is the backend's rule (``kernels.draw_path``).

Addressing. A draw is named by (seed, stream, purpose, row). Row ``r`` of a draw
that needs ``W`` 32-bit words per row uses Philox blocks ``r*B .. r*B + B - 1``
with ``B = ceil(W / 8)``; block ``g`` is Philox of the counter
``(g + 1, stream, purpose, 0)`` under the 128-bit key ``seed``. So row ``r``
never depends on how many rows were asked for, and a codebook can be made in
shards. The samplers (:mod:`holovec.random.samplers`) turn words into bits, signs,
phases, uniforms and normals with integer arithmetic and exact float steps, so that only the final
transcendental functions (cos, sin, log) may differ, by rounding, across backends.

The API is what ``__all__`` lists: :class:`Purpose`, :func:`check_seed`, :func:`fold_in`
and :func:`fresh_seed`, which check what they are given. The generator
(:mod:`holovec.random.philox`) and the samplers take a backend and trust their
arguments: they are holovec's own, for its models and encoders.
"""

from __future__ import annotations

# holovec's own draws (models, encoders): importable here as before, not in __all__
from .philox import Words, address_words, philox4x64_generic, random_words  # noqa: F401
from .samplers import (  # noqa: F401
    phases_from_words,
    random_bits,
    random_normal,
    random_phases,
    random_signs,
    random_uniform,
)
from .seeds import Purpose, check_seed, fold_in, fresh_seed

__all__ = ["Purpose", "check_seed", "fold_in", "fresh_seed"]
