"""Database URLs as they may be printed: never with their password.

libpq takes a password in the authority (`user:pw@`, also with no user: `:pw@`) and in the query
(`?password=`, and `sslpassword=` for a client key); every form is hidden, and a URL too malformed
to take apart is not printed at all beyond its scheme.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

HIDDEN = "***"
# The same forms inside any text (a log line, a traceback): what a line-level redactor removes.
IN_TEXT = (
    re.compile(r"(://[^:/@\s]*:)[^\s/]*(@)"),  # up to the last `@` of the authority
    re.compile(r"([?&](?:ssl)?password=)[^&#\s]*", re.IGNORECASE),
)


def display_url(url: str) -> str:
    """The URL as it may be printed: every password replaced, the rest exactly as given."""
    try:
        parts = urlsplit(url)
    except ValueError:  # unbalanced brackets and the like: say only what kind of URL it was
        return f"{url.partition(':')[0]}://{HIDDEN}"
    shown = url
    if parts.password is not None:
        host = parts.netloc.rpartition("@")[2]
        shown = shown.replace(parts.netloc, f"{parts.username or ''}:{HIDDEN}@{host}", 1)
    return IN_TEXT[1].sub(rf"\g<1>{HIDDEN}", shown)


def redact_urls(text: str, marker: str = HIDDEN) -> str:
    """Every URL password inside a piece of text (a log line, a traceback) replaced by `marker`."""
    authority, query = IN_TEXT
    return query.sub(rf"\g<1>{marker}", authority.sub(rf"\g<1>{marker}\g<2>", text))
