"""Outgoing e-mail (invite links) through the standard library's smtplib, when configured."""

from __future__ import annotations

import smtplib
import time
from email.message import EmailMessage

from flask import current_app


def configured() -> bool:
    return bool(current_app.config.get("GRADER_SMTP_HOST"))


def send_many(messages: list[tuple[str, str, str]], budget_seconds: float = 10.0) -> int:
    """Sends (to, subject, body) messages over one connection, stopping when the time budget is
    spent (a request must not hold a worker); returns how many went. A refused or unreachable
    server is logged and ends the batch: the caller offers the rest as links to hand out."""
    config = current_app.config
    deadline = time.monotonic() + budget_seconds
    sent = 0
    try:
        with smtplib.SMTP(
            config["GRADER_SMTP_HOST"],
            config["GRADER_SMTP_PORT"],
            timeout=min(10.0, budget_seconds),
        ) as server:
            if config["GRADER_SMTP_STARTTLS"]:
                server.starttls()
            if config.get("GRADER_SMTP_USER"):
                server.login(config["GRADER_SMTP_USER"], config["GRADER_SMTP_PASSWORD"])
            for to, subject, body in messages:
                if time.monotonic() > deadline:
                    break
                message = EmailMessage()
                message["From"] = config["GRADER_SMTP_FROM"]
                message["To"] = to
                message["Subject"] = subject
                message.set_content(body)
                server.send_message(message)
                sent += 1
    except (OSError, smtplib.SMTPException) as error:
        current_app.logger.warning("e-mail stopped after %d of %d: %s", sent, len(messages), error)
    return sent
