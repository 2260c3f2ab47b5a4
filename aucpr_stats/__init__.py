"""aucpr_stats: the area under the precision-recall and ROC curves, with honest uncertainty.

Start with :func:`aucpr` (or :func:`auroc`); every result has ``.to_frame()``,
``.to_polars()``, ``.summary()`` and a notebook display, and, where they
apply, ``.table()`` and ``.conf_int(method=...)``. Curves and their
confidence bands come from :func:`pr_curve` / :func:`roc_curve`, paired and
unpaired comparisons from :func:`compare`, cut-offs from :func:`cutoffs`,
study planning from :func:`sample_size` / :func:`power`, simulation studies
from :mod:`aucpr_stats.simulate`, and plots from :func:`forest_plot`,
:func:`plot_curve` and :func:`plot_band` (matplotlib, an optional extra).

Everything a user needs is importable from here (``from aucpr_stats import
...``); the modules below are the package's inside and may move.
"""

from __future__ import annotations

import importlib

from .api import aucpr, auroc
from .api_calibration import calibration
from .api_net_benefit import net_benefit
from .arrays import aucpr_score, auroc_score
from .compare import ComparisonResult, HeterogeneityResult, compare
from .estimators import DEFAULT_PR_ESTIMATOR, DEFAULT_ROC_ESTIMATOR, PR_ESTIMATORS, ROC_ESTIMATORS
from .estimators.binormal import binormal_area
from .estimators.pr_points import dg_area, dg_interpolate, pr_points
from .ties import TieTable
from .exceptions import (
    ColumnNotFoundError,
    DegenerateGroupWarning,
    InputError,
    InputTypeError,
    LowEffectiveSampleSizeWarning,
    MissingValueError,
    OutcomeError,
    SmallSampleWarning,
    BiasedEstimatorWarning,
    ExtremePredictionWarning,
    LongComputationWarning,
    TieTableTooLarge,
)
from .formula import Formula, FormulaError, parse_formula
from .ingest import sql_input
from .ingest.direction import DirectionWarning
from .ingest.levels import MissingKeyWarning
from .report import PublicationTable, comparison_table, publication_table
from .results import AucprResult, AurocResult, CalibrationResult
from .results_net_benefit import NetBenefitResult
from .pooling import ImputedResult, MetaResult
from .multiclass import MulticlassComparison, MulticlassIntervals, MulticlassResult
from .survival import TimeDependentComparison, TimeDependentIntervals, TimeDependentResult

__version__ = "0.1.0"

#: Names loaded on first use (PEP 562): simulation studies and study planning need
#: scipy's integration and optimisation (about 0.5 s of import time), which
#: ``import aucpr_stats`` (and so every command line call) should not pay; curves,
#: cut-offs, plots and engine sums are modules that ``aucpr()`` itself never loads.
_ON_FIRST_USE = {
    "pr_curve": (".curves", "pr_curve"),
    "roc_curve": (".curves", "roc_curve"),
    "BandResult": (".curves", "BandResult"),
    "PrCurveResult": (".curves", "PrCurveResult"),
    "RocBandResult": (".curves", "RocBandResult"),
    "RocCurveResult": (".curves", "RocCurveResult"),
    "forest_plot": (".plot", "forest_plot"),
    "forest_data": (".plot.forest", "forest_data"),
    "plot_band": (".plot", "plot_band"),
    "plot_curve": (".plot", "plot_curve"),
    "cutoffs": (".thresholds", "cutoffs"),
    "CutoffResult": (".thresholds", "CutoffResult"),
    "sql_sums": (".partial_sums", "sql_sums"),
    "simulate": (".simulate", None),
    "bias_study": (".simulate", "bias_study"),
    "coverage_study": (".simulate", "coverage_study"),
    "Binormal": (".simulate", "Binormal"),
    "Bibeta": (".simulate", "Bibeta"),
    "OffsetUniform": (".simulate", "OffsetUniform"),
    "SCENARIOS": (".simulate", "SCENARIOS"),
    "BOYD_ESTIMATORS": (".simulate", "BOYD_ESTIMATORS"),
    "sample_size": (".planning", "sample_size"),
    "power": (".planning", "power"),
    "detectable_auc": (".planning", "detectable_auc"),
    "matched_auroc": (".matched", "matched_auroc"),
    "cv_curves": (".curves.cv_average", "cv_curves"),
    "smooth_roc": (".curves.smooth_roc", "smooth_roc"),
    "compare_curves": (".compare.curve_tests_verb", "compare_curves"),
    "PerformanceReport": (".performance", "PerformanceReport"),
    "CurveComparison": (".compare.curve_tests_verb", "CurveComparison"),
    "SmoothRocResult": (".curves.smooth_roc", "SmoothRocResult"),
    "CvCurvesResult": (".curves.cv_average_result", "CvCurvesResult"),
    "MatchedAurocResult": (".matched", "MatchedAurocResult"),
    "ThresholdBootstrap": (".thresholds.bootstrap", "ThresholdBootstrap"),
    "EqualityTest": (".compare.equality", "EqualityTest"),
    "PlanResult": (".planning", "PlanResult"),
    "ImputedCutoffs": (".pooling.imputed_cutoffs", "ImputedCutoffs"),
}


