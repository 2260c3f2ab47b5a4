"""Input validation at the boundary: every shared argument check, written once.

Each ``*_iv`` function checks and normalises one kind of argument and returns
a clean value; entry points call them at the top and nothing deeper
re-checks. Wrong types raise :class:`~aucpr_stats.exceptions.InputTypeError`
(a ``TypeError``), wrong values :class:`~aucpr_stats.exceptions.InputError`
(a ``ValueError``), and the message names the argument in backticks and shows
what was received.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import attrs
import numpy as np

from .exceptions import ColumnNotFoundError, InputError, InputTypeError

__all__ = [
    "ColumnSpec",
    "SCORE_KEY",
    "column_spec_iv",
    "scores_iv",
    "choice_iv",
    "names_iv",
    "names_or_all_iv",
    "digits_iv",
    "MAX_DIGITS",
    "level_iv",
    "seed_iv",
    "rng_iv",
    "n_boot_iv",
    "MAX_N_BOOT",
    "integer_iv",
    "number_iv",
    "flag_iv",
    "probability_iv",
    "extra_column_iv",
    "negative_iv",
    "DIRECTIONS",
    "UNUSED_LEVELS",
    "scalar_iv",
    "shown",
]

MISSING_POLICIES = ("error", "drop")

#: The values of ``direction=``: which way a score points.
DIRECTIONS = ("higher", "lower", "auto")

#: The values of ``unused_levels=``: keep declared levels without rows (with a note) or drop them.
UNUSED_LEVELS = ("keep", "drop")

#: Name of the key column that identifies the score when several scores are given.
SCORE_KEY = "score"


@attrs.frozen
class ColumnSpec:
    """Validated column roles for an entry point taking (data, outcome, score, by)."""

    outcome: str
    score: str | tuple[str, ...]
    by: tuple[str, ...]
    positive: Any
    missing: str
    #: Levels of the outcome counted as negative (None: every level but ``positive``, for a two-level outcome).
    negative: tuple | None = None
    #: Which way the score points: ``"higher"`` (larger = more likely positive), ``"lower"`` or ``"auto"``.
    direction: str = "higher"
    #: A column of case weights (None: every row counts once).
    weights: str | None = None

    @property
    def scores(self) -> tuple[str, ...]:
        """The score column(s) as a tuple (one name for a single score)."""
        return self.score if isinstance(self.score, tuple) else (self.score,)

    @property
    def multi_score(self) -> bool:
        """True when several score columns were given: results gain a ``score`` key column."""
        return isinstance(self.score, tuple)

    @property
    def key_columns(self) -> tuple[str, ...]:
        """Key columns of every result frame: ``by``, then ``score`` for several scores."""
        return self.by + ((SCORE_KEY,) if self.multi_score else ())


def _available(names: Sequence[str]) -> str:
    shown = list(names[:30])
    more = f" ... and {len(names) - 30} more" if len(names) > 30 else ""
    return f"{shown}{more}"


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` on one short line, for messages: a frame by its type and shape, a long list cut at ``limit`` characters."""
    if type(value).__name__ in ("DataFrame", "LazyFrame", "Series"):
        shape = getattr(value, "shape", None)
        return f"a {type(value).__name__}" + (f" of shape {tuple(shape)}" if shape is not None else "")
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _is_frame(value: Any) -> bool:
    """A data frame given where column names belong (iterating it would give its column names)."""
    return type(value).__name__ in ("DataFrame", "LazyFrame")


def _column_name(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        raise InputTypeError(f"`{argument}` must be a column name (str); got {shown(value)} of type {type(value).__name__}")
    return str(value)  # a numpy str_ becomes a plain str


def _as_float(value: Any) -> float:
    """A Python float from a Python or numpy number.

    A float32 or float16 is read through its shortest decimal form, so
    ``np.float32(0.9)`` gives 0.9 (the number its writer meant), not
    0.8999999761581421.
    """
    if isinstance(value, np.floating) and value.dtype.itemsize < 8:
        return float(str(value))
    return float(value)


def scalar_iv(value: Any) -> Any:
    """A numpy scalar (``np.int64(1)``, ``np.str_("a")``, ``np.bool_(True)``) as the Python scalar it holds; anything else as is."""
    return value.item() if isinstance(value, np.generic) else value


def names_iv(value: Any, argument: str, *, allow_none: bool = True) -> tuple[str, ...]:
    """Normalise None / a column name / a list of names to a tuple of names."""
    if value is None:
        if allow_none:
            return ()
        raise InputTypeError(f"`{argument}` is required; got None")
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable) and not _is_frame(value):
        names = tuple(_column_name(v, argument) for v in value)
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise InputError(f"`{argument}` names a column more than once: {dupes}")
        return names
    raise InputTypeError(
        f"`{argument}` must be None, a column name or a list of column names; got {type(value).__name__}"
    )


def columns_exist(available: Sequence[str], roles: dict[str, Sequence[str]]) -> list[str]:
    """Check every named column is among the data's column names ``available``; return them as a list."""
    available = list(available)
    present = set(available)
    for argument, names in roles.items():
        for name in names:
            if name not in present:
                raise ColumnNotFoundError(
                    f"column {name!r} given as `{argument}` is not in `data`; "
                    f"available columns: {_available(available)}"
                )
    return available


