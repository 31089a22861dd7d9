"""Running the CLI in-process from tests (exit code and both streams; a `--format json` output is held against
its command's published schema), and hashing files to prove them unchanged."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from budgetbook.cli import main


def sha(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def run(capsys, *args, bug_ok: bool = False) -> tuple[int, str, str]:
    """`main(args)`: (exit code, stdout, stderr); an exit 3 or a traceback fails the test unless `bug_ok`."""
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    if not bug_ok:
        assert code != 3 and "Traceback" not in err + out, err
    if code in (0, 1) and out and _json_format(args):
        assert_report(next(str(a) for a in args if not str(a).startswith("-")), json.loads(out))
    return code, out, err


def _json_format(args) -> bool:
    words = [str(a) for a in args]
    return "--format=json" in words or any(a in ("--format", "-f") and b == "json" for a, b in zip(words, words[1:]))


@cache
def _validator(command: str):
    from jsonschema import Draft202012Validator

    from budgetbook.output.schemas import COMMANDS, report

    assert command in COMMANDS, f"`{command}` prints JSON but budgetbook/output/schemas.py has no schema for it"
    schema = report(command)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def assert_report(command: str, data) -> None:
    """`data` (a command's `--format json`) is in the envelope and valid against the command's published schema."""
    assert isinstance(data, dict) and list(data)[:2] == ["command", "version"], list(data)[:3]
    from jsonschema.exceptions import best_match

    problem = best_match(_validator(command).iter_errors(data))  # inside `show`'s two shapes, the nearer one's
    assert problem is None, (f"{command} JSON at {'/'.join(map(str, problem.absolute_path)) or '(top)'}: "
                             f"{problem.message[:300]} (budgetbook/output/schemas.py)")
