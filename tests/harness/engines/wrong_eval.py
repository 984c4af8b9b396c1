"""Alpha-beta with a wrong evaluation (kings count as men): wrong values (WA)."""

import correct
from correct import choose_move, legal_moves, search  # noqa: F401

correct.KING = correct.MAN
