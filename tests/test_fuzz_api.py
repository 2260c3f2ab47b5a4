"""Nothing raw escapes (issue 15, item 3): every public call gives a result or one of the library's errors.

Hypothesis draws frames (outcome, score and group columns of many dtypes and
values, names drawn from the result columns too, nulls, NaN, infinities,
huge integers, empty frames) and arguments (estimators, methods, levels,
replicate counts, seeds, positive levels, missing-value modes, some of them
wrong) for ``aucpr``, ``auroc``, ``pr_curve``, ``roc_curve`` and ``compare``,
then reads the results (``to_frame``, ``summary``, ``conf_int``, ``evaluate``);
``calibration`` and ``net_benefit`` too. Frames come as polars, lazy polars,
pandas (numpy, nullable and pyarrow-backed dtypes) and pyarrow tables, with
polars Enum, Struct, Date and Decimal columns among the drawn types (issue 37,
must-hold 6); the command line is fuzzed over its options and, separately,
over hostile files and output paths (missing, a directory, empty, binary,
truncated gzip, unicode names; an output that exists, sits in a missing
directory, is a dangling symlink or a directory).
Every call must either succeed or raise an :class:`~aucpr_stats.exceptions.InputError`
or :class:`~aucpr_stats.exceptions.InputTypeError` (subclasses of ValueError
and TypeError) whose message names an argument (in backticks) or a column.
The number of examples per property is ``FUZZ_EXAMPLES`` (200 by default, as
issue 37 asks; lower it locally for a quick run).
"""

from __future__ import annotations

import decimal
import os
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aucpr_stats import aucpr, auroc, calibration, compare, net_benefit, pr_curve, roc_curve
from aucpr_stats.exceptions import InputError, InputTypeError

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "200"))

RESULT_NAMES = ["estimate", "note", "n_pos", "n_neg", "estimator", "prevalence", "n_missing", "lower", "upper",
                "level", "method", "se", "score", "difference", "p_value"]
NAMES = st.sampled_from(["y", "s", "g", "outcome", "Score 1", "é", *RESULT_NAMES])


