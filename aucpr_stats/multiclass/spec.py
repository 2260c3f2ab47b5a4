"""What a multiclass call asks for: the scheme, the averages, and which column holds which class's score.

A multiclass outcome has K levels and each model gives one score column per
level (usually the predicted probability of that class). The caller says
which column belongs to which level in one of three ways, resolved here
against the levels found in the data:

* a dict ``{level: column}`` (one model), or ``{model: {level: column}}``
  (several models);
* a template with ``{level}`` in it, ``"p_{level}"``, filled with each
  level's text (a list of templates, or a dict ``{model: template}``, for
  several models);
* a list of plain column names (a formula's right-hand side), each matched
  to the one level whose text ends its name; refused when a name ends with
  no level's text, or with two, or two names end with one level's text.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import attrs

from .._validate import choice_iv, shown
from ..exceptions import InputError, InputTypeError

__all__ = ["declared_levels", "SCHEMES", "AVERAGES", "Models", "scheme_iv", "averages_iv", "score_columns", "match_levels",
           "level_text", "refuse_binary_arguments"]

#: The multiclass schemes: each class against the rest, each pair of classes, Hand & Till's M.
SCHEMES = ("ovr", "ovo", "hand_till")

#: The averages of the per-class (or per-pair) areas.
AVERAGES = ("macro", "weighted", "micro")

#: Which averages each scheme defines (micro pools the one-vs-rest cells; pairs have no micro form).
_DEFINED = {"ovr": AVERAGES, "ovo": ("macro", "weighted"), "hand_till": ("macro",)}


def scheme_iv(multiclass: Any, metric: str) -> str:
    """The checked scheme; AUCPR is defined one-vs-rest only."""
    scheme = choice_iv(multiclass, "multiclass", SCHEMES)
    if metric == "aucpr" and scheme != "ovr":
        raise InputError(f"multiclass={scheme!r} is defined for auroc only: a pairwise precision-recall area "
                         "depends on the pair's own prevalence, so averages over pairs mix base rates; use "
                         "multiclass='ovr' for aucpr")
    return scheme


def averages_iv(average: Any, scheme: str) -> tuple[str, ...]:
    """The averages to report: ``None`` for none, one name, a list, or ``"all"`` (every one the scheme defines).

    ``hand_till`` is the macro average of the pairs by definition, so it
    always reports it.
    """
    defined = _DEFINED[scheme]
    if average is None:
        return ("macro",) if scheme == "hand_till" else ()
    if isinstance(average, str):
        if average == "all":
            return defined
        average = [average]
    if not isinstance(average, (list, tuple)):
        raise InputTypeError(f"`average` must be None, 'macro', 'weighted', 'micro', 'all' or a list of them; "
                             f"got {shown(average)}")
    chosen = tuple(dict.fromkeys(choice_iv(a, "average", AVERAGES) for a in average))
    undefined = [a for a in chosen if a not in defined]
    if undefined:
        raise InputError(f"average={undefined[0]!r} is not defined for multiclass={scheme!r} (it defines "
                         f"{', '.join(map(repr, defined))}): a micro average pools the one-vs-rest cells")
    return chosen


def level_text(level: Any) -> str:
    """A level as it is written in a column name: integers without a decimal point."""
    if isinstance(level, float) and level.is_integer():
        return str(int(level))
    return str(level)


@attrs.frozen
class Models:
    """The score columns of each model, one per level, in the order of ``levels``.

    Attributes
    ----------
    names : tuple of str
        The models' names (the ``score`` column of the frames when there are several).
    columns : tuple of tuple of str
        ``columns[m][k]``: model ``m``'s column for level ``k``.
    """

    names: tuple[str, ...]
    columns: tuple[tuple[str, ...], ...]

    @property
    def all_columns(self) -> list[str]:
        return list(dict.fromkeys(c for model in self.columns for c in model))


def _is_model_mapping(score: Mapping) -> bool:
    return bool(score) and all(isinstance(v, Mapping) for v in score.values())


def _is_template_mapping(score: Mapping) -> bool:
    return bool(score) and all(isinstance(v, str) and "{level}" in v for v in score.values())


def declared_levels(score: Any) -> list | None:
    """The levels a ``score`` mapping states (its keys, or its first model's), or None when it states none."""
    if not isinstance(score, Mapping) or not score or _is_template_mapping(score):
        return None
    if _is_model_mapping(score):
        return list(next(iter(score.values())))
    return list(score)


def score_columns(score: Any, levels: Sequence[Any]) -> Models:
    """Each model's column per level, from the caller's ``score`` (see the module docstring).

    Raises
    ------
    InputError
        A level without a column, a column for a level not in the data, or an ambiguous match.
    """
    if isinstance(score, Mapping) and _is_template_mapping(score):
        names = tuple(str(name) for name in score)
        return Models(names, tuple(tuple(t.replace("{level}", level_text(v)) for v in levels)
                                   for t in score.values()))
    if isinstance(score, Mapping):
        if _is_model_mapping(score):
            names = tuple(str(name) for name in score)
            return Models(names, tuple(_from_mapping(m, levels, f"score[{n!r}]") for n, m in score.items()))
        return Models(("score",), (_from_mapping(score, levels, "score"),))
    if isinstance(score, str):
        score = [score]
    if not isinstance(score, (list, tuple)) or not score or not all(isinstance(s, str) for s in score):
        raise InputTypeError("a multiclass `score` is a dict {level: column}, a dict {model: {level: column}}, a "
                             f"template such as 'p_{{level}}', or a list of templates or columns; got {shown(score)}")
    templates = [s for s in score if "{level}" in s]
    if templates and len(templates) != len(score):
        raise InputError("a multiclass `score` list holds either templates with '{level}' (one per model) or "
                         f"plain columns (one per level), not both; got {shown(score)}")
    if templates:
        return Models(tuple(templates), tuple(tuple(t.replace("{level}", level_text(v)) for v in levels)
                                              for t in templates))
    return Models(("score",), (match_levels(list(score), levels),))


def _from_mapping(mapping: Mapping, levels: Sequence[Any], argument: str) -> tuple[str, ...]:
    by_text = {level_text(k): v for k, v in mapping.items()}
    columns = []
    for level in levels:
        column = mapping.get(level, by_text.get(level_text(level)))
        if column is None:
            raise InputError(f"{argument} has no column for the outcome level {level!r} (it maps "
                             f"{', '.join(map(repr, mapping))}); every level in the data needs one")
        if not isinstance(column, str):
            raise InputTypeError(f"{argument}[{level!r}] must be a column name; got {shown(column)}")
        columns.append(column)
    known = {level_text(v) for v in levels}
    extra = [k for k in mapping if level_text(k) not in known]
    if extra:
        raise InputError(f"{argument} maps {extra[0]!r}, which is not a level of the outcome (levels: "
                         f"{', '.join(map(repr, levels))}); declare it in the outcome's categories or drop it")
    return tuple(columns)


def match_levels(columns: list[str], levels: Sequence[Any]) -> tuple[str, ...]:
    """Plain column names matched to levels: each name must end with exactly one level's text.

    Raises
    ------
    InputError
        Naming the column or level that does not match, and the fix (a dict or a template).
    """
    fix = "give score= as a dict {level: column} or a template such as 'p_{level}'"
    if len(columns) != len(levels):
        raise InputError(f"{len(columns)} score columns for an outcome with {len(levels)} levels "
                         f"({', '.join(map(repr, levels))}): one column per level; {fix}")
    texts = [level_text(v) for v in levels]
    chosen: dict[int, str] = {}
    for column in columns:
        ends = [k for k, t in enumerate(texts) if column.endswith(t)]
        if len(ends) > 1:  # the longest level text wins only if it is the only one of its length
            longest = max(len(texts[k]) for k in ends)
            ends = [k for k in ends if len(texts[k]) == longest]
        if len(ends) != 1:
            which = "no level's text" if not ends else f"the texts of levels {[levels[k] for k in ends]}"
            raise InputError(f"score column {column!r} ends with {which}, so which level it scores is "
                             f"ambiguous; {fix}")
        if ends[0] in chosen:
            raise InputError(f"score columns {chosen[ends[0]]!r} and {column!r} both end with the level "
                             f"{levels[ends[0]]!r}; {fix}")
        chosen[ends[0]] = column
    return tuple(chosen[k] for k in range(len(levels)))


def refuse_binary_arguments(direction: Any = "higher", **given: Any) -> None:
    """Refuse the arguments of a binary outcome in a multiclass call, naming the first one given.

    ``positive``/``negative`` (every level is a class), a partial area, ``fold``,
    ``prevalence`` and ``imputation`` are not defined for the multiclass areas.
    """
    for name, value in given.items():
        if value is not None:
            raise InputError(f"`{name}` is not defined for a multiclass outcome (multiclass=...): every level of "
                             "the outcome is a class and every class has its own score column; leave it out")
    if direction != "higher":
        raise InputError("`direction` is not defined for a multiclass outcome: each class's column must score "
                         "its own class higher (a probability of that class)")
