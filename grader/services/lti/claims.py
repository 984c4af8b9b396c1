"""LTI 1.3's words as a platform sends them: the claims and service scopes this tool reads,
and the course role an LTI role list maps to."""

from __future__ import annotations

from typing import Any

from grader.models import INSTRUCTOR, STUDENT, TA

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def course_role(roles: list[Any]) -> str:
    """The membership role an LTI role list maps to: TeachingAssistant (LIS's sub-role of
    Instructor, so checked first) -> TA; Instructor or Administrator -> instructor; else student."""
    names = {str(r).rsplit("/", 1)[-1] for r in roles if isinstance(r, str)}
    if any(n.endswith("#TeachingAssistant") or n == "TeachingAssistant" for n in names):
        return TA
    if names & {
        "membership#Instructor",
        "Instructor",
        "membership#Administrator",
        "membership#ContentDeveloper",
    }:
        return INSTRUCTOR
    return STUDENT
