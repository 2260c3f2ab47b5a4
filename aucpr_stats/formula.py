"""R-style formulas: ``"outcome ~ score"``, ``"y ~ s1 + s2 | site + sex"``.

The grammar is small on purpose::

    formula  :=  outcome "~" scores [ "|" groups ]
    outcome  :=  name  |  "Surv(" name "," name ")"
    scores   :=  name ( "+" name )*
    groups   :=  name ( "+" name )*
    name     :=  identifier  |  `any text without backticks`

Identifiers are letters, digits, ``_`` and ``.`` (as in R, a name may not
start with a digit); a column whose name has spaces or symbols is written in
backticks, ```blood pressure```. The left side is the binary outcome, the
right side the score column(s) (several scores add a ``score`` key column to
every result), and the part after ``|`` the grouping columns (``by``).

:func:`resolve` is called at the top of every public entry point, so
``aucpr("y ~ s | site", data=df)``, ``aucpr(df, "y ~ s | site")`` and
``aucpr(df, "y", "s", by="site")`` mean the same.

A time-to-event outcome is written as in R's survival package,
``"Surv(time, event) ~ s | site"``, for :func:`~aucpr_stats.aucpr` and
:func:`~aucpr_stats.auroc` with ``horizon=`` (time-dependent areas).
"""

from __future__ import annotations

from typing import Any, Callable

import attrs

from ._validate import shown
from .exceptions import InputError, InputTypeError

__all__ = ["Formula", "FormulaError", "SurvivalOutcome", "parse_formula", "resolve", "is_survival_formula"]


class FormulaError(InputError):
    """A formula string could not be parsed; the message gives the position."""


@attrs.frozen
class SurvivalOutcome:
    """The left side ``Surv(time, event)`` of a formula: the time and event columns."""

    time: str
    event: str

    def __str__(self) -> str:
        return f"Surv({self.time}, {self.event})"


def is_survival_formula(*values: Any) -> bool:
    """Whether any of ``values`` is a formula string whose left side is ``Surv(...)``."""
    return any(isinstance(v, str) and "~" in v and v.split("~", 1)[0].strip().startswith("Surv(") for v in values)


@attrs.frozen
class Formula:
    """A parsed formula.

    Attributes
    ----------
    outcome : str
        The outcome column (left of ``~``).
    scores : tuple of str
        The score column(s) (right of ``~``, joined by ``+``).
    by : tuple of str
        The grouping columns (after ``|``, joined by ``+``); empty if none.
    survival : SurvivalOutcome, optional
        The time and event columns of a ``Surv(time, event)`` left side
        (``outcome`` then reads ``"Surv(time, event)"``).
    """

    outcome: str
    scores: tuple[str, ...]
    by: tuple[str, ...] = ()
    survival: SurvivalOutcome | None = attrs.field(default=None, repr=False)

    @property
    def score(self) -> str | list[str]:
        """The score argument as the column interface takes it: a name, or a list of names."""
        return self.scores[0] if len(self.scores) == 1 else list(self.scores)

    def __str__(self) -> str:
        def show(name: str) -> str:
            return name if _is_identifier(name) else f"`{name}`"

        left = self.outcome if self.survival is not None else show(self.outcome)
        text = f"{left} ~ {' + '.join(map(show, self.scores))}"
        return text + (f" | {' + '.join(map(show, self.by))}" if self.by else "")


_OPERATORS = {"~": "'~'", "+": "'+'", "|": "'|'", "(": "'('", ")": "')'", ",": "','"}


def _is_name_start(ch: str) -> bool:
    return ch.isalpha() or ch in "_."


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_."