def choice_iv(value: Any, argument: str, choices: Sequence[str]) -> str:
    """A string that must be one of ``choices``."""
    if not isinstance(value, str):
        raise InputTypeError(f"`{argument}` must be a string, one of {list(choices)}; got {shown(value)}")
    if value not in choices:
        raise InputError(f"`{argument}` must be one of {list(choices)}; got {value!r}")
    return value


def names_or_all_iv(value: Any, argument: str, choices: Sequence[str]) -> tuple[str, ...]:
    """A name, a list of names or ``"all"`` (every choice), as a tuple without repeats, in the order given."""
    choices = list(choices)
    if isinstance(value, str):
        names: Sequence[Any] = choices if value == "all" else [value]
    elif isinstance(value, (list, tuple)):
        names = value
        if not names:
            raise InputError(f"`{argument}` must name at least one of {choices}; got an empty list")
    else:
        raise InputTypeError(
            f"`{argument}` must be one of {choices}, a list of them or 'all'; got {shown(value)} of type "
            f"{type(value).__name__}"
        )
    for name in names:
        if not isinstance(name, str) or name not in choices:
            raise InputError(f"`{argument}` must be one of {choices} or 'all'; got {shown(name)}")
    return tuple(dict.fromkeys(names))


def integer_iv(value: Any, argument: str, minimum: int, maximum: int | None = None) -> int:
    """An integer (not a bool) of at least ``minimum`` (and at most ``maximum``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InputTypeError(f"`{argument}` must be an integer; got {shown(value)} of type {type(value).__name__}")
    if value < minimum:
        raise InputError(f"`{argument}` must be at least {minimum}; got {value!r}")
    if maximum is not None and value > maximum:
        raise InputError(f"`{argument}` must be at most {maximum}; got {value!r}")
    return int(value)


#: The most decimals a table prints: float64 holds 15-17 significant digits, and ``digits=10**9`` would
#: build strings of a gigabyte per number.
MAX_DIGITS = 15


def digits_iv(digits: Any) -> int:
    """``digits``: decimals to print, an integer from 0 to :data:`MAX_DIGITS`."""
    return integer_iv(digits, "digits", 0, MAX_DIGITS)


#: The largest ``n_boot`` accepted: a million replicates put the Monte Carlo error of a 95% percentile
#: bound far below anything a table prints; more is a typo (``10**9`` would run for days).
MAX_N_BOOT = 1_000_000


def n_boot_iv(n_boot: Any, minimum: int = 2) -> int:
    """The number of bootstrap replicates: an integer from ``minimum`` (2 for a percentile interval) to :data:`MAX_N_BOOT`."""
    n_boot = integer_iv(n_boot, "n_boot", minimum)
    if n_boot > MAX_N_BOOT:
        raise InputError(f"`n_boot` must be at most {MAX_N_BOOT:,} (the documented maximum); got {n_boot:,}")
    return n_boot


def seed_iv(seed: Any) -> Any:
    """``seed``: None, an integer >= 0, a numpy Generator or a numpy SeedSequence, returned as is.

    :func:`aucpr_stats.resample.streams.root_sequence` turns it into the root
    of the per-group random streams.
    """
    if seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InputTypeError(
            "`seed` must be None, an integer >= 0, a numpy Generator or a numpy SeedSequence; "
            f"got {shown(seed)} of type {type(seed).__name__}"
        )
    if seed < 0:
        raise InputError(f"`seed` must be an integer >= 0; got {seed!r}")
    return int(seed)


def rng_iv(rng: Any = None, seed: Any = None) -> Any:
    """The randomness of a random method: ``rng=`` (SPEC 7), with ``seed=`` kept as its alias.

    Either may be None, an integer >= 0, a :class:`numpy.random.Generator` or a
    :class:`numpy.random.SeedSequence` (checked by :func:`seed_iv`); the same
    value under either name gives the same numbers. Both at once are refused.
    """
    if rng is not None and seed is not None:
        raise InputError(f"give the randomness once, as `rng` (or its alias `seed`); got rng={shown(rng)} and "
                         f"seed={shown(seed)}")
    return seed_iv(rng if rng is not None else seed)


def number_iv(value: Any, argument: str, *, low: float = -math.inf, high: float = math.inf,
              closed: str = "neither", what: str | None = None) -> float:
    """A finite real number within (``low``, ``high``); ``closed`` says which ends are allowed ("left", "right", "both")."""
    what = what or "a finite number"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"`{argument}` must be a number; got {shown(value)} of type {type(value).__name__}")
    value = _as_float(value)
    above = value >= low if closed in ("left", "both") else value > low
    below = value <= high if closed in ("right", "both") else value < high
    if not (math.isfinite(value) and above and below):
        raise InputError(f"`{argument}` must be {what}; got {value!r}")
    return value


def probability_iv(value: Any, argument: str) -> float:
    """A number strictly between 0 and 1 (a prevalence, a class proportion)."""
    return number_iv(value, argument, low=0.0, high=1.0, what="in (0, 1)")


def flag_iv(value: Any, argument: str) -> bool:
    """True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputTypeError(f"`{argument}` must be True or False; got {shown(value)}")
    return bool(value)


