"""Hostile and foreign workbooks through the real command line: `check` and `extract`.

Every case goes through `cli_run.run` (`main([...])`, the function behind the
`budgetbook` script) and asserts the exit code, that stderr is one line naming
the file (or empty when the command succeeds), that nothing is a traceback,
and that the input is byte-for-byte unchanged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import hostile
import openpyxl
import pytest
from cli_run import run, sha

from budgetbook.planfile.loader import load_plan, template_text
from budgetbook.workbook.write import write_workbook


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A real workbook of the default template, written once; tests copy it."""
    out = tmp_path_factory.mktemp("gen") / "finetune.xlsx"
    write_workbook(load_plan("finetune-13b-lora"), template_text("finetune-13b-lora"), out)
    return out


def refused(capsys, path: Path, match: str, commands=("check", "extract")) -> None:
    """Each command: exit 2, exactly one stderr line naming the file and the reason, file unchanged."""
    before = sha(path)
    for command in commands:
        code, out, err = run(capsys, command, str(path))
        lines = err.splitlines()
        assert code == 2, (command, err)
        assert len(lines) == 1, (command, err)
        assert lines[0].startswith(f"Error: {path}: "), lines[0]
        assert match in lines[0], lines[0]
        assert "bug in budgetbook" not in lines[0]
        assert out == ""
        assert sha(path) == before


def checked(capsys, path: Path) -> tuple[int, dict]:
    """`check --format json` that ran: its exit code and report; stderr empty, file unchanged."""
    before = sha(path)
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    assert err == "", err
    assert sha(path) == before
    return code, json.loads(out)


def copy(generated: Path, tmp_path: Path, name: str = "book.xlsx") -> Path:
    target = tmp_path / name
    shutil.copyfile(generated, target)
    return target


def edited(generated: Path, tmp_path: Path, change, name: str = "edited.xlsx") -> Path:
    """The generated workbook after an edit made with openpyxl and saved, as a user's tool would."""
    wb = openpyxl.load_workbook(generated)
    change(wb)
    path = tmp_path / name
    wb.save(path)
    return path


def cell_of(wb, name: str):
    (sheet, ref), = wb.defined_names[name].destinations
    return wb[sheet][ref.replace("$", "")]


