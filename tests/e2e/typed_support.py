"""The exercises tests/e2e/test_typed_numbers.py answers as the page prints numbers."""

from __future__ import annotations

# A's value is the chance node B's, 14/3 (4/3 + 10/3); C, a MIN node, is cut at its first leaf
# (-5 <= alpha 14/3) and returns -5: the three forms the page prints (a fraction, a minus sign).
TYPED_VALUES = [{"chance": ["1/3", "2/3"], "children": [4, 5]}, [-5, 2]]
