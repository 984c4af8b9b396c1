"""LTI 1.3 endpoints (services/lti/): OIDC login initiation, launch, the tool's JWKS, deep
linking, platform registration and the course's LMS page.

The login and launch POSTs come from the LMS, not from our pages: the platform's signed
id_token authenticates them, so they (and only they) are exempt from the CSRF token.
"""

# Whole: the endpoints an LMS calls, one blueprint: each launch's page is reached from another.

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user, login_required, login_user
from markupsafe import Markup
from pylti1p3.contrib.flask import FlaskMessageLaunch, FlaskOIDCLogin, FlaskRequest
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.message_launch import MessageLaunch

from grader.extensions import csrf, db
from grader.models import INSTRUCTOR, User
from grader.ratelimits import password_checked
from grader.services import Conflict, Invalid, ServiceError, lti
from grader.services.courses import courses
from grader.services.courses.staff import staff
from grader.services.lti import dynamic_registration, frames, lms_setup
from grader.web import CSP, lti_frame
from grader.web.errors import status_of
from grader.web.forms import ActionForm, LinkAccountForm, SelectChoice
from grader.web.instructor.editor_forms import PresetAssignmentForm

bp = Blueprint("lti", __name__, url_prefix="/lti")

JWKS_CACHE_SECONDS = 600  # a platform's public keys, between two launches


def tool_urls() -> dict[str, str]:
    """What an LMS administrator types in, as this request sees the service's address."""
    return {
        "login": url_for("lti.login", _external=True),
        "launch": url_for("lti.launch", _external=True),
        "deep_linking": url_for("lti.launch", _external=True),
        "jwks": url_for("lti.jwks", _external=True),
    }


def _refused(message: str) -> Any:
    return render_template("error.html", status=400, message=message), 400


@bp.get("/jwks")
def jwks() -> Any:
    return jsonify(lti.jwks())


@bp.route("/login", methods=["GET", "POST"])
@csrf.exempt
def login() -> Any:
    """OIDC third-party login initiation: off to the platform's auth endpoint with a nonce.

    Inside the LMS's frame the state is first kept in the platform's storage when the platform
    names one (`lti_storage_target`), else the page checks that the frame keeps cookies; where
    neither works it offers one button, "Open in a new window", which starts this login again
    there (`new_window`)."""
    target = frames.storage_target(request.values.get("lti_storage_target"))
    new_window = bool(request.values.get("new_window"))
    if target is not None and not new_window:
        oidc: FlaskOIDCLogin = lti_frame.FrameLogin("put", target)
    elif lti_frame.in_a_frame() and not new_window:
        oidc = lti_frame.FrameLogin("cookie", "")
    else:
        oidc = FlaskOIDCLogin(
            FlaskRequest(), lti.ToolConf(), launch_data_storage=lti.LaunchStorage()
        )
    try:
        # The redirect URI is always our launch URL, whatever target the request names.
        return oidc.redirect(url_for("lti.launch", _external=True))
    except (OIDCException, LtiException) as error:
        return _refused(f"LTI login refused: {error}")


def _launch_message() -> lti.RotationAwareLaunch:
    message = lti.RotationAwareLaunch(
        FlaskRequest(),
        lti.ToolConf(),
        launch_data_storage=lti.LaunchStorage(),
        requests_session=lti.http(),
    )
    message.set_public_key_caching(lti.LaunchStorage(), JWKS_CACHE_SECONDS)
    return message


@bp.get("/launch")
def launch_probe() -> Any:
    """What a browser or an LMS checking the URL gets: a short plain answer, not an error page
    (LTI defines only the POST; Moodle fetches the URL when an activity is saved)."""
    return Response(
        "Alpha-Beta Grader: LTI 1.3 launches are POSTed here by the LMS.\n",
        mimetype="text/plain",
    )


