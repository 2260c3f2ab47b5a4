"""Exceptions and warnings raised by aucpr_stats.

Every error about user input subclasses :class:`ValueError` or :class:`TypeError`
so that callers who catch the built-in types keep working, and every message
names the offending argument (in backticks) or column and what was received.
"""

from __future__ import annotations

__all__ = [
    "InputError",
    "InputTypeError",
    "ColumnNotFoundError",
    "MissingValueError",
    "OutcomeError",
    "TieTableTooLarge",
    "DegenerateGroupWarning",
    "LowEffectiveSampleSizeWarning",
    "SmallSampleWarning",
    "BiasedEstimatorWarning",
    "ExtremePredictionWarning",
]


class InputError(ValueError):
    """An argument or a column has a value the computation cannot use."""


class InputTypeError(TypeError):
    """An argument or a column has the wrong type."""


class ColumnNotFoundError(InputError, KeyError):
    """A column named by an argument is not in the data.

    Subclasses both :class:`ValueError` (via :class:`InputError`) and
    :class:`KeyError`, so ``except KeyError`` keeps working as for pandas.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class MissingValueError(InputError):
    """The outcome or score column holds missing values (null or NaN)."""


class OutcomeError(InputError):
    """The outcome column cannot be read as a binary outcome."""


class TieTableTooLarge(InputError):
    """The tie table (or the paired rows) an engine would send is larger than the limit on what is collected.

    Raised with at most the limit plus one row collected; the message says
    what can be computed instead (``docs/backends.md``). Also raised by what
    needs the rows of a result that holds only an engine's partial sums
    (``result.ties.stored_sums``): an interval method whose record says it
    needs the rows, an estimator that is not a sum.
    """


class DegenerateGroupWarning(UserWarning):
    """Some groups have no positives or no negatives; their estimate is NaN."""


class SmallSampleWarning(UserWarning):
    """An interval or test was used with fewer positives than it needs to keep its coverage or size.

    Raised once per ``conf_int`` or ``compare`` call; the affected rows say so
    in their ``note``. The minimum number of positives of each method is on
    its registry record (``min_positives`` of
    :class:`aucpr_stats.intervals.IntervalMethod` and of
    :class:`aucpr_stats.compare.ComparisonMethod`, from the validation
    report, ``docs/validation.md``).
    """


class BiasedEstimatorWarning(UserWarning):
    """Intervals were formed around an estimator whose intervals under-cover whatever the sample size.

    The estimator's registry record carries the caveat
    (``coverage_caveat`` of :class:`aucpr_stats.estimators.Estimator`),
    measured in ``benchmarks/aucpr_boundary_results.md``; the rows say so in
    their ``note``. Raised once per ``conf_int`` call.
    """


class LowEffectiveSampleSizeWarning(UserWarning):
    """The importance weights of a smoothed bootstrap band are degenerate.

    A few replicates carry most of the weight, so the band's radius rests on
    far fewer replicates than ``n_boot``. Use the default ``p_tilde``.
    """


class ExtremePredictionWarning(UserWarning):
    """Predicted probabilities of exactly 0 or 1: left out of the logit-scale calibration fits (the note says how many)."""


class LongComputationWarning(UserWarning):
    """A resampling loop will run for minutes and no progress bar is shown.

    Given once per loop, after its first seconds, with the time it projects
    from the work done so far; ``progress=True`` draws a bar (the progress extra),
    ``progress=False`` silences both.
    """
