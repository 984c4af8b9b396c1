"""Signing up with a course join code, logging in and out."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user, logout_user

from grader.services import ServiceError, accounts
from grader.web.forms import ActionForm, LoginForm, SignupForm

bp = Blueprint("auth", __name__)


def _next_url() -> str:
    target = request.args.get("next", "")
    # Only a path on this site: never an open redirect.
    parts = urlsplit(target)
    if target.startswith("/") and not target.startswith("//") and not parts.netloc:
        return target
    return url_for("pages.dashboard")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    if current_user.is_authenticated:
        return redirect(url_for("pages.dashboard"))
    form = LoginForm()
    if form.validate_on_submit():
        user = accounts.authenticate(form.email.data, form.password.data)
        if user is not None:
            login_user(user, remember=form.remember.data)
            return redirect(_next_url())
        flash("Wrong e-mail or password.", "error")
    return render_template("login.html", form=form)


@bp.route("/signup", methods=["GET", "POST"])
def signup() -> Any:
    form = SignupForm()
    if form.validate_on_submit():
        try:
            user = accounts.signup(form.email.data, form.password.data, form.join_code.data)
        except ServiceError as error:
            flash(str(error), "error")
        else:
            login_user(user)
            flash("Welcome! You are enrolled.", "info")
            return redirect(url_for("pages.dashboard"))
    return render_template("signup.html", form=form)


@bp.post("/logout")
@login_required
def logout() -> Any:
    form = ActionForm()
    if form.validate_on_submit():
        logout_user()
    return redirect(url_for("auth.login"))
