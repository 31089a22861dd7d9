"""Bill formats: one module per format, each with its detection, column map and validation.

`registry.FORMATS` lists them in detection order (the first whose `detects` holds
for a file's header reads it). A format is a column layout (FOCUS 1.0 to 1.4, the
FOCUS 1.3/1.4 side datasets, the generic CSV); the container a file comes in (CSV
or Parquet, `source`) is told apart by its bytes. Shared by every format: `kit`
(DuckDB, SQL literals, the batch builder), `records` (the independent count of a
CSV's rows over its bytes), `checks` (numbers, calendar dates, currencies, counts).

Adding a format (a new FOCUS version, a provider-native export) is one module here,
one line in `registry.FORMATS` and one test.
"""
