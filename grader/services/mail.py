"""Outgoing e-mail (invite links) through the standard library's smtplib, when configured."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

from flask import current_app


def configured() -> bool:
    return bool(current_app.config.get("GRADER_SMTP_HOST"))


def send(to: str, subject: str, body: str) -> bool:
    """Sends one plain-text message; False (logged) when the server refuses or is down, so
    the caller can fall back to showing the link."""
    config = current_app.config
    message = EmailMessage()
    message["From"] = config["GRADER_SMTP_FROM"]
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    try:
        with smtplib.SMTP(config["GRADER_SMTP_HOST"], config["GRADER_SMTP_PORT"],
                          timeout=10) as server:
            if config["GRADER_SMTP_STARTTLS"]:
                server.starttls()
            if config.get("GRADER_SMTP_USER"):
                server.login(config["GRADER_SMTP_USER"], config["GRADER_SMTP_PASSWORD"])
            server.send_message(message)
    except (OSError, smtplib.SMTPException) as error:
        current_app.logger.warning("could not e-mail %s: %s", to, error)
        return False
    return True
