"""`variance`'s default threshold, alone so that the command line reads it without the reference model."""

# `variance`'s default --threshold, in percent of a line's plan to date. A month-granular plan never lands on the
# cent: the FinOps Foundation's Forecasting capability (finops.org/framework/capabilities/forecasting, read
# 2026-12-02) finds organisations at its "Run" maturity reporting within 12 % of actual spend. 10 % sits just
# inside that: an overrun past it is more than a good forecast misses by. `--threshold 0` flags any overspend.
DEFAULT_THRESHOLD_PCT = 10.0