def report(*args, **kwargs):
    """The whole performance report in one call: see :func:`aucpr_stats.performance.report`.

    ``report(df, "y", ["model_a", "model_b"], by="site")`` gives discrimination
    (AUROC, AUCPR), calibration and net benefit with intervals, per subgroup
    and overall, the tests across subgroups and the figures, labelled with
    the TRIPOD+AI items they answer; ``.to_html(path)``, ``.to_docx(path)``.
    (Defined here, not on first use: the name ``report`` is also the
    subpackage of publication tables, ``aucpr_stats.report``, which this
    function shadows as an attribute; import that subpackage's names with
    ``from aucpr_stats.report import ...``.)
    """
    # loaded on first use, as the names of _ON_FIRST_USE: the report loads the verbs, the plots and matplotlib
    build = importlib.import_module(".performance", __name__).report
    return build(*args, **kwargs)


def __getattr__(name: str):
    """The names of ``_ON_FIRST_USE``, imported when first asked for (then kept in the namespace)."""
    try:
        module, attribute = _ON_FIRST_USE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    loaded = importlib.import_module(module, __name__)
    value = loaded if attribute is None else getattr(loaded, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE))


__all__ = [
    # entry points
    "aucpr",
    "auroc",
    "pr_curve",
    "roc_curve",
    "compare",
    "aucpr_score",
    "auroc_score",
    "publication_table",
    "comparison_table",
    "parse_formula",
    "cutoffs",
    "sample_size",
    "power",
    "detectable_auc",
    "matched_auroc",
    "cv_curves",
    "smooth_roc",
    "compare_curves",
    "report",
    # inputs on engines (DuckDB, Spark): docs/backends.md
    "sql_input",
    "sql_sums",
    # plots (matplotlib, imported when a function is called)
    "forest_plot",
    "forest_data",
    "plot_curve",
    "plot_band",
    # kernels documented for reuse (docs/estimators.md)
    "pr_points",
    "dg_area",
    "dg_interpolate",
    "binormal_area",
    # results
    "AucprResult",
    "AurocResult",
    "CalibrationResult",
    "NetBenefitResult",
    "calibration",
    "net_benefit",
    "PrCurveResult",
    "RocCurveResult",
    "BandResult",
    "RocBandResult",
    "ComparisonResult",
    "HeterogeneityResult",
    "CutoffResult",
    "ImputedResult",
    "MulticlassResult",
    "MulticlassIntervals",
    "MulticlassComparison",
    "TimeDependentResult",
    "TimeDependentIntervals",
    "TimeDependentComparison",
    "ImputedCutoffs",
    "MetaResult",
    "PlanResult",
    "PublicationTable",
    "Formula",
    # the contract between inputs and kernels
    "TieTable",
    # registries
    "PR_ESTIMATORS",
    "DEFAULT_PR_ESTIMATOR",
    "ROC_ESTIMATORS",
    "DEFAULT_ROC_ESTIMATOR",
    # simulation studies (Boyd et al. 2013, section 4)
    "simulate",
    "bias_study",
    "coverage_study",
    "Binormal",
    "Bibeta",
    "OffsetUniform",
    "SCENARIOS",
    "BOYD_ESTIMATORS",
    # errors and warnings
    "ColumnNotFoundError",
    "DegenerateGroupWarning",
    "ExtremePredictionWarning",
    "DirectionWarning",
    "MissingKeyWarning",
    "FormulaError",
    "InputError",
    "InputTypeError",
    "LowEffectiveSampleSizeWarning",
    "LongComputationWarning",
    "SmallSampleWarning",
    "BiasedEstimatorWarning",
    "MissingValueError",
    "OutcomeError",
    "TieTableTooLarge",
    "__version__",
]
