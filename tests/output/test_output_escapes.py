"""No command lets a plan's, a bill's or a mapping's text drive the terminal (issue 27 item 5).

Every command runs in-process with escape-laden inputs: plan labels, roles, notes,
units and its description; bill provider, billing account, invoice, description and
tags (FOCUS), invoice, unit and workload (generic CSV); mapping patterns; file
names. In every output format, no C0 control (but newline and tab), DEL or C1
control reaches stdout or stderr; JSON stays valid JSON that holds the text exactly
(escaped by the encoder, not dropped); the human formats show it escaped.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from pathlib import Path

import pytest
from cli_run import run
from focus_bills import COLUMNS, MAPPING, focus_rows

from budgetbook.actuals.api import import_actuals
from budgetbook.api import generate_workbook
from budgetbook.output.emit import console
from budgetbook.output.plaintext import Guarded

PLAN = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"
# an OSC title change ended by BEL, a screen clear, a one-byte C1 CSI, a carriage return, DEL, a forged line
EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\r\x7f\nforged"
EVIL_YAML = json.dumps(EVIL)  # a YAML double-quoted scalar holds it (JSON's escapes are YAML's)
MARKET = "\x9b2J\x9d0;pwned\x9c\x7f\u202e"  # a C1 CSI screen clear, a C1 OSC title change, DEL, an override
# what a terminal obeys: C0 (but the output's own newlines and tabs), DEL, C1
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def hostile_plan_text() -> str:
    text = PLAN.read_text()
    text = re.sub(r"(?m)^(\s+label: ).*$", lambda m: m.group(1) + json.dumps(f"{m.end()} {EVIL}"), text)
    # a market's label is a chart's series name too, where XML 1.0 refuses C0 (the generated workbook would be
    # corrupt: reported, outside this test); C1 and DEL are XML and still drive a terminal
    text = re.sub(r"(?m)^(  - id: \w+\n    label: ).*$", lambda m: m.group(1) + json.dumps(f"{m.end()} {MARKET}"), text)
    text = re.sub(r"(?m)^(\s+- role: ).*$", lambda m: m.group(1) + json.dumps(f"role {m.end()} {EVIL}"), text)
    text = re.sub(r"(?m)^description: .*$", lambda _: "description: " + EVIL_YAML, text)
    return text + ("items:\n  - id: tools\n    label: " + EVIL_YAML + "\n    unit: " + json.dumps(EVIL[:20])
                   + "\n    note: " + EVIL_YAML + "\n    quantity: 3\n    unit_price: {low: 5, base: 10, high: 20}\n")


def hostile_mapping() -> str:
    mapping = MAPPING.replace("provider: AWS", 'provider: "AWS*"')
    return mapping + ("  - match: {description: " + json.dumps(f"*{EVIL[:6]}*") + ", tags: {"
                      + json.dumps(f"k{EVIL[:4]}") + ": " + json.dumps(f"v{EVIL[:4]}*") + "}}\n"
                      "    market: neo_cloud\n    item: compute\n")


def write_hostile_focus(path: Path) -> Path:
    rows = focus_rows({"2026-01": 2})
    for row in rows:
        row["ProviderName"] = "AWS" + EVIL
        row["BillingAccountId"] = "1234" + EVIL
        row["InvoiceId"] = "INV-" + EVIL
    rows[0]["ChargeDescription"] = "gpu " + EVIL
    rows[0]["Tags"] = json.dumps({"k" + EVIL[:4]: "v" + EVIL[:4] + "x"})
    rows[-1]["ChargeDescription"] = "unmapped " + EVIL  # CloudWatch, which no rule maps: listed as unmapped
    rows[-1]["ServiceName"] = "Amazon CloudWatch " + EVIL
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*COLUMNS, "InvoiceId"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_hostile_generic(path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "market", "item", "amount", "quantity", "unit", "workload", "invoice"])
        writer.writerow(["2026-01-31", "neo_cloud", "people", "1000.00", "1", "=run " + EVIL, "", "pay " + EVIL])
        writer.writerow(["2026-01-31", "nowhere" + EVIL[:5], "people", "10.00", "", "", "", ""])
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("escapes")
    plan = d / "plan.yaml"
    plan.write_text(hostile_plan_text())
    (d / "map.yaml").write_text(hostile_mapping())
    book = generate_workbook(plan, d / "plan.xlsx")
    focus = write_hostile_focus(d / "focus.csv")
    # its name too (no `[`: the CSV reader would take it as a pattern of files)
    generic = write_hostile_generic(d / ("generic\x1b]0;pwned\x07\x9b2J\r\x7f.csv"))
    actuals = import_actuals(book, [focus, generic], d / "actuals.xlsx", mapping=d / "map.yaml").written
    unreadable = d / "broken.yaml"
    unreadable.write_text("name: [broken\n# " + EVIL + "\n")
    return {"plan": plan, "map": d / "map.yaml", "book": book, "focus": focus, "generic": generic,
            "actuals": actuals, "unreadable": unreadable, "dir": d}


def assert_safe(out: str, err: str) -> None:
    for stream, text in (("stdout", out), ("stderr", err)):
        found = OBEYED.findall(text)
        assert found == [], f"{stream} carries {found!r}: {text[:2000]!r}"


def holds_evil(data) -> bool:
    """Whether the decoded JSON holds the hostile text exactly somewhere (a plan's, a bill's)."""
    if isinstance(data, dict):
        return any(holds_evil(k) or holds_evil(v) for k, v in data.items())
    if isinstance(data, list):
        return any(holds_evil(v) for v in data)
    return isinstance(data, str) and ("\x1b]0;pwned\x07" in data or "\x9d0;pwned\x9c" in data)


FORMATS = {"show": ("table", "json", "csv", "markdown"), "variance": ("table", "json", "csv", "markdown"),
           "sensitivity": ("table", "json", "csv", "markdown"), "simulate": ("table", "json", "csv", "markdown"),
           "check": ("table", "json"), "calibrate": ("table", "json"), "diff": ("table", "json", "markdown")}
COMMANDS = [
    ("show", ["{plan}"]), ("show", ["{plan}", "--by", "month"]), ("show", ["{actuals}"]),
    ("check", ["{book}"]), ("check", ["{actuals}"]), ("calibrate", ["{plan}"]),
    ("sensitivity", ["{plan}"]), ("simulate", ["{plan}", "--samples", "200"]),
    ("variance", ["{actuals}"]), ("diff", ["{plan}", "{actuals}"]), ("diff", ["pretrain-7b", "{plan}"]),
]


def _args(template: list[str], files: dict[str, Path]) -> list[str]:
    return [a.format(**{k: str(v) for k, v in files.items()}) for a in template]


@pytest.mark.parametrize("command,args", COMMANDS, ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_every_format_keeps_the_terminal_safe(capsys, files, command, args):
    for fmt in FORMATS[command]:
        code, out, err = run(capsys, command, *_args(args, files), "--format", fmt)
        assert code in (0, 1), (fmt, err)
        assert_safe(out, err)
        if fmt == "json":
            data = json.loads(out)  # valid JSON, the text escaped in it
            if command in ("show", "variance", "sensitivity") or args[0] == "pretrain-7b":  # the others: ids
                assert holds_evil(data), (command, fmt)
        elif command in ("show", "variance", "sensitivity"):  # the others print ids and figures here
            assert "\\x1b" in out or "\\x9b" in out, (command, fmt, out[:500])  # shown, escaped (a table may cut it)


def test_actuals_prints_the_invoice_key_escaped(capsys, files, tmp_path):
    """The summary names each batch by its key (ProviderName, BillingAccountId, InvoiceId): shown, not obeyed."""
    for fmt in ("table", "json"):
        out_book = tmp_path / f"again-{fmt}.xlsx"
        code, out, err = run(capsys, "actuals", files["book"], files["focus"], files["generic"], "--map", files["map"],
                             "-o", out_book, "--format", fmt)
        assert code == 0, err
        assert_safe(out, err)
        if fmt == "json":
            keys = [b["key"] for b in json.loads(out)["imported"]]
            assert any("INV-" + EVIL in key for key in keys) and any("pay " + EVIL in key for key in keys)
        else:
            assert "INV-\\x1b]0;pwned\\x07" in out and "pay \\x1b]0;pwned\\x07" in out
            # a unit starting with `=` (CSV injection) is warned of, naming the file: escaped too
            assert err.startswith("Warning: ") and "generic\\x1b]0;pwned" in err and "nowhere\\x1b" in out


def test_the_other_commands(capsys, files, tmp_path):
    evil_name = tmp_path / ("out" + EVIL.replace("\n", "") + ".xlsx")  # a file name can hold them too
    plan_copy = tmp_path / ("plan" + EVIL.replace("\n", "") + ".yaml")
    plan_copy.write_text(files["plan"].read_text())
    runs = [("extract", files["actuals"]), ("textconv", files["plan"]), ("textconv", files["actuals"]),
            ("textconv", files["unreadable"]), ("generate", plan_copy, "-o", evil_name),
            ("init", "pretrain-7b", "-o", tmp_path / ("init" + EVIL.replace("\n", "") + ".yaml")),
            ("check", evil_name), ("templates",), ("gpus",), ("gpus", "--format", "json")]
    for args in runs:
        code, out, err = run(capsys, *args)
        assert code == 0, (args, err)
        assert_safe(out, err)
    code, out, err = run(capsys, "show", plan_copy, "--format", "json")
    assert code == 0 and json.loads(out)["plan"] == "pretrain-7b"
    assert_safe(out, err)


def test_pictures_draw_a_labels_escapes_without_a_warning_per_glyph(capsys, files, tmp_path):
    """A chart's labels (markets, inputs, lines) with control characters: matplotlib warned once per glyph it
    has none for (`Warning: Glyph 155 (\\x9b) missing from font(s) DejaVu Sans.`, a dozen lines); the charts
    now draw the escapes, as a terminal shows them."""
    runs = [("report", files["actuals"], "-o", tmp_path / "r.html"),
            ("simulate", files["plan"], "--samples", "300", "--plot", tmp_path / "s.png"),
            ("variance", files["actuals"], "--plot", tmp_path / "v.svg"),
            ("diff", "pretrain-7b", files["plan"], "--format", "html")]
    for args in runs:
        code, out, err = run(capsys, *args)
        assert code in (0, 1), (args, err)
        assert_safe(out, err)
        assert "missing from font" not in err, (args, err)


@pytest.mark.parametrize("case", ["plan key", "plan value", "mapping", "bill", "option", "missing file", "strict"])
def test_errors_and_warnings_keep_the_terminal_safe(capsys, files, tmp_path, case):
    plan = tmp_path / "bad.yaml"
    if case == "plan key":
        plan.write_text(files["plan"].read_text() + json.dumps(EVIL) + ": 1\n")
        args = ["show", plan]
    elif case == "plan value":
        plan.write_text(files["plan"].read_text().replace("currency: USD", "currency: " + EVIL_YAML))
        args = ["generate", plan, "-o", tmp_path / "x.xlsx"]
    elif case == "mapping":
        (tmp_path / "map.yaml").write_text(hostile_mapping() + "  - match: {provider: x}\n    market: "
                                           + EVIL_YAML + "\n    item: compute\n")
        args = ["actuals", files["book"], files["focus"], "--map", tmp_path / "map.yaml", "-o", tmp_path / "o.xlsx"]
    elif case == "bill":
        with open(tmp_path / "bill.csv", "w", newline="") as handle:
            csv.writer(handle).writerows([["date", "market", "item", "amount"],
                                          ["2026-01-31", "neo_cloud", "people", "1" + EVIL]])
        args = ["actuals", files["book"], tmp_path / "bill.csv", "-o", tmp_path / "o.xlsx"]
    elif case == "option":
        args = ["show", files["plan"], "--format", EVIL]
    elif case == "missing file":
        args = ["check", tmp_path / ("gone" + EVIL + ".xlsx")]
    else:
        # a market label citing a price the plan does not use is a warning quoting it; --strict refuses it
        plan.write_text(re.sub(r"(?m)^    label: .*$", lambda _: "    label: " + json.dumps("$99/GPU-hour " + MARKET),
                               files["plan"].read_text(), count=1))
        args = ["calibrate", plan, "--strict"]
    code, out, err = run(capsys, *args)
    assert code == 2 and err.startswith(("Error: ", "Warning: ")), err
    assert_safe(out, err)
    assert "\\x1b" in err or "\\x9b" in err, err  # the text is shown, escaped, not dropped


WRITERS = {"print", "echo", "secho", "Console", "print_exc", "print_exception"}  # calls that write to a stream


def _writes(tree: ast.AST) -> list[str]:
    """The stream-writing calls in a module, outside its `if __name__ == "__main__":` block."""
    found = []
    assert isinstance(tree, ast.Module)
    tree.body = [n for n in tree.body if not (isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            spelled = ast.unparse(func)
            if name in WRITERS and not spelled.endswith(("console.print", "shown.print")) or \
                    spelled.startswith(("sys.stdout.write", "sys.stderr.write")):
                found.append(f"{spelled} (line {node.lineno})")
    return found


def test_only_the_output_package_writes_to_a_stream():
    """By construction: a command cannot print a plan's or a bill's text but through `output/` (and its guard)."""
    package = Path(__file__).parents[2] / "budgetbook"
    writers = {}
    for path in sorted(package.rglob("*.py")):
        if "output" in path.relative_to(package).parts:
            continue
        found = _writes(ast.parse(path.read_text()))
        if found:
            writers[str(path.relative_to(package))] = found
    assert writers == {}
    # and within output/, every stream is the guarded one: no renderer opens its own
    for path in sorted((package / "output").glob("*.py")):
        text = path.read_text()
        assert "sys.stdout" not in text or path.name == "emit.py", path.name
        assert "Console(" not in text or path.name == "emit.py", path.name


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_only_the_colour_codes_rich_writes_pass():
    from rich.text import Text

    raw = Terminal()
    console(raw).print(Text("OK", style="bold green"))
    Guarded(raw).write(EVIL)  # a renderer that forgot `visible`: the stream still shows it
    shown = raw.getvalue()
    assert "\x1b[1;32mOK\x1b[0m" in shown  # styles on a terminal, as before
    assert OBEYED.findall(re.sub("\x1b\\[[0-9;]*m", "", shown)) == []
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\r\\x7f\nforged" in shown  # a newline stays a newline
    piped = io.StringIO()
    console(piped).print(Text("OK", style="bold green"))
    Guarded(piped).write("\x1b[31mred")
    assert piped.getvalue() == "OK\n\\x1b[31mred"  # off a terminal even a colour code is shown