@bp.post("/launch")
@csrf.exempt
def launch() -> Any:
    """The platform's id_token: validated, then the user, course and link provisioned. When
    its login kept the state in the platform's storage, the browser reads it back first
    (`launch_confirm`)."""
    try:
        message = _launch_message()
        claims = lti.validate(message)
    except LtiException as error:
        return _refused(f"LTI launch refused: {error}")
    except Invalid as error:
        return _refused(str(error))
    launch_id = message.get_launch_id()
    target = message.storage_target
    if target is not None:
        state = request.form.get("state", "")
        frames.await_storage(launch_id, state)
        reg_id = frames.registration_id(str(claims.get("iss")), message.get_client_id())
        origins = frames.platform_origins(reg_id) if reg_id is not None else []
        page = render_template(
            "lti/frame.html",
            mode="get",
            next="",
            target=target,
            origin=frames.auth_origin(reg_id) if reg_id is not None else "",
            key=state,
            launch_id=launch_id,
            again=frames.login_again(state) or "",
            fallback_now=False,
        )
        return page, 200, {"Content-Security-Policy": lti_frame.frame_policy(origins)}
    return _launched(claims, launch_id, framed=lti_frame.in_a_frame())


@bp.post("/launch/confirm")
@csrf.exempt
def launch_confirm() -> Any:
    """The state the launch page read back from the platform's storage. Only the tool's own
    page posts it (the Origin header, which no other site can set to ours); the launch counts
    once it matches."""
    own = "{0.scheme}://{0.netloc}".format(urlsplit(request.host_url))
    if request.headers.get("Origin") != own:
        return _refused("LTI launch refused: not posted by this service's page")
    launch_id = request.form.get("launch_id", "")[:200]
    try:
        claims = dict(_cached_launch(launch_id).get_launch_data())
        frames.confirm_storage(launch_id, request.form.get("state", "")[:200])
    except Invalid as error:
        return _refused(str(error))
    return _launched(claims, launch_id, framed=True)


def _launched(claims: dict[str, Any], launch_id: str, *, framed: bool) -> Any:
    """The launch's account signed in (and, inside a frame, its pages by a launch token)."""
    launched = lti.provision(claims, launch_id)
    user = db.session.get(User, launched.user_id)
    login_user(user)
    if framed and user is not None:
        aud = claims.get("aud")
        reg_id = frames.registration_id(
            str(claims.get("iss")), aud[0] if isinstance(aud, list) else aud
        )
        if reg_id is not None:
            lti_frame.adopt(frames.make_token(user.get_id(), launch_id, reg_id), reg_id, launch_id)
    if launched.new_account:
        flash(
            Markup(
                "Welcome! Your LMS opened a new account here. Already have one? "
                '<a href="{}">Link it</a> before you start.'
            ).format(url_for("lti.account")),
            "info",
        )
    if launched.deep_linking:
        return redirect(
            url_for("lti.deep_link", course_id=launched.course_id, launch_id=launched.launch_id)
        )
    if launched.assignment_id is not None and launched.slot_index is not None:
        return redirect(
            url_for("pages.slot", assignment_id=launched.assignment_id, index=launched.slot_index)
        )
    if launched.assignment_id is not None:
        return redirect(url_for("pages.assignment", assignment_id=launched.assignment_id))
    if launched.unplaced_link and launched.role == INSTRUCTOR:
        return redirect(
            url_for("lti.setup", course_id=launched.course_id, launch_id=launched.launch_id)
        )
    if launched.role != "student":
        return redirect(url_for("lti.course", course_id=launched.course_id))
    return redirect(url_for("pages.dashboard"))


def _cached_launch(launch_id: str) -> MessageLaunch:
    try:
        return FlaskMessageLaunch.from_cache(
            launch_id, FlaskRequest(), lti.ToolConf(), launch_data_storage=lti.LaunchStorage()
        )
    except LtiException as error:
        raise Invalid(
            f"this LMS request has expired; start again from the LMS ({error})"
        ) from error


def _instructor_launch(course_id: int, launch_id: str) -> MessageLaunch:
    """The cached launch, once the user is the course's instructor (refused first: 403/404)."""
    staff(current_user, course_id, change=True)
    return _cached_launch(launch_id)


