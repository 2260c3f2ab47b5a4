"""Random streams: one per group, derived from the seed and the group's key.

Every random method (bootstrap intervals, paired and unpaired comparisons,
cross-validation folds, confidence bands) draws the randomness of a group
from that group's own stream, so a group's draws do not depend on which
other groups exist, on their labels or on their order, and the same seed
gives the same result whatever the frame type or the row order. A sharded
engine can rebuild any group's stream from the seed and the key alone.

The stream of a group is a :class:`numpy.random.Generator` (PCG64) seeded by
a :class:`numpy.random.SeedSequence` whose ``spawn_key`` extends the root's
with two words: the purpose (``"bootstrap"``, ``"cross_validation"``, ...),
so that two methods of one call draw independently, and a 128-bit hash of
the group's key values in a canonical text form (numbers by value, so an
integer key read from pandas or polars, as int32 or int64, gives one stream).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import hashlib
import math
from typing import Any, Sequence

import numpy as np
import polars as pl

__all__ = ["root_sequence", "key_words", "Streams"]


def root_sequence(seed: Any) -> np.random.SeedSequence:
    """The root of every stream of one call, from a checked ``seed`` (see :func:`aucpr_stats._validate.seed_iv`).

    * ``None``: fresh entropy from the operating system;
    * an integer, or a :class:`numpy.random.Generator`: 128 bits drawn from
      ``numpy.random.default_rng(seed)`` (or from the Generator itself, which
      is thereby advanced), so ``seed=5`` and ``seed=numpy.random.default_rng(5)``
      give the same result;
    * a :class:`numpy.random.SeedSequence`: the root itself.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    words = rng.integers(0, 2**32, size=4, dtype=np.uint64)
    return np.random.SeedSequence([int(w) for w in words])


def _canonical(value: Any) -> str:
    """A text form of one key value that does not depend on the frame library or the integer width."""
    if value is None:
        return "z"
    if isinstance(value, (bool, np.bool_)):
        return f"b{int(value)}"
    if isinstance(value, (int, np.integer)):
        return f"n{int(value)}"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "z"
        if value.is_integer():
            return f"n{int(value)}"
        return f"f{value.hex()}"
    if isinstance(value, decimal.Decimal):
        return f"n{value.normalize()}" if value == value.to_integral_value() else f"d{value.normalize()}"
    if isinstance(value, str):
        return f"s{value}"
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return f"t{value.isoformat()}"
    if isinstance(value, _dt.timedelta):
        return f"t{value.total_seconds()!r}"
    return f"o{value!r}"


def _word(text: str) -> int:
    """A 128-bit integer hash of ``text`` (BLAKE2b)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest(), "little")


def key_words(keys: pl.DataFrame, columns: Sequence[str]) -> list[int]:
    """One 128-bit word per row of ``keys``: the hash of its values in ``columns`` (names included).

    Ungrouped results (no ``columns``) get the hash of an empty key.
    """
    columns = list(columns)
    if not columns:
        return [_word("")] * max(keys.height, 1)
    rows = keys.select(columns).iter_rows()
    return [_word("\x1f".join(f"{name}\x1e{_canonical(v)}" for name, v in zip(columns, row))) for row in rows]


class Streams:
    """One random stream per segment: ``streams[k]`` is segment ``k``'s Generator.

    Build with :meth:`for_keys` (groups of a result, identified by their key
    values) or :meth:`for_segments` (array-level callers, segments identified
    by their index). Generators are created when first asked for and kept, so
    a segment's stream continues where it stopped.

    Parameters
    ----------
    root : numpy.random.SeedSequence
    purpose : str
        What the draws are for; different purposes give independent streams.
    words : sequence of int
        One identifying word per segment.
    """

    def __init__(self, root: np.random.SeedSequence, purpose: str, words: Sequence[int]):
        self.root = root
        self.purpose = purpose
        self.words = list(words)
        self._generators: dict[int, np.random.Generator] = {}

    @classmethod
    def for_keys(cls, seed: Any, keys: pl.DataFrame, columns: Sequence[str], purpose: str) -> "Streams":
        """Streams of the groups of a result: ``keys`` holds one row per group."""
        return cls(root_sequence(seed), purpose, key_words(keys, columns))

    @classmethod
    def for_segments(cls, seed: Any, n_segments: int, purpose: str) -> "Streams":
        """Streams of segments identified by their index (simulated data sets, array-level kernels)."""
        return cls(root_sequence(seed), purpose, range(n_segments))

    def __len__(self) -> int:
        return len(self.words)

    def __getitem__(self, k: int) -> np.random.Generator:
        k = int(k)
        generator = self._generators.get(k)
        if generator is None:
            sequence = np.random.SeedSequence(self.root.entropy,
                                              spawn_key=(*self.root.spawn_key, _word(self.purpose), self.words[k]))
            generator = self._generators[k] = np.random.Generator(np.random.PCG64(sequence))
        return generator

    def take(self, segments: Sequence[int]) -> "Streams":
        """The streams of some segments, in the given order (fresh generators)."""
        return Streams(self.root, self.purpose, [self.words[int(k)] for k in segments])
