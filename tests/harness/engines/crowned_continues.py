"""A classic mistake: a man crowned in the middle of a jump goes on jumping, as a king."""

import correct
from correct import *  # noqa: F403


def _jumps(board, s, piece, path, captured, out, start):
    found = False
    for dr, dc in correct.directions(piece):
        mid, land = correct.STEP[s, dr, dc], correct.JUMP[s, dr, dc]
        if not land or mid in captured:
            continue
        if board[mid] == "." or board[mid].lower() == piece.lower():
            continue
        if board[land] != "." and land != start:
            continue
        found = True
        crowned = piece.upper() if correct.crowns(piece, land) else piece
        _jumps(board, land, crowned, (*path, land), (*captured, mid), out, start)
    if not found and captured:
        out.append((path, captured))


correct._jumps = _jumps
