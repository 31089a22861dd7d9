"""`diff git:REV:path` (issue 27 item 10): a revision is checked as a commit and never handed to git as an option.

A revision starting with `-` (`--output=x`, `--help`) was passed to `git cat-file` as its first
argument; now it is refused in one line, and every other revision is resolved first with
`git rev-parse --verify --end-of-options REV^{commit}`, so git reads only a commit's hash after that.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_run import run

from budgetbook.planfile.loader import template_text

FT = "finetune-13b-lora"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "plan.yaml").write_text(template_text(FT))
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "the plan")
    git(tmp_path, "tag", "v1")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@needs_git
@pytest.mark.parametrize("rev", ["--output=stolen", "--help", "-p", "--batch-all-objects"])
def test_a_revision_that_looks_like_an_option_is_refused(capsys, repo, rev):
    code, out, err = run(capsys, "diff", f"git:{rev}:plan.yaml", FT)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert err == (f"Error: `git:{rev}:plan.yaml`: a revision cannot start with `-` (git would read `{rev}` as "
                   "an option)\n"), err
    assert sorted(p.name for p in repo.iterdir()) == [".git", "plan.yaml"]  # nothing written


@needs_git
@pytest.mark.parametrize(("rev", "says"), [
    ("nosuchrev", "`nosuchrev` is not a commit in this repository"),
    ("HEAD..HEAD", "`HEAD..HEAD` is not a commit in this repository"),
    ("HEAD^{tree}", "expected commit type"),
])
def test_a_revision_that_is_not_a_commit_is_refused(capsys, repo, rev, says):
    code, out, err = run(capsys, "diff", f"git:{rev}:plan.yaml", FT)
    assert (code, out) == (2, "") and err.count("\n") == 1 and says in err, err


@needs_git
@pytest.mark.parametrize("rev", ["HEAD", "main", "v1"])
def test_a_commit_by_any_name_is_read(capsys, repo, rev):
    code, out, err = run(capsys, "diff", f"git:{rev}:plan.yaml", "plan.yaml", "--format", "json")
    assert code == 0, err


@needs_git
def test_a_missing_path_names_the_revision_as_given(capsys, repo):
    code, out, err = run(capsys, "diff", "git:HEAD:nosuch.yaml", FT)
    assert code == 2 and "nosuch.yaml" in err and "'HEAD'" in err, err
