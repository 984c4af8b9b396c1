"""Academic integrity: engines that share code (`engines`, by the MOSS-style fingerprints of
`fingerprints`) and answers that belong to another student's tree (`answers`); each a check the
staff ask for, run as a queue job (`checks`, `run`). Only the course's instructors see them,
and its TAs where the course allows it; nothing is decided automatically: no score changes.
"""

from __future__ import annotations

from grader.services.integrity import answers, checks, engines, fingerprints
from grader.services.integrity.run import run

__all__ = ["answers", "checks", "engines", "fingerprints", "run"]
