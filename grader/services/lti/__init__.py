"""LTI 1.3 Advantage: the course's LMS launches this service and receives its grades.

pylti1p3 does the protocol (OIDC login, the id_token's signature against the platform's JWKS,
deployment and message checks, deep-linking replies, OAuth2 service tokens, AGS and NRPS); this
package gives it what it reads from us (the registrations in the database, the tool's key pair,
a launch data storage shared by every process) and turns a validated launch into accounts,
course memberships and resource links. A launch proves who the user is and what role the
platform gives them in its course, so the roles it provisions are legitimate.

Grades go back through the queue (`lti_passback` in grader/jobs.py): a graded attempt, an
engine result, a regrade or a paper answer marks (student, slot) pairs in its own transaction
(`services.outbox`, below the domains that change scores), a committed one queues them, and the
job posts the credited score (late penalty applied) it reads then.

Rooms: `claims` (the claims, scopes and roles a platform sends), `outbound` (the one HTTP
client to platforms: timeouts, global addresses only), `registrations` (the registered platforms,
their deployments, the tool's key pair), `adapters` (what pylti1p3 reads: `ToolConf`, the launch
storage, the key set fetched again on rotation), `launch`
(provisioning, account linking), `deep_linking`, `passback` (AGS), `roster` (NRPS), and
`lms_setup` (an assignment made from a preset and placed from inside the LMS; imported as
`grader.services.lti.lms_setup`, its names not re-exported here).
"""

from __future__ import annotations

from grader.services.lti.adapters import LaunchStorage, RotationAwareLaunch, ToolConf
from grader.services.lti.claims import course_role
from grader.services.lti.deep_linking import (
    Choice,
    check_unplaced_link,
    choices,
    deep_link_reply,
    deep_link_return_url,
    link_course,
    other_courses,
    place_unplaced_link,
)
from grader.services.lti.launch import (
    Launched,
    is_lti_account,
    link_account,
    provision,
    validate,
)
from grader.services.lti.outbound import http
from grader.services.lti.passback import (
    Undelivered,
    due_passbacks,
    due_releases,
    resend,
    send_scores,
    undelivered,
)
from grader.services.lti.registrations import (
    add_deployment,
    jwks,
    platforms,
    register,
    registrations,
    tool_key,
)
from grader.services.lti.roster import (
    Synced,
    course_contexts,
    sync_roster,
)

__all__ = [
    "Choice",
    "LaunchStorage",
    "Launched",
    "RotationAwareLaunch",
    "Synced",
    "ToolConf",
    "Undelivered",
    "add_deployment",
    "check_unplaced_link",
    "choices",
    "course_contexts",
    "course_role",
    "deep_link_reply",
    "deep_link_return_url",
    "due_passbacks",
    "due_releases",
    "http",
    "is_lti_account",
    "jwks",
    "link_account",
    "link_course",
    "other_courses",
    "place_unplaced_link",
    "platforms",
    "provision",
    "register",
    "registrations",
    "resend",
    "send_scores",
    "sync_roster",
    "tool_key",
    "undelivered",
    "validate",
]
