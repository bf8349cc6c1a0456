"""holovec: hyperdimensional computing (vector symbolic architectures) on NumPy, PyTorch and JAX.

>>> from holovec import VSA
>>> model = VSA.create("FHRR", dim=10000)
>>> a, b = model.random(seed=1), model.random(seed=2)
>>> round(float(model.similarity(a, model.unbind(model.bind(a, b), b))), 3)
1.0
"""

from . import encoders
from .backends import Backend, available_backends, get_backend
from .models import VSAModel
from .vsa import VSA

__version__ = "0.1.0"

__all__ = ["VSA", "Backend", "VSAModel", "__version__", "available_backends", "encoders", "get_backend"]
