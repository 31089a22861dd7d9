"""Running the CLI in-process from tests: exit code and both streams, never a traceback or a bug exit."""

from __future__ import annotations

import hashlib
from pathlib import Path

from budgetbook.cli import main


def sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code != 3 and "Traceback" not in err, err
    return code, out, err
