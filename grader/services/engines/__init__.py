"""Checkers engines: an upload's intake and the staff's reruns (`submissions`, `uploads`, the bytes
in `blobs`), the lease every queue job runs under and the workers' side of grading and playing
(`leases`), the read model of results (`results`), leaderboards and tournaments
(`tournaments`), the student kit (`kit`).
"""
