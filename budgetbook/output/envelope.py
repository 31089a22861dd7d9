"""The one JSON envelope every command's `--format json` shares, and the one function that writes it.

Every report begins with the same keys, so a CI script reads any command's output with one parser:

    {"command": "check", "version": "0.8.0", "plan": "...", "workbook": "...", "currency": "USD", ...}

- `command`: the subcommand that wrote it (`show`, `check`, ...); `version`: budgetbook's version;
- `plan`: the plan's name, where the command reads one plan (for `diff`, the new side's; the old
  side's is in `old`); `workbook`: the workbook's path, where it reads or writes one;
  `currency`: the plan's currency, where the command reports money;
- then the command's own keys, in their order. The keys a command had before the envelope keep
  their names and values (`show`'s `plan` and `currency`, `check`'s `workbook`): the envelope
  only moves them to the front.

Each command's report is described by a closed JSON Schema (`output.schemas`), printed by
`budgetbook schema --output COMMAND`. `budgetbook schema` (the plan's schema, a document for
editors) is the one JSON output with no envelope.
"""

from __future__ import annotations

from typing import Any, TextIO

from .. import __version__
from .emit import write_json
from .plaintext import Guarded

# the envelope's keys, in the order they open every report
ENVELOPE_KEYS = ("command", "version", "plan", "workbook", "currency")


def envelope(command: str, body: dict[str, Any], **context: str | None) -> dict[str, Any]:
    """`body` (a command's own JSON) behind the envelope: `command`, `version`, then `plan`, `workbook` and
    `currency` where `body` or `context` has them (a key of `body` wins), then the rest of `body` in order."""
    head: dict[str, Any] = {"command": command, "version": __version__}
    for key in ENVELOPE_KEYS[2:]:
        value = body[key] if key in body else context.get(key)
        if value is not None or key in body:
            head[key] = value
    return head | {key: value for key, value in body.items() if key not in head}


def write_report(command: str, body: dict[str, Any], out: TextIO | Guarded | None = None, *, default: Any = None,
                 **context: str | None) -> None:
    """A command's JSON report (`body` in the envelope, `context` its plan, workbook or currency) on `out`."""
    write_json(envelope(command, body, **context), out, default=default)
