"""What a course counts and its staff do with it: the scores every page shows (`scores`), the
gradebook, item statistics and misconception analytics (`stats`), regrades, and the assignment
editor (`editor`, which regrades when a slot's conventions change).
"""
