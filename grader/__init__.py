"""Alpha-Beta Grader: teaches, exercises and grades alpha-beta pruning."""