def _is_identifier(text: str) -> bool:
    return bool(text) and _is_name_start(text[0]) and all(_is_name_char(c) for c in text)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """Split ``text`` into (kind, value, position) tokens; kind is "name" or an operator."""
    out: list[tuple[str, str, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in _OPERATORS:
            out.append((ch, ch, i))
            i += 1
        elif ch == "`":
            close = text.find("`", i + 1)
            if close < 0:
                raise _error(text, i, "unclosed backtick: a quoted column name needs a closing `")
            name = text[i + 1:close]
            if not name:
                raise _error(text, i, "empty column name in backticks")
            out.append(("name", name, i))
            i = close + 1
        elif _is_name_start(ch):
            j = i + 1
            while j < n and _is_name_char(text[j]):
                j += 1
            out.append(("name", text[i:j], i))
            i = j
        elif ch.isdigit():
            raise _error(text, i, f"a column name cannot start with a digit ({ch!r}); write it in backticks")
        else:
            raise _error(
                text, i,
                f"unexpected character {ch!r}; only column names, '~', '+' and '|' are allowed "
                "(write names with spaces or symbols in backticks)",
            )
    return out


def _error(text: str, position: int, problem: str) -> FormulaError:
    # One line, so the command line can show it as is; the position is 0-based
    # and the marker shows where in the formula the problem is.
    marked = f"{text[:position]}>>>{text[position:]}"
    return FormulaError(f"bad formula {text!r}: {problem} at position {position} (marked >>> in {marked!r})")


def parse_formula(text: Any) -> Formula:
    """Parse ``"outcome ~ score1 + score2 | group1 + group2"``.

    Parameters
    ----------
    text : str
        The formula.

    Returns
    -------
    Formula

    Raises
    ------
    FormulaError
        A syntax error; the message names the problem and its (0-based)
        character position.
    InputTypeError
        ``text`` is not a string.

    Examples
    --------
    >>> parse_formula("disease ~ model_a + model_b | site")
    Formula(outcome='disease', scores=('model_a', 'model_b'), by=('site',))
    """
    if not isinstance(text, str):
        raise InputTypeError(f"`formula` must be a string such as 'y ~ s | site'; got {type(text).__name__}")
    tokens = _tokens(text)
    end = len(text)
    if not tokens:
        raise _error(text, 0, "empty formula; expected 'outcome ~ score'")

    pos = 0

    def peek() -> tuple[str, str, int] | None:
        return tokens[pos] if pos < len(tokens) else None

    def expect_name(context: str) -> str:
        nonlocal pos
        tok = peek()
        if tok is None:
            raise _error(text, end, f"expected {context} but the formula ends")
        if tok[0] != "name":
            raise _error(text, tok[2], f"expected {context}, found {_OPERATORS[tok[0]]}")
        pos += 1
        return tok[1]

    def name_list(context: str) -> list[str]:
        nonlocal pos
        names = [expect_name(context)]
        while (tok := peek()) is not None and tok[0] == "+":
            pos += 1
            names.append(expect_name(f"{context} after '+'"))
        return names

    def expect(kind: str, context: str) -> None:
        nonlocal pos
        tok = peek()
        if tok is None or tok[0] != kind:
            raise _error(text, end if tok is None else tok[2], f"expected {_OPERATORS[kind]} {context}")
        pos += 1

    if tokens[0][0] == "~":
        raise _error(text, tokens[0][2], "expected the outcome column before '~'")
    outcome = expect_name("the outcome column")
    survival = None
    if outcome == "Surv" and (tok := peek()) is not None and tok[0] == "(":
        pos += 1
        time = expect_name("the time column in Surv(time, event)")
        expect(",", "between the time and event columns of Surv(time, event)")
        event = expect_name("the event column in Surv(time, event)")
        expect(")", "closing Surv(time, event)")
        survival = SurvivalOutcome(time, event)
        outcome = str(survival)
    tok = peek()
    if tok is None:
        raise _error(text, end, "expected '~' after the outcome column but the formula ends")
    if tok[0] != "~":
        found = repr(tok[1]) if tok[0] == "name" else _OPERATORS[tok[0]]
        hint = " (the outcome is a single column)" if tok[0] in ("+", "name") else ""
        raise _error(text, tok[2], f"expected '~' after the outcome column, found {found}{hint}")
    pos += 1
    scores = name_list("a score column")
    by: list[str] = []
    tok = peek()
    if tok is not None and tok[0] == "|":
        pos += 1
        by = name_list("a grouping column")
        tok = peek()
    if tok is not None:
        found = repr(tok[1]) if tok[0] == "name" else _OPERATORS[tok[0]]
        if tok[0] == "~":
            problem = "a second '~'"
        elif tok[0] == "|":
            problem = "a second '|' (list all grouping columns after one '|', joined by '+')"
        else:
            problem = f"unexpected {found}; join columns with '+'"
        raise _error(text, tok[2], problem)
    for label, names in (("score", scores), ("grouping", by)):
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise FormulaError(f"bad formula {text!r}: {label} column(s) {dupes} named more than once")
    return Formula(outcome=outcome, scores=tuple(scores), by=tuple(by), survival=survival)


def _frame_or_path(value: Any) -> bool:
    """Without a reader's ``is_data``: anything that is not text is taken for data."""
    return value is not None and not isinstance(value, (str, bytes))


def resolve(first: Any, data: Any, outcome: Any, score: Any, by: Any, *, function: str = "aucpr",
            is_data: Callable[[Any], bool] = _frame_or_path, survival: bool = False) -> tuple:
    """Turn the formula or column interface of an entry point into ``(data, outcome, score, by)``.

    Accepted calls (``f`` is any public entry point):

    - ``f(df, "y", "s", by="site")`` and ``f(data=df, outcome="y", score="s")``;
    - ``f("y ~ s | site", data=df)`` and ``f("y ~ s | site", df)`` (R order);
    - ``f(df, "y ~ s | site")`` (the formula in place of the outcome).

    Parameters
    ----------
    first : frame, str or None
        The first positional argument of the entry point.
    data : frame or None
        The ``data=`` keyword.
    outcome, score, by
        The column arguments as given.
    function : str
        The entry point's name, for messages.
    is_data : callable
        Whether a value is data (a frame, a Parquet path) rather than a
        formula or a column name: the reader's one detection
        (:func:`aucpr_stats.ingest.source.is_data`).
    survival : bool
        Whether the caller takes a ``Surv(time, event)`` outcome (returned as
        a :class:`SurvivalOutcome`); refused otherwise.

    Raises
    ------
    InputTypeError
        Data given twice or not at all, or a formula mixed with column arguments.
    FormulaError
        The formula does not parse.
    """
    formula = None
    if isinstance(first, str) and not is_data(first):  # a Parquet path is data, not a formula
        formula = first
        if data is None and is_data(outcome):
            data, outcome = outcome, None
    else:
        if first is not None:
            if data is not None and not is_data(first):
                raise InputTypeError(
                    f"{function}() takes a formula string or the data frame as its first argument; got "
                    f"{shown(first)} of type {type(first).__name__}"
                )
            if data is not None:
                raise InputTypeError(f"{function}() got `data` twice: as the first argument and as data=")
            data = first
        if isinstance(outcome, str) and "~" in outcome:
            formula, outcome = outcome, None
    if data is None:
        hint = f"; e.g. {function}({formula!r}, data=df)" if formula is not None else ""
        raise InputTypeError(f"{function}() needs `data`: a pandas or polars frame{hint}")
    if formula is None:
        if outcome is None or score is None:
            missing = [name for name, value in (("outcome", outcome), ("score", score)) if value is None]
            raise InputTypeError(
                f"{function}() needs {' and '.join(f'`{m}`' for m in missing)}, or a formula "
                f"such as {function}('y ~ s | site', data=df)"
            )
        return data, outcome, score, by
    given = [name for name, value in (("outcome", outcome), ("score", score), ("by", by)) if value is not None]
    if given:
        raise InputTypeError(
            f"{function}() got a formula {formula!r} and also {', '.join(f'`{g}`' for g in given)}; "
            "give the columns either in the formula or as arguments, not both"
        )
    parsed = parse_formula(formula)
    if parsed.survival is not None and not survival:
        raise FormulaError(f"{function}() takes a binary outcome; {parsed.outcome} is a time-to-event outcome, "
                           "taken by aucpr() and auroc() with horizon= (time-dependent areas)")
    outcome = parsed.survival if parsed.survival is not None else parsed.outcome
    return data, outcome, parsed.score, (list(parsed.by) or None)
