"""Signing up with a course join code, logging in (a password, then a second factor where the
account has one) and out, forgot-password links, invite links, the account page (tokens,
password, second factor, sessions)."""

# Whole: the `auth` blueprint: signing in and the account page share its helpers.

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import current_user, login_required, login_user, logout_user

from grader.ratelimits import (
    THROTTLED,
    account_key,
    failures_by_account,
    failures_by_address,
    limiter,
    password_checked,
    setting,
)
from grader.services import ServiceError, accounts, recovery, totp
from grader.services.courses import invites
from grader.services.data import erasure, export
from grader.web.forms import (
    ActionForm,
    ClaimForm,
    CodeForm,
    ErasureRequestForm,
    ForgotForm,
    LoginForm,
    PasswordForm,
    ResetForm,
    SignupForm,
    TokenForm,
)
from grader.web.pages import landing_url

bp = Blueprint("auth", __name__)

SIGNED_UP = (
    "Thank you. If this e-mail address had no account, it has one now: log in with it. "
    "If you already have an account, log in and join the course from your dashboard; "
    "if your instructor added you, use the invite link you were given."
)


def _next_url(target: str | None = None) -> str:
    """`target` (the `next` query parameter by default) when it is a path on this site, else
    where the signed-in person starts."""
    target = request.args.get("next", "") if target is None else target
    # Only a path on this site: never an open redirect.
    parts = urlsplit(target)
    if target.startswith("/") and not target.startswith("//") and not parts.netloc:
        return target
    return landing_url()


def _sign_in(user: Any, remember: bool = False) -> None:
    session.clear()  # no state of an earlier visitor of this browser carries over
    login_user(user, remember=remember)


ENROL_FIRST = (
    "This service requires a second factor for instructors and administrators: set it up "
    "below to use the staff pages."
)
_PENDING = "second_factor"  # session key: the account whose password was right, awaiting a code
_PENDING_SECONDS = 300  # the code's page works this long after the password


def _signed_in(user: Any, remember: bool, target: str) -> Any:
    """Signs in after every factor the account has; a staff account that must enrol goes to
    the enrolment first."""
    _sign_in(user, remember=remember)
    if totp.missing(user):
        flash(ENROL_FIRST, "info")
        return redirect(url_for("auth.second_factor"))
    return redirect(_next_url(target))


@bp.route("/login", methods=["GET", "POST"])
@password_checked
def login() -> Any:
    if current_user.is_authenticated:
        return redirect(landing_url())
    form = LoginForm()
    if form.validate_on_submit():
        user = accounts.authenticate(form.email.data or "", form.password.data or "")
        if user is not None and user.totp_secret is not None:
            session.clear()
            session[_PENDING] = {
                "id": user.id,
                "version": user.session_version,
                "remember": bool(form.remember.data),
                "next": request.args.get("next", "")[:2000],
                "at": time.time(),
            }
            return redirect(url_for("auth.login_code"))
        if user is not None:
            return _signed_in(user, form.remember.data, request.args.get("next", ""))
        flash("Wrong e-mail or password.", "error")
    return render_template("login.html", form=form)


def _pending_key() -> str:
    return f"second-factor:{(session.get(_PENDING) or {}).get('id')}"