def _preset_form() -> PresetAssignmentForm:
    form = PresetAssignmentForm()
    form.preset.choices = [SelectChoice(name, name) for name in courses.preset_names()]
    return form


def _picker(course_id: int, launch_id: str, new: PresetAssignmentForm, status: int = 200) -> Any:
    _instructor_launch(course_id, launch_id)  # still valid: else say so before they pick
    page = render_template(
        "lti/deep_link.html",
        choices=lti.choices(current_user, course_id),
        form=ActionForm(),
        new=new,
        course_id=course_id,
        launch_id=launch_id,
        others=lti.other_courses(current_user, course_id),
        lti_account=lti.is_lti_account(current_user),
    )
    return page, status


def _deep_link_return(return_url: str, token: str) -> Any:
    """The page posting the signed reply back to the LMS at once."""
    response = render_template("lti/deep_link_return.html", return_url=return_url, token=token)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(return_url))
    # The one form that posts to the LMS: allow exactly its origin.
    return (
        response,
        200,
        {
            "Content-Security-Policy": lti_frame.page_policy().replace(
                "form-action 'self'", f"form-action 'self' {origin}"
            )
        },
    )


@bp.route("/deep-link/<int:course_id>/<launch_id>", methods=["GET", "POST"])
@login_required
def deep_link(course_id: int, launch_id: str) -> Any:
    """An instructor picks what to place in the LMS; the signed reply goes back to it."""
    form = ActionForm()
    if request.method == "POST" and form.validate_on_submit():
        return _deep_link_return(
            *lti.deep_link_reply(
                current_user,
                _instructor_launch(course_id, launch_id),
                course_id,
                request.form.get("choice", ""),
                url_for("lti.launch", _external=True),
            )
        )
    return _picker(course_id, launch_id, _preset_form())


@bp.post("/deep-link/<int:course_id>/<launch_id>/new")
@login_required
def deep_link_new(course_id: int, launch_id: str) -> Any:
    """A new assignment from a preset, made and placed in one submit: the reply goes back to
    the LMS at once. A refused form comes back filled in, with its errors."""
    message = _instructor_launch(course_id, launch_id)
    form = _preset_form()
    if form.validate_on_submit():
        try:
            return _deep_link_return(
                *lms_setup.place_new_assignment(
                    current_user,
                    message,
                    course_id,
                    form.assignment_input(courses.find_course(course_id).timezone),
                    form.preset.data or "",
                    url_for("lti.launch", _external=True),
                )
            )
        except (Invalid, Conflict) as error:
            form.form_errors.append(str(error))
    return _picker(course_id, launch_id, form, 400)


@bp.route("/setup/<int:course_id>/<launch_id>", methods=["GET", "POST"])
@login_required
def setup(course_id: int, launch_id: str) -> Any:
    """An instructor's launch through an LMS link that opens nothing yet (a new LMS course's
    first): a new assignment from a preset, which the link opens from then on."""
    message = _instructor_launch(course_id, launch_id)
    form = _preset_form()
    status = 200
    if request.method == "POST":
        if form.validate_on_submit():
            try:
                made = lms_setup.link_new_assignment(
                    current_user,
                    message,
                    course_id,
                    form.assignment_input(courses.find_course(course_id).timezone),
                    form.preset.data or "",
                )
            except (Invalid, Conflict) as error:
                form.form_errors.append(str(error))
            else:
                flash(
                    f"{made.title} is ready: this LMS link opens it, and its scores go to the "
                    "LMS gradebook.",
                    "info",
                )
                return redirect(url_for("pages.assignment", assignment_id=made.id))
        status = 400
    else:
        lti.check_unplaced_link(current_user, message, course_id)
    return (
        render_template("lti/setup.html", new=form, course_id=course_id, launch_id=launch_id),
        status,
    )


