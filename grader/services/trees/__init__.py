"""Tree exercises and their attempts: each student's variant of a slot and practice exercises
(`exercises`), grading an answer and storing it (`attempts`), adaptive practice (`practice`),
practice trees from real games (`game_practice`).
"""
