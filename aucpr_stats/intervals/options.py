"""The options of an interval method, as a typed spec that the method carries (scipy's method objects).

Each interval method's record (:class:`~aucpr_stats.intervals.IntervalMethod`)
names its options class: a frozen attrs class, subclass of
:class:`MethodOptions`, whose fields are the method's options, with their
defaults and checks (attrs converters that raise the package's errors naming
the option), documented in its docstring. :class:`~.bootstrap.Bootstrap` and
:class:`~.cross_validation.CrossValidation` are the two in the package; a
method without options has :class:`MethodOptions` itself. There is no global
table of option names.

An instance is a method object, as scipy's
``confidence_interval(method=BootstrapMethod(...))``::

    result.conf_int(method=Bootstrap(n_boot=200, rng=1))
    result.conf_int(method="bootstrap", n_boot=200, seed=1)   # the same numbers

``rng=`` (SPEC 7: an integer, a ``SeedSequence`` or a ``Generator``) is the
randomness of every random method; ``seed=`` is kept as its alias in the
keyword form, with identical numbers.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from .._validate import rng_iv
from ..exceptions import InputError, InputTypeError

__all__ = ["MethodOptions", "rng_option"]


def rng_option(rng: Any = None, seed: Any = None) -> Any:
    """``rng=`` (SPEC 7) or its alias ``seed=``, checked (:func:`aucpr_stats._validate.rng_iv`).

    A wrong value given as ``rng`` is named ``rng`` in the message.
    """
    if rng is not None and seed is None:
        try:
            return rng_iv(rng)
        except (InputError, InputTypeError) as error:
            raise type(error)(str(error).replace("`seed`", "`rng`")) from None
    return rng_iv(rng, seed)


@attrs.frozen(kw_only=True)
class MethodOptions:
    """The options of an interval method; this base class is the spec of a method without options.

    Subclasses declare one attrs field per option (default and converter,
    the converter checking the value and raising an error that names the
    option) and document them in their docstring. ``method`` names the
    method an instance configures, so that an instance can be passed as
    ``conf_int(method=...)``; ``aliases`` maps an alternative keyword to the
    field it sets (``seed`` to ``rng``).
    """

    method: ClassVar[str | None] = None
    aliases: ClassVar[dict[str, str]] = {}

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The keywords this method accepts: its fields, then their aliases."""
        return (*(field.name for field in attrs.fields(cls)), *cls.aliases)

    @classmethod
    def from_keywords(cls, keywords: dict) -> "MethodOptions":
        """The options from ``conf_int``'s keywords (every keyword one of :meth:`names`; checked by the caller)."""
        keywords = dict(keywords)
        for alias, name in cls.aliases.items():
            if alias not in keywords:
                continue
            value, aliased = keywords.pop(name, None), keywords.pop(alias)
            if name == "rng":
                keywords[name] = rng_option(value, aliased)
            elif value is not None:
                raise InputError(f"give `{name}` once (or its alias `{alias}`); got {name}={value!r} and "
                                 f"{alias}={aliased!r}")
            else:
                keywords[name] = aliased
        return cls(**keywords)

    def resolved(self, result: Any) -> "MethodOptions":
        """The options for ``result``: defaults that depend on the result filled in, checks that need it made."""
        return self

    def unseeded(self) -> bool:
        """Whether these options draw random numbers without a seed (``rng=None``): another run differs."""
        return "rng" in attrs.fields_dict(type(self)) and getattr(self, "rng") is None