def level_iv(level: Any) -> float:
    """A confidence level strictly between 0 and 1."""
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"`level` must be a number between 0 and 1; got {shown(level)} of type {type(level).__name__}")
    level = _as_float(level)
    if not 0.0 < level < 1.0:
        raise InputError(f"`level` must be strictly between 0 and 1; got {level!r}")
    return level


def scores_iv(score: Any) -> str | tuple[str, ...]:
    """A score column name, or a list of two or more names (kept as a tuple).

    A list with one name is the same as the name itself, so single-score
    results keep their columns whichever way the score was given.
    """
    if isinstance(score, str):
        return score
    if score is None:
        raise InputTypeError("`score` is required: a column name or a list of column names; got None")
    if isinstance(score, Iterable) and not isinstance(score, (bytes, dict)) and not _is_frame(score):
        names = tuple(_column_name(v, "score") for v in score)
        if not names:
            raise InputError("`score` must name at least one column; got an empty list")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise InputError(f"`score` names a column more than once: {dupes}")
        return names[0] if len(names) == 1 else names
    raise InputTypeError(
        f"`score` must be a column name (str) or a list of column names; got {shown(score)} of type {type(score).__name__}"
    )


def negative_iv(negative: Any, positive: Any) -> tuple | None:
    """``negative=``: None, one level or a list of levels of the outcome, as a tuple of distinct scalars.

    The levels must not include ``positive``; a frame or a mapping is refused.
    """
    if negative is None:
        return None
    if isinstance(negative, (str, bytes, bool, int, float, np.generic)):
        levels = (scalar_iv(negative),)
    elif isinstance(negative, (list, tuple, set, frozenset)) or type(negative).__name__ in ("ndarray", "Series"):
        levels = tuple(dict.fromkeys(scalar_iv(v) for v in negative))
        if not levels:
            raise InputError("`negative` must name at least one level of the outcome; got an empty list")
    else:
        raise InputTypeError(
            f"`negative` must be None, a level of the outcome or a list of levels; got {shown(negative)} "
            f"of type {type(negative).__name__}"
        )
    for level in levels:
        if level is None or (isinstance(level, float) and math.isnan(level)):
            raise InputError("`negative` cannot name a missing value (None or NaN); missing outcomes are "
                             "handled by `missing=`")
    positive = scalar_iv(positive)
    if positive is not None and any(level == positive and type(level) is type(positive) for level in levels):
        raise InputError(f"`negative`={list(levels)} contains the `positive` level {positive!r}")
    return levels


def column_spec_iv(columns: Sequence[str], outcome: Any, score: Any, by: Any, positive: Any, missing: Any, *,
                   negative: Any = None, direction: Any = "higher") -> ColumnSpec:
    """Validate the column arguments shared by ``aucpr``, ``auroc`` and friends.

    ``columns`` are the data's column names. ``score`` may be one column name
    or a list of names; several scores add a ``score`` key column (after the
    ``by`` keys) to every result frame.
    """
    outcome = _column_name(outcome, "outcome")
    score = scores_iv(score)
    scores = score if isinstance(score, tuple) else (score,)
    by_names = names_iv(by, "by")
    missing = choice_iv(missing, "missing", MISSING_POLICIES)
    if outcome in scores:
        raise InputError(f"`outcome` and `score` name the same column {outcome!r}")
    for name in by_names:
        if name == outcome or name in scores:
            raise InputError(f"`by` must not contain the outcome or score column; got {name!r}")
    if isinstance(score, tuple) and SCORE_KEY in by_names:
        raise InputError(
            f"`by` contains a column named {SCORE_KEY!r}, which clashes with the {SCORE_KEY!r} key column "
            "that several scores add to the results; rename that grouping column"
        )
    columns_exist(columns, {"outcome": [outcome], "score": scores, "by": by_names})
    negative = negative_iv(negative, positive)
    direction = choice_iv(direction, "direction", DIRECTIONS)
    return ColumnSpec(outcome=outcome, score=score, by=by_names, positive=scalar_iv(positive), missing=missing,
                      negative=negative, direction=direction)


def extra_column_iv(columns: Sequence[str], value: Any, argument: str, spec: ColumnSpec) -> str:
    """One more column with a role of its own (``fold``, ``between``): one of ``columns`` with no other role."""
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if isinstance(value, (list, tuple)):
        raise InputError(f"`{argument}` must name one column; got {list(value)}")
    name = _column_name(value, argument)
    roles = {spec.outcome: "outcome", **{s: "score" for s in spec.scores}, **{b: "by" for b in spec.by}}
    if name in roles:
        raise InputError(f"`{argument}` column {name!r} is already the `{roles[name]}` column; "
                         f"name a separate {argument} column")
    columns_exist(columns, {argument: [name]})
    return name
