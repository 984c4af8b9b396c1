"""Courses and who is in them: a course and its assignments from presets (`courses`), who may use
its dashboard (`staff`), its roster and join code (`roster`), invites (the proof of ownership a
roster entry or a staff role accepts), the late policy (`lateness`).
"""
