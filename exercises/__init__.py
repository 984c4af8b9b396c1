"""The course's exercises, installed as the package `grader.exercises` (pyproject.toml maps it
here): read them through `grader.data`, which finds this folder by importing it."""
