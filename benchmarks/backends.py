"""Time and peak memory of the input roads on one Parquet file: polars, DuckDB (tie table, partial sums), Spark.

Usage::

    python benchmarks/backends.py                 # 10^7 rows, polars and DuckDB
    python benchmarks/backends.py --rows 50000000 --spark

A Parquet file of ``--rows`` rows is written once (by DuckDB, in
``--dir``): an outcome with prevalence 0.3, a continuous score (every score
distinct) and a group column, once with one group and once with 10^5 groups.
Every case runs in a fresh Python process, so its peak resident memory
(``ru_maxrss``) is its own; for Spark that is the Python driver only (the
JVM is another process; its heap is capped by ``spark.driver.memory``).

Cases:

* ``polars``: ``auroc(pl.scan_parquet(file), ...).conf_int(method="delong")``
  (polars' streaming engine builds the tie table);
* ``duckdb-ties``: the same call on a DuckDB relation (DuckDB reduces the
  rows to the tie table; ``max_tie_rows`` raised to the row count, since
  continuous scores make the tie table as long as the data);
* ``duckdb-sums``: :func:`aucpr_stats.sql_sums` on the
  relation (average precision, lower trapezoid, A' and DeLong's interval as
  sums in DuckDB; one row per group reaches Python);
* ``duckdb-results``: ``auroc(relation, ...).conf_int(method="delong")``,
  the result object, with the default limit (``partial_sums="auto"``): the
  collapsed table is over 5·10^6 rows, so the engine's partial sums replace
  it after a first, refused pass;
* ``duckdb-results-always``: the same with ``sql_input(relation,
  partial_sums="always")`` (one pass);
* ``duckdb-curve``: ``pr_curve(relation, ..., grid=G).evaluate(...)`` at
  21 recalls, the curve thinned by DuckDB (``G = 1000`` for one group, 4 for
  10^5 groups: at most ``8 G + 1`` points per group are collected);
* ``spark-sums`` (with ``--spark``): the same sums on a Spark DataFrame in
  local mode; ``spark-results``: the ``duckdb-results-always`` call on it.

DuckDB runs with ``memory_limit='1GB'`` and 2 threads. Results are merged
into ``benchmarks/backends_results.json`` (a run replaces its own cases) and
written as a Markdown table to ``benchmarks/backends_results.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's package, whatever is installed
CASES = ("polars", "duckdb-ties", "duckdb-sums", "duckdb-results", "duckdb-results-always", "duckdb-curve")
SPARK_CASES = ("spark-sums", "spark-results")


def write_data(path: Path, rows: int, groups: int) -> None:
    import duckdb

    if path.exists():
        return
    con = duckdb.connect()
    con.execute("SELECT setseed(0.42)")
    # score = normal-ish noise + 0.8 * outcome, made continuous by random(); group = hash of the row
    con.execute(f"""
        COPY (
            SELECT CAST(u < 0.3 AS TINYINT) AS y,
                   (random() + random() + random() - 1.5) + 0.8 * CAST(u < 0.3 AS DOUBLE) AS s,
                   CAST(hash(i) % {groups} AS BIGINT) AS g
            FROM (SELECT i, random() AS u FROM range({rows}) t(i))
        ) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
    """)
    con.close()


def run_case(case: str, path: str, grouped: bool, rows: int) -> dict:
    """One case in this process: the call, its wall time and this process's peak memory."""
    import resource

    by = "g" if grouped else None
    start = time.perf_counter()
    if case == "polars":
        import polars as pl

        from aucpr_stats import auroc

        out = auroc(pl.scan_parquet(path), "y", "s", by=by).conf_int(method="delong")
    elif case.startswith("duckdb"):
        import duckdb

        from aucpr_stats import auroc
        from aucpr_stats import sql_input
        from aucpr_stats import sql_sums

        con = duckdb.connect(config={"memory_limit": "1GB", "threads": 2})
        relation = con.read_parquet(path)
        if case == "duckdb-ties":
            out = auroc(sql_input(relation, max_tie_rows=rows + 1), "y", "s", by=by).conf_int(method="delong")
        elif case == "duckdb-results":
            out = auroc(relation, "y", "s", by=by).conf_int(method="delong")
        elif case == "duckdb-curve":
            import numpy as np

            from aucpr_stats import pr_curve

            out = pr_curve(relation, "y", "s", by=by, grid=4 if grouped else 1000).evaluate(np.linspace(0, 1, 21))
        elif case == "duckdb-results-always":
            out = auroc(sql_input(relation, partial_sums="always"), "y", "s", by=by).conf_int(method="delong")
        else:
            out = sql_sums(relation, "y", "s", by=by)
    elif case in SPARK_CASES:
        from pyspark.sql import SparkSession

        from aucpr_stats import auroc
        from aucpr_stats import sql_input
        from aucpr_stats import sql_sums

        spark = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "2g")
                 .config("spark.sql.shuffle.partitions", "8").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        start = time.perf_counter()  # the session's start-up is not counted
        frame = spark.read.parquet(path)
        out = (sql_sums(frame, "y", "s", by=by) if case == "spark-sums"
               else auroc(sql_input(frame, partial_sums="always"), "y", "s", by=by).conf_int(method="delong"))
    else:
        raise SystemExit(f"unknown case {case!r}")
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"case": case, "groups": "1e5" if grouped else "1", "rows": rows, "seconds": round(seconds, 1),
            "peak_mb": round(peak_mb), "result_rows": out.height}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--dir", default="/tmp/aucpr_stats_backends")
    parser.add_argument("--spark", action="store_true", help="also run the Spark cases (needs pyspark and Java)")
    parser.add_argument("--cases", nargs="*", default=None, help=f"a subset of {CASES + SPARK_CASES}")
    parser.add_argument("--one", nargs=3, metavar=("CASE", "FILE", "GROUPED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        case, path, grouped = args.one
        print(json.dumps(run_case(case, path, grouped == "1", args.rows)))
        return
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    cases = list(args.cases or (CASES + (SPARK_CASES if args.spark else ())))
    results = []
    for grouped in (False, True):
        path = folder / f"rows{args.rows}_groups{10**5 if grouped else 1}.parquet"
        write_data(path, args.rows, 10**5 if grouped else 1)
        for case in cases:
            done = subprocess.run([sys.executable, __file__, "--rows", str(args.rows), "--one", case, str(path),
                                   "1" if grouped else "0"], capture_output=True, text=True)
            if done.returncode:
                line = {"case": case, "groups": "1e5" if grouped else "1", "rows": args.rows,
                        "error": done.stderr.strip().splitlines()[-1][:200]}
            else:
                line = json.loads(done.stdout.strip().splitlines()[-1])
            print(line, flush=True)
            results.append(line)
    # merged with earlier runs (other sizes or cases): a run replaces only its own (case, groups, rows)
    store = HERE / "backends_results.json"
    earlier = json.loads(store.read_text()) if store.exists() else []
    mine = {(r["case"], r["groups"], r["rows"]) for r in results}
    results = [r for r in earlier if (r["case"], r["groups"], r["rows"]) not in mine] + results
    results.sort(key=lambda r: (r["rows"], r["groups"], (CASES + SPARK_CASES).index(r["case"])))
    store.write_text(json.dumps(results, indent=1) + "\n")
    table = ["| road | groups | rows | seconds | peak memory (MB) |", "|---|---|---|---|---|"]
    for r in results:
        cells = (f"{r['seconds']} | {r['peak_mb']}" if "error" not in r else f"failed: {r['error']} | ")
        table.append(f"| {r['case']} | {r['groups']} | {r['rows']:.0e} | {cells} |")
    (HERE / "backends_results.md").write_text("\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
