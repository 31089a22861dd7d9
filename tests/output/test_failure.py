"""`output.failure`: a stop by signal is one line and 128 + the signal, even where Python wrapped it."""

from __future__ import annotations

import signal

import pytest

from budgetbook.output.failure import NOTHING_HALF_WRITTEN, report_failure
from budgetbook.signals import Terminated


class _Stopped:
    def __set_name__(self, owner, name):
        raise Terminated(signal.SIGTERM)  # as a signal lands while a module defines a class


def test_a_signal_python_wrapped_while_a_class_was_made_is_still_a_stop(capsys):
    try:
        type("Shape", (), {"compiled": _Stopped()})  # Python 3.11 raises "RuntimeError: Error calling __set_name__"
    except BaseException as exc:  # noqa: BLE001  whichever Python raises (3.12 lets Terminated through)
        caught = exc
    else:
        pytest.fail("the class was made")
    assert report_failure(caught) == 128 + signal.SIGTERM
    assert capsys.readouterr().err.strip() == f"Error: stopped by SIGTERM; {NOTHING_HALF_WRITTEN}"


def test_another_runtime_error_is_still_a_bug(capsys):
    assert report_failure(RuntimeError("boom")) == 3
    assert "this is a bug in budgetbook" in capsys.readouterr().err
