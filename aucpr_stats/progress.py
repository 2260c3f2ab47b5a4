"""Progress bars for the long resampling loops, in one place.

The bootstrap intervals, the confidence bands, the comparisons and the
heterogeneity bootstrap call :func:`progress_bar` around their loops; this
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
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .exceptions import InputTypeError

__all__ = ["DELAY", "ENV_VARIABLE", "progress_bar", "progress_enabled", "progress_iv"]

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
    """What :func:`progress_bar` returns when no bar is drawn: every call does nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress_bar(total: int, desc: str, progress: bool | None = None, *, unit: str = "replicate",
                 file: Any = None):
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
    """
    stream = sys.stderr if file is None else file
    if not progress_enabled(progress, stream):
        return _NoBar()
    forced = progress is True or os.environ.get(ENV_VARIABLE, "").strip().lower() in _ON
    tqdm = _tqdm()
    return tqdm(total=int(total), desc=desc, unit=unit, unit_scale=True, file=stream, leave=False,
                delay=0.0 if forced else DELAY, dynamic_ncols=True)
