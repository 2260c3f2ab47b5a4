"""aucpr_stats: the area under the precision-recall and ROC curves, with honest uncertainty.

Start with :func:`aucpr`; every result has ``.to_frame()``, ``.summary()`` and
``.conf_int(method=...)``.
"""

from __future__ import annotations

from .api import aucpr
from .exceptions import (
    ColumnNotFoundError,
    DegenerateGroupWarning,
    InputError,
    InputTypeError,
    MissingValueError,
    OutcomeError,
)
from .results import AucprResult

__version__ = "0.1.0"

__all__ = [
    "aucpr",
    "AucprResult",
    "ColumnNotFoundError",
    "DegenerateGroupWarning",
    "InputError",
    "InputTypeError",
    "MissingValueError",
    "OutcomeError",
    "__version__",
]
