"""The physics of a plan, in one place: FLOPs, GPU-hours, days and MFU (`model`), the published runs
they are calibrated against (`calibration`), and the sanity rules that hold a plan's numbers to that
evidence (`sanity`). Above the line items (it reads the compute rule), below the workbook assembly."""
