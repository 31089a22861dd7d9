"""openpyxl's formula tokenizer, without importing openpyxl (~0.15 s of every read command's start).

`openpyxl.formula.tokenizer` is one self-contained file (it imports only `re`), but importing it runs
`openpyxl/__init__`, which loads the whole package: its workbook, reader, writer, styles and charts. The
read path (`check`, `extract`, `diff`, `show BOOK`) tokenizes formulas and needs none of that: this module
loads that file alone, under its own name. Where the file is not where openpyxl keeps it, the package's
module is imported as before. Every module of ours takes `Token`, `Tokenizer` and `TokenizerError` from
here, so the classes compared and caught are one set.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

_NAME = "budgetbook.xlsx._openpyxl_tokenizer"


def _standalone() -> ModuleType:
    found = importlib.util.find_spec("openpyxl")  # finds the package without running its __init__
    folders = list(found.submodule_search_locations or ()) if found is not None else []
    path = Path(folders[0]) / "formula" / "tokenizer.py" if folders else None
    spec = importlib.util.spec_from_file_location(_NAME, path) if path is not None and path.is_file() else None
    if spec is None or spec.loader is None:
        import openpyxl.formula.tokenizer as package_module  # openpyxl laid out otherwise: the slow way

        return package_module
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING:  # the same classes, for the type checker
    from openpyxl.formula.tokenizer import Token, Tokenizer, TokenizerError
else:
    _module = sys.modules.get(_NAME) or _standalone()
    Token, Tokenizer, TokenizerError = _module.Token, _module.Tokenizer, _module.TokenizerError

__all__ = ["Token", "Tokenizer", "TokenizerError"]
