"""Exercise kinds registered only in a test run: each a package of its own (its module, its page
module and styles, its tests), as a plugin's kind is. ``make test-kind-plugin`` runs the tests
that read the registry with one registered (``GRADER_KIND_MODULES``)."""

from __future__ import annotations

from grader.gametree import KINDS, ExerciseKind


def built_in_kinds() -> dict[str, ExerciseKind]:
    """The kinds the package registers (`BUILT_IN`), in order: what its docs describe, without a
    plugin's."""
    return {
        name: kind
        for name, kind in KINDS.items()
        if type(kind).__module__.startswith("grader.gametree.kinds.")
    }
