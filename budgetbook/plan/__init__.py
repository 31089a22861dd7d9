"""The plan kit, below the line items: the core model (markets, workloads), numbers and ranges, timing,
the input cells, the GPU catalog, the rules the schema states, titles, safe YAML, comments, templates.

A line item stands on it to declare its plan section; the full model with every section, the
loader and the schema stand above the line items, in `planfile/`.
"""
