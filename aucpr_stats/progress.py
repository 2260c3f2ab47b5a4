"""Progress bars for the long resampling loops, in one place.

The bootstrap intervals, the confidence bands (PR and ROC), the
comparisons, the heterogeneity bootstrap, the multiclass bootstrap, the
planning simulation and the simulation studies call :func:`progress_bar`
around their loops; this
module decides whether a bar is drawn and draws it with `tqdm
<https://tqdm.github.io>`_, an optional extra (``pip install
aucpr-stats[progress]``). Without tqdm there is silently no bar.

Whether a bar is drawn, from the ``progress=`` argument of the call:

* ``None`` (the default): on a terminal only (standard error is a tty), and
  only once the work has run 2 seconds (tqdm's ``delay=``), so short calls
  print nothing. The environment variable ``AUCPR_STATS_PROGRESS`` changes
  this default: ``0`` (or ``off``, ``false``, ``no``) never draws a bar,
  ``1`` (or ``on``, ``true``, ``yes``) always draws one, at once, even when
  standard error is not a terminal (a log file, a CI job);
* ``True``: always (when tqdm is installed), at once;
* ``False``: never.

A bar only counts work: the numbers of a call are the same with and without
it (the loops and their random streams do not change).

Without a bar (and unless ``progress=False``), a loop still times itself:
after :data:`ESTIMATE_AFTER` seconds it projects its total time from the work
done, and if more than :data:`LONG_WORK` seconds remain it says so once, with
the estimate, in a :class:`~aucpr_stats.exceptions.LongComputationWarning`
(issue 37: a bootstrap of 1,000 groups of 10^6 rows ran 5.6 hours without a
word).
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from typing import Any, Callable

from .exceptions import InputTypeError, LongComputationWarning

__all__ = ["DELAY", "ENV_VARIABLE", "ESTIMATE_AFTER", "LONG_WORK", "progress_bar", "progress_enabled", "progress_iv"]

#: Seconds of work after which a loop without a bar projects its total time.
ESTIMATE_AFTER = 5.0
#: Seconds still to run from which that projection is said (a LongComputationWarning).
LONG_WORK = 60.0

#: The environment variable that changes the default (``progress=None``): "0" never, "1" always.
ENV_VARIABLE = "AUCPR_STATS_PROGRESS"

#: Seconds of work before the default bar appears (tqdm's ``delay``).
DELAY = 2.0

_ON = ("1", "on", "true", "yes")
_OFF = ("0", "off", "false", "no")


def progress_iv(progress: Any) -> bool | None:
    """Check ``progress=``: None (decide from the terminal), True or False.

    Raises
    ------
    InputTypeError
        For anything else, naming the argument.
    """
    if progress is None or isinstance(progress, bool):
        return progress
    raise InputTypeError(f"`progress` must be True, False or None; got {progress!r}")


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:  # the optional extra is not installed: no bar
        return None
    return tqdm


def progress_enabled(progress: bool | None, stream: Any = None) -> bool:
    """Whether a bar will be drawn for ``progress`` (see the module's rules); False without tqdm."""
    if progress is False or _tqdm() is None:
        return False
    if progress is True:
        return True
    setting = os.environ.get(ENV_VARIABLE, "").strip().lower()
    if setting in _OFF:
        return False
    if setting in _ON:
        return True
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):  # a closed stream
        return False


class _NoBar:
    """What :func:`progress_bar` returns when no bar is drawn: it times the work and warns once if it is long."""

    def __init__(self, total: int = 0, desc: str = "", clock: Callable[[], float] | None = None) -> None:
        self.total, self.desc, self.clock = int(total), desc, clock
        self.done = 0
        self.start = clock() if clock is not None else 0.0

    def update(self, n: int = 1) -> None:
        if self.clock is None:
            return
        self.done += n
        elapsed = self.clock() - self.start
        if elapsed < ESTIMATE_AFTER or not 0 < self.done < self.total:
            return
        remaining = elapsed * (self.total - self.done) / self.done
        if remaining > LONG_WORK:
            warnings.warn(f"{self.desc}: about {_duration(remaining)} more to run (projected from the "
                          f"{self.done:,} of {self.total:,} done in {_duration(elapsed)}); progress=True draws a "
                          "bar (pip install tqdm), progress=False silences this", LongComputationWarning,
                          stacklevel=2)
        self.clock = None  # projected once

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _duration(seconds: float) -> str:
    """``"40 s"``, ``"12 min"``, ``"5.6 h"``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def progress_bar(total: int, desc: str, progress: bool | None = None, *, unit: str = "replicate",
                 file: Any = None, clock: Callable[[], float] = time.monotonic):
    """A bar counting ``total`` units of work, or an object that does nothing.

    Use it as a context manager and call ``.update(n)`` after each piece of
    work::

        with progress_bar(n_groups * n_boot, "bootstrap", progress) as bar:
            for batch in batches:
                ...
                bar.update(len(batch) * n_boot)

    Parameters
    ----------
    total : int
        Units of work in the whole loop.
    desc : str
        What the bar counts, printed before it ("bootstrap intervals").
    progress : bool or None
        The caller's ``progress=`` (checked by :func:`progress_iv`).
    unit : str
        The unit's name in the bar ("replicate", "group").
    file : file-like, optional
        Where the bar is written (standard error by default).
    clock : callable
        Seconds, for the time estimate of a loop drawn without a bar.
    """
    stream = sys.stderr if file is None else file
    if not progress_enabled(progress, stream):
        return _NoBar(total, desc, None if progress is False else clock)
    forced = progress is True or os.environ.get(ENV_VARIABLE, "").strip().lower() in _ON
    tqdm = _tqdm()
    return tqdm(total=int(total), desc=desc, unit=unit, unit_scale=True, file=stream, leave=False,
                delay=0.0 if forced else DELAY, dynamic_ncols=True)
