"""A plan file as a whole, above the line items: the full plan model, the loader, the JSON Schema.

`plan/` is the core the line items stand on; each line item adds its section; the full model
(core plus every section), reading and validating a plan file, and the schema editors read stand
here, on top of them and of the workbook layout (the loader refuses a plan its workbook cannot hold).
"""
