"""``--plot FILE`` and ``--plot-curves FILE`` of the main command: the forest plot and the curves, as image files.

The figures are the library's own (:func:`aucpr_stats.forest_plot`,
:func:`aucpr_stats.plot_curve`), saved in the format the file's extension
names (``.png``, ``.pdf``, ``.svg`` ...) and written like every output: whole
or not at all, never over an existing file without ``--force``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..cli_io import write_output
from ..curves import pr_curve, roc_curve
from ..exceptions import InputError
from ..plot import forest_plot, plot_curve

__all__ = ["add_plot_arguments", "check_plot_arguments", "IMAGE_FORMATS", "write_plots"]

#: Extensions matplotlib writes without extra software.
IMAGE_FORMATS = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".tif", ".tiff", ".eps", ".ps")


def add_plot_arguments(group: Any) -> None:
    """The figure options of the main command."""
    group.add_argument("--plot", metavar="FILE",
                       help="also draw the forest plot (estimates and intervals of every group) to FILE "
                            "(.png, .pdf, .svg ...); matplotlib needed")
    group.add_argument("--plot-curves", metavar="FILE",
                       help="also draw the PR curves (or ROC curves with --metric auroc) of every group to FILE")


def _image_path(value: str, option: str) -> str:
    suffix = Path(value).suffix.lower()
    if suffix not in IMAGE_FORMATS:
        raise InputError(f"{option} {value!r}: give an image file name ending in one of {', '.join(IMAGE_FORMATS)}")
    return value


def check_plot_arguments(args: argparse.Namespace) -> None:
    """The figure files: image extensions, and not the same file as --output or each other."""
    wanted = [(o, v) for o, v in (("--plot", args.plot), ("--plot-curves", args.plot_curves)) if v]
    for option, value in wanted:
        _image_path(value, option)
    names = [Path(v).resolve() for _, v in wanted] + ([Path(args.output).resolve()] if args.output else [])
    if len(set(names)) < len(names):
        raise InputError("--plot, --plot-curves and --output must name different files")


def _figure_of(axes: Any) -> Any:
    """The figure of an Axes, a tuple of Axes (one per metric) or an array of them (one per group)."""
    while isinstance(axes, (tuple, list)) or hasattr(axes, "flat"):
        axes = axes[0] if isinstance(axes, (tuple, list)) else axes.flat[0]
    return axes.figure


def _save(figure: Any, path: str, force: bool) -> None:
    suffix = Path(path).suffix.lstrip(".").lower()
    write_output(path, lambda target: figure.savefig(target, format=suffix, dpi=200, bbox_inches="tight"), force)


def write_plots(args: argparse.Namespace, results: list, *, method: Any, method_options: dict, data: Any,
                outcome: Any, score: Any, by: Any, metrics: list[str], curve_options: dict) -> list[str]:
    """Draw the figures the options ask for; returns the files written."""
    import matplotlib  # matplotlib is an optional dependency: only the figure options need it

    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt  # optional dependency, as above

    written = []
    if args.plot:
        options = method_options.get(method, {}) if isinstance(method, str) else {}
        axes = forest_plot(results, method=method if method is not None else None, level=args.level,
                           digits=args.digits, **options)
        figure = _figure_of(axes)
        _save(figure, args.plot, args.force)
        plt.close(figure)
        written.append(args.plot)
    if args.plot_curves:
        verb = roc_curve if metrics[0] == "auroc" else pr_curve
        curve = verb(data, outcome, score, by, **curve_options)
        # several groups: one panel each (overlaid curves and their legend would hide each other)
        figure = _figure_of(plot_curve(curve, facet=curve.n_groups > 1))
        _save(figure, args.plot_curves, args.force)
        plt.close(figure)
        written.append(args.plot_curves)
    return written
