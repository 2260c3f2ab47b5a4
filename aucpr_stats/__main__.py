"""``python -m aucpr_stats``: the command line (the same as the ``aucpr-stats`` script)."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