def _scores(draw, n: int):
    kind = draw(st.sampled_from(["float64", "float32", "int64", "uint64", "int8", "huge", "special", "decimal",
                                 "string", "bool", "constant", "probability", "probability", "enum", "struct",
                                 "date"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if kind == "probability":  # predicted risks, for calibration and net benefit
        return pl.Series(np.round(rng.random(n), draw(st.integers(1, 3))))
    if kind == "enum":
        return pl.Series([str(v) for v in rng.integers(0, 3, n)], dtype=pl.String).cast(pl.Enum(["0", "1", "2"]))
    if kind == "struct":
        return pl.Series([{"a": float(v)} for v in rng.normal(size=n)], dtype=pl.Struct({"a": pl.Float64}))
    if kind == "date":
        return pl.Series(np.datetime64("2020-01-01") + rng.integers(0, 9, n).astype("timedelta64[D]")).cast(pl.Date)
    if kind == "float64":
        return pl.Series(np.round(rng.normal(size=n), draw(st.integers(0, 3))))
    if kind == "float32":
        return pl.Series(rng.normal(size=n).astype(np.float32))
    if kind == "int64":
        return pl.Series(rng.integers(-5, 5, n))
    if kind == "uint64":
        return pl.Series(rng.integers(0, 5, n).astype(np.uint64) + np.uint64(2**63))
    if kind == "int8":
        return pl.Series(rng.integers(-3, 3, n).astype(np.int8))
    if kind == "huge":
        return pl.Series(rng.integers(0, 3, n) + 2**53)
    if kind == "special":
        values = rng.normal(size=n)
        values[rng.random(n) < 0.2] = draw(st.sampled_from([np.nan, np.inf, -np.inf, 1e308, -1e308]))
        return pl.Series(values)
    if kind == "decimal":
        return pl.Series([decimal.Decimal(int(v)) / 7 for v in rng.integers(0, 9, n)], dtype=pl.Decimal(20, 10))
    if kind == "string":
        return pl.Series([str(v) for v in rng.integers(0, 3, n)])
    if kind == "bool":
        return pl.Series(rng.random(n) < 0.5)
    return pl.Series(np.full(n, 0.5))


def _outcome(draw, n: int):
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    kind = draw(st.sampled_from(["bool", "int01", "yesno", "float", "three", "with_null", "enum"]))
    values = rng.random(n) < draw(st.sampled_from([0.05, 0.3, 0.3, 0.5, 0.0, 1.0]))
    if kind == "enum":
        return (pl.Series(np.where(values, "yes", "no"), dtype=pl.String).cast(pl.Enum(["no", "yes"])),
                draw(st.sampled_from(["yes", None])))
    if kind == "bool":
        return pl.Series(values), None
    if kind == "int01":
        return pl.Series(values.astype(np.int64)), None
    if kind == "yesno":
        return pl.Series(np.where(values, "yes", "no")), draw(st.sampled_from(["yes", "no", "maybe", None]))
    if kind == "float":
        return pl.Series(values.astype(np.float64)), None
    if kind == "three":
        return pl.Series(rng.integers(0, 3, n)), draw(st.sampled_from([None, 1, 2]))
    series = pl.Series(values, dtype=pl.Boolean).to_list()
    if n:
        series[0] = None
    return pl.Series(series, dtype=pl.Boolean), None


def _groups(draw, n: int):
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    kind = draw(st.sampled_from(["str", "int", "big_int", "categorical", "null", "enum", "struct"]))
    if kind == "enum":
        return pl.Series(rng.choice(["x", "y"], n), dtype=pl.String).cast(pl.Enum(["x", "y", "unused"]))
    if kind == "struct":
        return pl.Series([{"k": int(v)} for v in rng.integers(0, 2, n)], dtype=pl.Struct({"k": pl.Int64}))
    if kind == "str":
        return pl.Series(rng.choice(["a", "b", "c"], n))
    if kind == "int":
        return pl.Series(rng.integers(0, 3, n))
    if kind == "big_int":
        return pl.Series(rng.integers(0, 2, n).astype(np.uint64) + np.uint64(2**63))
    if kind == "categorical":
        return pl.Series(rng.choice(["x", "y"], n)).cast(pl.Categorical)
    values = rng.choice(["a", "b"], n).astype(object)
    values[rng.random(n) < 0.2] = None
    return pl.Series(values.tolist(), dtype=pl.String)


@st.composite
def frames(draw):
    n = draw(st.sampled_from([0, 1, 2, 5, 40, 40, 300, 300, 300]))
    names = draw(st.lists(NAMES, min_size=3, max_size=3, unique=True))
    # the grouping column: mostly an ordinary name (result names are refused there, by design)
    names.append(draw(st.sampled_from([name for name in ("g", "site", "Group A", "fold", "method") if name not in names])))
    outcome, positive = _outcome(draw, n)
    frame = pl.DataFrame({names[0]: outcome, names[1]: _scores(draw, n), names[2]: _scores(draw, n),
                          names[3]: _groups(draw, n)})
    kind = draw(st.sampled_from(["polars", "pandas", "lazy", "pandas_nullable", "pandas_arrow", "pyarrow"]))
    try:
        if kind == "pandas":
            data = frame.to_pandas()
        elif kind == "pandas_nullable":  # pandas' extension dtypes: Int64, Float64, boolean, string with pd.NA
            data = frame.to_pandas().convert_dtypes()
        elif kind == "pandas_arrow":
            data = frame.to_pandas(use_pyarrow_extension_array=True)
        elif kind == "pyarrow":
            data = frame.to_arrow()
        else:
            data = frame.lazy() if kind == "lazy" else frame
    except Exception:  # a dtype the target cannot hold: stay in polars
        data = frame
    return data, names, positive


ARGS = st.fixed_dictionaries({
    "estimator": st.sampled_from([None, "all", "average_precision", "interpolated_median", "nope", 3,
                                  ["lower_trapezoid", "binormal"]]),
    "method": st.sampled_from([None, "all", "logit", "bootstrap", "wilson", "delong", "newcombe",
                               "cross_validation", "bad"]),
    "level": st.sampled_from([0.95, 0.5, np.float32(0.9), 0.9, 1.0, "x"]),
    "n_boot": st.sampled_from([20, np.int64(30), 25, 1, 10**12, 2.5]),
    "seed": st.sampled_from([None, 1, 2, np.int64(4), 7, -1, "a"]),
    "missing": st.sampled_from(["error", "drop", "drop", "error", "error", "drop", "skip"]),
    "by": st.booleans(),
    "ties": st.sampled_from(["interpolate", "published", "bad"]),
    "thresholds": st.sampled_from([[0.1, 0.2], 0.5, [0.0, 0.5], "x", [float("nan")], [0.05, 0.05, 0.9], None]),
    "policy": st.sampled_from(["opt-in", "opt-out", "opt_in"]),
})

LIBRARY_ERRORS = (InputError, InputTypeError)


def _names_something(message: str, names) -> bool:
    return "`" in message or any(name in message for name in names)


def _call(fn, names):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except LIBRARY_ERRORS as exc:
        message = str(exc)
        assert message, f"empty message from {type(exc).__name__}"
        assert _names_something(message, names), message
        return None


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=frames(), args=ARGS)
def test_areas_and_intervals_give_a_result_or_a_library_error(case, args):
    data, names, positive = case
    y, s, s2, g = names
    by = g if args["by"] else None
    for fn in (aucpr, auroc):
        kwargs = {"positive": positive, "missing": args["missing"]}
        if args["estimator"] is not None and fn is aucpr:
            kwargs["estimator"] = args["estimator"]
        if fn is aucpr:
            kwargs["ties"] = args["ties"]
        result = _call(lambda: fn(data, y, s, by, **kwargs), names)
        if result is None:
            continue
        _call(lambda: (result.to_frame(), result.summary()), names)
        options = {"level": args["level"]}
        if args["method"] in ("bootstrap", "all"):
            options.update(n_boot=args["n_boot"], seed=args["seed"])
        _call(lambda: result.conf_int(method=args["method"], **options), names)
    calibrated = _call(lambda: calibration(data, y, s, by, positive=positive, missing=args["missing"],
                                           statistic=["citl", "slope", "brier", "ici"]), names)
    if calibrated is not None:
        _call(lambda: (calibrated.to_frame(), calibrated.summary(), calibrated.conf_int()), names)
    thresholds = {} if args["thresholds"] is None else {"thresholds": args["thresholds"]}
    benefit = _call(lambda: net_benefit(data, y, s, by, positive=positive, missing=args["missing"],
                                        policy=args["policy"], **thresholds), names)
    if benefit is not None:
        _call(lambda: (benefit.to_frame(), benefit.summary(), benefit.conf_int(level=args["level"])), names)
        if args["method"] in ("bootstrap", "all"):
            _call(lambda: benefit.conf_int(method="bootstrap", n_boot=args["n_boot"], seed=args["seed"]), names)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=frames(), args=ARGS)
def test_curves_and_comparisons_give_a_result_or_a_library_error(case, args):
    data, names, positive = case
    y, s, s2, g = names
    by = g if args["by"] else None
    for fn in (pr_curve, roc_curve):
        curve = _call(lambda: fn(data, y, s, by, positive=positive, missing=args["missing"]), names)
        if curve is not None:
            _call(lambda: (curve.to_frame(), curve.evaluate([0.0, 0.5, 1.0])), names)
            if fn is pr_curve and not isinstance(data, pl.LazyFrame) and args["by"] is False:
                _call(lambda: curve.band(n_boot=20, grid=5, seed=args["seed"]), names)
    for metric in ("auroc", "aucpr"):
        _call(lambda: compare(data, y, [s, s2], by, metric=metric, n_boot=20, seed=args["seed"],
                              positive=positive, missing=args["missing"]).to_frame(), names)
        _call(lambda: compare(data, y, [s], between=g, metric=metric, n_boot=20, seed=args["seed"],
                              positive=positive, missing=args["missing"]).to_frame(), names)


@pytest.mark.parametrize("first", [123, None, [1, 2], np.zeros(3), "y ~", object()])
def test_a_wrong_first_argument_is_a_library_error(first):
    df = pl.DataFrame({"y": [1, 0], "s": [0.2, 0.1]})
    with pytest.raises(LIBRARY_ERRORS):
        aucpr(first, "y", "s") if first is not None else aucpr(first, "y", "s", data=None)
    with pytest.raises(LIBRARY_ERRORS):
        aucpr(first, data=df)


# ------------------------------------------------------------------ the CLI
CLI_OPTIONS = st.fixed_dictionaries({
    "metric": st.lists(st.sampled_from(["aucpr", "auroc"]), max_size=2),
    "estimator": st.sampled_from([[], ["average_precision"], ["all"], ["interpolated_median", "binormal"]]),
    "interval": st.sampled_from([[], [], ["none"], ["bootstrap"], ["logit", "wilson"], ["delong"], ["bad"]]),
    "format": st.sampled_from(["text", "csv", "markdown", "latex", "html"]),
    "level": st.sampled_from([None, None, "0.9", "1.5"]),
    "n_boot": st.sampled_from([None, None, None, "30", "0", "10000000000"]),
    "seed": st.sampled_from([None, None, None, "3", "-2"]),
    "by": st.booleans(),
    "compare": st.sampled_from([False, False, False, True]),
    "raw": st.sampled_from([False, False, True]),
    "overall": st.booleans(),
    "missing": st.sampled_from(["error", "drop"]),
    "ties": st.sampled_from(["interpolate", "published"]),
    "digits": st.sampled_from([None, None, "3", "-1"]),
})


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=frames(), options=CLI_OPTIONS)
def test_the_cli_exits_cleanly_with_one_line_on_any_file_and_options(tmp_path_factory, case, options):
    import contextlib
    import io

    from aucpr_stats.cli import main

    data, names, _ = case
    frame = data.collect() if isinstance(data, pl.LazyFrame) else pl.from_pandas(data) if isinstance(
        data, pd.DataFrame) else data
    try:
        frame = frame.with_columns(pl.col(pl.Decimal).cast(pl.String))
        path = tmp_path_factory.mktemp("cli") / "data.csv"
        frame.write_csv(path)
    except Exception:  # a dtype CSV cannot hold
        return
    y, s, s2, g = names
    argv = [str(path), "--outcome", y, "--score", s, s2, "--missing", options["missing"], "--ties", options["ties"],
            "--format", options["format"]]
    if options["by"]:
        argv += ["--by", g]
    for flag in ("metric", "estimator", "interval"):
        for value in options[flag]:
            argv += [f"--{flag}", value]
    for flag, option in (("level", "--level"), ("n_boot", "--n-boot"), ("seed", "--seed"), ("digits", "--digits")):
        if options[flag] is not None:
            argv += [option, options[flag]]
    for flag in ("compare", "raw", "overall"):
        if options[flag]:
            argv.append(f"--{flag}")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:  # argparse: a usage error
            status = exit_.code
    errors = [line for line in err.getvalue().splitlines() if "error" in line]
    assert status in (0, 2), (argv, err.getvalue())  # 1 would be an unforeseen error
    assert "Traceback" not in err.getvalue(), argv
    assert len(errors) <= 1, err.getvalue()


