"""Raises while it is imported: a runtime error (RE) on every test, with its traceback."""


def helper():
    raise RuntimeError("the engine failed to start: missing opening book")


helper()


def legal_moves(fen):
    return []
