"""Reading a generated workbook back: check, audit, extract, the overwrite guard, findings."""
