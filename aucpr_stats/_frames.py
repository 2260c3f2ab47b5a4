"""Frames handed back in the caller's type: pandas in, pandas out; polars in, polars out.

Every result computes its frames in polars; :func:`to_caller` converts them at
the boundary, to the type recorded when the input was detected
(:class:`Output`, made by :func:`aucpr_stats.ingest.source.detect`). pandas
and pyarrow are imported only when the caller handed us such a frame.
"""

from __future__ import annotations

from typing import Any, Mapping

import attrs
import narwhals as nw
import polars as pl

__all__ = ["Output", "POLARS", "to_caller"]


@attrs.frozen(eq=False)
class Output:
    """The type of the frames a result hands back, and what restores the caller's own dtypes.

    Attributes
    ----------
    kind : str
        ``"polars"`` (polars input, and every lazy engine: DuckDB, Spark, ibis,
        dask), ``"pandas"``, ``"pyarrow"``, or the name of another eager
        frame library narwhals reads (``"modin"``, ``"cudf"``).
    categories : mapping
        The pandas categorical dtype of each key column that arrived as a
        pandas Categorical (held as a polars Enum inside), by column name.
    implementation : narwhals Implementation, optional
        For another eager library: the one to build its frames with.
    """

    kind: str = "polars"
    categories: Mapping[str, Any] = attrs.field(factory=dict)
    implementation: Any = None

    def __eq__(self, other: object) -> bool:  # compares as its kind: ``output == "pandas"``
        return self.kind == (other.kind if isinstance(other, Output) else other)

    def __hash__(self) -> int:
        return hash(self.kind)

    def __str__(self) -> str:
        return self.kind


#: Frames handed back as polars frames.
POLARS = Output("polars")


def to_caller(frame: pl.DataFrame, output: Output | str):
    """``frame`` in the caller's frame type (see :class:`Output`; a plain ``"pandas"`` or ``"polars"`` works too)."""
    kind = output.kind if isinstance(output, Output) else output
    if kind == "polars":
        return frame
    if kind == "pandas":
        return _to_pandas(frame, output.categories if isinstance(output, Output) else {})
    if kind == "pyarrow":
        return frame.to_arrow()
    # another eager library: through Arrow, as narwhals builds its frames
    return nw.from_arrow(frame.to_arrow(), backend=output.implementation).to_native()


def _to_pandas(frame: pl.DataFrame, categories: Mapping[str, Any]):
    import pandas as pd  # a lazy load: pandas only for a pandas caller

    try:
        out = frame.to_pandas()
    except ModuleNotFoundError:  # pyarrow absent: build column by column
        out = pd.DataFrame({name: frame[name].to_numpy() for name in frame.columns})
    for name, dtype in frame.schema.items():
        if not isinstance(dtype, pl.Enum) or not categories:
            continue
        labels = dtype.categories.to_list()
        # the column's own dtype, or one with the same levels (a key renamed in a frame, e.g. `site_a`)
        candidates = [categories[name]] if name in categories else list(categories.values())
        categorical = next((c for c in candidates if [str(v) for v in c.categories] == labels), None)
        if categorical is not None:
            codes = frame[name].to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
            out[name] = pd.Categorical.from_codes(codes, dtype=categorical)  # the caller's own dtype, by codes
    return out
