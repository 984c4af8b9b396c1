"""Checkers engines: an upload's intake and the staff's reruns (`submissions`, `uploads`, the bytes
in `blobs`), the workers' side of grading and playing, on the lease of services/leases
(`leases`), the read model of results (`results`), leaderboards and tournaments
(`tournaments`), the student kit (`kit`).
"""
