"""The exercise kinds' tests, one module a kind (`tests/gametree/kinds/test_<kind>.py`, beside
`grader/gametree/kinds/<kind>.py`), and what they share (`test_base.py`)."""
