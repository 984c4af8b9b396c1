"""Signing up with a course join code, logging in and out, invite links, the account page."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, flash, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required, login_user, logout_user

from grader.ratelimits import THROTTLED, failed, limiter, password_checked, setting
from grader.services import ServiceError, accounts
from grader.services.courses import invites
from grader.web.forms import (
    ActionForm,
    ClaimForm,
    LoginForm,
    PasswordForm,
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


def _next_url() -> str:
    target = request.args.get("next", "")
    # Only a path on this site: never an open redirect.
    parts = urlsplit(target)
    if target.startswith("/") and not target.startswith("//") and not parts.netloc:
        return target
    return landing_url()


def _sign_in(user: Any, remember: bool = False) -> None:
    session.clear()  # no state of an earlier visitor of this browser carries over
    login_user(user, remember=remember)


@bp.route("/login", methods=["GET", "POST"])
@password_checked
def login() -> Any:
    if current_user.is_authenticated:
        return redirect(landing_url())
    form = LoginForm()
    if form.validate_on_submit():
        user = accounts.authenticate(form.email.data or "", form.password.data or "")
        if user is not None:
            _sign_in(user, remember=form.remember.data)
            return redirect(_next_url())
        flash("Wrong e-mail or password.", "error")
    return render_template("login.html", form=form)


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
        accounts.revoke_sessions(current_user.id)
        logout_user()
    return redirect(url_for("auth.login"))


@bp.route("/invite/<token>", methods=["GET", "POST"])
@limiter.limit(
    setting("GRADER_LOGIN_LIMIT_ADDRESS"),
    methods=["POST"],
    deduct_when=failed,
    scope="invite",
    error_message=THROTTLED,
)
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
        action=ActionForm(),
        new_token=new_token,
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
            user = accounts.change_password(
                current_user.id, form.current.data or "", form.password.data or ""
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            _sign_in(user)  # this browser stays signed in; every other session ends
            flash("Password changed; every other session was signed out.", "info")
    else:
        for errors in form.errors.values():
            for message in errors:
                flash(message, "error")
    return redirect(url_for("auth.account"))


@bp.post("/account/sign-out-everywhere")
@login_required
def sign_out_everywhere() -> Any:
    if ActionForm().validate_on_submit():
        accounts.revoke_sessions(current_user.id)
        logout_user()
        flash("Signed out everywhere.", "info")
    return redirect(url_for("auth.login"))


@bp.post("/account/tokens")
@login_required
def new_token() -> Any:
    form = TokenForm()
    if form.validate_on_submit():
        try:
            token = accounts.issue_token(
                current_user.id, form.name.data or "", form.days.data or accounts.TOKEN_DAYS
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
