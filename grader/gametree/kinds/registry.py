"""The registry of exercise kinds: a kind is a class in its own module, registered with
``@register``; everything that offers kinds (the API's answer shapes, the variants that apply,
adaptive practice, the CLI's and the forms' choices, the pages' kind modules) reads ``KINDS``.

``KINDS`` keeps registration order: the order the forms and the CLI offer the kinds in, the first
the default kind."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar

from grader.gametree import variants

if TYPE_CHECKING:
    from grader.gametree.kinds.base import ExerciseKind

KINDS: dict[str, ExerciseKind] = {}

K = TypeVar("K", bound="type[ExerciseKind]")


def register(cls: K) -> K:
    """Register an exercise kind (a class decorator): its one instance joins ``KINDS`` under its
    name, and the variants it names are recorded as changing its answers."""
    kind = cls()
    if kind.name in KINDS:
        raise ValueError(f"an exercise kind named {kind.name!r} is registered already")
    variants.enrol(kind.name, kind.variants)
    KINDS[kind.name] = kind
    return cls


def unregister(name: str) -> None:
    """Withdraw the kind registered as ``name`` (a plugin's tests register one, then withdraw it)."""
    del KINDS[name]
    variants.withdraw(name)


# A kind from outside the package (a deployment's plugin, or the tests' own): its module named in
# this variable (comma-separated, in the order offered), imported once `grader.gametree` is whole.
PLUGINS_VARIABLE = "GRADER_KIND_MODULES"


def load_plugins(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """Import the kind modules named in ``GRADER_KIND_MODULES`` (each registers its kind, after
    the built-in ones); returns their names."""
    names = tuple(n.strip() for n in environ.get(PLUGINS_VARIABLE, "").split(",") if n.strip())
    for name in names:
        importlib.import_module(name)
    return names


def default_kind() -> str:
    """The kind a form or command starts from: the first registered."""
    return next(iter(KINDS))


class _AnswerKeys(Mapping[str, tuple[str, ...]]):
    """The keys of each registered kind's answer (anything else is refused, never stored)."""

    def __getitem__(self, name: str) -> tuple[str, ...]:
        return KINDS[name].answer_keys

    def __iter__(self) -> Iterator[str]:
        return iter(KINDS)

    def __len__(self) -> int:
        return len(KINDS)


ANSWER_KEYS: Mapping[str, tuple[str, ...]] = _AnswerKeys()
