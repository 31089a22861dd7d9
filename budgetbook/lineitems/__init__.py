"""Line items: one module each (plan section, reference rule, sheet builder); `registry` lists them.

They stand on the plan kit (`plan/`) and the sheet kit (`sheetkit/`); the full plan model
(`planfile/`), the physics, the reference model and the workbook assembly stand on them.
"""
