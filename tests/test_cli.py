"""The command line on the shipped data, its formats, and its one-line errors."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from aucpr_stats.api import aucpr
from aucpr_stats.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "synthetic_cohort.csv"


def test_per_group_numbers_on_shipped_data(capsys):
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--by", "site",
                 "--estimator", "average_precision", "--interval", "none", "--raw", "--format", "csv",
                 "--ties", "published"]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    frame = pl.read_csv(DATA)
    assert out["site"].to_list() == ["A", "B", "C", "D"]
    for site, part in frame.group_by("site"):
        row = out.filter(pl.col("site") == site[0])
        assert row["estimate"][0] == pytest.approx(average_precision_score(part["disease"], part["model_a"]),
                                                   rel=1e-12)
        assert row["n_pos"][0] == part["disease"].sum()


def test_default_prints_publication_table(capsys):
    assert main([str(DATA), "--formula", "disease ~ model_a + model_b | site", "--estimator", "average_precision", "--metric", "aucpr",
                 "--metric", "auroc", "--interval", "none", "--digits", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("AUCPR and AUROC of model_a, model_b for outcome disease by site")
    header = lines[2].split("  ")
    assert [h.strip() for h in header if h.strip()] == [
        "site", "Positives", "Negatives", "model_a: AUCPR", "model_b: AUCPR", "model_a: AUROC", "model_b: AUROC"]
    frame = pl.read_csv(DATA)
    part = frame.filter(pl.col("site") == "C")
    row = next(line.split() for line in lines[4:] if line.startswith("C "))
    assert row[1:3] == [str(part["disease"].sum()), str(part.height - part["disease"].sum())]
    assert row[3] == f"{average_precision_score(part['disease'], part['model_a']):.3f}"
    assert row[6] == f"{roc_auc_score(part['disease'], part['model_b']):.3f}"


@pytest.mark.parametrize("fmt, start", [("markdown", "| site | Positives"), ("latex", r"\begin{table}"),
                                        ("html", "<table"), ("csv", "site,Positives,Negatives,AUROC")])
def test_formats_and_output_file(tmp_path, capsys, fmt, start):
    out = tmp_path / f"table.{fmt}"
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--by", "site", "--metric", "auroc",
                 "--interval", "delong", "--format", fmt, "--output", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith(start)
    assert "wrote" in capsys.readouterr().err


def test_parquet_input_and_positive_level(tmp_path, capsys):
    frame = pl.read_csv(DATA).with_columns(
        pl.when(pl.col("disease") == 1).then(pl.lit("case")).otherwise(pl.lit("control")).alias("status"))
    path = tmp_path / "cohort.parquet"
    frame.write_parquet(path)
    assert main([str(path), "--outcome", "status", "--positive", "case", "--score", "model_b",
                 "--interval", "none", "--raw", "--format", "csv"]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    expected = aucpr(frame, "disease", "model_b").estimate
    assert out["estimate"][0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--outcome", "diseased", "--score", "model_a"], "column 'diseased' given as `outcome` is not in `data`"),
        (["--outcome", "disease", "--score", "site"], "`score` column 'site' must be numeric"),
        (["--outcome", "site", "--score", "model_a"], "pass --positive to name the positive level"),
        (["--outcome", "site", "--positive", "Z", "--score", "model_a"], "--positive 'Z' does not occur"),
        (["--outcome", "disease"], "missing --score"),
        (["--formula", "disease ~ + model_a"], "expected a score column, found '+' at position 10"),
        (["--formula", "disease ~ model_a", "--by", "site"], "--formula replaces --by"),
        (["--outcome", "disease", "--score", "model_a", "--level", "95"], "--level must be strictly between 0 and 1"),
        (["--outcome", "disease", "--score", "model_a", "--raw", "--format", "latex"], "--raw prints text or csv"),
        (["--outcome", "disease", "--score", "model_a", "--metric", "auroc", "--interval", "nonsense"], "nonsense"),
    ],
)
def test_errors_are_one_line(capsys, args, message):
    assert main([str(DATA), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aucpr-stats: error: ") and message in err and err.count("\n") == 1


def test_missing_file(capsys):
    assert main(["no_such_file.csv", "--outcome", "y", "--score", "s"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_degenerate_groups_warn_in_one_line(capsys):
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--by", "site", "age_band",
                 "--interval", "none"]) == 0
    captured = capsys.readouterr()
    assert all(line.startswith("aucpr-stats: warning: ") for line in captured.err.splitlines())


def test_help_explains_usage(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for needle in ["--formula", "--outcome", "--score", "--by", "--positive", "--metric", "--estimator",
                   "--method", "--level", "--seed", "--format", "--output", "examples:", "Exit status"]:
        assert needle in text
    assert "--interval" not in text  # the earlier spelling of --method still works, out of the help


def test_console_script_runs_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "aucpr_stats.cli", str(DATA), "--outcome", "disease", "--score", "nope"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_seed_makes_bootstrap_tables_reproducible(capsys):
    args = [str(DATA), "--formula", "disease ~ model_a | site", "--metric", "auroc", "--interval", "bootstrap",
            "--digits", "4"]
    outs = []
    for seed in ("7", "7", "8"):
        assert main([*args, "--seed", seed]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and outs[0] != outs[2]
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--metric", "auroc", "--seed", "1"]) == 2
    assert "--seed is for resampling intervals" in capsys.readouterr().err


def test_readme_main_job_on_real_data(capsys):
    import re
    import shlex

    readme = (ROOT / "README.md").read_text()
    command = next(b.strip() for b in re.findall(r"```bash\n(.*?)```", readme, flags=re.S) if "breast_cancer" in b and " report " not in b)
    argv = shlex.split(command)
    assert argv[0] == "aucpr-stats"
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(argv[1:]) == 0
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    # issue 14: the small-tumour group (6 malignant cases) is flagged; nothing else warns
    warned = [line for line in out.err.splitlines() if "warning" in line]
    assert warned and all("positives their method needs to keep its coverage" in line for line in warned)
    lines = out.out.splitlines()
    frame = pl.read_csv(ROOT / "data" / "breast_cancer_oof.csv")
    ci = aucpr(frame, "malignant", "logistic", by="size_group").conf_int(method="logit")
    small = ci.row(0, named=True)
    cell = f"{small['estimate']:.2f} ({small['lower']:.2f}\u2013{small['upper']:.2f})"
    row = next(line for line in lines if line.startswith("1 small"))
    assert row.split("  ")[0] == "1 small" and cell in row
    assert "logistic: AUCPR (95% CI)" in lines[2] and "texture: AUROC (95% CI)" in lines[2]


def test_n_boot_only_with_bootstrap(capsys):
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--n-boot", "50"]) == 2
    assert "--n-boot is for --method bootstrap" in capsys.readouterr().err
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--interval", "bootstrap",
                 "--n-boot", "50", "--seed", "1", "--raw", "--format", "csv"]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert out["n_boot"].to_list() == [50]


def test_compare_prints_paired_comparison(capsys):
    from aucpr_stats.compare import compare

    assert main([str(DATA), "--formula", "disease ~ model_a + model_b | site", "--metric", "auroc", "--compare",
                 "--digits", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Paired comparison of AUROC for outcome disease by site")
    expected = compare(pl.read_csv(DATA), "disease", ["model_a", "model_b"], by="site", metric="auroc").to_frame()
    row = next(line for line in lines if line.startswith("C "))
    c = expected.filter(pl.col("site") == "C").row(0, named=True)
    from aucpr_stats.report import format_cell

    # the text rendering typesets negative numbers with a true minus sign (U+2212)
    assert format_cell(c["difference"], c["lower"], c["upper"], digits=3).replace("-", "\u2212") in row
    assert f"{c['estimate_a']:.3f}" in row and f"{c['estimate_b']:.3f}" in row
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--compare"]) == 2
    assert "--compare needs two or more scores" in capsys.readouterr().err


def test_overall_row(capsys):
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--by", "site", "--overall",
                 "--interval", "none", "--estimator", "average_precision", "--digits", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    frame = pl.read_csv(DATA)
    overall = next(line.split() for line in lines if line.startswith("Overall"))
    assert overall[1:] == [str(frame["disease"].sum()), str(frame.height - frame["disease"].sum()),
                           f"{average_precision_score(frame['disease'], frame['model_a']):.4f}"]
    assert [line.split()[0] for line in lines[4:9]] == ["Overall", "A", "B", "C", "D"]


def test_r_style_missing_values_in_csv(tmp_path, capsys):
    path = tmp_path / "from_r.csv"
    path.write_text("y,s\n1,0.9\n0,NA\n1,0.7\n0,0.2\n1,\n0,0.1\n", encoding="utf-8")
    assert main([str(path), "--outcome", "y", "--score", "s"]) == 2
    err = capsys.readouterr().err
    assert "2 of 6 rows have a missing" in err and "Pass --missing drop" in err
    assert main([str(path), "--outcome", "y", "--score", "s", "--missing", "drop", "--interval", "none",
                 "--raw", "--format", "csv"]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert out["n_pos"][0] == 2 and out["n_neg"][0] == 2 and out["n_missing"][0] == 2


def _documented_commands() -> list[str]:
    import re

    out = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
            for command in block.replace("\\\n", " ").splitlines():
                if command.strip().startswith("aucpr-stats "):
                    out.append(command.strip())
    return out


@pytest.mark.parametrize("command", _documented_commands())
def test_documented_commands_run(command, tmp_path, monkeypatch, capsys):
    import shlex

    argv = shlex.split(command)[1:]
    for flag in ("--output", "-o", "--plot", "--plot-curves"):  # write into a temporary folder, not the repository
        if flag in argv:
            i = argv.index(flag)
            argv[i + 1] = str(tmp_path / Path(argv[i + 1]).name)
    monkeypatch.chdir(ROOT)
    assert main(argv) == 0, capsys.readouterr().err
    assert "error" not in capsys.readouterr().err


# ---------------------------------------------------------------- issue 15, item 6: reliability
def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("aucpr-stats: error: "), err
    return lines[0]


def test_scores_turning_decimal_late_in_the_file(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(6)
    n = 12_000
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 50, n).astype(float) + y
    s[10_500:] += 0.5  # integers for 10,500 rows, then decimals
    cells = [str(int(v)) for v in s[:10_500]] + [str(v) for v in s[10_500:]]
    path = tmp_path / "late.csv"
    path.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in zip(y, cells)), encoding="utf-8")
    assert main([str(path), "--outcome", "y", "--score", "s", "--interval", "none", "--raw", "--format", "csv",
                 "--estimator", "average_precision", "--ties", "published"]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert out["estimate"][0] == pytest.approx(average_precision_score(y, s), rel=1e-12)
    assert (out["n_pos"][0], out["n_neg"][0]) == (y.sum(), n - y.sum())


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_header_only_file_says_no_rows(tmp_path, capsys, suffix):
    path = tmp_path / f"header{suffix}"
    if suffix == ".csv":
        path.write_text("y,s\n", encoding="utf-8")
    else:
        pl.DataFrame(schema={"y": pl.Int64, "s": pl.Float64}).write_parquet(path)
    assert main([str(path), "--outcome", "y", "--score", "s"]) == 2
    assert _one_error_line(capsys.readouterr().err) == (
        f"aucpr-stats: error: file {str(path)!r} has no rows, only column names")


def test_existing_output_needs_force(tmp_path, capsys):
    out = tmp_path / "table.csv"
    out.write_text("keep me\n", encoding="utf-8")
    args = [str(DATA), "--outcome", "disease", "--score", "model_a", "--interval", "none", "--format", "csv",
            "--output", str(out)]
    assert main(args) == 2
    assert _one_error_line(capsys.readouterr().err) == (
        f"aucpr-stats: error: --output file {str(out)!r} exists; pass --force to overwrite it")
    assert out.read_text(encoding="utf-8") == "keep me\n"
    assert main([*args, "--force"]) == 0
    assert out.read_text(encoding="utf-8").startswith("Positives,Negatives,AUCPR")
    assert capsys.readouterr().err == f"aucpr-stats: wrote {out}\n"


def _injection_file(tmp_path) -> Path:
    import numpy as np

    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 2, n)
    groups = ["=cmd|' /C calc'!A0", "+SUM(1)", "-2+3", "@A1", "-2", "plain"]
    path = tmp_path / "groups.csv"
    pl.DataFrame({"@grp": [groups[i % 6] for i in range(n)], "y": y, "s": rng.normal(size=n) + y,
                  "neg": -rng.random(n) - y}).write_csv(path)
    return path


def test_csv_output_escapes_formula_cells(tmp_path, capsys):
    path = _injection_file(tmp_path)
    assert main([str(path), "--outcome", "y", "--score", "s", "--by", "@grp", "--interval", "none", "--raw",
                 "--format", "csv"]) == 0
    text = capsys.readouterr().out
    out = pl.read_csv(io.StringIO(text))
    assert out.columns[:2] == ["metric", "'@grp"]
    assert sorted(out["'@grp"].to_list()) == sorted(
        ["'+SUM(1)", "'-2+3", "-2", "'=cmd|' /C calc'!A0", "'@A1", "plain"])
    # numbers stay numbers; no line starts a formula
    assert out["estimate"].dtype == pl.Float64 and out["n_pos"].dtype == pl.Int64
    assert not any(cell.startswith(("=", "+", "@")) for line in text.splitlines() for cell in line.split(","))


def test_csv_tables_escape_text_cells_but_not_numbers(tmp_path, capsys):
    path = _injection_file(tmp_path)
    assert main([str(path), "--formula", "y ~ neg + s | `@grp`", "--metric", "auroc", "--compare",
                 "--format", "csv"]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert out.columns[0] == "'@grp"
    assert "'=cmd|' /C calc'!A0" in out["'@grp"].to_list()
    # text cells whose difference is negative ("-0.40 (...)") are escaped; plain numbers are not
    diff = out["Difference (95% CI)"].to_list()
    assert all(cell.startswith("'-0.") and " (-" in cell for cell in diff)
    assert out["Positives"].dtype == pl.Int64


def test_escape_formulas_keeps_numeric_columns():
    from aucpr_stats.cli import escape_formulas

    frame = pl.DataFrame({"x": [-0.5, 1.0], "k": ["-0.5", "-a"], "c": pl.Series(["=1", "b"], dtype=pl.Categorical),
                          "-n": [-1, 2]})
    out = escape_formulas(frame)
    assert out.columns == ["x", "k", "c", "'-n"]
    assert out["x"].to_list() == [-0.5, 1.0] and out["'-n"].to_list() == [-1, 2]
    assert out["k"].to_list() == ["-0.5", "'-a"] and out["c"].to_list() == ["'=1", "b"]


def test_huge_n_boot_is_one_line(capsys):
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--interval", "bootstrap",
                 "--n-boot", str(10**12)]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith("aucpr-stats: error: --n-boot must be ") and "1,000,000,000,000" in line
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--interval", "bootstrap",
                 "--n-boot", "0"]) == 2
    assert _one_error_line(capsys.readouterr().err).startswith("aucpr-stats: error: --n-boot must be at least")


def test_negative_seed_is_one_line_naming_the_option(capsys):
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--interval", "bootstrap",
                 "--seed", "-1"]) == 2
    assert _one_error_line(capsys.readouterr().err) == "aucpr-stats: error: --seed must be an integer >= 0; got -1"


def _boom(*args, **kwargs):
    raise RuntimeError("kernel exploded\nsecond line")


def test_unexpected_error_is_one_line_with_status_1(monkeypatch, capsys):
    from aucpr_stats import api

    monkeypatch.setattr(api, "aucpr", _boom)
    args = [str(DATA), "--outcome", "disease", "--score", "model_a"]
    assert main(args) == 1
    assert _one_error_line(capsys.readouterr().err) == (
        "aucpr-stats: error: unexpected RuntimeError: kernel exploded (run with --debug for the traceback)")
    assert main([*args, "--debug"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and "in _boom" in err
    assert err.splitlines()[-1] == "aucpr-stats: error: unexpected RuntimeError: kernel exploded"


def test_debug_prints_the_traceback_in_a_real_process():
    args = [str(DATA), "--outcome", "disease", "--score", "nope"]
    plain = subprocess.run([sys.executable, "-m", "aucpr_stats.cli", *args], capture_output=True, text=True)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    assert _one_error_line(plain.stderr).startswith("aucpr-stats: error: column 'nope' given as `score`")
    debug = subprocess.run([sys.executable, "-m", "aucpr_stats.cli", *args, "--debug"], capture_output=True,
                           text=True)
    assert debug.returncode == 2 and debug.stderr.startswith("Traceback (most recent call last):")
    assert "ColumnNotFoundError" in debug.stderr
    assert debug.stderr.splitlines()[-1] == plain.stderr.strip()


def test_unexpected_error_in_a_real_process():
    # an error nobody foresaw (here a kernel patched to fail): one line and status 1, the traceback with --debug
    script = ("import sys; import aucpr_stats.api as api, aucpr_stats.cli as cli\n"
              "def boom(*a, **k): raise MemoryError()\n"
              "api.aucpr = boom\n"
              "sys.exit(cli.main(sys.argv[1:]))\n")
    args = [str(DATA), "--outcome", "disease", "--score", "model_a"]
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert _one_error_line(proc.stderr) == (
        "aucpr-stats: error: unexpected MemoryError: MemoryError (run with --debug for the traceback)")
    proc = subprocess.run([sys.executable, "-c", script, *args, "--debug"], capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith("Traceback (most recent call last):")