# ------------------------------------------------------------------ the CLI's files and paths
FILES = st.sampled_from(["ok", "ok", "missing", "directory", "empty", "header_only", "binary", "gzip", "gzip_truncated",
                         "unicode name", "no_extension"])
OUTPUTS = st.sampled_from([None, "new", "exists", "exists_force", "missing_directory", "dangling_symlink",
                           "directory", "docx_without_output"])
COMMANDS = st.sampled_from([[], ["calibration"], ["net-benefit", "--thresholds", "0.1", "0.2"], ["cutoffs"]])


def _input_file(folder, kind: str):
    """A data file (or not) of the kind drawn; the rows are predicted risks with a binary outcome."""
    import gzip

    rng = np.random.default_rng(5)
    text = "y,p\n" + "".join(f"{int(rng.random() < 0.3)},{rng.random():.3f}\n" for _ in range(60))
    if kind == "missing":
        return folder / "nowhere.csv"
    if kind == "directory":
        (folder / "a_dir.csv").mkdir()
        return folder / "a_dir.csv"
    path = folder / {"unicode name": "données é ü.csv", "no_extension": "data", "gzip": "data.csv.gz",
                     "gzip_truncated": "data.csv.gz"}.get(kind, "data.csv")
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "header_only":
        path.write_text("y,p\n")
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 4)
    elif kind.startswith("gzip"):
        packed = gzip.compress(text.encode())
        path.write_bytes(packed[: len(packed) // 2] if kind == "gzip_truncated" else packed)
    else:
        path.write_text(text)
    return path


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(file_kind=FILES, output=OUTPUTS, command=COMMANDS)
def test_the_cli_exits_cleanly_on_hostile_files_and_paths(tmp_path_factory, file_kind, output, command):
    import contextlib
    import io

    from aucpr_stats.cli import main

    folder = tmp_path_factory.mktemp("paths")
    path = _input_file(folder, file_kind)
    argv = [*command[:1], str(path), *command[1:], "--outcome", "y", "--score", "p"]
    target, before = None, None
    if output == "docx_without_output":
        argv += ["--format", "docx"]
    elif output is not None:
        target = {"missing_directory": folder / "no" / "such" / "out.csv", "directory": folder}.get(
            output, folder / "out.csv")
        if output in ("exists", "exists_force"):
            target.write_text("keep me\n")
            before = target.read_text()
        if output == "dangling_symlink":
            target.symlink_to(folder / "elsewhere.csv")
        argv += ["--output", str(target)] + (["--force"] if output == "exists_force" else [])
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:  # argparse: a usage error
            status = exit_.code
    message = err.getvalue()
    assert status in (0, 2), (argv, message)
    assert "Traceback" not in message, argv
    assert len([line for line in message.splitlines() if ": error:" in line]) <= 1, message
    if file_kind in ("missing", "directory", "empty", "binary", "gzip_truncated"):
        assert status == 2, (argv, message)
    if output == "exists":  # no overwrite without --force
        assert status == 2 and target.read_text() == before, (argv, message)
    if output == "dangling_symlink":  # never written through a symlink without --force
        assert not (folder / "elsewhere.csv").exists(), argv
    if output in ("missing_directory", "directory", "docx_without_output"):
        assert status == 2, (argv, message)