@bp.route("/login/code", methods=["GET", "POST"])
@failures_by_address("code-address")
@failures_by_account("code-account", _pending_key)
def login_code() -> Any:
    """The second step of signing in: a code from the app (or a recovery code), within five
    minutes of the password, for the account whose password it was."""
    pending: dict[str, Any] = session.get(_PENDING) or {}
    fresh = time.time() - pending.get("at", 0) <= _PENDING_SECONDS
    user = accounts.user_for_session(f"{pending.get('id')}:{pending.get('version')}")
    if user is None or not fresh:
        session.pop(_PENDING, None)
        flash("Sign in again: the code is asked for within five minutes of the password.", "info")
        return redirect(url_for("auth.login"))
    form = CodeForm()
    if form.validate_on_submit():
        try:
            used = totp.check_code(user.id, form.code.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            if used == "recovery code":
                left = totp.recovery_codes_left(user.id)
                flash(f"Signed in with a recovery code; {left} left.", "info")
            return _signed_in(user, pending["remember"], pending["next"])
    return render_template("login_code.html", form=form)


FORGOT_SENT = (
    "If an account has this address, a message is on its way to it: follow its link (it works "
    "once, for {minutes} minutes). Nothing arrived? Check the spam folder, or ask again later."
)


def _reset_url(token: str) -> str:
    return url_for("auth.reset_password", token=token, _external=True)


def _send_after(response: Response, messages: list[recovery.Message]) -> Response:
    """The mail goes once the answer is sent: an address with an account answers as fast as
    one without (no SMTP conversation inside the request)."""
    if messages:
        app = current_app._get_current_object()  # type: ignore[attr-defined]

        def send() -> None:
            with app.app_context():
                recovery.send(messages)

        response.call_on_close(send)
    return response


@bp.route("/forgot", methods=["GET", "POST"])
@limiter.limit(
    setting("GRADER_RESET_LIMIT"),
    methods=["POST"],
    scope="forgot-address",
    error_message="Too many reset requests from this address: wait a while, then try again.",
)
@limiter.limit(
    setting("GRADER_RESET_LIMIT"),
    key_func=account_key,
    methods=["POST"],
    scope="forgot-account",
    error_message="Too many reset requests for this address: wait a while, then try again.",
)
def forgot() -> Any:
    """Forgot password: one answer for every address (`recovery.request_reset`)."""
    form = ForgotForm()
    if form.validate_on_submit():
        messages = recovery.request_reset(form.email.data or "", _reset_url)
        minutes = current_app.config["GRADER_RESET_MINUTES"]
        flash(FORGOT_SENT.format(minutes=minutes), "info")
        return _send_after(make_response(redirect(url_for("auth.login"))), messages)
    return render_template("forgot.html", form=form, mail=recovery.mail.configured())


@bp.route("/reset/<token>", methods=["GET", "POST"])
@failures_by_address("reset")
def reset_password(token: str) -> Any:
    """A forgot-password link: choose a new password; every session and token ends."""
    try:
        user = recovery.check_link(token)
    except ServiceError as error:
        return render_template("reset.html", form=None, gone=str(error)), 404
    form = ResetForm()
    if form.validate_on_submit():
        try:
            _, revoked = recovery.reset_password(token, form.password.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            logout_user()
            session.clear()
            flash(
                f"Password changed: {accounts.revoked_words(revoked)}. "
                "Log in with the new password.",
                "info",
            )
            return redirect(url_for("auth.login"))
    status = 400 if request.method == "POST" else 200
    return render_template("reset.html", form=form, email=user.email, gone=None), status


@bp.route("/signup", methods=["GET", "POST"])
@limiter.limit(
    setting("GRADER_SIGNUP_LIMIT"),
    methods=["POST"],
    scope="signup",
    error_message="Too many sign-ups from this address: wait a while, then try again.",
)
def signup() -> Any:
    """A new account for a new e-mail; a known one gets the very same answer and nothing else."""
    form = SignupForm()
    if form.validate_on_submit():
        try:
            accounts.signup(
                form.email.data or "", form.password.data or "", form.join_code.data or ""
            )
        except ServiceError as error:  # a bad join code or password: nothing about the e-mail
            flash(str(error), "error")
        else:
            flash(SIGNED_UP, "info")
            return redirect(url_for("auth.login"))
    return render_template("signup.html", form=form)


@bp.post("/logout")
@login_required
def logout() -> Any:
    """Signs out: this browser's cookies and every copy of them stop working (every session of
    the account ends, since cookies are signed, not stored)."""
    form = ActionForm()
    if form.validate_on_submit():
        accounts.end_sessions(current_user.id)
        logout_user()
    return redirect(url_for("auth.login"))


@bp.route("/invite/<token>", methods=["GET", "POST"])
@failures_by_address("invite")
def invite(token: str) -> Any:
    """An invite link: claim the account (choose its password) or accept the role."""
    invite = invites.by_token(token)
    claim = invites.is_claim(invite)
    form = ClaimForm() if claim else ActionForm()
    signed_in_as_owner = current_user.is_authenticated and current_user.id == invite.user_id
    if form.validate_on_submit():
        try:
            user = invites.accept(
                token,
                current_user if current_user.is_authenticated else None,
                form.password.data if claim else None,
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            _sign_in(user)
            flash(f"Welcome to {invite.course.name}.", "info")
            return redirect(url_for("pages.dashboard"))
    return render_template(
        "invite.html", invite=invite, form=form, claim=claim, signed_in_as_owner=signed_in_as_owner
    ), 400 if request.method == "POST" else 200


def _account_page(new_token: str | None = None) -> Any:
    return render_template(
        "account.html",
        tokens=accounts.list_tokens(current_user.id),
        token_form=TokenForm(formdata=None),
        password_form=PasswordForm(),
        code_form=CodeForm(formdata=None),
        action=ActionForm(),
        new_token=new_token,
        second_factor_on=current_user.totp_secret is not None,
        second_factor_required=totp.required(current_user),
        recovery_left=totp.recovery_codes_left(current_user.id),
        erasure_form=ErasureRequestForm(formdata=None),
        erasure_request=erasure.my_request(current_user),
        erasure_words=erasure.attempts_words(),
    )


@bp.get("/account")
@login_required
def account() -> Any:
    return _account_page()


def _signed_in_key() -> str:
    return f"user:{getattr(current_user, 'id', None)}"


@bp.post("/account/password")
@login_required
@limiter.limit(
    setting("GRADER_LOGIN_LIMIT_ACCOUNT"),
    key_func=_signed_in_key,
    scope="password-change",
    error_message=THROTTLED,
)  # it checks a password too
def change_password() -> Any:
    form = PasswordForm()
    if form.validate_on_submit():
        try:
            user, revoked = accounts.change_password(
                current_user.id, form.current.data or "", form.password.data or ""
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            _sign_in(user)  # this browser stays signed in; every other session ends
            flash(
                f"Password changed: {accounts.revoked_words(revoked)} "
                "(this browser stays signed in).",
                "info",
            )
    else:
        for errors in form.errors.values():
            for message in errors:
                flash(message, "error")
    return redirect(url_for("auth.account"))


@bp.post("/account/sign-out-everywhere")
@login_required
def sign_out_everywhere() -> Any:
    if ActionForm().validate_on_submit():
        revoked = accounts.revoke_access(current_user.id)
        logout_user()
        flash(f"Signed out everywhere: {accounts.revoked_words(revoked)}.", "info")
    return redirect(url_for("auth.login"))


@bp.post("/account/tokens")
@login_required
def new_token() -> Any:
    form = TokenForm()
    if form.validate_on_submit():
        try:
            totp.may_hold_tokens(current_user)
            token = accounts.issue_token(
                current_user.id,
                form.name.data or "",
                form.days.data or accounts.TOKEN_DAYS,
                form.scopes(),
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            return _account_page(new_token=token), 201  # shown this once, never stored
    else:
        flash("A token needs a name and a lifetime of 1 to 366 days.", "error")
    return redirect(url_for("auth.account"))


@bp.post("/account/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id: int) -> Any:
    if ActionForm().validate_on_submit():
        token = accounts.revoke_token(current_user.id, token_id)
        flash(f"Token {token.name!r} revoked.", "info")
    return redirect(url_for("auth.account"))


@bp.get("/account/export")
@login_required
def export_data() -> Any:
    """Everything the service holds about the signed-in person, as a ZIP."""
    data, name = export.download(current_user, current_user.id)
    return Response(
        data,
        mimetype="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.post("/account/erasure")
@login_required
def request_erasure() -> Any:
    form = ErasureRequestForm()
    if not form.validate_on_submit():
        flash("Tick the box to confirm that you ask for the erasure of your account.", "error")
        return redirect(url_for("auth.account"))
    try:
        _, mailed = erasure.request_erasure(current_user)
    except ServiceError as error:
        flash(str(error), "error")
    else:
        flash(
            "Your request went to the service's administrators"
            + (f" ({mailed} e-mailed)" if mailed else "")
            + ". Download your data first if you want to keep it.",
            "info",
        )
    return redirect(url_for("auth.account"))


# -- the second factor ---------------------------------------------------------------------------

_ENROLLING = "totp_enrolling"  # session key: the secret shown as a QR code, until confirmed


@bp.route("/account/second-factor", methods=["GET", "POST"])
@login_required
@limiter.limit(
    setting("GRADER_LOGIN_LIMIT_ACCOUNT"),
    key_func=_signed_in_key,
    methods=["POST"],
    deduct_when=lambda response: response.status_code != 201,
    scope="totp-enrol",
    error_message=THROTTLED,
)
def second_factor() -> Any:
    """Enrolment: a QR code of a new secret, then a code from the app that confirms it; the
    recovery codes are shown once, on the answer."""
    if current_user.totp_secret is not None:
        return redirect(url_for("auth.account") + "#second-factor")
    secret = session.get(_ENROLLING) or totp.new_secret()
    session[_ENROLLING] = secret
    form = CodeForm()
    if form.validate_on_submit():
        try:
            codes = totp.enrol(current_user.id, secret, form.code.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            session.pop(_ENROLLING, None)
            return render_template("recovery_codes.html", codes=codes), 201
    uri = totp.provisioning_uri(secret, current_user.email)
    return render_template(
        "second_factor.html",
        form=form,
        secret=secret,
        qr=totp.qr_svg(uri),
        required=totp.required(current_user),
    )


# New recovery codes and turning the factor off both take a code from the app: one count of
# wrong codes for the two, so a guesser gains nothing by alternating between them.
_totp_manage = limiter.shared_limit(
    setting("GRADER_LOGIN_LIMIT_ACCOUNT"),
    scope="totp-manage",
    key_func=_signed_in_key,
    deduct_when=lambda response: response.status_code != 201,
    error_message=THROTTLED,
)


@bp.post("/account/second-factor/recovery-codes")
@login_required
@_totp_manage
def new_recovery_codes() -> Any:
    form = CodeForm()
    if form.validate_on_submit():
        try:
            codes = totp.new_recovery_codes(current_user.id, form.code.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            return render_template("recovery_codes.html", codes=codes), 201
    return redirect(url_for("auth.account") + "#second-factor")


@bp.post("/account/second-factor/off")
@login_required
@_totp_manage
def second_factor_off() -> Any:
    form = CodeForm()
    if form.validate_on_submit():
        try:
            totp.turn_off(current_user.id, form.code.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash("Second factor turned off: a password alone signs in again.", "info")
    return redirect(url_for("auth.account") + "#second-factor")


#: What a staff account that must enrol may still open (the account pages, the static files),
#: and the API, which `api.authenticate` answers itself.
_SECOND_FACTOR_FREE = frozenset({"auth", "static", "api"})


@bp.before_app_request
def second_factor_first() -> Any:
    """With GRADER_STAFF_TOTP=required, a signed-in staff account without a second factor sees
    only the account pages (the API answers it 403, `api.authenticate`)."""
    if request.blueprint in _SECOND_FACTOR_FREE or request.endpoint in (None, "static"):
        return None
    if not current_user.is_authenticated:
        return None
    if totp.missing(current_user):
        flash(ENROL_FIRST, "info")
        return redirect(url_for("auth.second_factor"))
    return None
