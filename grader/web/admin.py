"""The pages only administrators of the service see (`User.is_admin`, given on the server by
`grader user admin`): registering an LMS, whose URLs the service's workers then call; the
backups' standing; people's accounts (export, erasure and its requests) and the archived courses'
purges."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from wtforms import BooleanField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional

from grader.services import ServiceError, lti
from grader.services.data import backup, erasure, export
from grader.services.lti import dynamic_registration, registration_admin
from grader.web.forms import ActionForm, EraseAccountForm

bp = Blueprint("admin", __name__, url_prefix="/admin")


@bp.before_request
@login_required
def _logged_in() -> None:
    """Every page here needs a login; the services refuse anyone but an administrator."""


class EditRegistrationForm(FlaskForm):
    """What an administrator may change of a registration: its deployments and endpoints."""

    deployment_ids = TextAreaField(
        "Deployment ID(s), one a line", validators=[Optional(), Length(max=5000)]
    )
    auth_login_url = StringField(
        "Authentication request URL (OIDC auth)", validators=[DataRequired(), Length(max=500)]
    )
    auth_token_url = StringField("Access token URL", validators=[DataRequired(), Length(max=500)])
    key_set_url = StringField(
        "Public keyset URL (JWKS)", validators=[DataRequired(), Length(max=500)]
    )
    auth_audience = StringField(
        "Token audience (only if the LMS names one)", validators=[Optional(), Length(max=500)]
    )
    trust_emails = BooleanField(
        "New accounts take the LMS's e-mail addresses (only the institution's own LMS, whose "
        "addresses are verified)"
    )
    frame_origins = TextAreaField(
        "Other origins that frame the tool, one a line (cloud Canvas: the school's "
        "https://school.instructure.com)",
        validators=[Optional(), Length(max=6000)],
    )

    def endpoints(self) -> dict[str, Any]:
        """What the registration services take of the form: the endpoints, the deployments
        and the origins that frame the tool (one a line), the audience and the e-mail trust."""
        return {
            "auth_login_url": self.auth_login_url.data or "",
            "auth_token_url": self.auth_token_url.data or "",
            "key_set_url": self.key_set_url.data or "",
            "deployment_ids": (self.deployment_ids.data or "").splitlines(),
            "auth_audience": self.auth_audience.data or None,
            "trust_emails": bool(self.trust_emails.data),
            "frame_origins": (self.frame_origins.data or "").splitlines(),
        }


class RegistrationForm(EditRegistrationForm):
    """A registration typed by hand: the platform's identity too, and at least one deployment."""

    issuer = StringField("Issuer (platform ID)", validators=[DataRequired(), Length(max=255)])
    client_id = StringField("Client ID", validators=[DataRequired(), Length(max=255)])
    deployment_ids = TextAreaField(
        "Deployment ID(s), one a line", validators=[DataRequired(), Length(max=5000)]
    )


class DeleteRegistrationForm(FlaskForm):
    issuer = StringField("Type the issuer to confirm", validators=[DataRequired(), Length(max=255)])


def _platforms_page(form: RegistrationForm, new_url: str | None = None) -> Any:
    return render_template(
        "admin/lti.html",
        form=form,
        registrations=lti.platforms(current_user),  # refuses anyone but an administrator
        pending=dynamic_registration.pending_urls(current_user),
        new_url=new_url,
        action=ActionForm(),
        days=dynamic_registration.URL_DAYS,
    )


@bp.post("/lti/registration-url")
def make_registration_url() -> Any:
    """A new one-time registration URL, shown once on the page that answers."""
    if not ActionForm().validate_on_submit():
        return redirect(url_for("admin.lti_platforms"))
    token = dynamic_registration.make_url(current_user)
    new_url = url_for("lti.dynamic_register", token=token, _external=True)
    return _platforms_page(RegistrationForm(formdata=None), new_url)


@bp.post("/lti/registration-url/<int:url_id>/withdraw")
def withdraw_registration_url(url_id: int) -> Any:
    if ActionForm().validate_on_submit():
        dynamic_registration.withdraw_url(current_user, url_id)
        flash("The registration URL was withdrawn: it registers nothing now.", "info")
    return redirect(url_for("admin.lti_platforms"))


@bp.route("/lti/<int:registration_id>/edit", methods=["GET", "POST"])
def edit_registration(registration_id: int) -> Any:
    """A registration's endpoints, deployments, e-mail trust and the origins that frame it."""
    reg = registration_admin.registration(current_user, registration_id)
    form = EditRegistrationForm(obj=reg)
    if request.method == "GET":
        form.deployment_ids.data = "\n".join(d.deployment_id for d in reg.deployments)
        form.frame_origins.data = "\n".join(reg.frame_origins or [])
    if form.validate_on_submit():
        try:
            registration_admin.edit(
                current_user,
                registration_id,
                **form.endpoints(),
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash(f"Saved {reg.issuer} (client {reg.client_id}).", "info")
            return redirect(url_for("admin.lti_platforms"))
    return render_template("admin/lti_edit.html", form=form, registration=reg)


@bp.route("/lti/<int:registration_id>/delete", methods=["GET", "POST"])
def delete_registration(registration_id: int) -> Any:
    """The confirmation, saying what stops working, then the deletion."""
    reg = registration_admin.registration(current_user, registration_id)
    form = DeleteRegistrationForm()
    if form.validate_on_submit():
        try:
            words = registration_admin.delete(current_user, registration_id, form.issuer.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash(f"Deleted the registration of {words}.", "info")
            return redirect(url_for("admin.lti_platforms"))
    return render_template(
        "admin/lti_delete.html",
        form=form,
        registration=reg,
        consequences=registration_admin.consequences(current_user, registration_id),
    ), (400 if request.method == "POST" else 200)


@bp.route("/lti", methods=["GET", "POST"])
def lti_platforms() -> Any:
    """Every registered LMS, the one-time registration URLs, and the form registering one."""
    lti.platforms(current_user)  # refuses anyone but an administrator
    form = RegistrationForm()
    if form.validate_on_submit():
        try:
            reg = lti.register(
                current_user,
                issuer=form.issuer.data or "",
                client_id=form.client_id.data or "",
                **form.endpoints(),
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash(f"Registered {reg.issuer} (client {reg.client_id}).", "info")
            return redirect(url_for("admin.lti_platforms"))
    return _platforms_page(form)


@bp.route("/backups")
def backups() -> Any:
    """The backups: the schedule, the last one's time, size and result, the newest runs."""
    return render_template("admin/backups.html", standing=backup.standing(current_user))


@bp.get("/accounts")
def accounts() -> Any:
    """Erasure requests, finding an account to export or erase, the erasures done, and the
    archived courses whose students' data the worker will purge."""
    query = request.args.get("q", "")[:254]
    return render_template("admin/accounts.html", **erasure.overview(current_user, query))


@bp.get("/accounts/<int:account_id>/export")
def export_account(account_id: int) -> Any:
    data, name = export.download(current_user, account_id, as_admin=True)
    return Response(
        data,
        mimetype="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.route("/accounts/<int:account_id>/erase", methods=["GET", "POST"])
def erase_account(account_id: int) -> Any:
    """The confirmation step (the account's address typed again), then the erasure."""
    form = EraseAccountForm()
    if form.validate_on_submit():
        try:
            erased = erasure.erase(current_user, account_id, form.email.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash(erased.words().capitalize() + ".", "info")
            return redirect(url_for("admin.accounts"))
    found = erasure.summary(current_user, account_id)
    return render_template(
        "admin/erase.html", form=form, found=found, words=erasure.attempts_words()
    ), (400 if request.method == "POST" else 200)
