"""Subcommands of ``aucpr-stats``: ``calibration`` (:mod:`.calibration`), ``cutoffs`` (:mod:`.cutoffs`),
``net-benefit`` (:mod:`.net_benefit`), ``plan`` (:mod:`.plan`) and ``report`` (:mod:`.report`).

``aucpr_stats.cli.main`` hands ``aucpr-stats cutoffs ...`` and
``aucpr-stats plan ...`` here. Each subcommand has ``build_parser()`` and
``main(argv)``; both print one line on stderr and exit with status 2 for a
bad file, column or option, as the main command does. What they share is in
:mod:`.common`; the main command's ``--compare`` is in :mod:`.compare`.
"""

from __future__ import annotations

from . import calibration, cutoffs, net_benefit, plan, report
from .common import FORMATS, add_output_arguments, checked_format, render, run

__all__ = ["main", "run", "render", "add_output_arguments", "checked_format", "SUBCOMMANDS", "FORMATS"]

#: The subcommands by name, as ``module:main``.
SUBCOMMANDS = ("calibration", "cutoffs", "net-benefit", "plan", "report")


def main(argv: list[str]) -> int:
    """Run ``argv[0]`` (``calibration``, ``cutoffs`` or ``plan``) with the rest of ``argv``."""
    command = {"calibration": calibration, "cutoffs": cutoffs, "net-benefit": net_benefit, "plan": plan,
               "report": report}[argv[0]]
    return command.main(argv[1:])
