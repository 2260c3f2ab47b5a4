"""The command line's input and output (issue 16, item 7): standard input, compressed files, unknown
extensions, the format from the ``--output`` extension, LaTeX escapes, the minus sign, one separator."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from aucpr_stats.cli import main
from aucpr_stats.report import comparison_table
from aucpr_stats.report.cells import one_separator
from aucpr_stats.report.table import PublicationTable, latex_escape

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "synthetic_cohort.csv"
COLUMNS = ["--outcome", "disease", "--score", "model_a", "--by", "site"]


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The command in a real process (so that standard input is a real pipe)."""
    return subprocess.run([sys.executable, "-m", "aucpr_stats.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def _main(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ---------------------------------------------------------------- standard input
def test_dash_reads_csv_from_standard_input_as_the_file_would(capsys):
    piped = _run("-", *COLUMNS, "--format", "csv", stdin=DATA.read_text(encoding="utf-8"))
    assert (piped.returncode, piped.stderr) == (0, "")
    status, out, _ = _main([str(DATA), *COLUMNS, "--format", "csv"], capsys)
    assert status == 0 and piped.stdout == out
    assert piped.stdout.splitlines()[0] == "site,Positives,Negatives,AUCPR (95% CI)"


def test_standard_input_is_named_in_the_text_title():
    piped = _run("-", *COLUMNS, "--interval", "none", stdin=DATA.read_text(encoding="utf-8"))
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.splitlines()[0] == "AUCPR of model_a for outcome disease by site (standard input)"


@pytest.mark.parametrize("text, line", [
    ("", "aucpr-stats: error: standard input (file -) is empty; expected CSV with a header line"),
    ("y,s\n", "aucpr-stats: error: standard input has no rows, only column names"),
])
def test_empty_standard_input_is_one_line(text, line):
    piped = _run("-", "--outcome", "y", "--score", "s", stdin=text)
    assert (piped.returncode, piped.stdout, piped.stderr) == (2, "", line + "\n")


def test_standard_input_reads_missing_value_texts():
    piped = _run("-", "--outcome", "y", "--score", "s", "--missing", "drop", "--interval", "none", "--raw",
                 "--format", "csv", "--estimator", "average_precision", "--ties", "published",
                 stdin="y,s\n1,0.9\n0,NA\n0,0.8\n1,0.7\n0,0.1\n")
    assert piped.returncode == 0, piped.stderr
    out = pl.read_csv(piped.stdout.encode())
    # ranks 1 (+), 2 (-), 3 (+), 4 (-): AP = (1/1 + 2/3) / 2
    assert out["estimate"][0] == pytest.approx((1 + 2 / 3) / 2, rel=1e-12)
    assert (out["n_pos"][0], out["n_neg"][0]) == (2, 2)


# ---------------------------------------------------------------- compressed and unknown files
@pytest.mark.parametrize("suffix", [".csv.gz", ".tsv.gz", ".CSV.GZ"])
def test_gzip_files_read_as_the_plain_file(tmp_path, capsys, suffix):
    frame = pl.read_csv(DATA)
    text = frame.write_csv(separator="\t" if suffix.lower().startswith(".tsv") else ",")
    path = tmp_path / f"cohort{suffix}"
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    status, out, err = _main([str(path), *COLUMNS, "--format", "csv"], capsys)
    assert (status, err) == (0, "")
    assert out == _main([str(DATA), *COLUMNS, "--format", "csv"], capsys)[1]


@pytest.mark.parametrize("name, got", [("cohort.txt", ".txt"), ("cohort.csv.bz2", ".csv.bz2"),
                                       ("cohort", "no extension"), ("cohort.gz", ".gz")])
def test_unknown_extensions_are_refused_in_one_line(tmp_path, capsys, name, got):
    path = tmp_path / name
    path.write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    status, out, err = _main([str(path), *COLUMNS], capsys)
    assert (status, out) == (2, "")
    assert err == (f"aucpr-stats: error: file {str(path)!r}: expected one of .csv, .tsv, .csv.gz, .tsv.gz, "
                   f".parquet (or - for standard input); got {got}\n")


def test_a_broken_gzip_file_is_one_line_naming_it(tmp_path, capsys):
    path = tmp_path / "broken.csv.gz"
    path.write_bytes(b"not gzip at all")
    status, _, err = _main([str(path), *COLUMNS], capsys)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"aucpr-stats: error: file {str(path)!r} is not a readable gzip file: ")


# ---------------------------------------------------------------- the output format from the extension
@pytest.mark.parametrize("suffix, fmt", [(".md", "markdown"), (".tex", "latex"), (".html", "html"),
                                         (".csv", "csv"), (".txt", "text"), (".TEX", "latex")])
def test_output_extension_chooses_the_format(tmp_path, capsys, suffix, fmt):
    out = tmp_path / f"table{suffix}"
    status, _, err = _main([str(DATA), *COLUMNS, "--output", str(out)], capsys)
    assert (status, err) == (0, f"aucpr-stats: wrote {out}\n")
    status, printed, _ = _main([str(DATA), *COLUMNS, "--format", fmt], capsys)
    assert status == 0
    assert out.read_text(encoding="utf-8") == printed


def test_format_agreeing_with_the_extension_is_accepted(tmp_path, capsys):
    out = tmp_path / "table.md"
    status, _, _ = _main([str(DATA), *COLUMNS, "--format", "markdown", "-o", str(out)], capsys)
    assert status == 0 and out.read_text(encoding="utf-8").startswith("| site | Positives | Negatives |")


def test_format_contradicting_the_extension_is_an_error(tmp_path, capsys):
    out = tmp_path / "table.tex"
    status, printed, err = _main([str(DATA), *COLUMNS, "--format", "html", "-o", str(out)], capsys)
    assert (status, printed) == (2, "")
    assert err == (f"aucpr-stats: error: --format html contradicts --output {str(out)!r} (a .tex file is latex); "
                   "drop --format or change the extension\n")
    assert not out.exists()


@pytest.mark.parametrize("name, shown", [("table.dat", ".dat"), ("table", "(none)")])
def test_unknown_output_extension_needs_format(tmp_path, capsys, name, shown):
    out = tmp_path / name
    status, _, err = _main([str(DATA), *COLUMNS, "-o", str(out)], capsys)
    assert status == 2
    assert err == (f"aucpr-stats: error: --output {str(out)!r}: cannot tell the format from the extension {shown}; "
                   "use one of .md (markdown), .tex (latex), .html (html), .csv (csv), .txt (text), .docx (docx) "
                   "or give --format\n")
    assert not out.exists()
    status, _, _ = _main([str(DATA), *COLUMNS, "-o", str(out), "--format", "csv"], capsys)
    assert status == 0 and out.read_text(encoding="utf-8").startswith("site,Positives,Negatives,AUCPR (95% CI)\n")


def test_raw_follows_a_csv_extension_and_refuses_markdown(tmp_path, capsys):
    out = tmp_path / "raw.csv"
    assert _main([str(DATA), *COLUMNS, "--raw", "--interval", "none", "-o", str(out)], capsys)[0] == 0
    assert out.read_text(encoding="utf-8").startswith("metric,site,")
    status, _, err = _main([str(DATA), *COLUMNS, "--raw", "-o", str(tmp_path / "raw.md")], capsys)
    assert (status, err) == (2, "aucpr-stats: error: --raw prints text or csv; got --format markdown\n")


# ---------------------------------------------------------------- LaTeX escapes
@pytest.mark.parametrize("char, escaped", [
    ("<", r"\textless{}"), (">", r"\textgreater{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
    ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"),
    ("\\", r"\textbackslash{}"), ("|", r"\textbar{}"), ("\u2013", "--"), ("\u2212", "$-$"),
])
def test_latex_escape_of_every_special_character(char, escaped):
    assert latex_escape(f"a{char}b") == f"a{escaped}b"


def test_latex_table_escapes_group_labels_and_headers(tmp_path, capsys):
    groups = ["<=22", ">32", "50% & $x_1#", "{a}~^\\"]
    rows = [(g, y, s) for g in groups for y, s in [(1, 0.9), (0, 0.8), (1, 0.7), (0, 0.2), (1, 0.6), (0, 0.1)]]
    path = tmp_path / "groups.csv"
    pl.DataFrame(rows, schema=["age_<band>", "y", "s"], orient="row").write_csv(path)
    out = tmp_path / "table.tex"
    status, _, err = _main([str(path), "--outcome", "y", "--score", "s", "--by", "age_<band>", "--interval", "none",
                            "--estimator", "average_precision", "--ties", "published", "-o", str(out)], capsys)
    assert status == 0, err
    lines = out.read_text(encoding="utf-8").splitlines()
    start = lines.index(r"\toprule")
    # AP per group: scores 0.9+, 0.8-, 0.7+, 0.6+, 0.2-, 0.1-  ->  (1 + 2/3 + 3/4) / 3 = 0.81; groups sorted
    assert lines[start + 1:start + 8] == [
        r"age\_\textless{}band\textgreater{} & Positives & Negatives & AUCPR \\",
        r"\midrule",
        r"50\% \& \$x\_1\# & 3 & 3 & 0.81 \\",
        r"\textless{}=22 & 3 & 3 & 0.81 \\",
        r"\textgreater{}32 & 3 & 3 & 0.81 \\",
        r"\{a\}\textasciitilde{}\textasciicircum{}\textbackslash{} & 3 & 3 & 0.81 \\",
        r"\bottomrule",
    ]


# ---------------------------------------------------------------- the minus sign and one separator
def _signed_table() -> PublicationTable:
    cells = pl.DataFrame({"Group": ["-2", "a-1"], "Positives": [5, 7],
                          "Difference (95% CI)": ["-0.17 (-0.22 to -0.13)", "0.05 (0.01 to 0.09)"],
                          "p": ["<0.001", "0.020"]})
    return PublicationTable(cells=cells, key_columns=("Group",),
                            numeric_columns=("Positives", "Difference (95% CI)", "p"), note="")


def test_true_minus_in_typeset_renderings_but_not_in_csv_or_frames():
    table = _signed_table()
    assert table.to_markdown() == (
        "| Group | Positives | Difference (95% CI) | p |\n"
        "| :--- | ---: | ---: | ---: |\n"
        "| -2 | 5 | \u22120.17 (\u22120.22 to \u22120.13) | <0.001 |\n"
        "| a-1 | 7 | 0.05 (0.01 to 0.09) | 0.020 |")
    assert table.to_text() == (
        "Group  Positives     Difference (95% CI)       p\n"
        "-----  ---------  ----------------------  ------\n"
        "-2             5  \u22120.17 (\u22120.22 to \u22120.13)  <0.001\n"
        "a-1            7     0.05 (0.01 to 0.09)   0.020")
    assert r"-2 & 5 & $-$0.17 ($-$0.22 to $-$0.13) & \textless{}0.001 \\" in table.to_latex().splitlines()
    assert ('<tr><td>-2</td><td style="text-align: right">5</td>'
            '<td style="text-align: right">\u22120.17 (\u22120.22 to \u22120.13)</td>'
            '<td style="text-align: right">&lt;0.001</td></tr>') in table.to_html().splitlines()
    assert table.to_csv() == ("Group,Positives,Difference (95% CI),p\n"
                              "-2,5,-0.17 (-0.22 to -0.13),<0.001\n"
                              "a-1,7,0.05 (0.01 to 0.09),0.020\n")
    assert table.to_frame()["Difference (95% CI)"].to_list() == ["-0.17 (-0.22 to -0.13)", "0.05 (0.01 to 0.09)"]


def test_one_separator_per_table():
    frame = pl.DataFrame({"n": [1, 2, 3], "ci": ["0.10 (0.01\u20130.20)\u2020", "-0.17 (-0.22 to -0.13)", "NA"]})
    assert one_separator(frame, ["n", "ci"])["ci"].to_list() == [
        "0.10 (0.01 to 0.20)\u2020", "-0.17 (-0.22 to -0.13)", "NA"]
    positive = frame.head(1)
    assert one_separator(positive, ["n", "ci"]).equals(positive)  # no negative bound: the en dash stays
    assert one_separator(frame, ["ci"], sep="; ").equals(frame)  # the caller's separator is kept


def test_comparison_table_uses_to_in_every_row_and_a_true_minus(capsys):
    from aucpr_stats.compare import compare

    comparison = compare(pl.read_csv(DATA), "disease", ["model_a", "model_b"], by="site", metric="auroc")
    table = comparison_table(comparison, digits=3)
    cells = table.to_frame()["Difference (95% CI)"].to_list()
    assert cells == ["0.120 (0.061 to 0.180)", "0.084 (0.035 to 0.132)", "0.099 (-0.017 to 0.214)",
                     "0.092 (0.051 to 0.132)"]
    assert "| C | 29 | 471 | 0.867 | 0.769 | 0.099 (\u22120.017 to 0.214) | 0.094 |" in table.to_markdown()
    status, out, _ = _main([str(DATA), "--formula", "disease ~ model_a + model_b | site", "--metric", "auroc",
                            "--compare", "--digits", "3", "--format", "markdown"], capsys)
    assert status == 0 and table.to_markdown() == out.rstrip("\n")
    status, out, _ = _main([str(DATA), "--formula", "disease ~ model_a + model_b | site", "--metric", "auroc",
                            "--compare", "--digits", "3", "--format", "csv"], capsys)
    assert status == 0 and "\u2212" not in out and ",0.099 (-0.017 to 0.214),0.094" in out


def test_the_documented_pipe_runs():
    import re
    import shlex

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    pipe = next(line for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
                for line in block.splitlines() if "| aucpr-stats - " in line)
    command = pipe.replace("aucpr-stats", f"{shlex.quote(sys.executable)} -m aucpr_stats.cli")
    done = subprocess.run(command, shell=True, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[0] == "AUCPR of model_a for outcome disease by site (standard input)"
