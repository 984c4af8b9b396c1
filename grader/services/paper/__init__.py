"""Paper exams: a print run as a leased queue job, sheets and their codes, the answers entered
from paper as attempts (`exams`); the sheets' HTML rendered to PDF in processes of their own
(`exam_pdf`).
"""
