"""Running the CLI in-process from tests (exit code and both streams), and hashing files to prove them unchanged."""

from __future__ import annotations

import hashlib
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
    return code, out, err
