"""R-style formulas: parsing, error positions, and the resolver at the top of each entry point."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from aucpr_stats.api import aucpr, auroc
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.formula import Formula, FormulaError, parse_formula, resolve

from .conftest import as_polars, make_frame, random_scores

AP = "average_precision"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("y ~ s", Formula("y", ("s",), ())),
        ("y~s", Formula("y", ("s",), ())),
        ("  y ~ s1 + s2 ", Formula("y", ("s1", "s2"), ())),
        ("y ~ s | site", Formula("y", ("s",), ("site",))),
        ("y ~ s | site + sex", Formula("y", ("s",), ("site", "sex"))),
        ("disease ~ model_a + model_b | site + age_band",
         Formula("disease", ("model_a", "model_b"), ("site", "age_band"))),
        ("`has disease` ~ `score 1` + s.2 | `age band`", Formula("has disease", ("score 1", "s.2"), ("age band",))),
        ("y ~ `log(psa)`", Formula("y", ("log(psa)",), ())),
    ],
)
def test_valid_formulas(text, expected):
    assert parse_formula(text) == expected


def test_formula_round_trips_through_str():
    f = parse_formula("`has disease` ~ s1 + `score 2` | site")
    assert str(f) == "`has disease` ~ s1 + `score 2` | site"
    assert parse_formula(str(f)) == f


@pytest.mark.parametrize(
    "text, position, problem",
    [
        ("", 0, "empty formula"),
        ("   ", 0, "empty formula"),
        ("y", 1, "expected '~' after the outcome column but the formula ends"),
        ("y s", 2, "expected '~' after the outcome column, found 's'"),
        ("y + z ~ s", 2, "found '+' (the outcome is a single column)"),
        ("~ s", 0, "expected the outcome column before '~'"),
        ("y ~", 3, "expected a score column but the formula ends"),
        ("y ~ + s", 4, "expected a score column, found '+'"),
        ("y ~ s +", 7, "expected a score column after '+' but the formula ends"),
        ("y ~ s | ", 8, "expected a grouping column but the formula ends"),
        ("y ~ s | site +", 14, "expected a grouping column after '+'"),
        ("y ~ s | a | b", 10, "a second '|'"),
        ("y ~ s ~ t", 6, "a second '~'"),
        ("y ~ s t", 6, "unexpected 't'; join columns with '+'"),
        ("y ~ s * t", 6, "unexpected character '*'"),
        ("y ~ 2s", 4, "cannot start with a digit"),
        ("y ~ `s", 4, "unclosed backtick"),
        ("y ~ ``", 4, "empty column name"),
    ],
)
def test_invalid_formulas_name_problem_and_position(text, position, problem):
    with pytest.raises(FormulaError) as info:
        parse_formula(text)
    message = str(info.value)
    assert problem in message
    assert f"at position {position} " in message
    assert f"{text[:position]}>>>{text[position:]}" in message
    assert "\n" not in message


def test_duplicates_and_types():
    with pytest.raises(FormulaError, match=r"score column\(s\) \['s'\] named more than once"):
        parse_formula("y ~ s + s")
    with pytest.raises(InputTypeError, match="`formula` must be a string"):
        parse_formula(3)
    assert issubclass(FormulaError, ValueError)


def test_resolver_forms_agree(frame_kind):
    rng = np.random.default_rng(1)
    y, s = random_scores(rng, 200)
    cols = {"y": y.astype(int), "s": s, "t": s + rng.normal(size=200), "g": rng.choice(["a", "b"], 200)}
    df = make_frame(cols, frame_kind)
    reference = as_polars(aucpr(df, "y", ["s", "t"], by="g", estimator=AP).to_frame())
    calls = [
        lambda: aucpr("y ~ s + t | g", data=df, estimator=AP),
        lambda: aucpr("y ~ s + t | g", df, estimator=AP),
        lambda: aucpr(df, "y ~ s + t | g", estimator=AP),
        lambda: aucpr(data=df, outcome="y", score=["s", "t"], by="g", estimator=AP),
    ]
    for call in calls:
        assert as_polars(call().to_frame()).equals(reference)
    assert auroc("y ~ s", data=df).estimate == auroc(df, "y", "s").estimate


def test_resolver_errors():
    df = pl.DataFrame({"y": [0, 1], "s": [0.1, 0.2]})
    with pytest.raises(InputTypeError, match=r"aucpr\(\) needs `data`.*aucpr\('y ~ s', data=df\)"):
        aucpr("y ~ s")
    with pytest.raises(InputTypeError, match="got `data` twice"):
        aucpr(df, data=df, outcome="y", score="s")
    with pytest.raises(InputTypeError, match=r"got a formula 'y ~ s' and also `score`"):
        aucpr("y ~ s", data=df, score="s")
    with pytest.raises(InputTypeError, match=r"needs `score`, or a formula"):
        aucpr(df, "y")
    with pytest.raises(FormulaError, match="position 4"):
        aucpr("y ~ + s", data=df)
    assert resolve(df, None, "y", "s", None)[1:] == ("y", "s", None)
    with pytest.raises(InputError, match="column 'z' given as `score` is not in `data`"):
        aucpr("y ~ z", data=df)


def test_every_entry_point_takes_formulas(frame_kind):
    from aucpr_stats.compare import compare
    from aucpr_stats.curves import pr_curve, roc_curve

    rng = np.random.default_rng(2)
    y, s = random_scores(rng, 150)
    cols = {"y": y.astype(int), "s": s, "t": s + rng.normal(size=150), "g": rng.choice(["a", "b"], 150)}
    df = make_frame(cols, frame_kind)
    for fn in (pr_curve, roc_curve, compare):
        options = {"metric": "auroc"} if fn is compare else {}  # DeLong: no randomness between the two calls
        by_formula = as_polars(fn("y ~ s + t | g", data=df, **options).to_frame())
        by_columns = as_polars(fn(df, "y", ["s", "t"], "g", **options).to_frame())
        assert by_formula.equals(by_columns), fn.__name__
    curves = as_polars(pr_curve("y ~ s + t | g", data=df).to_frame())
    assert curves.columns[:2] == ["g", "score"]
    with pytest.raises(FormulaError, match="position 8"):
        pr_curve("y ~ s | ", data=df)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_names = st.text(alphabet=st.characters(blacklist_characters="`", blacklist_categories=("Cs",)), min_size=1,
                 max_size=12)


@settings(max_examples=200, deadline=None)
@given(outcome=_names, scores=st.lists(_names, min_size=1, max_size=4, unique=True),
       by=st.lists(_names, max_size=3, unique=True))
def test_any_column_names_round_trip(outcome, scores, by):
    formula = Formula(outcome, tuple(scores), tuple(by))
    assert parse_formula(str(formula)) == formula
