"""The scope a Bearer token needs for each /api operation, in one table (the public ones,
`security={}`, need none). `read` reads what the caller may see, `submit` changes what is the
caller's own (answers, practice exercises, variants, engine uploads), `staff` reaches the
instructors' and TAs' operations; a session (the pages) holds every scope of its account.
An operation missing here is refused to every token (`authenticate`), and a test checks the
table against the OpenAPI document."""

from __future__ import annotations

from grader.services.accounts import SCOPES

READ, SUBMIT, STAFF = SCOPES

#: Operation (the view's name, the OpenAPI operationId) -> the scope a token needs.
NEEDED: dict[str, str] = {
    # the caller, exercises, attempts, assignments
    "me": READ,
    "api_me_export": READ,  # everything held about the caller (a ZIP)
    "get_exercise": READ,
    "exercise_aim": READ,
    "list_attempts": READ,
    "get_attempt": READ,
    "list_assignments": READ,
    "get_assignment": READ,
    "slot_exercise": READ,  # the caller's own variant, made once and the same at every request
    "create_exercise": SUBMIT,
    "submit_attempt": SUBMIT,
    "new_variant": SUBMIT,
    # engines
    "upload_engine": SUBMIT,
    "get_engine": READ,
    "engine_results": READ,
    "engine_rich": READ,
    "engine_game": READ,
    "engine_game_pdn": READ,
    "api_rerun": STAFF,
    "api_slot_engines": STAFF,
    # the staff's
    "api_gradebook": STAFF,
    "api_gradebook_csv": STAFF,
    "api_statistics": STAFF,
    "api_misconceptions": STAFF,
    "api_audit_log": STAFF,
    "api_regrades": STAFF,
    "api_term_regrades": STAFF,
    "api_start_term_regrade": STAFF,
    "api_term_regrade": STAFF,
    "api_apply_term_regrade": STAFF,
    "api_preview": STAFF,
}


def needed(endpoint: str | None) -> str | None:
    """The scope for a request's endpoint (`api.<view>`); None: none declared (refused)."""
    return NEEDED.get((endpoint or "").removeprefix("api."))