@bp.post("/deep-link/<int:course_id>/<launch_id>/course")
@login_required
def link_course(course_id: int, launch_id: str) -> Any:
    """The LMS course opens an existing course here instead of the one its launch made."""
    message = _instructor_launch(course_id, launch_id)
    target = request.form.get("course_id", "")
    if ActionForm().validate_on_submit() and target.isdigit():
        course_id = lti.link_course(current_user, message, course_id, int(target))
        flash("This LMS course now opens that course.", "info")
    return redirect(url_for("lti.deep_link", course_id=course_id, launch_id=launch_id))


@bp.get("/registrations")
@login_required
def registrations() -> Any:
    """The URLs an instructor gives the LMS; an administrator registers the platform (CLI)."""
    return render_template(
        "lti/registrations.html",
        urls=tool_urls(),
        registrations=lti.registrations(current_user),
    )


@bp.get("/courses/<int:course_id>")
@login_required
def course(course_id: int) -> Any:
    contexts = lti.course_contexts(current_user, course_id)
    return render_template(
        "lti/course.html",
        contexts=contexts,
        course_id=course_id,
        form=ActionForm(),
        undelivered=lti.undelivered(course_id),
    )


@bp.post("/courses/<int:course_id>/sync")
@login_required
def sync(course_id: int) -> Any:
    if ActionForm().validate_on_submit():
        try:
            synced = lti.sync_roster(current_user, course_id)
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash(
                f"Roster synced: {synced.members} members, {synced.added} added, "
                f"{synced.updated} updated.",
                "info",
            )
    return redirect(url_for("lti.course", course_id=course_id))


@bp.post("/courses/<int:course_id>/resend")
@login_required
def resend(course_id: int) -> Any:
    if ActionForm().validate_on_submit():
        count = lti.resend(current_user, course_id)
        flash(f"{count} scores queued for the LMS gradebook.", "info")
    return redirect(url_for("lti.course", course_id=course_id))


@bp.route("/account", methods=["GET", "POST"])
@login_required
@password_checked  # it checks a password
def account() -> Any:
    """Someone the LMS launched, who has an account here already, links the two by logging in
    to it; from then on the LMS opens that account."""
    if not lti.is_lti_account(current_user):
        flash("This account is not one an LMS launch made.", "info")
        return redirect(url_for("pages.dashboard"))
    form = LinkAccountForm()
    if form.validate_on_submit():
        try:
            user = lti.link_account(
                current_user, form.email.data or "", form.password.data or "", form.code.data or ""
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            login_user(user)
            flash("Linked: the LMS now opens this account.", "info")
            return redirect(url_for("pages.dashboard"))
    return render_template("lti/account.html", form=form)


@bp.get("/register/<token>")
def dynamic_register(token: str) -> Any:
    """LTI Dynamic Registration: the LMS opens the one-time URL in a frame with its OpenID
    configuration's URL and a registration token; the tool registers itself and asks the LMS
    to close the frame. Only the platform that opened it may frame the answer."""
    config_url = request.args.get("openid_configuration", "")[:600]
    # Framed by the platform only once the URL's token is one an administrator made and no
    # one used: a guessed token leaves every page unframeable.
    origin = frames.origin_of(config_url) if dynamic_registration.url_is_open(token) else None
    headers = {"Content-Security-Policy": lti_frame.frame_policy([origin]) if origin else CSP}
    urls = tool_urls()
    try:
        reg = dynamic_registration.register(
            token,
            config_url,
            request.args.get("registration_token"),
            dynamic_registration.ToolUrls(
                login=urls["login"], launch=urls["launch"], jwks=urls["jwks"]
            ),
        )
    except ServiceError as error:
        status = status_of(error)
        page = render_template("error.html", status=status, message=str(error))
        return page, status, headers
    origins = [o for o in (origin, *frames.registration_origins(reg)) if o]
    headers = {"Content-Security-Policy": lti_frame.frame_policy(list(dict.fromkeys(origins)))}
    return render_template("lti/registered.html", registration=reg), 200, headers