def kinds(report: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for finding in report["findings"]:
        out.setdefault(finding["kind"], []).append(finding)
    return out


# ---------------------------------------------------------------- not a workbook at all

def test_not_a_zip(tmp_path, capsys):
    path = tmp_path / "junk.xlsx"
    path.write_bytes(b"\x00\x01binary junk, not a zip\xff" * 10)
    refused(capsys, path, "not a")


def test_empty(tmp_path, capsys):
    path = tmp_path / "empty.xlsx"
    path.write_bytes(b"")
    refused(capsys, path, "is empty (0 bytes)")


def test_truncated_generated_workbook(generated, tmp_path, capsys):
    path = tmp_path / "cut.xlsx"
    path.write_bytes(generated.read_bytes()[: generated.stat().st_size // 2])
    refused(capsys, path, "zip")


def test_directory(tmp_path, capsys):
    folder = tmp_path / "book.xlsx"
    folder.mkdir()
    for command in ("check", "extract"):
        code, _, err = run(capsys, command, str(folder))
        assert code == 2 and err == f"Error: {folder}: is a directory, not a workbook\n"


def test_missing_path(tmp_path, capsys):
    missing = tmp_path / "nope.xlsx"
    for command in ("check", "extract"):
        code, _, err = run(capsys, command, str(missing))
        assert code == 2 and err == f"Error: {missing}: no such file\n"
    assert not missing.exists()


def test_zip_bomb(tmp_path, capsys):
    path = hostile.zip_bomb(tmp_path / "bomb.xlsx", 2_000_000_000)
    refused(capsys, path, "zip bomb")


def test_billion_laughs(tmp_path, capsys):
    refused(capsys, hostile.billion_laughs_xlsx(tmp_path / "laughs.xlsx"), "declares a DTD")


def test_xxe(tmp_path, capsys):
    refused(capsys, hostile.xxe_xlsx(tmp_path / "xxe.xlsx"), "declares a DTD")


def test_ole_encrypted_or_xls(tmp_path, capsys):
    refused(capsys, hostile.ole_container(tmp_path / "secret.xlsx"), "encrypted or password-protected")


def test_old_xls_renamed(tmp_path, capsys):
    path = tmp_path / "old.xls"
    path.write_bytes(hostile.ole_bytes())
    refused(capsys, path, "old binary .xls")


def test_ods(tmp_path, capsys):
    refused(capsys, hostile.ods_file(tmp_path / "calc.xlsx"), "OpenDocument spreadsheet (.ods)")


def test_csv_renamed(tmp_path, capsys):
    path = tmp_path / "budget.xlsx"
    path.write_text("item,cost\ncompute,144000\npeople,60000\n")
    refused(capsys, path, "not a readable .xlsx")


def test_xlsb(tmp_path, capsys):
    refused(capsys, hostile.xlsb_zip(tmp_path / "binary.xlsx"), ".xlsb")


def test_workbook_not_made_by_budgetbook(tmp_path, capsys):
    path = tmp_path / "foreign.xlsx"
    hostile.small_workbook().save(path)
    refused(capsys, path, "no embedded budgetbook plan: not a workbook made by `budgetbook generate`")


def test_damaged_embedded_plan(generated, tmp_path, capsys):
    def damage(wb):
        wb["_budgetbook"]["B4"] = "name: [unclosed"
    refused(capsys, edited(generated, tmp_path, damage), "embedded plan is damaged")


# ---------------------------------------------------------------- generated workbooks, made hostile

def test_macros_warned_never_run(generated, tmp_path, capsys):
    """vbaProject.bin in a generated workbook: check runs, warns `macros`; nothing is executed."""
    members = hostile.members_of(generated.read_bytes())
    types = members["[Content_Types].xml"].decode().replace(hostile.XLSX_MAIN, hostile.MACRO_MAIN).replace(
        "<Default ", '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/><Default ', 1)
    path = hostile.xlsx_with(tmp_path / "macro.xlsm", base=generated.read_bytes(), replace={
        "[Content_Types].xml": types.encode(), "xl/vbaProject.bin": hostile.ole_bytes()})
    before = set(tmp_path.iterdir())
    code, report = checked(capsys, path)
    assert code == 0 and report["ok"] is True
    macros = kinds(report)["macros"]
    assert macros[0]["severity"] == "warning" and "xl/vbaProject.bin" in macros[0]["message"]
    assert "never runs them" in macros[0]["message"]
    assert all(f["value"] == pytest.approx(f["reference"]) for f in report["figures"])
    code, out, err = run(capsys, "extract", str(path))
    assert code == 0 and err == "" and "name: finetune-13b-lora" in out
    assert set(tmp_path.iterdir()) == before  # no file dropped beside it


def test_external_links_warned(generated, tmp_path, capsys):
    link = hostile.XML_DECL + (f'<externalLink xmlns="{hostile.MAIN_NS}"><externalBook xmlns:r="http://'
                               'schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rId1"/>'
                               '</externalLink>').encode()
    rels = (hostile.XML_DECL + b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            b'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            b'officeDocument/2006/relationships/externalLinkPath" Target="file:///C:/secret/'
            b'other.xlsx" TargetMode="External"/></Relationships>')
    path = hostile.xlsx_with(tmp_path / "linked.xlsx", base=generated.read_bytes(), replace={
        "xl/externalLinks/externalLink1.xml": link, "xl/externalLinks/_rels/externalLink1.xml.rels": rels})
    code, report = checked(capsys, path)
    assert code == 0
    warning, = kinds(report)["external_links"]
    assert warning["severity"] == "warning" and "their values are not fetched" in warning["message"]


def test_figure_reading_another_workbook(generated, tmp_path, capsys):
    """A formula pointing at [other.xlsx]: not fetched; the figure is reported, not crashed on."""
    def link(wb):
        cell_of(wb, "compute_hyperscaler_on_demand").value = "='[other.xlsx]Sheet1'!$A$1"
    path = edited(generated, tmp_path, link)
    before = sha(path)
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    assert sha(path) == before
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith(f"Error: {path}: ")
    else:
        report = json.loads(out)
        assert code == 1 and not report["ok"]
        assert {"formula_changed"} <= set(kinds(report)), report["findings"]
        assert {"error_value", "mismatch", "not_computed"} & set(kinds(report)), report["findings"]


def test_circular_reference_is_a_finding(generated, tmp_path, capsys):
    def self_reference(wb):
        cell_of(wb, "compute_hyperscaler_on_demand").value = "=compute_hyperscaler_on_demand+1"
    path = edited(generated, tmp_path, self_reference)
    code, report = checked(capsys, path)
    assert code == 1 and report["ok"] is False
    error, = kinds(report)["error_value"]
    assert error["name"] == "compute_hyperscaler_on_demand" and error["severity"] == "error"
    assert error["message"] == "circular reference: its formula reads itself, so it has no value"
    downstream, = kinds(report)["not_computed"]
    assert "total_hyperscaler_on_demand" in downstream["message"]
    figures = {f["name"]: f for f in report["figures"]}
    assert figures["compute_hyperscaler_on_demand"]["value"] is None
    assert figures["compute_decentralized_market"]["value"] == pytest.approx(86400.0)


def test_two_cell_cycle_names_the_path(generated, tmp_path, capsys):
    def cycle(wb):
        # compute reads the total, which already sums compute
        cell_of(wb, "compute_hyperscaler_on_demand").value = "=total_hyperscaler_on_demand*0+1"
    code, report = checked(capsys, edited(generated, tmp_path, cycle))
    assert code == 1
    on_cycle = {f["name"] for f in kinds(report)["error_value"]}
    assert {"compute_hyperscaler_on_demand", "total_hyperscaler_on_demand"} <= on_cycle
    message = next(f["message"] for f in kinds(report)["error_value"]
                   if f["name"] == "compute_hyperscaler_on_demand")
    assert message.startswith("circular reference: its formula reads itself through compute_hyperscaler")
    assert "total_hyperscaler_on_demand" in message


def test_excel_table_refused_with_reason(generated, tmp_path, capsys):
    from openpyxl.worksheet.table import Table

    def table(wb):
        ws = wb["About"]
        ws["H1"], ws["I1"], ws["H2"], ws["I2"] = "key", "value", "a", 1
        ws.add_table(Table(displayName="Notes", ref="H1:I2"))
    refused(capsys, edited(generated, tmp_path, table), "contains Excel tables (xl/tables/table1.xml)")


def test_sheet_scoped_name_is_a_finding(generated, tmp_path, capsys):
    from openpyxl.workbook.defined_name import DefinedName

    def scoped(wb):
        wb["Inputs"].defined_names["my_rate"] = DefinedName("my_rate", attr_text="Inputs!$C$5")
    code, report = checked(capsys, edited(generated, tmp_path, scoped))
    assert code == 0
    finding, = kinds(report)["sheet_scoped_name"]
    assert finding["severity"] == "warning" and finding["name"] == "my_rate" and finding["sheet"] == "Inputs"


@pytest.mark.parametrize("where", ["row", "column", "sheet"])
def test_hidden_figures_and_inputs_warned(generated, tmp_path, capsys, where):
    def hide(wb):
        if where == "row":
            cell = cell_of(wb, "compute_hyperscaler_on_demand")
            cell.parent.row_dimensions[cell.row].hidden = True
        elif where == "column":
            cell = cell_of(wb, "wl_finetune_waste")
            cell.parent.column_dimensions.group(cell.column_letter, cell.column_letter, hidden=True)
        else:
            wb["Summary"].sheet_state = "hidden"
    code, report = checked(capsys, edited(generated, tmp_path, hide))
    assert code == 0 and report["ok"] is True  # a warning, not an error
    finding, = kinds(report)["hidden"]
    assert finding["severity"] == "warning"
    expected = {"row": ("Compute", "compute_hyperscaler_on_demand", "row 16 of Compute is hidden"),
                "column": ("Inputs", "scenario", "column C of Inputs is hidden"),  # the switch, first in C
                "sheet": ("Summary", "total_hyperscaler_on_demand", "sheet Summary is hidden")}[where]
    assert (finding["sheet"], finding["name"]) == expected[:2]
    assert finding["message"].startswith(expected[2]), finding["message"]


def test_embedded_plan_sheet_hidden_is_not_warned(generated, tmp_path, capsys):
    code, report = checked(capsys, copy(generated, tmp_path))
    assert code == 0 and report["findings"] == []


def test_very_hidden_sheet(generated, tmp_path, capsys):
    def hide(wb):
        wb["Inputs"].sheet_state = "veryHidden"
    _, report = checked(capsys, edited(generated, tmp_path, hide))
    finding, = kinds(report)["hidden"]
    assert finding["message"].startswith("sheet Inputs is veryHidden: it holds scenario (C3), "
                                         "mkt_hyperscaler_on_demand")
    assert "and 31 more" in finding["message"]  # 36 input cells: the scenario, values, lows and highs, timing


def test_embedded_plan_sheet_deleted(generated, tmp_path, capsys):
    def drop(wb):
        del wb["_budgetbook"]
    refused(capsys, edited(generated, tmp_path, drop), "no embedded budgetbook plan")


def test_clean_copy_is_ok_and_unchanged(generated, tmp_path, capsys):
    path = copy(generated, tmp_path)
    code, report = checked(capsys, path)
    assert code == 0 and report["ok"] and len(report["figures"]) == 32  # 8 figures and 8 of the gap x 2 markets
